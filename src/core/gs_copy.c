/* gs_copy.c - memcpy of large buffers on several threads (gs_copy.h).
 *
 * Threads are started per call: a call moves megabytes (a GPU batch is a
 * block of 16 MiB or more), so the tens of microseconds a thread costs are
 * small beside the copy, and no pool outlives the call.
 */
#define _POSIX_C_SOURCE 200809L
#include "gs_copy.h"

#include <string.h>

#include "gs_parallel.h"

enum { MAX_THREADS = 16 };

typedef struct piece {
    char *dst;
    const char *src;
    size_t n;
} piece;

static void *copy_piece(void *arg)
{
    piece *p = arg;
    memcpy(p->dst, p->src, p->n);
    return NULL;
}

void gs_copy(void *dst, const void *src, size_t n, int threads)
{
    size_t most = n / GS_COPY_SLICE;
    int t = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    if ((size_t)t > most)
        t = most ? (int)most : 1;
    if (t == 1) {
        memcpy(dst, src, n);
        return;
    }
    /* slices of whole cache lines; the caller copies the first */
    size_t step = ((n + (size_t)t - 1) / (size_t)t + 63) & ~(size_t)63;
    piece p[MAX_THREADS];
    for (int i = 0; i < t; i++) {
        size_t at = (size_t)i * step;
        p[i].dst = (char *)dst + at;
        p[i].src = (const char *)src + at;
        p[i].n = at >= n ? 0 : n - at < step ? n - at : step;
    }
    gs_run_parallel(copy_piece, p, sizeof *p, t);
}
