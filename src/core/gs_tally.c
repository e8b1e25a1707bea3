/* gs_tally.c - hits to a sparse per-unit tally, and tallies combined (see
 * gs_tally.h).
 *
 * Hits arrive sorted by record (contract order), so a record's hits are one
 * run: they are counted into a dense (pattern, strand) array and the entries
 * the run touched become its rows, in order, and are cleared. Exact hits
 * are tallied the same way straight from the scan's runs of packed keys,
 * segment by segment: making a 32-byte record of each hit only to count it
 * tripled a run with 3 M hits. The cost is
 * one pass over the hits plus a sort of each record's touched entries, and
 * the memory two arrays of patterns x 2 entries, whatever the hit count.
 * Hits out of record order still count right: their rows are combined by
 * the final normalize.
 */
#include "gs_tally.h"
#include "gs_parallel.h"

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
    int sorted = 1, strict = 1;
    for (size_t i = 1; i < t->n && sorted; i++) {
        int c = row_cmp(&t->v[i - 1], &t->v[i]);
        sorted = c <= 0;
        strict &= c < 0;
    }
    if (sorted && strict)
        return;
    if (!sorted) /* else only neighbours combine: a record split among segments */
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

/* Rows in unit order whose new units keep that order (a file's records
 * are consecutive): each new unit's rows through a counter as they come,
 * written over t (a unit's combined rows are no more than its rows, so
 * none is written before it is read). The new unit of a row: map[unit],
 * or with map NULL the range of first[0 .. n_units] that holds it, or with
 * neither its own. */
static gs_status remap_in_order(gs_tally *t, const uint32_t *map, const size_t *first,
                                uint32_t n_units, uint32_t n_pat, gs_error *err)
{
    gs_tally_counter c;
    if (gs_tally_counter_init(&c, n_pat, err) != GS_OK) {
        gs_tally_counter_free(&c);
        return GS_ESYS;
    }
    const size_t n = t->n;
    uint32_t u = 0, unit = 0;
    t->n = 0;
    for (size_t i = 0; i < n; i++) {
        const gs_tally_row r = t->v[i];
        while (first && u + 1 < n_units && first[u + 1] <= r.unit)
            u++; /* records ascend: the range only moves on */
        const uint32_t to = map ? map[r.unit] : first ? u : r.unit;
        if (i > 0 && to != unit)
            gs_tally_counter_flush(&c, t, unit); /* within t's capacity */
        unit = to;
        gs_tally_counter_add(&c, r.pattern, r.strand < 0, r.best, r.count);
    }
    if (n > 0)
        gs_tally_counter_flush(&c, t, unit);
    gs_tally_counter_free(&c);
    return GS_OK;
}

gs_status gs_tally_remap_ranges(gs_tally *t, const size_t *first, uint32_t n_units, gs_error *err)
{
    uint32_t n_pat = 0;
    for (size_t i = 0; i < t->n; i++)
        n_pat = t->v[i].pattern >= n_pat ? t->v[i].pattern + 1 : n_pat;
    return remap_in_order(t, NULL, first, n_units, n_pat, err);
}

gs_status gs_tally_remap(gs_tally *t, const uint32_t *map, gs_error *err)
{
    uint32_t n_units = 0, n_pat = 0;
    int in_order = 1;
#define NEW_UNIT(u) (map ? map[u] : (u))
    for (size_t i = 0; i < t->n; i++) {
        uint32_t u = NEW_UNIT(t->v[i].unit);
        in_order &= i == 0 || (t->v[i - 1].unit <= t->v[i].unit && NEW_UNIT(t->v[i - 1].unit) <= u);
        n_units = u >= n_units ? u + 1 : n_units;
        n_pat = t->v[i].pattern >= n_pat ? t->v[i].pattern + 1 : n_pat;
    }
    if (in_order)
        return remap_in_order(t, map, NULL, 0, n_pat, err);
    gs_tally out = {.v = gs_malloc((t->n ? t->n : 1) * sizeof *t->v, err, "tally"), .cap = t->n};
    size_t *first = gs_calloc((size_t)n_units + 1, sizeof *first, err, "tally");
    gs_tally_counter c;
    gs_status st = out.v && first ? gs_tally_counter_init(&c, n_pat, err) : GS_ESYS;
    if (st != GS_OK) {
        free(out.v);
        free(first);
        return GS_ESYS;
    }
    gs_tally_row *by_unit = out.v; /* the sort's output; rows are written back into t */
    for (size_t i = 0; i < t->n; i++)
        first[NEW_UNIT(t->v[i].unit) + 1]++;
    for (uint32_t u = 0; u < n_units; u++)
        first[u + 1] += first[u];
    for (size_t i = 0; i < t->n; i++) {
        gs_tally_row r = t->v[i];
        r.unit = NEW_UNIT(r.unit);
        by_unit[first[r.unit]++] = r;
    }
#undef NEW_UNIT
    t->n = 0; /* each unit's combined rows are no more than its rows: written over t */
    for (size_t i = 0; i < out.cap; i++) {
        gs_tally_counter_add(&c, by_unit[i].pattern, by_unit[i].strand < 0, by_unit[i].best,
                             by_unit[i].count);
        if (i + 1 == out.cap || by_unit[i + 1].unit != by_unit[i].unit)
            gs_tally_counter_flush(&c, t, by_unit[i].unit); /* within t's capacity */
    }
    gs_tally_counter_free(&c);
    free(by_unit);
    free(first);
    return GS_OK;
}

gs_status gs_tally_counter_init(gs_tally_counter *c, uint32_t n_pat, gs_error *err)
{
    memset(c, 0, sizeof *c);
    c->n_e = (size_t)n_pat * 2 + 1;
    c->count = gs_calloc(c->n_e, sizeof *c->count, err, "tally");
    c->best = gs_malloc(c->n_e, err, "tally");
    c->touched = gs_malloc(c->n_e * sizeof *c->touched, err, "tally");
    return c->count && c->best && c->touched ? GS_OK : GS_ESYS;
}

/* A unit that touched more than a sixteenth of the entries reads them in
 * order off the dense array instead of sorting (short patterns over long
 * records: the sort was a fifth of the scan). */
gs_status gs_tally_counter_flush(gs_tally_counter *c, gs_tally *t, uint32_t unit)
{
    size_t n = c->n_touched;
    if (n > c->n_e / 16) {
        n = 0;
        for (size_t e = 0; e < c->n_e; e++)
            if (c->count[e])
                c->touched[n++] = (uint32_t)e;
    } else {
        qsort(c->touched, n, sizeof *c->touched, u32_cmp);
    }
    c->n_touched = 0;
    if (n > 0 && gs_grow(&t->v, &t->cap, t->n + n - 1, sizeof *t->v, 1024) != GS_OK) {
        for (size_t i = 0; i < n; i++)
            c->count[c->touched[i]] = 0;
        return GS_ESYS;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t e = c->touched[i];
        t->v[t->n++] = (gs_tally_row){.count = c->count[e], .unit = unit, .pattern = e >> 1,
                                      .strand = (e & 1) ? -1 : 1, .best = c->best[e]};
        c->count[e] = 0;
    }
    return GS_OK;
}

void gs_tally_counter_free(gs_tally_counter *c)
{
    free(c->count);
    free(c->best);
    free(c->touched);
    memset(c, 0, sizeof *c);
}

/* Hits h[0..n) into c, the rows of record *rec (the one c holds, when it
 * holds any) flushed to t where the record changes; with last, the final
 * record's too. A stream's chunks go through one after the other. */
static gs_status count_hits(gs_tally *t, gs_tally_counter *c, const gs_hit *h, size_t n,
                            uint32_t *rec, int last)
{
    for (size_t i = 0; i < n; i++) {
        if (c->n_touched && h[i].record != *rec && gs_tally_counter_flush(c, t, *rec) != GS_OK)
            return GS_ESYS;
        *rec = h[i].record;
        gs_tally_counter_add(c, h[i].pattern, h[i].strand < 0, h[i].distance, 1);
    }
    return last && c->n_touched ? gs_tally_counter_flush(c, t, *rec) : GS_OK;
}

gs_status gs_tally_add_hits(gs_tally *t, const gs_hit *h, size_t n, uint32_t n_pat,
                            gs_error *err)
{
    gs_tally_counter c;
    uint32_t rec = 0;
    gs_status st = gs_tally_counter_init(&c, n_pat, err);
    if (st == GS_OK)
        st = count_hits(t, &c, h, n, &rec, 1);
    if (st != GS_OK && err->code == GS_OK)
        gs_fail(err, GS_ESYS, "out of memory (tally of %zu hits)", n);
    gs_tally_counter_free(&c);
    if (st == GS_OK)
        gs_tally_normalize(t);
    return st;
}

gs_status gs_tally_add_stream(gs_tally *t, gs_hit_source src, uint32_t n_pat, gs_error *err)
{
    enum { CHUNK = 1 << 14 };
    gs_tally_counter c;
    uint32_t rec = 0;
    gs_hit *buf = gs_malloc(CHUNK * sizeof *buf, err, "tally");
    gs_status st = buf ? gs_tally_counter_init(&c, n_pat, err) : GS_ESYS;
    for (size_t n = 1; st == GS_OK && n > 0;)
        if ((st = src.next(src.ctx, buf, CHUNK, &n, err)) == GS_OK &&
            count_hits(t, &c, buf, n, &rec, n == 0) != GS_OK)
            st = gs_fail(err, GS_ESYS, "out of memory (tally of hits)");
    if (buf)
        gs_tally_counter_free(&c);
    free(buf);
    if (st == GS_OK)
        gs_tally_normalize(t);
    return st;
}

gs_status gs_tally_count_keys(gs_tally *t, gs_tally_counter *c, uint32_t *unit,
                             const uint64_t *keys, size_t n, const gs_run_seg *segs, size_t n_seg,
                             gs_key_layout lay)
{
    const gs_run_seg *b = segs, *last = segs + (n_seg ? n_seg - 1 : 0);
    for (size_t i = 0; i < n; i++) {
        const uint64_t k = keys[i], pos = gs_hitkey_pos(lay, k);
        while (b < last && b[1].off <= pos)
            b++;
        if (c->n_touched && b->record != *unit && gs_tally_counter_flush(c, t, *unit) != GS_OK)
            return GS_ESYS;
        *unit = b->record;
        gs_tally_counter_add(c, gs_hitkey_pattern(lay, k), (int)gs_hitkey_strand(lay, k),
                             (uint8_t)gs_hitkey_dist(lay, k), 1);
    }
    return GS_OK;
}

/* Run r's keys into c (gs_tally_count_keys); the rows of the record c
 * holds (*rec, when it holds any) flushed to t where the record changes,
 * not at the run's end: runs in corpus order go through one after the
 * other, so a record that spans runs (a chromosome in many batches) is
 * counted once into one set of rows. */
static gs_status add_run(gs_tally *t, gs_tally_counter *c, const gs_hit_run *r, uint32_t *rec)
{
    if (r->hits)
        return count_hits(t, c, r->hits, r->n, rec, 0);
    return gs_tally_count_keys(t, c, rec, r->keys, r->n, r->segs ? r->segs : &r->first,
                               r->segs ? r->n_seg : 1, r->lay);
}

/* t's rows [from, n) were just appended: where the unit of row from - 1
 * goes on at from (a record whose hits two shares counted), that unit's
 * rows are put in order, so that t stays sorted and gs_tally_normalize only
 * combines neighbours (each side holds one flush: at most 2 x patterns
 * rows). */
static void mend_seam(gs_tally *t, size_t from)
{
    if (from == 0 || from >= t->n || t->v[from - 1].unit != t->v[from].unit)
        return;
    const uint32_t u = t->v[from].unit;
    size_t a = from - 1, b = from;
    while (a > 0 && t->v[a - 1].unit == u)
        a--;
    while (b < t->n && t->v[b].unit == u)
        b++;
    qsort(t->v + a, b - a, sizeof *t->v, row_cmp);
}

/* Runs [first, end) of rs, in order, tallied on a thread of their own. */
typedef struct tally_share {
    const gs_hit_runs *rs;
    size_t first, end;
    uint32_t n_pat;
    gs_tally t;
    gs_status st;
} tally_share;

static void *tally_share_main(void *arg)
{
    tally_share *s = arg;
    gs_tally_counter c;
    gs_error ignored = {0}; /* the caller names what was short */
    uint32_t rec = 0;
    s->st = gs_tally_counter_init(&c, s->n_pat, &ignored);
    for (size_t i = s->first; s->st == GS_OK && i < s->end; i++)
        s->st = add_run(&s->t, &c, &s->rs->v[i], &rec);
    if (s->st == GS_OK && c.n_touched)
        s->st = gs_tally_counter_flush(&c, &s->t, rec);
    gs_tally_counter_free(&c);
    return NULL;
}

/* Shares of about equal hits, one a thread, at least TALLY_SHARE hits each;
 * their counters (13 bytes an entry, 2 x patterns entries) kept within
 * TALLY_COUNTERS bytes together. */
enum { TALLY_SHARE = 4096 };
#define TALLY_COUNTERS ((size_t)64 << 20)

gs_status gs_tally_add_runs(gs_tally *t, gs_hit_runs *rs, uint32_t n_pat, int threads,
                            gs_error *err)
{
    gs_hit_runs_order(rs);
    const size_t per = ((size_t)n_pat * 2 + 1) * 13;
    int nt = gs_parallel_threads(threads, rs->n_hits / TALLY_SHARE);
    if ((size_t)nt * per > TALLY_COUNTERS)
        nt = TALLY_COUNTERS / per > 1 ? (int)(TALLY_COUNTERS / per) : 1;
    tally_share *sh = gs_calloc((size_t)nt, sizeof *sh, err, "tally");
    if (sh == NULL)
        return GS_ESYS;
    size_t i = 0, hits = 0;
    for (int k = 0; k < nt; k++) { /* runs until the share's end in hits */
        const size_t stop = k + 1 == nt ? SIZE_MAX : rs->n_hits / (size_t)nt * (size_t)(k + 1);
        sh[k] = (tally_share){.rs = rs, .first = i, .n_pat = n_pat};
        for (; i < rs->n && hits < stop; i++)
            hits += rs->v[i].n;
        sh[k].end = i;
    }
    gs_run_parallel(tally_share_main, sh, sizeof *sh, nt);
    gs_status st = GS_OK;
    size_t rows = 0;
    for (int k = 0; k < nt; k++) {
        rows += sh[k].t.n;
        st = st == GS_OK ? sh[k].st : st;
    }
    if (st == GS_OK && rows > 0 && gs_grow(&t->v, &t->cap, t->n + rows - 1, sizeof *t->v, 1024) != GS_OK)
        st = GS_ESYS;
    for (int k = 0; k < nt; k++) {
        const size_t from = t->n;
        if (st == GS_OK && sh[k].t.n > 0) {
            memcpy(t->v + t->n, sh[k].t.v, sh[k].t.n * sizeof *t->v);
            t->n += sh[k].t.n;
            mend_seam(t, from);
        }
        gs_tally_free(&sh[k].t);
    }
    free(sh);
    if (st != GS_OK)
        return gs_fail(err, GS_ESYS, "out of memory (tally of %zu hits)", rs->n_hits);
    gs_tally_normalize(t);
    return GS_OK;
}

gs_status gs_tally_move(gs_tally *dst, gs_tally *src, gs_error *err)
{
    if (dst->n == 0) { /* its array taken as it is */
        gs_tally_free(dst);
        *dst = *src;
        memset(src, 0, sizeof *src);
        return GS_OK;
    }
    if (src->n > 0) {
        if (gs_grow(&dst->v, &dst->cap, dst->n + src->n - 1, sizeof *dst->v, 1024) != GS_OK)
            return gs_fail(err, GS_ESYS, "out of memory (tally of %zu rows)", dst->n + src->n);
        memcpy(dst->v + dst->n, src->v, src->n * sizeof *src->v);
        dst->n += src->n;
    }
    gs_tally_free(src);
    return GS_OK;
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
