/* test_approx.c - approximate matching (contract §1) against the DP reference.
 *
 * The reference is the bf engine on approximate keysets: a full DP from
 * every start (bf.c). Checked here: bf itself on hand-made cases; the bv
 * engine equal to bf for mismatches and edits, K = 0..4, one and two
 * strands, on random workloads with planted mutated copies (substitutions,
 * insertions, deletions), IUPAC patterns, N runs, lowercase and text edges;
 * the same hits when the text is cut into segments of a few residues (each
 * ending against an unmapped page) with span - 1 of overlap; K = 0 equal to
 * the exact engines; a slice of E. coli with real primers (skipped when
 * data/cache is absent); --best-per-site against a transitive closure.
 * --exact-3p: bf on hand-made zones (forward and reverse strand, gaps
 * beside and inside the zone), then bv (with and without the seed filter)
 * equal to bf for every mode x strand x K 0..4 x exact-3p 1..5, IUPAC
 * patterns, a zone longer than a pattern, random text and E. coli.
 * Patterns with their own K and exact-3p (pattern file columns): bv equal
 * to bf, and bf's hits of each pattern those of a run of it alone with its
 * own values; the run's K is the largest.
 * GS_TEST_QUICK=1 (sanitizer builds) keeps the small workloads only.
 */
#define _DEFAULT_SOURCE
#include "match/approx.h"
#include "match/bulge.h"
#include "match/engine.h"
#include "match/keyset.h"
#include "match/seeds.h"
#include "match/sites.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* One segment's key hits as gs_hits, the way the pipeline turns them into
 * hits (engine.h: approximate hits ending before the span belong to the
 * previous segment when this one does not begin the record). */
static void scan_segment(const gs_engine *e, const void *compiled, const gs_keyset *ks,
                         const uint8_t *text, size_t base, size_t len, size_t own, gs_hits *out)
{
    gs_keyhits kh = {0};
    uint64_t *kc = calloc(ks->n_keys + 1, sizeof *kc);
    uint8_t *t = gs_guarded_alloc(len ? len : 1);
    memcpy(t, text + base, len);
    gs_match_out mo = {.key_counts = kc, .hits = &kh, .oom = 0};
    e->scan(compiled, t, len, own, &mo);
    CHECK(!mo.oom);
    for (size_t i = 0; i < kh.n; i++) {
        const gs_keyhit *x = &kh.v[i];
        uint32_t l = ks->mode == GS_MATCH_EXACT ? gs_key_len(ks, x->key) : x->len;
        if (ks->mode != GS_MATCH_EXACT && base > 0 && x->pos + l < ks->span)
            continue;
        CHECK(x->pos + l <= len);
        for (uint32_t j = ks->out_off[x->key]; j < ks->out_off[x->key + 1]; j++) {
            uint32_t o = ks->outputs[j];
            gs_hit h = {.start = base + x->pos, .end = base + x->pos + l, .record = 0,
                        .pattern = o >> 1, .strand = o & 1 ? -1 : 1, .distance = x->dist};
            if (gs_hits_push(out, &h))
                abort();
        }
    }
    gs_guarded_free(t, len ? len : 1);
    free(kh.v);
    free(kc);
}

/* The knobs engines compile with (NULL: as shipped) and the --exact-3p
 * that build() gives every key. */
static const gs_tune *scan_tune;
static uint32_t exact3p, bulges; /* and --max-bulges, for mismatch keysets */

/* Hits of the whole text (block 0) or of segments of `block` owned
 * positions, sorted. */
static gs_hits scan_all(const gs_engine *e, const gs_keyset *ks, const uint8_t *text, size_t n,
                        size_t block)
{
    gs_hits h = {0};
    void *c = NULL;
    gs_error err = {0};
    if (e->compile(ks, scan_tune, &c, &err) != GS_OK) {
        fprintf(stderr, "compile %s: %s\n", e->name, err.msg);
        abort();
    }
    if (block == 0)
        block = n;
    size_t ov = gs_keyset_overlap(ks);
    for (size_t b = 0; b < n || (n == 0 && b == 0); b += block) {
        size_t own = n - b < block ? n - b : block;
        size_t len = own + (n - b - own < ov ? n - b - own : ov);
        scan_segment(e, c, ks, text, b, len, own, &h);
        if (n == 0)
            break;
    }
    e->destroy(c);
    if (h.n > 1)
        qsort(h.v, h.n, sizeof *h.v, gs_hit_cmp);
    return h;
}

static int same(const gs_hits *a, const gs_hits *b, const char *what)
{
    int bad = a->n != b->n;
    if (bad)
        fprintf(stderr, "%s: %zu hits, expected %zu\n", what, a->n, b->n);
    for (size_t i = 0; i < a->n && i < b->n; i++) {
        const gs_hit *x = &a->v[i], *y = &b->v[i];
        if (gs_hit_cmp(x, y) || x->distance != y->distance) {
            fprintf(stderr, "%s: hit %zu is (p%u %+d %llu-%llu d%u), expected (p%u %+d %llu-%llu d%u)\n",
                    what, i, x->pattern, x->strand, (unsigned long long)x->start,
                    (unsigned long long)x->end, x->distance, y->pattern, y->strand,
                    (unsigned long long)y->start, (unsigned long long)y->end, y->distance);
            bad = 1;
            break;
        }
    }
    CHECK(!bad);
    return !bad;
}

static gs_keyset build(const gs_patset *ps, int both, gs_match_mode mode, uint32_t K)
{
    gs_keyset ks;
    gs_error err = {0};
    gs_status st = mode == GS_MATCH_EXACT ? gs_keyset_build(ps, GS_ALPHA_DNA, both, 0, &ks, &err)
                                          : gs_keyset_build_approx(ps, both, mode, K, &ks, &err);
    if (st == GS_OK && mode != GS_MATCH_EXACT)
        st = gs_keyset_set_exact3p(&ks, ps, exact3p, &err);
    if (st == GS_OK && mode == GS_MATCH_MISMATCHES)
        st = gs_keyset_set_bulges(&ks, ps, bulges, &err);
    if (st != GS_OK) {
        fprintf(stderr, "keyset: %s\n", err.msg);
        abort();
    }
    return ks;
}

/* ---- hand-made cases ----------------------------------------------------- */

static void test_hand(void)
{
    gs_patset ps = {0};
    gs_test_add_pattern(&ps, "ACGT", 4, 0);
    const uint8_t *text = (const uint8_t *)"TTACGTTT";
    gs_keyset ks = build(&ps, 0, GS_MATCH_EDITS, 1);
    gs_hits h = scan_all(&gs_engine_bf, &ks, text, 8, 0);
    /* ends 5 (ACG, a deletion), 6 (exact), 7 (ACGTT, an insertion); all start at 2 */
    CHECK_EQ_U64(h.n, 3);
    if (h.n == 3) {
        CHECK(h.v[0].start == 2 && h.v[0].end == 5 && h.v[0].distance == 1);
        CHECK(h.v[1].start == 2 && h.v[1].end == 6 && h.v[1].distance == 0);
        CHECK(h.v[2].start == 2 && h.v[2].end == 7 && h.v[2].distance == 1);
    }
    gs_hits_free(&h);
    gs_keyset_free(&ks);
    /* a non-base never matches, not even an N in the pattern */
    ks = build(&ps, 0, GS_MATCH_MISMATCHES, 1);
    h = scan_all(&gs_engine_bf, &ks, (const uint8_t *)"ANGT", 4, 0);
    CHECK_EQ_U64(h.n, 1);
    CHECK(h.n == 1 && h.v[0].distance == 1);
    gs_hits_free(&h);
    h = scan_all(&gs_engine_bf, &ks, (const uint8_t *)"ANNT", 4, 0);
    CHECK_EQ_U64(h.n, 0);
    gs_hits_free(&h);
    gs_keyset_free(&ks);
    gs_patset_free(&ps);
    /* IUPAC N in the pattern matches every base; the reverse strand of
     * AACN is NGTT */
    ps = (gs_patset){0};
    gs_test_add_pattern(&ps, "AACN", 4, 0);
    ks = build(&ps, 1, GS_MATCH_MISMATCHES, 0);
    h = scan_all(&gs_engine_bf, &ks, (const uint8_t *)"cgttAACg", 8, 0);
    CHECK_EQ_U64(h.n, 2);
    CHECK(h.n == 2 && h.v[0].start == 0 && h.v[0].strand == -1 && h.v[1].start == 4 &&
          h.v[1].strand == 1);
    gs_hits_free(&h);
    gs_keyset_free(&ks);
    gs_patset_free(&ps);
}

/* ---- random workloads ---------------------------------------------------- */

static const char IUPAC[] = "RYSWKMBDHVN";

/* Text with planted copies of the patterns mutated by up to 5 edits. */
static uint8_t *make_text(uint64_t *rng, const gs_patset *ps, size_t n, int mess)
{
    uint8_t *t = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        t[i] = "ACGT"[gs_test_below(rng, 4)];
    for (int r = 0; r < 40 && ps->n; r++) {
        const gs_pattern *p = &ps->v[gs_test_below(rng, ps->n)];
        uint8_t cp[128];
        size_t m = 0;
        for (uint32_t i = 0; i < p->len && m < sizeof cp - 2; i++) {
            uint8_t c = p->bytes[i];
            if (strchr(IUPAC, c))
                c = "ACGT"[gs_test_below(rng, 4)];
            switch (gs_test_below(rng, 12)) {
            case 0: cp[m++] = "ACGT"[gs_test_below(rng, 4)]; break; /* substitution */
            case 1: break;                                         /* deletion */
            case 2: cp[m++] = c; cp[m++] = "ACGT"[gs_test_below(rng, 4)]; break; /* insertion */
            default: cp[m++] = c;
            }
        }
        if (gs_test_below(rng, 2)) /* reverse complement */
            for (size_t i = 0; i < m / 2 + (m & 1); i++) {
                static const char *from = "ACGT", *to = "TGCA";
                uint8_t a = cp[i], b = cp[m - 1 - i];
                cp[i] = (uint8_t)to[strchr(from, b) - from];
                cp[m - 1 - i] = (uint8_t)to[strchr(from, a) - from];
            }
        size_t at = gs_test_below(rng, n > m ? n - m + 1 : 1);
        if (r == 0)
            at = 0; /* text edges */
        if (r == 1 && n >= m)
            at = n - m;
        memcpy(t + at, cp, m <= n ? m : n);
    }
    if (mess) {
        for (int r = 0; r < 6; r++) { /* N runs */
            size_t at = gs_test_below(rng, n), l = 1 + gs_test_below(rng, 12);
            for (size_t i = at; i < at + l && i < n; i++)
                t[i] = gs_test_below(rng, 3) ? 'N' : '-';
        }
        for (size_t i = 0; i < n; i++) /* lowercase stretches */
            if ((i / 50) % 3 == 1)
                t[i] = (uint8_t)(t[i] | 0x20);
    }
    return t;
}

static void random_patterns(uint64_t *rng, gs_patset *ps, int n, uint32_t minl, uint32_t maxl,
                            int degenerate)
{
    for (int i = 0; i < n; i++) {
        uint32_t m = minl + (uint32_t)gs_test_below(rng, maxl - minl + 1);
        char s[256];
        for (uint32_t j = 0; j < m; j++)
            s[j] = degenerate && gs_test_below(rng, 8) == 0 ? IUPAC[gs_test_below(rng, 11)]
                                                          : "ACGT"[gs_test_below(rng, 4)];
        gs_test_add_pattern(ps, s, m, 0);
    }
}

static void compare_engines(const gs_patset *ps, const uint8_t *text, size_t n, const char *name,
                            int blocks)
{
    char what[160];
    for (int both = 0; both <= 1; both++)
        for (int mode = GS_MATCH_MISMATCHES; mode <= (bulges ? GS_MATCH_MISMATCHES : GS_MATCH_EDITS);
             mode++)
            for (uint32_t K = 0; K <= 4 && K + bulges < ps->min_len; K++) {
                gs_keyset ks = build(ps, both, (gs_match_mode)mode, K);
                gs_hits ref = scan_all(&gs_engine_bf, &ks, text, n, 0);
                gs_hits got = scan_all(&gs_engine_bv, &ks, text, n, 0);
                snprintf(what, sizeof what, "%s %s K=%u B=%u strands=%d exact-3p %u bv", name,
                         gs_match_mode_name((gs_match_mode)mode), K, bulges, both + 1, exact3p);
                same(&got, &ref, what);
                if (exact3p) { /* one site a hit, the same from both */
                    gs_error err0 = {0};
                    gs_hits_best_per_site(&got, ps->n, &err0);
                    gs_hits sites = {0};
                    for (size_t i = 0; i < ref.n; i++)
                        gs_hits_push(&sites, &ref.v[i]);
                    gs_hits_best_per_site(&sites, ps->n, &err0);
                    same(&got, &sites, "best per site");
                    gs_hits_free(&sites);
                }
                gs_hits_free(&got);
                static const size_t bl[] = {1, 2, 3, 7, 64};
                for (int b = 0; blocks && b < 5; b++) {
                    got = scan_all(&gs_engine_bv, &ks, text, n, bl[b]);
                    snprintf(what, sizeof what, "%s %s K=%u strands=%d bv block %zu", name,
                             gs_match_mode_name((gs_match_mode)mode), K, both + 1, bl[b]);
                    same(&got, &ref, what);
                    gs_hits_free(&got);
                }
                if (blocks) { /* the reference cut into blocks too */
                    got = scan_all(&gs_engine_bf, &ks, text, n, 5);
                    snprintf(what, sizeof what, "%s %s K=%u bf block 5", name,
                             gs_match_mode_name((gs_match_mode)mode), K);
                    same(&got, &ref, what);
                    gs_hits_free(&got);
                }
                gs_keyset ex;
                gs_error err = {0};
                /* K = 0 gives the exact hits (where the exact engines can expand
                 * the patterns) */
                if (K == 0 && bulges == 0 &&
                    gs_keyset_build(ps, GS_ALPHA_DNA, both, 0, &ex, &err) == GS_OK) {
                    gs_hits exact = scan_all(&gs_engine_ac, &ex, text, n, 0);
                    snprintf(what, sizeof what, "%s %s K=0 vs exact ac", name,
                             gs_match_mode_name((gs_match_mode)mode));
                    same(&ref, &exact, what);
                    gs_hits_free(&exact);
                    gs_keyset_free(&ex);
                }
                gs_hits_free(&ref);
                gs_keyset_free(&ks);
            }
}

static int quick(void);

/* bf's zones by hand: the hits it must give, all of them. */
static void zone_case(const char *pat, int both, gs_match_mode mode, uint32_t K, uint32_t x3,
                      const char *text, size_t n_want, const gs_hit *want)
{
    gs_patset ps = {0};
    gs_test_add_pattern(&ps, pat, strlen(pat), 0);
    exact3p = x3;
    gs_keyset ks = build(&ps, both, mode, K);
    exact3p = 0;
    gs_hits h = scan_all(&gs_engine_bf, &ks, (const uint8_t *)text, strlen(text), 0);
    gs_hits w = {0};
    for (size_t i = 0; i < n_want; i++)
        gs_hits_push(&w, &want[i]);
    char what[128];
    snprintf(what, sizeof what, "hand %s in %s exact-3p %u", pat, text, x3);
    same(&h, &w, what);
    gs_hits_free(&h);
    gs_hits_free(&w);
    gs_keyset_free(&ks);
    gs_patset_free(&ps);
}

#define ZH(s_, e_, str_, d_) {.start = s_, .end = e_, .strand = str_, .distance = d_}

static void test_exact3p_hand(void)
{
    const gs_match_mode MM = GS_MATCH_MISMATCHES, ED = GS_MATCH_EDITS;
    /* mismatches: one in the zone (the last 2) loses the hit, one outside keeps it */
    zone_case("ACGTACGT", 0, MM, 1, 2, "ACGTACGA", 0, NULL);
    zone_case("ACGTACGT", 0, MM, 1, 2, "TCGTACGT", 1, (gs_hit[]){ZH(0, 8, 1, 1)});
    /* the reverse strand: the zone is the leftmost residues on the text
     * (AACCGG: 3' GG, reverse complement CCGGTT, zone CC) */
    zone_case("AACCGG", 1, MM, 1, 2, "CCGGTA", 1, (gs_hit[]){ZH(0, 6, -1, 1)});
    zone_case("AACCGG", 1, MM, 1, 2, "ACGGTT", 0, NULL);
    /* a zone as long as the pattern, or longer: the pattern exact */
    zone_case("AACCGG", 1, MM, 2, 6, "CCGGTA", 0, NULL);
    zone_case("AACCGG", 1, MM, 2, 9, "CCGGTT", 1, (gs_hit[]){ZH(0, 6, -1, 0)});
    /* edits, ACGTTGCA with zone GCA: a deletion before the zone ... */
    zone_case("ACGTTGCA", 0, ED, 1, 3, "ACGTGCA", 1, (gs_hit[]){ZH(0, 7, 1, 1)});
    /* ... an insertion just before it (the zone's 3 columns stay matches) ... */
    zone_case("ACGTTGCA", 0, ED, 1, 3, "ACGTTAGCA", 1, (gs_hit[]){ZH(0, 9, 1, 1)});
    /* ... but none inside it: GA is GCA less its C */
    zone_case("ACGTTGCA", 0, ED, 1, 3, "ACGTTGA", 0, NULL);
    /* the reverse strand (TGCAACGT, zone TGC at the hit's start) */
    zone_case("ACGTTGCA", 1, ED, 1, 3, "TGCACGT", 1, (gs_hit[]){ZH(0, 7, -1, 1)});
    zone_case("ACGTTGCA", 1, ED, 1, 3, "TCAACGT", 0, NULL);
    /* the smallest start at the best distance: TGC must lead, so the hit
     * starts at the zone even where an extra base before it costs nothing
     * more without one (no zone: T + GCAACGT, start 0, distance 1) */
    zone_case("ACGTTGCA", 1, ED, 1, 3, "AGCAACGT", 0, NULL);
    zone_case("ACGTTGCA", 1, ED, 1, 0, "AGCAACGT", 1, (gs_hit[]){ZH(0, 8, -1, 1)});
}

static int quick(void)
{
    const char *q = getenv("GS_TEST_QUICK");
    return q && atoi(q) > 0;
}

static void test_random(void)
{
    uint64_t rng = 0x5eed;
    static const struct {
        size_t n;
        int pats;
        uint32_t minl, maxl;
        int degenerate, mess, blocks;
    } w[] = {
        {0, 3, 5, 9, 0, 0, 0},       {3, 3, 5, 9, 0, 0, 0},       {300, 4, 5, 12, 0, 0, 1},
        {2000, 6, 6, 30, 1, 1, 1},   {3000, 5, 18, 30, 1, 1, 1},  {1500, 3, 60, 70, 0, 1, 0},
        {1200, 2, 90, 130, 1, 0, 0}, {4000, 8, 5, 8, 0, 1, 0},
    };
    for (size_t i = 0; i < sizeof w / sizeof *w; i++) {
        if (quick() && (w[i].n > 2000 || w[i].maxl > 64))
            continue;
        gs_patset ps = {0};
        random_patterns(&rng, &ps, w[i].pats, w[i].minl, w[i].maxl, w[i].degenerate);
        uint8_t *t = make_text(&rng, &ps, w[i].n, w[i].mess);
        char name[64];
        snprintf(name, sizeof name, "random %zu (%zu residues)", i, w[i].n);
        compare_engines(&ps, t, w[i].n, name, w[i].blocks);
        free(t);
        gs_patset_free(&ps);
    }
}

/* ---- degenerate seeds ---------------------------------------------------- */

/* Primer-like keys with IUPAC codes inside their seeds: the filter enters
 * them under every q-mer they stand for (up to GS_SEED_EXPAND), so they
 * must be filtered, and bv (filter) must equal bf; a seed standing for more
 * q-mers keeps its key on the full scan. */
static void test_degenerate_seeds(void)
{
    uint64_t rng = 0xd15ea5e;
    gs_patset ps = {0};
    for (int i = 0; i < 12; i++) {
        uint32_t m = 18 + (uint32_t)gs_test_below(&rng, 13);
        char s[32];
        for (uint32_t j = 0; j < m; j++)
            s[j] = "ACGT"[gs_test_below(&rng, 4)];
        if (i % 4 == 0) /* one N, like the GPU primer screen */
            s[gs_test_below(&rng, m)] = 'N';
        else if (i % 4 == 1) /* two-base codes at the start of every piece */
            for (uint32_t j = 0; j < m; j += m / 5)
                s[j] = "RYSWKM"[gs_test_below(&rng, 6)];
        else if (i == 2) /* NNN in the first seed: 64 q-mers, past the cap for K < 4 */
            s[0] = s[1] = s[2] = 'N';
        gs_test_add_pattern(&ps, s, m, 0);
    }
    uint8_t *t = make_text(&rng, &ps, 6000, 1);
    for (uint32_t K = 0; K <= 4; K++) {
        gs_keyset ks = build(&ps, 1, GS_MATCH_EDITS, K);
        gs_seeds sd;
        gs_error err = {0};
        uint32_t n_want = 0;
        CHECK(gs_seeds_build(&ks, NULL, &sd, &err) == GS_OK);
        for (uint32_t k = 0; k < ks.n_keys; k++) {
            uint32_t m = gs_key_len(&ks, k);
            int want = m / (K + 1) >= GS_SEED_MIN;
            for (uint32_t r = 0; r <= K; r++) { /* pieces of m / (K + 1) rounded */
                uint32_t o = r * m / (K + 1), q = (r + 1) * m / (K + 1) - o, width = 1;
                for (uint32_t i = 0; i < q && i < 8; i++)
                    width *= (uint32_t)__builtin_popcount(gs_key(&ks, k)[o + i]);
                want &= width <= 16;
            }
            CHECK(sd.filtered[k] == want);
            n_want += (uint32_t)want;
            if (k == 4) /* pattern 2, forward: NNN in its first seed */
                CHECK(!sd.filtered[k]);
        }
        /* the degenerate keys (two in three) do take the filter */
        CHECK(K > 2 || n_want >= ks.n_keys / 2);
        CHECK(sd.n_filtered == n_want);
        gs_seeds_free(&sd);
        gs_keyset_free(&ks);
    }
    compare_engines(&ps, t, 6000, "degenerate seeds", 1);
    free(t);
    gs_patset_free(&ps);
}

/* ---- --exact-3p ---------------------------------------------------------- */

/* A random workload: text length, patterns and their lengths, whether the
 * engines also run on small blocks. */
typedef struct workload {
    size_t n;
    int pats;
    uint32_t minl, maxl;
    int blocks;
} workload;

/* compare_engines as shipped and with every key on the full scan (the
 * seed filter off); blocks only as shipped. */
static void compare_both_scans(const gs_patset *ps, const uint8_t *t, size_t n,
                               const char *label, int blocks)
{
    gs_tune full = {0};
    full.match_seed_filter = -1;
    const gs_tune *tunes[2] = {NULL, &full};
    for (int f = 0; f < 2; f++) {
        char name[96];
        scan_tune = tunes[f];
        snprintf(name, sizeof name, "%s%s", label, f ? " full scan" : "");
        compare_engines(ps, t, n, name, blocks && f == 0);
    }
    scan_tune = NULL;
}

/* Each workload's random patterns and text (rng from seed) to body, named
 * "LABEL random I". */
static void for_workloads(uint64_t seed, const workload *w, size_t nw, const char *label,
                          void (*body)(const gs_patset *, const uint8_t *, const workload *,
                                       const char *))
{
    uint64_t rng = seed;
    for (size_t i = 0; i < nw; i++) {
        if (quick() && w[i].maxl > 64)
            continue;
        gs_patset ps = {0};
        random_patterns(&rng, &ps, w[i].pats, w[i].minl, w[i].maxl, 1);
        uint8_t *t = make_text(&rng, &ps, w[i].n, 1);
        char name[64];
        snprintf(name, sizeof name, "%s random %zu", label, i);
        body(&ps, t, &w[i], name);
        free(t);
        gs_patset_free(&ps);
    }
}

static void exact3p_rounds(const gs_patset *ps, const uint8_t *t, const workload *w,
                           const char *name)
{
    for (exact3p = quick() ? 2 : 1; exact3p <= 5; exact3p += quick() ? 3 : 1)
        compare_both_scans(ps, t, w->n, name, w->blocks);
    exact3p = 0;
}

static void test_exact3p(void)
{
    test_exact3p_hand();
    static const workload w[] = {{500, 4, 4, 12, 1}, {1200, 5, 16, 26, 0}, {700, 2, 66, 72, 0}};
    for_workloads(0xe3e3, w, sizeof w / sizeof *w, "exact-3p", exact3p_rounds);
}

/* ---- --max-bulges -------------------------------------------------------- */

/* bf's bulges by hand (checked against a third, recursive brute force):
 * a residue the text lacks, one it has more, none inside the zone, a
 * mismatch beside a bulge, two mismatches that are not one bulge, and the
 * reverse strand, where every end at the best distance is a hit. */
static void test_bulges_hand(void)
{
    const gs_match_mode MM = GS_MATCH_MISMATCHES;
    bulges = 1;
    zone_case("ACGTACGTAC", 0, MM, 0, 0, "TTACGTCGTACTT", 1, (gs_hit[]){ZH(2, 11, 1, 1)});
    zone_case("ACGTACGTAC", 0, MM, 0, 0, "GGACGTAACGTACGG", 1, (gs_hit[]){ZH(2, 13, 1, 1)});
    zone_case("ACGTTGCA", 0, MM, 0, 3, "ACGTTGA", 0, NULL);
    zone_case("ACGTTGCA", 0, MM, 0, 3, "ACGTGCA", 1, (gs_hit[]){ZH(0, 7, 1, 1)});
    zone_case("ACGTACGTAC", 0, MM, 1, 0, "ACGTCGTTC", 1, (gs_hit[]){ZH(0, 9, 1, 2)});
    zone_case("ACGTACGTAC", 0, MM, 1, 0, "ACGTTCGTTC", 0, NULL);
    zone_case("ACGTTGCA", 1, MM, 0, 3, "TGCACGT", 1, (gs_hit[]){ZH(0, 7, -1, 1)});
    zone_case("ACGTTGCA", 1, MM, 0, 3, "TGCAACGTT", 3,
              (gs_hit[]){ZH(0, 7, -1, 1), ZH(0, 8, -1, 0), ZH(0, 9, -1, 1)});
    bulges = 0;
}

/* bulge.h on text bytes (the GPU's batches: any case, non-bases) as on
 * base bits (the CPU's): the same distance and length at every end. */
static void test_bulges_raw(void)
{
    uint64_t rng = 0x7a3;
    static const char letters[] = "ACGTacgtNn-";
    for (int round = 0; round < 2000; round++) {
        uint8_t key[40], raw[120], bits[120];
        uint32_t m = 6 + (uint32_t)gs_test_below(&rng, 30), n = m + 20;
        for (uint32_t i = 0; i < m; i++)
            key[i] = (uint8_t)(gs_test_below(&rng, 8) ? 1u << gs_test_below(&rng, 4) : 15u);
        for (uint32_t i = 0; i < n; i++) /* mostly the key, so that ends are hits */
            raw[i] = i >= 10 && i - 10 < m && gs_test_below(&rng, 5)
                         ? (uint8_t)"ACGT"[key[i - 10] == 15 ? 0 : __builtin_ctz(key[i - 10])]
                         : (uint8_t)letters[gs_test_below(&rng, sizeof letters - 1)];
        gs_approx_text_bits(raw, n, bits);
        uint32_t B = 1 + (uint32_t)gs_test_below(&rng, GS_MAX_BULGES), K = (uint32_t)gs_test_below(&rng, 3);
        uint32_t z = (uint32_t)gs_test_below(&rng, 4);
        int front = (int)gs_test_below(&rng, 2);
        for (uint32_t e = 0; e <= n; e++) {
            uint32_t la = 0, lb = 0;
            uint32_t da = gs_bulge_end(key, m, z, front, bits, 0, e, K, B, &la);
            uint32_t db = gs_bulge_end(key, m, z, front, raw, 1, e, K, B, &lb);
            CHECK(da == db && (da > K + B || la == lb));
        }
    }
}

/* bv against bf under --max-bulges: B 1..3, K 0..4, with and without a
 * zone, the seed filter on and off, small blocks. */
static void bulge_rounds(const gs_patset *ps, const uint8_t *t, const workload *w,
                         const char *name)
{
    for (bulges = 1; bulges <= 3; bulges += quick() ? 2 : 1)
        for (exact3p = 0; exact3p <= 3; exact3p += 3)
            compare_both_scans(ps, t, w->n, name, w->blocks);
    bulges = exact3p = 0;
}

static void test_bulges(void)
{
    test_bulges_hand();
    test_bulges_raw();
    static const workload w[] = {{600, 4, 8, 14, 1}, {1500, 5, 20, 26, 0}, {700, 2, 66, 70, 0}};
    for_workloads(0xb01e, w, sizeof w / sizeof *w, "bulges", bulge_rounds);
}

/* Patterns with their own K and exact-3p: bf against one run per pattern
 * with the pattern's values as the run's, and bv against bf. */
static void test_own_k(void)
{
    uint64_t rng = 0x0c0c;
    gs_tune full = {0};
    full.match_seed_filter = -1;
    for (int round = 0; round < (quick() ? 3 : 4); round++) { /* round 3: long keys */
        gs_patset ps = {0};
        random_patterns(&rng, &ps, 6, 6, round == 3 ? 70 : 28, 1);
        for (uint32_t p = 0; p < ps.n; p++) {
            if (gs_test_below(&rng, 3)) {
                ps.v[p].has_max_dist = 1;
                ps.v[p].max_dist = (uint32_t)gs_test_below(&rng, 5);
            }
            if (gs_test_below(&rng, 2)) {
                ps.v[p].has_exact3p = 1;
                ps.v[p].exact3p = (uint32_t)gs_test_below(&rng, 6);
            }
        }
        uint8_t *t = make_text(&rng, &ps, 1500, 1);
        for (int mode = GS_MATCH_MISMATCHES; mode <= GS_MATCH_EDITS; mode++) {
            const uint32_t K = (uint32_t)round % 3, x3 = (uint32_t)round % 2 * 2;
            char what[96];
            snprintf(what, sizeof what, "own K round %d %s", round,
                     gs_match_mode_name((gs_match_mode)mode));
            exact3p = x3;
            gs_keyset ks = build(&ps, 1, (gs_match_mode)mode, K);
            uint32_t most = K;
            for (uint32_t p = 0; p < ps.n; p++)
                if (ps.v[p].has_max_dist && ps.v[p].max_dist > most)
                    most = ps.v[p].max_dist;
            CHECK_EQ_U64(ks.max_dist, most); /* the run's K: the largest */
            gs_hits ref = scan_all(&gs_engine_bf, &ks, t, 1500, 0), alone = {0};
            for (uint32_t p = 0; p < ps.n; p++) { /* each pattern alone */
                gs_patset one = {0};
                gs_test_add_pattern(&one, ps.v[p].bytes, ps.v[p].len, 0);
                exact3p = ps.v[p].has_exact3p ? ps.v[p].exact3p : x3;
                gs_keyset k1 =
                    build(&one, 1, (gs_match_mode)mode, ps.v[p].has_max_dist ? ps.v[p].max_dist : K);
                gs_hits h = scan_all(&gs_engine_bf, &k1, t, 1500, 0);
                for (size_t i = 0; i < h.n; i++) {
                    h.v[i].pattern = p;
                    gs_hits_push(&alone, &h.v[i]);
                }
                gs_hits_free(&h);
                gs_keyset_free(&k1);
                gs_patset_free(&one);
            }
            exact3p = 0;
            if (alone.n > 1)
                qsort(alone.v, alone.n, sizeof *alone.v, gs_hit_cmp);
            same(&ref, &alone, what);
            for (int f = 0; f < 2; f++) {
                scan_tune = f ? &full : NULL;
                gs_hits got = scan_all(&gs_engine_bv, &ks, t, 1500, f ? 0 : 7);
                same(&got, &ref, what);
                gs_hits_free(&got);
            }
            scan_tune = NULL;
            gs_hits_free(&ref);
            gs_hits_free(&alone);
            gs_keyset_free(&ks);
        }
        free(t);
        gs_patset_free(&ps);
    }
}

/* ---- a real genome with real primers ------------------------------------- */

static void test_ecoli(void)
{
    const char *dir = getenv("GS_TEST_CACHE");
    char path[4096];
    snprintf(path, sizeof path, "%s/ecoli_mg1655.fa.gz", dir ? dir : "data/cache");
    gzFile f = quick() ? NULL : gzopen(path, "rb");
    if (f == NULL) {
        printf("test_approx: %s absent, real-genome case skipped\n", path);
        return;
    }
    enum { N = 20000 };
    uint8_t *t = malloc(N);
    size_t n = 0;
    char line[512];
    while (n < N && gzgets(f, line, sizeof line))
        for (char *p = line; *p && *p != '\n' && line[0] != '>' && n < N; p++)
            t[n++] = (uint8_t)*p;
    gzclose(f);
    gs_patset ps = {0};
    /* primers of configs/patterns/primers-example.txt, and stretches of the
     * genome itself (so that there are hits at every distance) */
    static const char *const primers[] = {"AGAGTTTGATCMTGGCTCAG", "GGTTACCTTGTTACGACTT",
                                          "GTGYCAGCMGCCGCGGTAA", "GGACTACNVGGGTWTCTAAT",
                                          "GTAAAACGACGGCCAGT", "CAGGAAACAGCTATGAC"};
    for (size_t i = 0; i < sizeof primers / sizeof *primers; i++)
        gs_test_add_pattern(&ps, primers[i], strlen(primers[i]), 0);
    for (size_t at = 1000; at + 30 < n; at += 9000)
        gs_test_add_pattern(&ps, t + at, 18 + at % 13, 0);
    compare_engines(&ps, t, n, "E. coli", 0);
    exact3p = 3; /* guides with NGG, and primers with a 3' rule */
    gs_patset_free(&ps);
    ps = (gs_patset){0};
    for (size_t i = 0; i < sizeof primers / sizeof *primers; i++)
        gs_test_add_pattern(&ps, primers[i], strlen(primers[i]), 0);
    for (size_t at = 700; at + 30 < n && at < 8000; at += 1900) {
        char g[24];
        memcpy(g, t + at, 20);
        memcpy(g + 20, "NGG", 3);
        gs_test_add_pattern(&ps, g, 23, 0);
    }
    compare_engines(&ps, t, n / 2, "E. coli exact-3p 3", 0);
    exact3p = 0;
    free(t);
    gs_patset_free(&ps);
}

/* ---- best per site ------------------------------------------------------- */

static int overlaps(const gs_hit *a, const gs_hit *b)
{
    return a->record == b->record && a->pattern == b->pattern && a->strand == b->strand &&
           a->start < b->end && b->start < a->end;
}

static void test_sites(void)
{
    uint64_t rng = 42;
    for (int round = 0; round < 200; round++) {
        size_t n = gs_test_below(&rng, 40);
        gs_hits h = {0};
        for (size_t i = 0; i < n; i++) {
            gs_hit x = {.start = gs_test_below(&rng, 60), .record = (uint32_t)gs_test_below(&rng, 2),
                        .pattern = (uint32_t)gs_test_below(&rng, 2),
                        .strand = gs_test_below(&rng, 2) ? 1 : -1,
                        .distance = (uint8_t)gs_test_below(&rng, 3)};
            x.end = x.start + 1 + gs_test_below(&rng, 8);
            gs_hits_push(&h, &x);
        }
        if (h.n > 1)
            qsort(h.v, h.n, sizeof *h.v, gs_hit_cmp);
        /* sites by transitive closure (label propagation) */
        size_t *site = malloc((n + 1) * sizeof *site);
        for (size_t i = 0; i < n; i++)
            site[i] = i;
        for (int changed = 1; changed;) {
            changed = 0;
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++)
                    if (overlaps(&h.v[i], &h.v[j]) && site[j] < site[i]) {
                        site[i] = site[j];
                        changed = 1;
                    }
        }
        gs_hits want = {0};
        for (size_t i = 0; i < n; i++) {
            if (site[i] != i)
                continue;
            size_t b = i;
            for (size_t j = 0; j < n; j++) {
                const gs_hit *x = &h.v[j], *y = &h.v[b];
                if (site[j] == i && (x->distance < y->distance ||
                                     (x->distance == y->distance &&
                                      (x->start < y->start || (x->start == y->start && x->end < y->end)))))
                    b = j;
            }
            gs_hits_push(&want, &h.v[b]);
        }
        if (want.n > 1)
            qsort(want.v, want.n, sizeof *want.v, gs_hit_cmp);
        /* as a stream: hits in, winners out in the order their sites close */
        gs_error err0 = {0};
        gs_sites st;
        gs_hits streamed = {0};
        CHECK(gs_sites_init(&st, 2, &err0) == GS_OK);
        gs_hit won, open[4];
        for (size_t i = 0; i < h.n; i++)
            if (gs_sites_add(&st, &h.v[i], &won))
                gs_hits_push(&streamed, &won);
        for (size_t i = 0, k = gs_sites_end(&st, open); i < k; i++)
            gs_hits_push(&streamed, &open[i]);
        gs_sites_free(&st);
        if (streamed.n > 1)
            qsort(streamed.v, streamed.n, sizeof *streamed.v, gs_hit_cmp);
        same(&streamed, &want, "best per site, streamed");
        gs_hits_free(&streamed);
        gs_hits_best_per_site(&h, 2, &err0);
        same(&h, &want, "best per site");
        uint64_t counts[4] = {0}, by_threads[4] = {0};
        gs_hits_count(&h, 2, 4, counts, 1);
        CHECK_EQ_U64(counts[0] + counts[1] + counts[2] + counts[3], h.n);
        gs_hits_count(&h, 2, 4, by_threads, 3); /* one share: too few hits */
        for (int c = 0; c < 4; c++)
            CHECK_EQ_U64(by_threads[c], counts[c]);
        free(site);
        gs_hits_free(&h);
        gs_hits_free(&want);
    }
}

/* Counts taken on threads equal those taken on one, and add to what the
 * array held (hits of 5 patterns on both strands, 10,000 of them). */
static void test_count_threads(void)
{
    gs_hits h = {0};
    uint64_t one[10] = {0}, many[10] = {0}, want[10] = {0};
    uint64_t x = 12345;
    for (int i = 0; i < 10000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        gs_hit hit = {.pattern = (uint32_t)(x >> 60) % 5, .strand = (x >> 40 & 1) ? -1 : 1};
        gs_hits_push(&h, &hit);
        want[hit.pattern * 2 + (hit.strand < 0)]++;
    }
    for (int c = 0; c < 10; c++)
        many[c] = 7;
    gs_hits_count(&h, 2, 10, one, 1);
    gs_hits_count(&h, 2, 10, many, 4);
    for (int c = 0; c < 10; c++) {
        CHECK_EQ_U64(one[c], want[c]);
        CHECK_EQ_U64(many[c], want[c] + 7);
    }
    gs_hits_free(&h);
}

int main(void)
{
    test_count_threads();
    test_hand();
    test_sites();
    test_random();
    test_degenerate_seeds();
    test_ecoli();
    test_exact3p();
    test_own_k();
    test_bulges();
    return gs_test_done("test_approx");
}
