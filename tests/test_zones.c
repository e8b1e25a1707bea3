/* test_zones.c - the zone-first scan of mismatch keys with --exact-3p
 * (src/match/zones.h): which keys it takes and how it groups them, the
 * GPU kernel's arithmetic (src/gpu/bv_zone.cuh: block ranges, bit planes,
 * counts) replayed on the CPU against a brute force at many segment ends
 * and block sizes, and the CPU engine bv with match.zone.scan -1, 0 and 1
 * against bf.
 *
 * Guides of 20 + NGG (IUPAC in the spacer, many sharing the zone, both
 * strands), primers with zones of their own, per-pattern K and exact-3p,
 * text with N runs and lowercase.
 */
#define _DEFAULT_SOURCE
#include "match/engine.h"
#include "match/keyset.h"
#include "match/seeds.h"
#include "match/zones.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char IUPAC[] = "RYSWKMBDHVN";

static gs_keyset build(const gs_patset *ps, int both, gs_match_mode mode, uint32_t K, uint32_t x3)
{
    gs_keyset ks;
    gs_error err = {0};
    gs_status st = gs_keyset_build_approx(ps, both, mode, K, &ks, &err);
    if (st == GS_OK)
        st = gs_keyset_set_exact3p(&ks, ps, x3, &err);
    if (st != GS_OK) {
        fprintf(stderr, "keyset: %s\n", err.msg);
        abort();
    }
    return ks;
}

static void add(gs_patset *ps, const char *s) { gs_test_add_pattern(ps, s, strlen(s), 0); }

/* ---- which keys, which groups -------------------------------------------- */

static void test_rule(void)
{
    gs_patset ps = {0};
    add(&ps, "ACGTACGTACGTACGTACGTAGG"); /* NGG-like zone AGG: 1 in 64 */
    add(&ps, "ACGTACGTACGTACGTACGTNGG"); /* NGG: 1 in 16 */
    add(&ps, "ACGTACGTACGTACGTACGTANN"); /* ANN: 1 in 4, the limit */
    add(&ps, "ACGTACGTACGTACGTACGTRNN"); /* RNN: 1 in 2 */
    add(&ps, "ACGTACGTACGTACGTACGTACG");
    ps.v[4].has_exact3p = 1;
    ps.v[4].exact3p = 0; /* no zone */
    gs_keyset ks = build(&ps, 1, GS_MATCH_MISMATCHES, 6, 3);
    const int want[5] = {1, 1, 1, 0, 0};
    for (uint32_t k = 0; k < ks.n_keys; k++) {
        const uint32_t p = ks.outputs[ks.out_off[k]] >> 1;
        CHECK_EQ_U64(gs_zone_selective(&ks, k, UINT32_MAX, NULL), want[p]);
        CHECK_EQ_U64(gs_zone_selective(&ks, k, 22, NULL), 0); /* longer than max_len */
    }
    gs_tune never = {0};
    never.match_zone_scan = -1;
    for (uint32_t k = 0; k < ks.n_keys; k++)
        CHECK(!gs_zone_selective(&ks, k, UINT32_MAX, &never));
    gs_keyset_free(&ks);
    ks = build(&ps, 1, GS_MATCH_EDITS, 2, 3); /* edits: never */
    for (uint32_t k = 0; k < ks.n_keys; k++)
        CHECK(!gs_zone_selective(&ks, k, UINT32_MAX, NULL));
    gs_keyset_free(&ks);
    gs_patset_free(&ps);
}

/* 100 guides with NGG make one group a strand; keys of other zones their
 * own; small groups go to the zone scan before the seed filter, large ones
 * (300 guides with NGG: 18.75 windows a position) stay with it, unless
 * match.zone.scan is 1. */
static void test_groups(void)
{
    uint64_t rng = 0x20e5;
    gs_patset ps = {0};
    for (int i = 0; i < 100; i++) {
        char s[24];
        for (int j = 0; j < 20; j++)
            s[j] = i % 10 == 3 && j == 7 ? 'N' : "ACGT"[gs_test_below(&rng, 4)];
        memcpy(s + 20, "NGG", 4);
        add(&ps, s);
    }
    add(&ps, "ACGTTGCAACGTTGCAACGTTTT"); /* zone TTT */
    add(&ps, "ACGTTGCAACGTTGCAACGTNAG"); /* zone NAG */
    gs_keyset ks = build(&ps, 1, GS_MATCH_MISMATCHES, 6, 3);
    gs_error err = {0};
    gs_seeds seeds;
    gs_zones z;
    CHECK(gs_seeds_build(&ks, NULL, &seeds, &err) == GS_OK);
    CHECK_EQ_U64(seeds.n_filtered, 0); /* K = 6 on 23: pieces of 3 */
    CHECK(gs_zones_build(&ks, &seeds, 64, NULL, &z, &err) == GS_OK);
    CHECK_EQ_U64(z.n_zoned, ks.n_keys);
    CHECK_EQ_U64(z.n_runs, 6);
    CHECK_EQ_U64(z.run[1] - z.run[0], 100); /* the guides' forward keys first */
    CHECK_EQ_U64(z.run[2] - z.run[1], 100); /* then their reverse ones (CCN in front) */
    for (uint32_t g = 0; g < z.n_runs; g++)
        for (uint32_t i = z.run[g]; i < z.run[g + 1]; i++) {
            int f0, f;
            gs_key_zone(&ks, z.keys[z.run[g]], &f0);
            gs_key_zone(&ks, z.keys[i], &f);
            CHECK(f == f0 && z.zoned[z.keys[i]]);
            CHECK(i == z.run[g] || z.keys[i] > z.keys[i - 1]);
        }
    gs_zones_free(&z);
    gs_seeds_free(&seeds);
    gs_keyset_free(&ks);
    /* K = 3: every group is small (100 guides with NGG let 6.25 windows a
     * position through, a strand), so the zone scan takes every key ... */
    ks = build(&ps, 1, GS_MATCH_MISMATCHES, 3, 3);
    CHECK(gs_seeds_build(&ks, NULL, &seeds, &err) == GS_OK);
    CHECK_EQ_U64(seeds.n_filtered, 0);
    CHECK(gs_zones_build(&ks, &seeds, 64, NULL, &z, &err) == GS_OK);
    CHECK_EQ_U64(z.n_zoned, ks.n_keys);
    gs_zones_free(&z);
    gs_seeds_free(&seeds);
    /* ... with match.zone.scan -1 the seed filter takes every key ... */
    gs_tune never = {0};
    never.match_zone_scan = -1;
    CHECK(gs_seeds_build(&ks, &never, &seeds, &err) == GS_OK);
    CHECK_EQ_U64(seeds.n_filtered, ks.n_keys);
    CHECK(gs_zones_build(&ks, &seeds, 64, &never, &z, &err) == GS_OK);
    CHECK_EQ_U64(z.n_zoned, 0);
    CHECK(z.zoned == NULL);
    gs_zones_free(&z);
    gs_seeds_free(&seeds);
    /* ... unless match.zone.scan is 1: then the zone scan takes them all */
    gs_tune all = {0};
    all.match_zone_scan = 1;
    CHECK(gs_seeds_build(&ks, &all, &seeds, &err) == GS_OK);
    CHECK_EQ_U64(seeds.n_filtered, 0);
    CHECK(gs_zones_build(&ks, &seeds, 64, &all, &z, &err) == GS_OK);
    CHECK_EQ_U64(z.n_zoned, ks.n_keys);
    gs_zones_free(&z);
    gs_seeds_free(&seeds);
    gs_keyset_free(&ks);
    /* 300 guides with NGG: the seed filter keeps them, the two lone keys
     * (each a group of one) go to the zone scan */
    for (int i = 0; i < 200; i++) {
        char g[24];
        for (int j = 0; j < 20; j++)
            g[j] = "ACGT"[gs_test_below(&rng, 4)];
        memcpy(g + 20, "NGG", 4);
        add(&ps, g);
    }
    ks = build(&ps, 1, GS_MATCH_MISMATCHES, 3, 3);
    CHECK(gs_seeds_build(&ks, NULL, &seeds, &err) == GS_OK);
    CHECK_EQ_U64(seeds.n_filtered, ks.n_keys - 4);
    CHECK(gs_zones_build(&ks, &seeds, 64, NULL, &z, &err) == GS_OK);
    CHECK_EQ_U64(z.n_zoned, 4);
    gs_zones_free(&z);
    gs_seeds_free(&seeds);
    gs_keyset_free(&ks);
    gs_patset_free(&ps);
}

/* ---- random workloads ------------------------------------------------------ */

/* Guides of 20 + NGG (some with IUPAC in the spacer) and primers of 8..64
 * with IUPAC anywhere, some with their own K and exact-3p. */
static void make_patterns(uint64_t *rng, gs_patset *ps, int n_guides, int n_primers)
{
    char s[80];
    for (int i = 0; i < n_guides; i++) {
        for (int j = 0; j < 20; j++)
            s[j] = gs_test_below(rng, 12) == 0 ? IUPAC[gs_test_below(rng, 11)]
                                                : "ACGT"[gs_test_below(rng, 4)];
        memcpy(s + 20, "NGG", 3);
        gs_test_add_pattern(ps, s, 23, 0);
    }
    for (int i = 0; i < n_primers; i++) {
        uint32_t m = 8 + (uint32_t)gs_test_below(rng, 57);
        for (uint32_t j = 0; j < m; j++)
            s[j] = gs_test_below(rng, 8) == 0 ? IUPAC[gs_test_below(rng, 11)]
                                               : "ACGT"[gs_test_below(rng, 4)];
        gs_test_add_pattern(ps, s, m, 0);
        gs_pattern *p = &ps->v[ps->n - 1];
        if (gs_test_below(rng, 2)) {
            p->has_max_dist = 1;
            p->max_dist = (uint32_t)gs_test_below(rng, 7);
        }
        if (gs_test_below(rng, 3)) {
            p->has_exact3p = 1;
            p->exact3p = (uint32_t)gs_test_below(rng, 7);
        }
    }
}

/* Text: the guides' and primers' sites with a few changes, on random
 * background, lowercase here and there, runs of N and other non-bases. */
static uint8_t *make_text(uint64_t *rng, const gs_patset *ps, size_t n)
{
    uint8_t *t = malloc(n);
    for (size_t i = 0; i < n; i++)
        t[i] = (uint8_t)"ACGT"[gs_test_below(rng, 4)];
    for (uint32_t p = 0; p < ps->n && n > 80; p++)
        for (int c = 0; c < 6; c++) {
            size_t at = gs_test_below(rng, n - ps->v[p].len);
            for (uint32_t j = 0; j < ps->v[p].len; j++) {
                char b = (char)ps->v[p].bytes[j];
                t[at + j] = (uint8_t)(strchr("ACGT", b) && gs_test_below(rng, 6) ? b
                                      : "ACGT"[gs_test_below(rng, 4)]);
            }
        }
    for (size_t i = 0; i < n; i++)
        if (gs_test_below(rng, 9) == 0)
            t[i] = (uint8_t)(t[i] | 0x20);
    for (int r = 0; r < 6 && n > 40; r++) {
        size_t at = gs_test_below(rng, n - 30), l = 1 + gs_test_below(rng, 30);
        for (size_t j = 0; j < l; j++)
            t[at + j] = (uint8_t)(r == 5 ? "-.*"[j % 3] : 'N');
    }
    return t;
}

typedef struct zhit {
    uint32_t key, end, d;
} zhit;

static int zhit_cmp(const void *a, const void *b)
{
    const zhit *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return (x->d > y->d) - (x->d < y->d);
}

/* The zoned keys' windows ending at 1 .. stop whose zone matches and whose
 * mismatches (over the whole key, a non-base never matching) are within
 * the key's K: what the GPU must push, by definition. */
static size_t brute(const gs_keyset *ks, const gs_zones *z, const uint8_t *codes, uint32_t stop,
                    zhit *out)
{
    size_t n = 0;
    for (uint32_t i = 0; i < z->n_zoned; i++) {
        const uint32_t k = z->keys[i], m = gs_key_len(ks, k), K = gs_key_k(ks, k);
        int front;
        const uint32_t nz = gs_key_zone(ks, k, &front), zo = front ? 0 : m - nz;
        const uint8_t *key = gs_key(ks, k);
        for (uint32_t s = 0; s + m <= stop; s++) {
            uint32_t d = 0, zok = 1;
            for (uint32_t j = 0; j < m; j++) {
                const uint32_t hit = key[j] >> codes[s + j] & 1u;
                d += !hit;
                if (j >= zo && j < zo + nz && !hit)
                    zok = 0;
            }
            if (zok && d <= K)
                out[n++] = (zhit){k, s + m, d};
        }
    }
    qsort(out, n, sizeof *out, zhit_cmp);
    return n;
}

/* gs_bv_zone's work, block by block (without its queue: which thread
 * counts which pair changes nothing pushed). */
static size_t replay(const gs_zone_group *groups, const gs_zone_key *keys, uint32_t n_groups,
                     const uint8_t *kbytes, uint32_t max_len, const uint8_t *codes, uint32_t stop,
                     uint32_t chunk, zhit *out)
{
    size_t n = 0;
    for (uint32_t c0 = 0; c0 < stop; c0 += chunk) {
        uint32_t c1, t0, t1;
        gs_zone_block(c0, chunk, stop, max_len, &c1, &t0, &t1);
        const uint8_t *tx = codes + t0; /* what the block holds: [t0, t1) */
        for (uint32_t g = 0; g < n_groups; g++) {
            const gs_zone_group *gr = &groups[g];
            for (uint32_t p = c0; p < c1; p++) {
                if (p + gr->n > stop || !gs_zone_codes_ok(kbytes + gr->zoff, gr->n, tx + (p - t0)))
                    continue;
                CHECK(p + gr->n <= t1);
                uint64_t pl[3];
                gs_zone_planes(tx, (int64_t)(p - t0) + gr->off, t1 - t0, gr->len, pl);
                for (uint32_t i = gr->k0; i < gr->k1; i++) {
                    uint32_t end, d;
                    if (gs_zone_fits(&keys[i], p, stop, &end) &&
                        (d = gs_zone_mismatches(&keys[i], pl)) <= keys[i].k)
                        out[n++] = (zhit){keys[i].key, end, d};
                }
            }
        }
    }
    qsort(out, n, sizeof *out, zhit_cmp);
    return n;
}

static void check_replay(const gs_keyset *ks, const gs_zones *z, const uint8_t *codes,
                         uint32_t len, const char *what)
{
    gs_zone_group *groups;
    gs_zone_key *keys;
    gs_error err = {0};
    if (gs_zones_tables(ks, z, &groups, &keys, &err) != GS_OK)
        abort();
    uint32_t max_len = 0;
    for (uint32_t g = 0; g < z->n_runs; g++)
        max_len = groups[g].len > max_len ? groups[g].len : max_len;
    zhit *ref = malloc(((size_t)len * z->n_zoned + 1) * sizeof *ref);
    zhit *got = malloc(((size_t)len * z->n_zoned + 1) * sizeof *got);
    /* fixed ends, and one before and at the end of some hits: a window
     * one past the segment's end must not come through */
    uint32_t stops[32] = {0, 1, 22, 23, 24, 64, 65, 200, 1001, len}, n_stops = 10;
    const size_t all = brute(ks, z, codes, len, ref);
    for (size_t i = 0; i < 10 && all; i++) {
        stops[n_stops++] = ref[i * all / 10].end - 1;
        stops[n_stops++] = ref[i * all / 10].end;
    }
    static const uint32_t chunks[] = {1, 7, 64, 1000, 8192};
    for (uint32_t si = 0; si < n_stops; si++) {
        const uint32_t stop = stops[si] < len ? stops[si] : len;
        const size_t nr = brute(ks, z, codes, stop, ref);
        for (size_t ci = 0; ci < sizeof chunks / sizeof *chunks; ci++) {
            const size_t ng =
                replay(groups, keys, z->n_runs, ks->key_bytes, max_len, codes, stop, chunks[ci], got);
            int bad = ng != nr || (nr && memcmp(got, ref, nr * sizeof *ref) != 0);
            if (bad)
                fprintf(stderr, "%s: stop %u chunk %u: %zu hits, expected %zu\n", what, stop,
                        chunks[ci], ng, nr);
            CHECK(!bad);
        }
    }
    free(ref);
    free(got);
    free(groups);
    free(keys);
}

/* The GPU kernel's arithmetic at K 0..6, both strands, every exact-3p. */
static void test_replay(void)
{
    uint64_t rng = 0x2ee1;
    for (int round = 0; round < 6; round++) {
        gs_patset ps = {0};
        make_patterns(&rng, &ps, round % 2 ? 40 : 8, round < 2 ? 0 : 6);
        const uint32_t len = 1000 + (uint32_t)gs_test_below(&rng, 1500);
        uint8_t *t = make_text(&rng, &ps, len), *codes = malloc(len);
        for (uint32_t i = 0; i < len; i++)
            codes[i] = (uint8_t)gs_bv_code(t[i]);
        for (uint32_t K = 0; K <= 6; K++)
            for (int both = 0; both <= 1; both++) {
                const uint32_t x3 = 1 + (K + (uint32_t)both) % 5;
                if (K >= ps.min_len)
                    continue;
                gs_keyset ks = build(&ps, both, GS_MATCH_MISMATCHES, K, x3);
                gs_zones z;
                gs_error err = {0};
                CHECK(gs_zones_build(&ks, NULL, 64, NULL, &z, &err) == GS_OK);
                char what[96];
                snprintf(what, sizeof what, "replay round %d K=%u strands=%d exact-3p %u", round,
                         K, both + 1, x3);
                if (z.n_zoned)
                    check_replay(&ks, &z, codes, len, what);
                CHECK(round >= 2 || z.n_zoned == ks.n_keys); /* guides alone: every key */
                gs_zones_free(&z);
                gs_keyset_free(&ks);
            }
        free(t);
        free(codes);
        gs_patset_free(&ps);
    }
}

/* ---- the CPU engine ------------------------------------------------------ */

static size_t scan_keyhits(const gs_engine *e, const gs_keyset *ks, const gs_tune *tune,
                           const uint8_t *t, size_t len, zhit *out)
{
    void *c = NULL;
    gs_error err = {0};
    if (e->compile(ks, tune, &c, &err) != GS_OK)
        abort();
    gs_keyhits kh = {0};
    uint64_t *kc = calloc(ks->n_keys + 1, sizeof *kc);
    gs_match_out mo = {.key_counts = kc, .hits = &kh, .oom = 0};
    e->scan(c, t, len, len, &mo);
    CHECK(!mo.oom);
    for (size_t i = 0; i < kh.n; i++)
        out[i] = (zhit){kh.v[i].key, (uint32_t)(kh.v[i].pos + kh.v[i].len), kh.v[i].dist};
    qsort(out, kh.n, sizeof *out, zhit_cmp);
    e->destroy(c);
    free(kh.v);
    free(kc);
    return kh.n;
}

/* bv with the zone scan never, off the seed filter, always: bf's hits. */
static void test_engine(void)
{
    uint64_t rng = 0xbeef5;
    gs_tune tunes[3] = {{0}, {0}, {0}};
    tunes[0].match_zone_scan = -1;
    tunes[2].match_zone_scan = 1;
    for (int round = 0; round < 3; round++) {
        gs_patset ps = {0};
        make_patterns(&rng, &ps, 30, round ? 8 : 0);
        const size_t len = 3000;
        uint8_t *t = make_text(&rng, &ps, len);
        for (uint32_t K = 0; K <= 6; K += round + 1)
            for (int both = 0; both <= 1; both++) {
                gs_keyset ks = build(&ps, both, GS_MATCH_MISMATCHES, K, 3);
                zhit *ref = malloc((len * ks.n_keys + 1) * sizeof *ref);
                zhit *got = malloc((len * ks.n_keys + 1) * sizeof *got);
                const size_t nr = scan_keyhits(&gs_engine_bf, &ks, NULL, t, len, ref);
                for (int v = 0; v < 3; v++) {
                    const size_t ng = scan_keyhits(&gs_engine_bv, &ks, &tunes[v], t, len, got);
                    int bad = ng != nr || (nr && memcmp(got, ref, nr * sizeof *ref) != 0);
                    if (bad)
                        fprintf(stderr, "bv round %d K=%u strands=%d match.zone.scan=%d: %zu hits, "
                                "expected %zu\n", round, K, both + 1, v - 1, ng, nr);
                    CHECK(!bad);
                }
                free(ref);
                free(got);
                gs_keyset_free(&ks);
            }
        free(t);
        gs_patset_free(&ps);
    }
}

int main(void)
{
    test_rule();
    test_groups();
    test_replay();
    test_engine();
    return gs_test_done("test_zones");
}
