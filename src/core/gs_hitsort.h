/* gs_hitsort.h - put hits in contract §3 order without a comparison sort of
 * the whole set.
 *
 * Hits are produced in sorted runs: a segment's hits (sorted where they are
 * made), a rank's hits, a GPU batch. The global order is then a merge of
 * those runs, or, when their ranges do not overlap, just their
 * concatenation; both cost a few passes over memory where qsort of 32-byte
 * records cost log2(n) passes of calls through a comparison function.
 */
#ifndef GS_HITSORT_H
#define GS_HITSORT_H

#include <stddef.h>
#include <stdint.h>

#include "gs_types.h"

/* Sort a[0..n) ascending, LSD radix over the low `bits` bits (all others
 * must be 0), 11 bits a pass; a pass whose digit is the same in every key
 * is skipped. tmp holds n keys. The result is in a. */
void gs_radix_sort_u64(uint64_t *a, uint64_t *tmp, size_t n, int bits);

/* Sort h in contract §3 order: its ascending runs are found and merged
 * pairwise (a sorted input costs one pass, k interleaved sorted runs
 * log2(k) passes). Returns 0, or -1 when out of memory (h unchanged). */
int gs_hits_sort(gs_hits *h);

#endif
