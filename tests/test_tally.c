/* test_tally.c - the sparse tally (gs_tally.h) against a dense count made
 * hit by hit: random hits sorted as ranks hand them over and unsorted, split
 * between "ranks" whose tallies are combined, and mapped to coarser units;
 * records with many entries (read off the dense array) and few (sorted). */
#include <string.h>

#include "core/gs_hitkey.h"
#include "core/gs_tally.h"
#include "testlib.h"

enum { N_REC = 7, N_PAT = 5, N_UNIT = 3 };

/* dense[unit][pattern][strand]: count and smallest distance (255: none). */
typedef struct dense {
    uint64_t count[N_REC][N_PAT][2];
    uint8_t best[N_REC][N_PAT][2];
} dense;

static void dense_add(dense *d, uint32_t unit, const gs_hit *h)
{
    int s = h->strand < 0;
    d->count[unit][h->pattern][s]++;
    if (h->distance < d->best[unit][h->pattern][s])
        d->best[unit][h->pattern][s] = h->distance;
}

/* t holds exactly the nonzero entries of d, sorted, each once. */
static void check_same(const gs_tally *t, const dense *d, uint32_t n_units)
{
    size_t k = 0;
    for (uint32_t u = 0; u < n_units; u++)
        for (uint32_t p = 0; p < N_PAT; p++)
            for (int s = 0; s < 2; s++) {
                if (d->count[u][p][s] == 0)
                    continue;
                CHECK(k < t->n);
                if (k >= t->n)
                    return;
                const gs_tally_row *r = &t->v[k++];
                CHECK_EQ_U64(r->unit, u);
                CHECK_EQ_U64(r->pattern, p);
                CHECK_EQ_U64(r->strand, s ? (uint64_t)-1 : 1);
                CHECK_EQ_U64(r->count, d->count[u][p][s]);
                CHECK_EQ_U64(r->best, d->best[u][p][s]);
            }
    CHECK_EQ_U64(t->n, k);
}

/* wide: tally as if there were 1000 patterns, so a record's few entries
 * are sorted rather than read off the dense array. */
static gs_tally copy_of(const gs_tally *t)
{
    gs_tally c = {.v = malloc((t->n ? t->n : 1) * sizeof *t->v), .n = t->n,
                  .cap = t->n ? t->n : 1};
    CHECK(c.v != NULL);
    if (t->n)
        memcpy(c.v, t->v, t->n * sizeof *t->v);
    return c;
}

static void one_case(uint64_t *rs, size_t n, int sorted, int ranks, int wide)
{
    gs_hit *h = calloc(n + 1, sizeof *h);
    for (size_t i = 0; i < n; i++) {
        h[i].record = (uint32_t)gs_test_below(rs, N_REC);
        h[i].start = gs_test_below(rs, 100);
        h[i].pattern = (uint32_t)gs_test_below(rs, N_PAT);
        h[i].strand = gs_test_below(rs, 2) ? 1 : -1;
        h[i].distance = (uint8_t)gs_test_below(rs, 4);
        h[i].end = h[i].start + 3;
    }
    if (sorted)
        qsort(h, n, sizeof *h, gs_hit_cmp);
    dense d, dm, dk;
    memset(&d, 0, sizeof d);
    memset(&dm, 0, sizeof dm);
    memset(&dk, 0, sizeof dk);
    memset(d.best, 255, sizeof d.best);
    memset(dm.best, 255, sizeof dm.best);
    memset(dk.best, 255, sizeof dk.best);
    /* units as samples may be (out of record order), and as files are
     * (a file's records consecutive: the rows keep their order) */
    const uint32_t map[N_REC] = {2, 0, 0, 1, 2, 1, 0}, kept[N_REC] = {0, 0, 1, 1, 1, 2, 2};
    for (size_t i = 0; i < n; i++) {
        dense_add(&d, h[i].record, &h[i]);
        dense_add(&dm, map[h[i].record], &h[i]);
        dense_add(&dk, kept[h[i].record], &h[i]);
    }
    /* each "rank" tallies a contiguous share; the shares are concatenated */
    gs_tally all = {0};
    gs_error err = {0};
    for (int r = 0; r < ranks; r++) {
        size_t a = n * (size_t)r / (size_t)ranks, b = n * (size_t)(r + 1) / (size_t)ranks;
        gs_tally part = {0};
        CHECK(gs_tally_add_hits(&part, h + a, b - a, wide ? 1000 : N_PAT, &err) == GS_OK);
        for (size_t i = 0; i < part.n; i++) {
            CHECK(gs_grow(&all.v, &all.cap, all.n, sizeof *all.v, 16) == GS_OK);
            all.v[all.n++] = part.v[i];
        }
        gs_tally_free(&part);
    }
    /* the same rows combined in place, units kept: rows out of order,
     * a record's rows repeated by several ranks */
    gs_tally kept_units = copy_of(&all);
    CHECK(gs_tally_remap(&kept_units, NULL, &err) == GS_OK);
    check_same(&kept_units, &d, N_REC);
    gs_tally_free(&kept_units);
    gs_tally_normalize(&all);
    check_same(&all, &d, N_REC);
    uint64_t sums[N_PAT * 2], want[N_PAT * 2] = {0};
    gs_tally_sums(&all, N_PAT, 2, sums);
    for (size_t i = 0; i < n; i++)
        want[h[i].pattern * 2 + (h[i].strand < 0)]++;
    CHECK(memcmp(sums, want, sizeof sums) == 0);
    gs_tally in_order = copy_of(&all), ranges = copy_of(&all), gaps = copy_of(&all),
             gaps_map = copy_of(&all);
    CHECK(gs_tally_remap(&all, map, &err) == GS_OK);
    check_same(&all, &dm, N_UNIT);
    CHECK(gs_tally_remap(&in_order, kept, &err) == GS_OK);
    check_same(&in_order, &dk, N_UNIT);
    /* files as ranges of records (kept's), and with empty files between */
    const size_t first[N_UNIT + 1] = {0, 2, 5, N_REC}, first_gaps[] = {0, 0, 2, 2, 5, 5, N_REC};
    const uint32_t kept_gaps[N_REC] = {1, 1, 3, 3, 3, 5, 5};
    CHECK(gs_tally_remap_ranges(&ranges, first, N_UNIT, &err) == GS_OK);
    check_same(&ranges, &dk, N_UNIT);
    CHECK(gs_tally_remap_ranges(&gaps, first_gaps, 6, &err) == GS_OK);
    CHECK(gs_tally_remap(&gaps_map, kept_gaps, &err) == GS_OK);
    CHECK(gaps.n == gaps_map.n);
    for (size_t i = 0; i < gaps.n && i < gaps_map.n; i++)
        CHECK(gaps.v[i].unit == gaps_map.v[i].unit && gaps.v[i].pattern == gaps_map.v[i].pattern &&
              gaps.v[i].strand == gaps_map.v[i].strand && gaps.v[i].count == gaps_map.v[i].count &&
              gaps.v[i].best == gaps_map.v[i].best);
    gs_tally_free(&all);
    gs_tally_free(&in_order);
    gs_tally_free(&ranges);
    gs_tally_free(&gaps);
    gs_tally_free(&gaps_map);
    free(h);
}

/* got's rows are want's, one for one. */
static void same_rows(const gs_tally *got, const gs_tally *want)
{
    CHECK_EQ_U64(got->n, want->n);
    for (size_t i = 0; i < got->n && i < want->n; i++) {
        CHECK_EQ_U64(got->v[i].unit, want->v[i].unit);
        CHECK_EQ_U64(got->v[i].pattern, want->v[i].pattern);
        CHECK_EQ_U64(got->v[i].strand, want->v[i].strand);
        CHECK_EQ_U64(got->v[i].count, want->v[i].count);
        CHECK_EQ_U64(got->v[i].best, want->v[i].best);
    }
}

static int u64_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

/* Runs of packed keys, as the scan keeps them, tallied straight
 * (gs_tally_add_runs, on `threads` threads: shares of at least 4096 hits,
 * so keys a batch decide whether they split) against the tally of the same
 * hits expanded: GPU-like batches of segments, three segments a record so
 * records cross batches and shares, a batch sometimes skipping a segment
 * (cut into several runs there), the batches handed over in a shuffled
 * order. The same keys are also counted batch by batch as a GPU counts
 * them where the tally is by file (gs_tally_count_keys: five records a
 * file, the tables naming files), against the tally remapped. */
static void runs_case(uint64_t *rs, int n_batches, int keys_a_batch, int threads)
{
    enum { SEGS = 4, LEN = 50, PER_REC = 3, MAX_KEYS = 2000, PER_FILE = 5 };
    const gs_key_layout lay = {.b_dist = 0, .b_len = 3, .b_pat = 3};
    gs_hit_runs a = {0}, b = {0};
    gs_error err = {0};
    gs_tally landed = {0};
    gs_tally_counter c;
    uint32_t unit = 0;
    CHECK(gs_tally_counter_init(&c, 8, &err) == GS_OK);
    int order[64];
    for (int k = 0; k < n_batches; k++)
        order[k] = k;
    for (int k = n_batches - 1; k > 0; k--) {
        int i = (int)gs_test_below(rs, (uint64_t)k + 1), t = order[k];
        order[k] = order[i];
        order[i] = t;
    }
    for (int q = 0; q < n_batches; q++) {
        gs_run_seg segs[SEGS];
        uint64_t keys[MAX_KEYS];
        size_t n_seg = 0;
        for (int s = 0; s < SEGS; s++) {
            int g = order[q] * SEGS + s; /* the corpus's g-th segment */
            if (s > 0 && gs_test_below(rs, 5) == 0)
                continue;
            segs[n_seg] = (gs_run_seg){.base = (uint64_t)(g % PER_REC) * LEN,
                                       .off = (uint32_t)(n_seg * LEN), .record = (uint32_t)(g / PER_REC),
                                       .own = LEN};
            n_seg++;
        }
        for (int i = 0; i < keys_a_batch; i++)
            keys[i] = gs_hitkey_pack(lay, gs_test_below(rs, n_seg * LEN),
                                     (uint32_t)gs_test_below(rs, 16), 3, 0);
        qsort(keys, (size_t)keys_a_batch, sizeof *keys, u64_cmp);
        CHECK(gs_hit_runs_add_batch(&a, keys, (size_t)keys_a_batch, segs, n_seg, lay, 0, 1, &err) == GS_OK);
        CHECK(gs_hit_runs_add_batch(&b, keys, (size_t)keys_a_batch, segs, n_seg, lay, 0, 1, &err) == GS_OK);
        for (size_t s = 0; s < n_seg; s++)
            segs[s].record /= PER_FILE;
        CHECK(gs_tally_count_keys(&landed, &c, &unit, keys, (size_t)keys_a_batch, segs, n_seg,
                                  lay) == GS_OK);
    }
    if (c.n_touched)
        CHECK(gs_tally_counter_flush(&c, &landed, unit) == GS_OK);
    gs_tally_counter_free(&c);
    CHECK(gs_tally_remap(&landed, NULL, &err) == GS_OK);
    gs_hits h = {0};
    gs_tally want = {0}, got = {0};
    CHECK(gs_hit_runs_expand(&a, 2, &h, &err) == GS_OK);
    CHECK(gs_tally_add_hits(&want, h.v, h.n, 8, &err) == GS_OK);
    CHECK(gs_tally_add_runs(&got, &b, 8, threads, &err) == GS_OK);
    same_rows(&got, &want);
    uint32_t file_of[64 * SEGS];
    for (uint32_t r = 0; r < 64 * SEGS; r++)
        file_of[r] = r / PER_FILE;
    CHECK(gs_tally_remap(&want, file_of, &err) == GS_OK);
    same_rows(&landed, &want);
    gs_hits_free(&h);
    gs_tally_free(&want);
    gs_tally_free(&got);
    gs_tally_free(&landed);
    gs_hit_runs_free(&a);
    gs_hit_runs_free(&b);
}

int main(void)
{
    uint64_t rs = 24;
    CHECK(gs_tally_unit_of("file") == GS_TALLY_FILE);
    CHECK(gs_tally_unit_of("files") == GS_TALLY_NONE);
    CHECK(!strcmp(gs_tally_unit_name(GS_TALLY_SAMPLE), "sample"));
    const size_t sizes[] = {0, 1, 2, 17, 300, 5000};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int sorted = 0; sorted < 2; sorted++)
            for (int ranks = 1; ranks <= 4; ranks++)
                for (int wide = 0; wide < 2; wide++)
                    one_case(&rs, sizes[k], sorted, ranks, wide);
    for (int n = 1; n <= 64; n *= 2)
        for (int threads = 1; threads <= 4; threads++) {
            runs_case(&rs, n, 120, threads);
            runs_case(&rs, n, 2000, threads); /* 2 batches: a share; 64: 31 */
        }
    return gs_test_done("test_tally");
}
