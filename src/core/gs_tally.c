/* gs_tally.c - hits to a sparse per-unit tally, and tallies combined (see
 * gs_tally.h).
 *
 * Hits arrive sorted by record (contract order), so a record's hits are one
 * run: they are counted into a dense (pattern, strand) array and the entries
 * the run touched become its rows, in order, and are cleared. The cost is
 * one pass over the hits plus a sort of each record's touched entries, and
 * the memory two arrays of patterns x 2 entries, whatever the hit count.
 * Hits out of record order still count right: their rows are combined by
 * the final normalize.
 */
#include "gs_tally.h"

#include <stdlib.h>
#include <string.h>

static const char *const unit_names[] = {NULL, "record", "file", "sample"};

const char *gs_tally_unit_name(gs_tally_unit u)
{
    return (unsigned)u < sizeof unit_names / sizeof *unit_names ? unit_names[u] : NULL;
}

gs_tally_unit gs_tally_unit_of(const char *word)
{
    for (int u = GS_TALLY_RECORD; u <= GS_TALLY_SAMPLE; u++)
        if (word && !strcmp(word, unit_names[u]))
            return (gs_tally_unit)u;
    return GS_TALLY_NONE;
}

static int row_cmp(const void *pa, const void *pb)
{
    const gs_tally_row *a = pa, *b = pb;
    if (a->unit != b->unit)
        return a->unit < b->unit ? -1 : 1;
    if (a->pattern != b->pattern)
        return a->pattern < b->pattern ? -1 : 1;
    return (a->strand < b->strand) - (a->strand > b->strand); /* +1 first */
}

static int u32_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return (a > b) - (a < b);
}

void gs_tally_normalize(gs_tally *t)
{
    int sorted = 1;
    for (size_t i = 1; i < t->n && sorted; i++)
        sorted = row_cmp(&t->v[i - 1], &t->v[i]) < 0;
    if (sorted)
        return;
    qsort(t->v, t->n, sizeof *t->v, row_cmp);
    size_t o = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (o > 0 && row_cmp(&t->v[o - 1], &t->v[i]) == 0) {
            t->v[o - 1].count += t->v[i].count;
            if (t->v[i].best < t->v[o - 1].best)
                t->v[o - 1].best = t->v[i].best;
        } else {
            t->v[o++] = t->v[i];
        }
    }
    t->n = o;
}

void gs_tally_remap(gs_tally *t, const uint32_t *map)
{
    for (size_t i = 0; i < t->n; i++)
        t->v[i].unit = map[t->v[i].unit];
    gs_tally_normalize(t);
}

/* The rows of one record's run: the touched entries in (pattern, strand)
 * order, then cleared. Entry e = pattern * 2 + (reverse). A run that
 * touched more than a sixteenth of the n_e entries reads them in order off
 * the dense array instead of sorting (short patterns over long records:
 * the sort was a fifth of the scan). */
static gs_status flush_run(gs_tally *t, uint32_t record, uint32_t *touched, size_t n_touched,
                           size_t n_e, uint64_t *count, uint8_t *best)
{
    if (n_touched > n_e / 16) {
        n_touched = 0;
        for (size_t e = 0; e < n_e; e++)
            if (count[e])
                touched[n_touched++] = (uint32_t)e;
    } else {
        qsort(touched, n_touched, sizeof *touched, u32_cmp);
    }
    for (size_t i = 0; i < n_touched; i++) {
        uint32_t e = touched[i];
        if (gs_grow(&t->v, &t->cap, t->n, sizeof *t->v, 1024) != GS_OK)
            return GS_ESYS;
        t->v[t->n++] = (gs_tally_row){.count = count[e], .unit = record, .pattern = e >> 1,
                                      .strand = (e & 1) ? -1 : 1, .best = best[e]};
        count[e] = 0;
    }
    return GS_OK;
}

gs_status gs_tally_add_hits(gs_tally *t, const gs_hit *h, size_t n, uint32_t n_pat,
                            gs_error *err)
{
    size_t n_e = (size_t)n_pat * 2 + 1;
    uint64_t *count = gs_calloc(n_e, sizeof *count, err, "tally");
    uint8_t *best = gs_malloc(n_e, err, "tally");
    uint32_t *touched = gs_malloc(n_e * sizeof *touched, err, "tally");
    gs_status st = count && best && touched ? GS_OK : GS_ESYS;
    size_t n_touched = 0;
    for (size_t i = 0; st == GS_OK && i < n; i++) {
        uint32_t e = h[i].pattern * 2 + (h[i].strand < 0);
        if (count[e]++ == 0) {
            touched[n_touched++] = e;
            best[e] = h[i].distance;
        } else if (h[i].distance < best[e]) {
            best[e] = h[i].distance;
        }
        if (i + 1 == n || h[i + 1].record != h[i].record) {
            st = flush_run(t, h[i].record, touched, n_touched, n_e, count, best);
            n_touched = 0;
        }
    }
    if (st != GS_OK && err->code == GS_OK)
        gs_fail(err, GS_ESYS, "out of memory (tally of %zu hits)", n);
    free(count);
    free(best);
    free(touched);
    if (st == GS_OK)
        gs_tally_normalize(t);
    return st;
}

void gs_tally_sums(const gs_tally *t, uint32_t n_pat, int n_strands, uint64_t *sums)
{
    memset(sums, 0, (size_t)n_pat * (size_t)n_strands * sizeof *sums);
    for (size_t i = 0; i < t->n; i++) {
        int s = t->v[i].strand < 0;
        if (t->v[i].pattern < n_pat && s < n_strands)
            sums[(size_t)t->v[i].pattern * (size_t)n_strands + (size_t)s] += t->v[i].count;
    }
}

void gs_tally_free(gs_tally *t)
{
    free(t->v);
    memset(t, 0, sizeof *t);
}
