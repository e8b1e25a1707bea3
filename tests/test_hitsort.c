/* test_hitsort.c - gs_radix_sort_u64 and gs_hits_sort against qsort, on
 * random keys and on hits cut into sorted runs the way producers hand them
 * over (interleaved ranks, disjoint segments), ties and edge sizes included;
 * and the runs of packed keys (gs_hit_runs): batches of keys in the exact
 * shape and order the GPU hands them back (segments packed into one text,
 * several readers' buffers interleaved, approximate hits owned by their
 * end), expanded on several threads, against the hits made directly and
 * sorted with qsort. */
#include <string.h>

#include "core/gs_hitsort.h"
#include "testlib.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void check_radix(uint64_t *rs, size_t n, int bits)
{
    uint64_t *a = malloc((n + 1) * 8), *b = malloc((n + 1) * 8), *t = malloc((n + 1) * 8);
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] = bits == 64 ? gs_test_rand(rs) : gs_test_rand(rs) & (((uint64_t)1 << bits) - 1);
    gs_radix_sort_u64(a, t, n, bits);
    qsort(b, n, 8, cmp_u64);
    CHECK(n == 0 || memcmp(a, b, n * 8) == 0);
    free(a);
    free(b);
    free(t);
}

static gs_hit random_hit(uint64_t *rs)
{
    gs_hit h = {0};
    h.record = (uint32_t)gs_test_below(rs, 3);
    h.start = gs_test_below(rs, 50);
    h.strand = gs_test_below(rs, 2) ? 1 : -1;
    h.pattern = (uint32_t)gs_test_below(rs, 4);
    h.end = h.start + 1 + gs_test_below(rs, 3);
    return h;
}

/* n hits dealt to k producers; each producer's share sorted; concatenated */
static void check_runs(uint64_t *rs, size_t n, size_t k)
{
    gs_hits h = {malloc((n + 1) * sizeof(gs_hit)), n, n};
    gs_hit *ref = malloc((n + 1) * sizeof(gs_hit));
    for (size_t i = 0; i < n; i++)
        ref[i] = random_hit(rs);
    size_t o = 0;
    for (size_t p = 0; p < k; p++) {
        size_t first = o;
        for (size_t i = p; i < n; i += k)
            h.v[o++] = ref[i];
        qsort(h.v + first, o - first, sizeof(gs_hit), gs_hit_cmp);
    }
    qsort(ref, n, sizeof(gs_hit), gs_hit_cmp);
    CHECK(gs_hits_sort(&h) == GS_OK);
    CHECK_EQ_U64(h.n, n);
    for (size_t i = 0; i < n; i++)
        if (gs_hit_cmp(&h.v[i], &ref[i]) != 0) {
            CHECK(!"merged hits differ from qsort");
            break;
        }
    gs_hits_free(&h);
    free(ref);
}

/* ---- runs of packed keys, as the GPU path makes them ---- */

/* Hits must equal field by field, distance included. */
static void check_same(const char *what, const gs_hits *got, gs_hit *ref, size_t n_ref)
{
    qsort(ref, n_ref, sizeof *ref, gs_hit_cmp);
    if (got->n != n_ref) {
        fprintf(stderr, "%s: %zu hits, expected %zu\n", what, got->n, n_ref);
        gs_test_failures++;
        return;
    }
    for (size_t i = 0; i < n_ref; i++)
        if (gs_hit_cmp(&got->v[i], &ref[i]) != 0 || got->v[i].distance != ref[i].distance) {
            fprintf(stderr,
                    "%s: hit %zu is (r%u %llu-%llu %+d p%u d%u), "
                    "expected (r%u %llu-%llu %+d p%u d%u)\n",
                    what, i, got->v[i].record, (unsigned long long)got->v[i].start,
                    (unsigned long long)got->v[i].end, got->v[i].strand, got->v[i].pattern,
                    got->v[i].distance, ref[i].record, (unsigned long long)ref[i].start,
                    (unsigned long long)ref[i].end, ref[i].strand, ref[i].pattern, ref[i].distance);
            gs_test_failures++;
            return;
        }
}

static int bits_for(uint64_t n) /* bits to write 0 .. n - 1, at least 1 */
{
    int b = 1;
    while (b < 64 && ((uint64_t)1 << b) < n)
        b++;
    return b;
}

/* One segment of the synthetic corpus and the hits it reports (relative). */
typedef struct tseg {
    uint32_t record;
    uint64_t base;
    size_t own, len;
    gs_hit *hits; /* start and end relative to base */
    size_t n_hits, cap;
} tseg;

typedef struct tcorpus {
    tseg *seg;
    size_t n_seg;
    gs_hit *ref; /* every hit once, absolute */
    size_t n_ref, cap_ref;
    uint32_t n_pat, span;
    int approx;
} tcorpus;

static void push_hit(gs_hit **v, size_t *n, size_t *cap, gs_hit h)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *v = realloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = h;
}

static gs_hit make_hit(uint32_t record, uint64_t start, uint64_t end, uint32_t pat, int strand,
                       uint32_t dist)
{
    gs_hit h;
    memset(&h, 0, sizeof h);
    h.record = record;
    h.start = start;
    h.end = end;
    h.pattern = pat;
    h.strand = strand ? -1 : 1;
    h.distance = (uint8_t)dist;
    return h;
}

/* Records cut into segments of `block` owned positions and span - 1 of
 * overlap. Exact: hits owned by their start, length plen[pattern].
 * Approximate: hits of any length up to span, one per (pattern, strand,
 * end), owned by the segment where end - span < own (engine.h), which
 * also reports its share of the previous segment's (dropped later). */
static void make_corpus(tcorpus *c, uint64_t *rs, int approx, int n_rec, size_t max_rec,
                        size_t block, uint32_t n_pat, uint32_t span, uint32_t density)
{
    memset(c, 0, sizeof *c);
    c->n_pat = n_pat;
    c->span = span;
    c->approx = approx;
    uint32_t *plen = malloc(n_pat * sizeof *plen);
    for (uint32_t p = 0; p < n_pat; p++)
        plen[p] = 1 + (uint32_t)gs_test_below(rs, span);
    size_t cap = 0;
    for (int r = 0; r < n_rec; r++) {
        size_t L = gs_test_below(rs, 5) ? gs_test_below(rs, max_rec + 1) : gs_test_below(rs, 3);
        size_t first = c->n_seg;
        for (size_t base = 0; base < L; base += block) {
            if (c->n_seg == cap) {
                cap = cap ? 2 * cap : 64;
                c->seg = realloc(c->seg, cap * sizeof *c->seg);
            }
            tseg *sg = &c->seg[c->n_seg++];
            memset(sg, 0, sizeof *sg);
            sg->record = (uint32_t)r;
            sg->base = base;
            sg->own = L - base < block ? L - base : block;
            sg->len = L - base < sg->own + span - 1 ? L - base : sg->own + span - 1;
        }
        if (!approx) {
            for (size_t j = first; j < c->n_seg; j++) {
                tseg *sg = &c->seg[j];
                for (size_t pos = 0; pos < sg->own; pos++) {
                    if (gs_test_below(rs, 100) >= density)
                        continue;
                    uint32_t p0 = (uint32_t)gs_test_below(rs, n_pat);
                    uint32_t k = 1 + (uint32_t)gs_test_below(rs, 3);
                    for (uint32_t i = 0; i < k && i < 2 * n_pat; i++) { /* distinct outputs */
                        uint32_t o = (2 * p0 + i * 7) % (2 * n_pat), p = o >> 1;
                        if (pos + plen[p] > sg->len)
                            continue;
                        gs_hit h = make_hit((uint32_t)r, pos, pos + plen[p], p, (int)(o & 1), 0);
                        push_hit(&sg->hits, &sg->n_hits, &sg->cap, h);
                        h.start += sg->base;
                        h.end += sg->base;
                        push_hit(&c->ref, &c->n_ref, &c->cap_ref, h);
                    }
                }
            }
            continue;
        }
        for (size_t e = 1; e <= L; e++) {
            if (gs_test_below(rs, 100) >= density)
                continue;
            uint32_t p0 = (uint32_t)gs_test_below(rs, n_pat);
            uint32_t k = 1 + (uint32_t)gs_test_below(rs, 2);
            for (uint32_t i = 0; i < k && i < 2 * n_pat; i++) {
                uint32_t o = (2 * p0 + i * 5) % (2 * n_pat);
                uint32_t l = 1 + (uint32_t)gs_test_below(rs, span < e ? span : e);
                gs_hit h = make_hit((uint32_t)r, e - l, e, o >> 1, (int)(o & 1),
                                    (uint32_t)gs_test_below(rs, 16));
                push_hit(&c->ref, &c->n_ref, &c->cap_ref, h);
                for (size_t j = first; j < c->n_seg; j++) { /* every segment that finds it */
                    tseg *sg = &c->seg[j];
                    if (h.start < sg->base || h.end > sg->base + sg->len ||
                        h.end - sg->base >= sg->own + span)
                        continue;
                    gs_hit x = h;
                    x.start -= sg->base;
                    x.end -= sg->base;
                    push_hit(&sg->hits, &sg->n_hits, &sg->cap, x);
                }
            }
        }
    }
    free(plen);
}

static void free_corpus(tcorpus *c)
{
    for (size_t j = 0; j < c->n_seg; j++)
        free(c->seg[j].hits);
    free(c->seg);
    free(c->ref);
}

/* The order segments reach the GPU: `readers` contiguous shares of the
 * corpus, handed over in groups of a few segments (a reader's buffer),
 * the reader of each group picked at random. */
static size_t *submission_order(const tcorpus *c, uint64_t *rs, int readers)
{
    size_t *order = malloc((c->n_seg + 1) * sizeof *order), o = 0;
    size_t next[8], end[8]; /* reader r's next segment and the end of its share */
    for (int r = 0; r < readers; r++) {
        next[r] = c->n_seg * (size_t)r / (size_t)readers;
        end[r] = c->n_seg * (size_t)(r + 1) / (size_t)readers;
    }
    while (o < c->n_seg) {
        int r = (int)gs_test_below(rs, (uint64_t)readers);
        size_t g = 1 + gs_test_below(rs, 8);
        for (; g > 0 && next[r] < end[r]; g--)
            order[o++] = next[r]++;
    }
    return order;
}

/* Keys of one batch in the device's layout (start relative to the packed
 * text), sorted as the device sorts them, then handed to add_batch. */
static void submit_batch(const tcorpus *c, const size_t *ids, size_t n_ids, gs_key_layout lay,
                         gs_hit_runs *runs)
{
    gs_run_seg *segs = malloc(n_ids * sizeof *segs);
    size_t n = 0, off = 0;
    for (size_t i = 0; i < n_ids; i++)
        n += c->seg[ids[i]].n_hits;
    uint64_t *keys = malloc((n + 1) * sizeof *keys);
    const int s_len = lay.b_dist, s_pat = s_len + lay.b_len, s_strand = s_pat + lay.b_pat,
              s_pos = s_strand + 1;
    n = 0;
    for (size_t i = 0; i < n_ids; i++) {
        const tseg *sg = &c->seg[ids[i]];
        segs[i] = (gs_run_seg){.base = sg->base, .off = (uint32_t)off, .record = sg->record,
                               .own = (uint32_t)sg->own};
        for (size_t h = 0; h < sg->n_hits; h++) {
            const gs_hit *x = &sg->hits[h];
            keys[n++] = (off + x->start) << s_pos | (uint64_t)(x->strand < 0) << s_strand |
                        (uint64_t)x->pattern << s_pat | (x->end - x->start) << s_len | x->distance;
        }
        off += sg->len + 1; /* the separator */
    }
    qsort(keys, n, sizeof *keys, cmp_u64);
    gs_error err = {0};
    CHECK(gs_hit_runs_add_batch(runs, keys, n, segs, n_ids, lay, c->approx ? c->span : 0,
                                1 + (int)(n_ids % 3), &err) == GS_OK);
    free(keys);
    free(segs);
}

/* The corpus through the GPU path's host side: submission order, batches
 * packed as gpu.cu packs them (up to cap residues; a segment with overlap
 * closes its batch; approximate batches hold one segment), taken from the
 * device's run set every third batch as the feeding thread takes them,
 * half of them expanded on the way as a spill does (while the device's set
 * still carves from the chunk they lie in), the rest at the end. */
static void check_gpu_batches(const char *what, tcorpus *c, uint64_t *rs, int readers, size_t cap,
                              int threads)
{
    gs_key_layout lay = {.b_dist = (uint8_t)(c->approx ? 4 : 0),
                         .b_len = (uint8_t)bits_for((uint64_t)c->span + 1),
                         .b_pat = (uint8_t)bits_for(c->n_pat)};
    size_t *order = submission_order(c, rs, readers);
    size_t *batch = malloc((c->n_seg + 1) * sizeof *batch);
    size_t nb = 0, len = 0, n_batches = 0, held = 0;
    gs_hit_runs dev = {0}, runs = {0};
    gs_hits got = {0}, spilled = {0};
    gs_error err = {0};
    for (size_t i = 0; i <= c->n_seg; i++) {
        const tseg *sg = i < c->n_seg ? &c->seg[order[i]] : NULL;
        if (sg && sg->own == 0)
            continue;
        if (nb && (sg == NULL || len + 1 + sg->len > cap || c->approx ||
                   c->seg[batch[nb - 1]].own < c->seg[batch[nb - 1]].len)) {
            submit_batch(c, batch, nb, lay, &dev);
            nb = len = 0;
            if (++n_batches % 3 == 0 || sg == NULL) {
                held += dev.n_hits;
                CHECK(gs_hit_runs_move(&runs, &dev, &err) == GS_OK);
                CHECK_EQ_U64(dev.n + dev.n_hits, 0);
            }
            if (spilled.v == NULL && runs.n_hits * 2 >= c->n_ref) {
                CHECK(gs_hit_runs_expand(&runs, threads, &spilled, &err) == GS_OK);
                CHECK_EQ_U64(runs.n, 0);
            }
        }
        if (sg == NULL)
            break;
        len += (nb ? 1 : 0) + sg->len;
        batch[nb++] = order[i];
    }
    CHECK_EQ_U64(held >= c->n_ref, 1);
    CHECK(gs_hit_runs_expand(&runs, threads, &got, &err) == GS_OK);
    CHECK_EQ_U64(runs.n, 0);
    gs_hit_runs_free(&dev);
    if (spilled.n) { /* the spill and the rest, in order */
        const size_t all = spilled.n + got.n;
        gs_hit *v = realloc(spilled.v, (all + 1) * sizeof *v);
        CHECK(v != NULL);
        if (got.n)
            memcpy(v + spilled.n, got.v, got.n * sizeof *v);
        gs_hits_free(&got);
        got = (gs_hits){.v = v, .n = all, .cap = all};
        CHECK(gs_hits_sort(&got) == GS_OK);
    } else {
        gs_hits_free(&spilled);
    }
    char name[160];
    snprintf(name, sizeof name, "%s (readers %d, batch %zu, threads %d)", what, readers, cap,
             threads);
    check_same(name, &got, c->ref, c->n_ref);
    printf("%s: %zu hits, %zu kept\n", name, got.n, c->n_ref);
    gs_hits_free(&got);
    free(order);
    free(batch);
}

/* Runs of records (a CPU segment whose fields do not fit 64 bits) and runs
 * that are not disjoint at all (every hit of a record dealt round-robin):
 * the expansion's merge and its whole-sort fallback. */
static void check_record_runs(uint64_t *rs, size_t n, size_t k, int threads)
{
    gs_hit *ref = malloc((n + 1) * sizeof *ref);
    size_t m = n;
    for (size_t i = 0; i < n; i++) /* distinct, as producers make them; in order */
        ref[i] = make_hit((uint32_t)(i / (n / 3 + 1)), i / 2, i / 2 + 1 + gs_test_below(rs, 5),
                          (uint32_t)(i & 1), (int)gs_test_below(rs, 2),
                          (uint32_t)gs_test_below(rs, 9));
    qsort(ref, n, sizeof *ref, gs_hit_cmp); /* each run must be sorted */
    gs_hit_runs runs = {0};
    gs_error err = {0};
    for (size_t r = 0; r < k; r++) {
        gs_hit_run run = {0};
        run.hits = malloc((m / k + 2) * sizeof *run.hits);
        for (size_t i = r; i < m; i += k)
            run.hits[run.n++] = ref[i];
        if (run.n == 0) {
            free(run.hits);
            continue;
        }
        run.first = (gs_run_seg){.base = run.hits[0].start, .record = run.hits[0].record};
        CHECK(gs_hit_runs_push(&runs, &run, &err) == GS_OK);
    }
    gs_hits got = {0};
    CHECK(gs_hit_runs_expand(&runs, threads, &got, &err) == GS_OK);
    char name[96];
    snprintf(name, sizeof name, "record runs (%zu hits, %zu runs, threads %d)", m, k, threads);
    check_same(name, &got, ref, m);
    gs_hits_free(&got);
    free(ref);
}

/* Runs carved from chunks: one that no longer fits its chunk starts a
 * fresh one, one larger than a chunk gets its own; each keeps its keys. */
static void check_chunks(void)
{
    const size_t ns[] = {5000000, 5000000, 9000000, 3};
    const gs_key_layout lay = {.b_len = 5, .b_pat = 10};
    const gs_run_seg seg = {.base = 7, .record = 2, .own = 1u << 30};
    uint64_t *keys = malloc((ns[2] + 4) * sizeof *keys); /* batch b starts at key b */
    CHECK(keys != NULL);
    for (size_t i = 0; i < ns[2] + 4; i++)
        keys[i] = (uint64_t)(3 * i) << gs_hitkey_s_pos(lay);
    gs_hit_runs dev = {0}, runs = {0};
    gs_error err = {0};
    for (size_t b = 0; b < 4; b++) {
        CHECK(gs_hit_runs_add_batch(&dev, keys + b, ns[b], &seg, 1, lay, 0, 2, &err) == GS_OK);
        if (b == 1) /* taken while the chunk is still carved */
            CHECK(gs_hit_runs_move(&runs, &dev, &err) == GS_OK);
    }
    CHECK(gs_hit_runs_move(&runs, &dev, &err) == GS_OK);
    CHECK_EQ_U64(runs.n, 4);
    for (size_t b = 0; b < runs.n; b++) {
        CHECK_EQ_U64(runs.v[b].n, ns[b]);
        CHECK(runs.v[b].chunk != NULL && runs.v[b].segs == NULL);
        CHECK(memcmp(runs.v[b].keys, keys + b, ns[b] * sizeof *keys) == 0);
    }
    CHECK(runs.v[0].chunk != runs.v[1].chunk && runs.v[1].chunk != runs.v[2].chunk);
    CHECK(runs.v[3].chunk != runs.v[2].chunk); /* the large one's is full */
    gs_hit_runs_free(&runs);
    CHECK(gs_hit_runs_add_batch(&dev, keys, 10, &seg, 1, lay, 0, 1, &err) == GS_OK);
    CHECK_EQ_U64(dev.n_hits, 10);
    gs_hit_runs_free(&dev);
    free(keys);
}

static void check_runs_of_keys(uint64_t *rs)
{
    check_chunks();
    tcorpus c;
    /* exact: chromosome-like (few long segments, parts cut inside them),
     * EST-like (many short records packed into one batch), tiny blocks */
    make_corpus(&c, rs, 0, 3, 400000, 150000, 50, 12, 40);
    for (int readers = 1; readers <= 3; readers += 2)
        check_gpu_batches("exact, long records", &c, rs, readers, 150000 + 11, 4);
    free_corpus(&c);
    make_corpus(&c, rs, 0, 3000, 600, 1 << 20, 300, 30, 30);
    for (int readers = 1; readers <= 4; readers += 3)
        for (int t = 1; t <= 5; t += 4)
            check_gpu_batches("exact, short records", &c, rs, readers, 1 << 20, t);
    check_gpu_batches("exact, short records", &c, rs, 2, 2000, 3);
    free_corpus(&c);
    /* reads: most of a batch's segments hold no hit (a run keeps only
     * those that do) */
    make_corpus(&c, rs, 0, 20000, 150, 1 << 20, 40, 21, 1);
    check_gpu_batches("exact, reads, few hits", &c, rs, 1, 1 << 20, 2);
    check_gpu_batches("exact, reads, few hits", &c, rs, 3, 5000, 1);
    free_corpus(&c);
    make_corpus(&c, rs, 0, 40, 300, 7, 5, 4, 50);
    check_gpu_batches("exact, tiny blocks", &c, rs, 1, 40, 2);
    check_gpu_batches("exact, tiny blocks", &c, rs, 3, 40, 2);
    free_corpus(&c);
    /* approximate: neighbours' starts interleave; the previous segment's
     * hits are dropped by the next one */
    make_corpus(&c, rs, 1, 4, 300000, 40000, 20, 33, 30);
    for (int readers = 1; readers <= 3; readers += 2)
        check_gpu_batches("approximate", &c, rs, readers, 40000 + 32, 4);
    free_corpus(&c);
    make_corpus(&c, rs, 1, 30, 400, 8, 3, 8, 60);
    check_gpu_batches("approximate, tiny blocks", &c, rs, 1, 16, 1);
    check_gpu_batches("approximate, tiny blocks", &c, rs, 2, 16, 3);
    free_corpus(&c);
    /* 1.2 M rows in 100 interleaved runs: merging would move far more
     * than the whole, so the whole is merge-sorted instead */
    size_t ns[] = {0, 1, 5000, 300000, 1200000};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        check_record_runs(rs, ns[i], 1, 3);
        check_record_runs(rs, ns[i], 2, 2);
        check_record_runs(rs, ns[i], 100, 4);
    }
}

int main(void)
{
    uint64_t rs = 12345;
    size_t sizes[] = {0, 1, 2, 3, 50, 96, 97, 100, 2047, 2049, 100000};
    int bits[] = {1, 10, 11, 12, 33, 63, 64};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t b = 0; b < sizeof bits / sizeof *bits; b++)
            check_radix(&rs, sizes[s], bits[b]);
    size_t ks[] = {1, 2, 3, 7, 64, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t k = 0; k < sizeof ks / sizeof *ks; k++)
            check_runs(&rs, sizes[s], ks[k]);
    /* more runs than the merge takes: qsort's fallback, same order */
    check_runs(&rs, 300000, 200000);
    check_runs_of_keys(&rs);
    return gs_test_done("test_hitsort");
}
