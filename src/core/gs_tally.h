/* gs_tally.h - per-unit counts of hits (--tally): the sparse table of
 * (unit, pattern, strand) -> count and smallest distance.
 *
 * A tally is made from the hits a rank holds (as reported: after
 * --best-per-site), first with the record as the unit; tallies of ranks that
 * hold disjoint hits add up (gs_tally_normalize over their concatenation),
 * and a record -> unit map (file, sample) turns the record tally into the
 * reported one (gs_tally_remap). Pure code: no MPI, no HDF5.
 */
#ifndef GS_TALLY_H
#define GS_TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "gs_error.h"
#include "gs_hitmerge.h"
#include "gs_hitsort.h"
#include "gs_types.h"

/* What a unit of a tally is (--tally). */
typedef enum gs_tally_unit {
    GS_TALLY_NONE = 0,
    GS_TALLY_RECORD = 1, /* a record of the corpus, in corpus order */
    GS_TALLY_FILE = 2,   /* a corpus file, in argument order */
    GS_TALLY_SAMPLE = 3  /* a sample of --samples, in order of first appearance */
} gs_tally_unit;

/* "record", "file", "sample" (NULL for none); the reverse (GS_TALLY_NONE
 * for a word that is none of them). */
const char *gs_tally_unit_name(gs_tally_unit u);
gs_tally_unit gs_tally_unit_of(const char *word);

/* One row: the hits of pattern on strand in unit. */
typedef struct gs_tally_row {
    uint64_t count;   /* hits, > 0 */
    uint32_t unit;    /* record id, or unit id after gs_tally_remap */
    uint32_t pattern;
    int8_t strand;    /* +1 forward, -1 reverse */
    uint8_t best;     /* smallest distance of these hits (0 in exact modes) */
} gs_tally_row;

typedef struct gs_tally {
    gs_tally_row *v;
    size_t n, cap;
} gs_tally;

/* One unit's counts while its hits go by: a dense (pattern, strand) array
 * and the entries touched, which gs_tally_counter_flush turns into rows in
 * (pattern, strand) order and clears. The one counting rule of hits and of
 * packed hit runs. Memory: n_pat * 2 + 1 entries of 13 bytes. */
typedef struct gs_tally_counter {
    uint64_t *count;
    uint8_t *best;
    uint32_t *touched;
    size_t n_touched, n_e;
} gs_tally_counter;

gs_status gs_tally_counter_init(gs_tally_counter *c, uint32_t n_pat, gs_error *err);
static inline void gs_tally_counter_add(gs_tally_counter *c, uint32_t pattern, int reverse,
                                        uint8_t distance, uint64_t n)
{
    size_t e = (size_t)pattern * 2 + (reverse != 0);
    uint64_t was = c->count[e];
    c->count[e] = was + n;
    if (was == 0) {
        c->touched[c->n_touched++] = (uint32_t)e;
        c->best[e] = distance;
    } else if (distance < c->best[e]) {
        c->best[e] = distance;
    }
}
/* The touched entries as rows of unit, appended to t. GS_ESYS when out of
 * memory (no message: the caller names what was short). */
gs_status gs_tally_counter_flush(gs_tally_counter *c, gs_tally *t, uint32_t unit);
void gs_tally_counter_free(gs_tally_counter *c);

/* Append the tally of hits h[0..n) (units = their records) to t; n_pat
 * patterns. Rows come out sorted and combined (gs_tally_normalize) when t
 * was empty. Memory: a counter besides the rows. */
gs_status gs_tally_add_hits(gs_tally *t, const gs_hit *h, size_t n, uint32_t n_pat,
                            gs_error *err);
/* The same for the hits src gives in contract §3 order, a chunk at a time
 * (hits spilled beyond --max-memory: gs_spill.h). GS_ESYS when out of
 * memory, or src's error. */
gs_status gs_tally_add_stream(gs_tally *t, gs_hit_source src, uint32_t n_pat, gs_error *err);
/* The same for the hits of a rank's runs of packed keys (gs_hitsort.h),
 * without making hit records of them: a run's keys are counted per segment
 * of its table. Every hit of the runs counts once, so this is the tally of
 * exact hits; approximate runs may overlap and are expanded and merged
 * first (gs_hit_runs_expand). The runs are put in corpus order first
 * (gs_hit_runs_order) and counted in shares of about equal hits on up to
 * `threads` threads; a record whose hits two runs hold has its rows put in
 * order where they meet, so rows come out sorted and are combined without
 * a sort of the whole. */
gs_status gs_tally_add_runs(gs_tally *t, gs_hit_runs *rs, uint32_t n_pat, int threads,
                            gs_error *err);
/* Keys as a GPU batch or a run holds them (gs_hitsort.h): keys[0..n)
 * ascending, each counted into c under the record field of the segment of
 * segs[0..n_seg) it lies in (a segment's keys are contiguous: keys ascend
 * in position and segments in their off); the rows of the unit c holds
 * (*unit, when it holds any) flushed to t where that field changes, and
 * left in c at the end, so that batches counted one after the other under
 * one unit (a file's, gs_run_owner) make one set of rows. GS_ESYS when out
 * of memory (no message). */
gs_status gs_tally_count_keys(gs_tally *t, gs_tally_counter *c, uint32_t *unit,
                             const uint64_t *keys, size_t n, const gs_run_seg *segs, size_t n_seg,
                             gs_key_layout lay);
/* Append src's rows to dst (its array taken where dst has none); src is
 * left empty. GS_ESYS when out of memory (src unchanged). */
gs_status gs_tally_move(gs_tally *dst, gs_tally *src, gs_error *err);
/* Sort rows by (unit, pattern, strand: forward first) and combine rows of
 * one key: counts add, the smallest best is kept. */
void gs_tally_normalize(gs_tally *t);
/* Every row's unit becomes map[unit] (map NULL: it stays), then the rows
 * are put in order and combined: a stable counting sort by unit, then each
 * unit's rows through a counter, so no comparison sort of the rows (a
 * record tally is as large as the hits when most records hold a pattern
 * once; a tally by file from many batches repeats each file's rows); rows
 * already in unit order that map keeps in order (records to their files)
 * skip the sort. GS_ESYS when out of memory (t unchanged). */
gs_status gs_tally_remap(gs_tally *t, const uint32_t *map, gs_error *err);
/* The same where each unit is a range of consecutive records (files):
 * unit u holds records first[u] .. first[u + 1] - 1 (n_units + 1 entries,
 * ascending; an empty unit has none), and t is normalized (rows in record
 * order, every record below first[n_units]). No map of every record is
 * made: at 5 * 10^7 reads, writing one took longer than the remap. */
gs_status gs_tally_remap_ranges(gs_tally *t, const size_t *first, uint32_t n_units, gs_error *err);
/* Sum of the counts of rows of pattern p, strand s (0 forward, 1 reverse)
 * into sums[p * n_strands + s] (zeroed first; n_pat * n_strands entries). */
void gs_tally_sums(const gs_tally *t, uint32_t n_pat, int n_strands, uint64_t *sums);
void gs_tally_free(gs_tally *t);

#endif
