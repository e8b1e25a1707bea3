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

#include "gs_error.h"
#include "gs_hitkey.h"
#include "gs_types.h"

/* Sort a[0..n) ascending, LSD radix over the low `bits` bits (all others
 * must be 0), 11 bits a pass; a pass whose digit is the same in every key
 * is skipped. tmp holds n keys. The result is in a. */
void gs_radix_sort_u64(uint64_t *a, uint64_t *tmp, size_t n, int bits);

/* Sort h in contract §3 order: its ascending runs are found and merged
 * pairwise (a sorted input costs one pass, k interleaved sorted runs
 * log2(k) passes). GS_ESYS when out of memory (h unchanged; no message:
 * callers fall back to sorting in place). */
gs_status gs_hits_sort(gs_hits *h);
/* The same, or in place (qsort) when the merge finds no memory. */
void gs_hits_order(gs_hits *h);

/* ---- hits as sorted runs of packed keys, 8 bytes a hit until the end ----
 *
 * Every producer (a CPU worker's segment, a GPU batch) hands over its hits
 * as one sorted run of 64-bit keys; the rank's runs are kept as they are
 * while the scan goes on and turned into gs_hit records once, at the end,
 * on all threads (gs_hit_runs_expand). The key and its layout are
 * gs_hitkey.h's; positions are relative to the segment table below. */

/* Where a segment's positions lie among its run's: a key at position pos
 * (off <= pos < the next segment's off) is the hit at record position
 * base + (pos - off) of record. */
typedef struct gs_run_seg {
    uint64_t base;   /* record position of key position off */
    uint32_t off;    /* first key position of the segment */
    uint32_t record;
    uint32_t own;    /* starts it owns: the record's next segment has base + own
                      * (read by gs_hit_runs_add_batch only) */
    uint32_t turn;   /* a circular record's length less base when the text runs
                      * past it (gs_segment.turn), else 0: approximate hits
                      * starting there are dropped (gs_hit_runs_add_batch) */
} gs_run_seg;

/* The id a segment's hits go under in its run's table: its record, or
 * with by_file its file (a scan that only tallies its exact hits by file:
 * gs_tally_count_keys then counts a file's hits as one unit, whatever
 * records hold them). */
static inline uint32_t gs_run_owner(const gs_segment *x, int by_file)
{
    return by_file ? x->file : x->record;
}

/* Memory that the runs of GPU batches are carved from (gs_hitsort.c),
 * shared by the runs in it and freed with the last of them. */
typedef struct gs_run_chunk gs_run_chunk;

/* One run: n hits in contract §3 order, as keys or (when a segment's
 * fields do not fit 64 bits) as records. Everything it points to is its
 * own (or, with chunk set, lies in chunk) and freed by the run set. */
typedef struct gs_hit_run {
    uint64_t *keys;   /* [n] ascending, or NULL when hits is set */
    gs_hit *hits;     /* [n] records, or NULL */
    size_t n;
    gs_run_seg first; /* the segment of the run's first hit (often the only one) */
    gs_run_seg *segs; /* [n_seg] the segments that hold its hits, ascending in
                       * off and in corpus order (segs[0] == first), or NULL:
                       * first is the only one */
    size_t n_seg;
    gs_key_layout lay;
    gs_run_chunk *chunk; /* where keys and segs lie (add_batch), or NULL */
} gs_hit_run;

/* A rank's runs, in any order. */
typedef struct gs_hit_runs {
    gs_hit_run *v;
    size_t n, cap;
    size_t n_hits;       /* sum of the runs' n */
    gs_run_chunk *carve; /* add_batch's runs are carved from it; kept when the
                          * runs are moved away, let go by gs_hit_runs_free */
} gs_hit_runs;

/* Take r (and what it points to) into rs. GS_ESYS when out of memory (r is
 * then still the caller's). */
gs_status gs_hit_runs_push(gs_hit_runs *rs, const gs_hit_run *r, gs_error *err);

/* One GPU batch: keys[0..n) ascending (key positions in the batch's packed
 * text, none before segs[0].off), segs[0..n_seg) the batch's segments
 * ascending in off (each the text of one gs_segment, in the order they
 * were submitted). The keys are copied, on up to `threads` threads, into
 * chunks of memory that rs carves runs from (one block for a run's keys
 * and segments, huge pages where the system gives them); the batch is cut
 * into runs wherever
 * a segment does not directly follow the one before in the corpus (a batch
 * packed from several readers' buffers), so runs never interleave. With span
 * > 0 (approximate modes, hits owned by their end: engine.h), a hit whose
 * end lies less than span past the start of a segment with base > 0 is the
 * previous segment's and dropped, as is one starting at a segment's turn or
 * past it (the record's first segment owns it). */
gs_status gs_hit_runs_add_batch(gs_hit_runs *rs, const uint64_t *keys, size_t n,
                                const gs_run_seg *segs, size_t n_seg, gs_key_layout lay,
                                uint32_t span, int threads, gs_error *err);

/* Move every run of src to the end of dst (src is left without runs; it
 * carves the next ones where it left off). */
gs_status gs_hit_runs_move(gs_hit_runs *dst, gs_hit_runs *src, gs_error *err);

/* Order the runs by their first segment: corpus order. */
void gs_hit_runs_order(gs_hit_runs *rs);

/* The hits of all runs in contract §3 order, into *hits (whose previous
 * vector is freed). Runs are ordered by their first segment, expanded in
 * parallel pieces on `threads` threads, each run freed once expanded (a
 * chunk once its last run is: the peak is about 40 bytes a hit), and
 * where two neighbours overlap (approximate hits owned by their end,
 * interleaved readers) their overlap is merged.
 * rs is left empty, also on failure. */
gs_status gs_hit_runs_expand(gs_hit_runs *rs, int threads, gs_hits *hits, gs_error *err);

void gs_hit_runs_free(gs_hit_runs *rs);

#endif
