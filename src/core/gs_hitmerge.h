/* gs_hitmerge.h - a stream of hits in contract §3 order, and the k-way
 * merge of such streams.
 *
 * A writer that must not hold a rank's hits at once reads them from a
 * gs_hit_source a chunk at a time: a sorted array in memory, a run spilled
 * to disk (gs_spill.h), another rank's chunks (src/mpi), or the merge of
 * several of these. The merge keeps one buffer per source and a binary heap
 * of their heads, ordered by gs_hit_cmp (ties: the lower source first, so
 * the merge is stable).
 */
#ifndef GS_HITMERGE_H
#define GS_HITMERGE_H

#include <stddef.h>

#include "gs_error.h"
#include "gs_types.h"

/* Fill buf with up to cap next hits (*n of them; 0 at the end). */
typedef struct gs_hit_source {
    gs_status (*next)(void *ctx, gs_hit *buf, size_t cap, size_t *n, gs_error *err);
    void *ctx;
} gs_hit_source;

/* A sorted array as a source (not owned). */
typedef struct gs_hit_array_src {
    const gs_hit *v;
    size_t n, at;
} gs_hit_array_src;
gs_hit_source gs_hit_array_source(gs_hit_array_src *a, const gs_hit *v, size_t n);

typedef struct gs_hit_merge gs_hit_merge;

/* Merge src[0..k) (each sorted), reading each through a buffer of `buf`
 * hits (at least 1). The sources stay the caller's. GS_ESYS when out of
 * memory. */
gs_status gs_hit_merge_open(const gs_hit_source *src, size_t k, size_t buf, gs_hit_merge **m,
                            gs_error *err);
/* The merge as a source itself (next: gs_hit_merge_next). */
gs_status gs_hit_merge_next(void *m, gs_hit *out, size_t cap, size_t *n, gs_error *err);
gs_hit_source gs_hit_merge_source(gs_hit_merge *m);
void gs_hit_merge_close(gs_hit_merge *m);

#endif
