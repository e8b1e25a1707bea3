/* gs_mapguard.h - reads of a mapped file that survive the file being cut
 * under the map.
 *
 * A page of a mapping that lies past the end of its file, because the file
 * was truncated after it was mapped, raises SIGBUS when touched: the job
 * would die with exit 135 and no message, where a read() of the same bytes
 * returns short and the reader names the file. A guard turns that SIGBUS
 * into a return to the point where the guard was armed, on the thread that
 * touched the page, so the mapped reader can fail like the read() one:
 *
 *     gs_mapguard g;
 *     gs_mapguard_arm(&g, map, len);
 *     if (sigsetjmp(g.env, 0)) {           (1: a page of [map, map+len) faulted)
 *         gs_mapguard_disarm(&g);
 *         return gs_mapguard_fail(err, name);
 *     }
 *     ... read map[0, len) ...
 *     gs_mapguard_disarm(&g);
 *
 * Guards nest per thread; a SIGBUS outside every armed range (or on a thread
 * with none) goes to the handler that was there before, or kills as before.
 * A fault comes only from a read of the guarded bytes, so code in between
 * may allocate or lock around those reads, never inside them; what a jump
 * abandons (memory of the frames it leaves, a structure half-updated at the
 * faulting read) must not be used afterwards, and locals the fault path
 * reads after changing them past sigsetjmp must be volatile. Arming costs a sigaction() query (to install the
 * handler if another library replaced it) and a setjmp: once per region of
 * megabytes, not per byte.
 */
#ifndef GS_MAPGUARD_H
#define GS_MAPGUARD_H

#include <setjmp.h>
#include <stddef.h>

#include "gs_error.h"

typedef struct gs_mapguard {
    sigjmp_buf env;
    const unsigned char *lo, *hi; /* the guarded bytes */
    struct gs_mapguard *prev;     /* the guard armed before on this thread */
} gs_mapguard;

void gs_mapguard_arm(gs_mapguard *g, const void *p, size_t n);
void gs_mapguard_disarm(gs_mapguard *g);

/* A guarded fault's error: GS_EINPUT "changed while being read: ... (file)",
 * the message the read() paths give for a file cut while they read it. */
gs_status gs_mapguard_fail(gs_error *err, const char *file);

#endif
