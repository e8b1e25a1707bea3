/* sites.h - --best-per-site (contract §1): one hit per site.
 *
 * A site is a run of hits of one (pattern, record, strand) whose [start, end)
 * intervals overlap, directly or through others. It is reported by its hit
 * of smallest distance, then smallest start, then smallest end. The rule
 * needs every hit of a (pattern, record, strand) at once, since a site can
 * cross any block or rank boundary, so it runs once on the gathered hits.
 */
#ifndef GS_SITES_H
#define GS_SITES_H

#include "core/gs_error.h"
#include "core/gs_types.h"

/* Keep one hit per site; h is sorted in contract §3 order before and after. */
void gs_hits_best_per_site(gs_hits *h);

/* counts[p * n_strands + s] += the hits of pattern p on strand s, for the
 * n_counts = patterns x n_strands entries; on up to `threads` threads, each
 * counting a share into an array of its own (one thread when those arrays
 * cannot be had). */
void gs_hits_count(const gs_hits *h, int n_strands, size_t n_counts, uint64_t *counts,
                  int threads);

#endif
