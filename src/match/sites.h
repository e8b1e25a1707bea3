/* sites.h - --best-per-site (contract §1): one hit per site.
 *
 * A site is a run of hits of one (pattern, record, strand) whose [start, end)
 * intervals overlap, directly or through others. It is reported by its hit
 * of smallest distance, then smallest start, then smallest end. A site can
 * cross any block or rank boundary, so the rule runs on the gathered hits:
 * on all of them in memory (gs_hits_best_per_site), or on the merged stream
 * of hits spilled beyond --max-memory, a chunk at a time (gs_sites). Both
 * are the one rule of gs_sites_add.
 */
#ifndef GS_SITES_H
#define GS_SITES_H

#include "core/gs_error.h"
#include "core/gs_types.h"

/* The open site of each (pattern, strand) while hits go by in contract §3
 * order: a pattern and strand's hits come in (record, start, end) order
 * then, so its sites are runs of them. Memory: 48 bytes a pattern and
 * strand, whatever the hits. */
typedef struct gs_site {
    gs_hit best;    /* its best hit so far */
    uint64_t reach; /* the largest end of its hits */
    int open;
} gs_site;
typedef struct gs_sites {
    gs_site *v; /* [n_patterns * 2]: pattern * 2 + (strand < 0) */
    uint32_t n_patterns;
} gs_sites;

gs_status gs_sites_init(gs_sites *s, uint32_t n_patterns, gs_error *err);
/* Take h, the next hit in contract §3 order. When it closes the open site of
 * its pattern and strand (it lies in another record or starts at or past
 * the site's reach), that site's best hit goes to *won (which may be *h)
 * and 1 is returned. */
int gs_sites_add(gs_sites *s, const gs_hit *h, gs_hit *won);
/* The best hits of the sites still open into out[0..return), at most
 * 2 x n_patterns, in no order; every site closed. */
size_t gs_sites_end(gs_sites *s, gs_hit *out);
void gs_sites_free(gs_sites *s);

/* Keep one hit per site; h (of patterns 0 .. n_patterns - 1) is sorted in
 * contract §3 order before and after. GS_ESYS when out of memory (h
 * unchanged). */
gs_status gs_hits_best_per_site(gs_hits *h, uint32_t n_patterns, gs_error *err);

/* counts[p * n_strands + s] += the hits of pattern p on strand s, for the
 * n_counts = patterns x n_strands entries; on up to `threads` threads, each
 * counting a share into an array of its own (one thread when those arrays
 * cannot be had). */
void gs_hits_count(const gs_hits *h, int n_strands, size_t n_counts, uint64_t *counts,
                  int threads);

#endif
