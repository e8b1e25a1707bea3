/* test_seed_plan.c - the CPU's planned seeds (gs_seeds_plan,
 * gs_seeds_build_planned) against brute force.
 *
 * The plan: for random IUPAC keys and K, every set of K + 1 disjoint seeds
 * of 4..8 residues (each standing for at most 16 q-mers) is enumerated,
 * and the plan must exist exactly when one does, be such a set, and cost
 * the least (width / 4^q summed). Then bv with the plan against bf on the
 * keys the equal pieces leave on the full scan (a wide code in a piece, as
 * 806R's reverse complement has), with sites planted at exactly K
 * mismatches anywhere: a plan whose seeds could all be hit would lose one.
 */
#include "match/engine.h"
#include "match/keyset.h"
#include "match/seeds.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { QMIN = GS_SEED_MIN, QMAX = GS_SEED_MAX };

static uint64_t cost_of(const uint8_t *key, uint32_t o, uint32_t q)
{
    uint64_t w = 1;
    for (uint32_t i = 0; i < q; i++)
        w *= (uint64_t)__builtin_popcount(key[o + i] & 15u);
    return w > GS_SEED_EXPAND ? UINT64_MAX : w << 2 * (QMAX - q);
}

/* The least cost of r seeds inside key[from .. m), every choice tried. */
static uint64_t brute(const uint8_t *key, uint32_t m, uint32_t from, uint32_t r)
{
    if (r == 0)
        return 0;
    uint64_t best = UINT64_MAX;
    for (uint32_t o = from; o + QMIN * r <= m; o++)
        for (uint32_t q = QMIN; q <= QMAX && o + q <= m; q++) {
            uint64_t c = cost_of(key, o, q), rest;
            if (c == UINT64_MAX || (rest = brute(key, m, o + q, r - 1)) == UINT64_MAX)
                continue;
            if (c + rest < best)
                best = c + rest;
        }
    return best;
}

static void test_plan_brute(void)
{
    static const char codes[] = "ACGTACGTACGTRYSWKMBDHVN";
    uint64_t rng = 0x91a4;
    uint8_t key[64];
    uint32_t off[64], len[64];
    for (int round = 0; round < 3000; round++) {
        uint32_t m = 4 + (uint32_t)gs_test_below(&rng, 19), K = (uint32_t)gs_test_below(&rng, 4);
        int wide = (int)gs_test_below(&rng, 3); /* 0: plain, 1-2: more IUPAC */
        for (uint32_t i = 0; i < m; i++) {
            char c = codes[gs_test_below(&rng, wide ? 23 : 4)];
            static const char *iupac = "ACMGRSVTWYHKDBN";
            key[i] = (uint8_t)(strchr(iupac, c) - iupac + 1);
        }
        uint64_t want = brute(key, m, 0, K + 1);
        int got = gs_seeds_plan(key, m, K, off, len);
        CHECK(got == (want != UINT64_MAX));
        if (!got || want == UINT64_MAX)
            continue;
        uint64_t c = 0;
        for (uint32_t r = 0; r <= K; r++) {
            CHECK(len[r] >= QMIN && len[r] <= QMAX && off[r] + len[r] <= m);
            CHECK(r == 0 || off[r] >= off[r - 1] + len[r - 1]); /* disjoint, by offset */
            uint64_t x = cost_of(key, off[r], len[r]);
            CHECK(x != UINT64_MAX);
            c += x;
        }
        if (c != want)
            fprintf(stderr, "plan round %d: m %u K %u cost %llu, least %llu\n", round, m, K,
                    (unsigned long long)c, (unsigned long long)want);
        CHECK(c == want);
    }
    /* keys over 64 residues, or too short for K + 1 seeds: no plan */
    memset(key, 1, sizeof key);
    CHECK(!gs_seeds_plan(key, 11, 2, off, len));
    CHECK(gs_seeds_plan(key, 12, 2, off, len));
}

/* A segment's hits of engine e, as (key, pos, len, dist) sorted. */
static gs_keyhits scan(const gs_engine *e, const gs_keyset *ks, const uint8_t *t, size_t n)
{
    void *c = NULL;
    gs_error err = {0};
    gs_keyhits kh = {0};
    uint64_t *kc = calloc(ks->n_keys + 1, sizeof *kc);
    if (e->compile(ks, NULL, &c, &err) != GS_OK)
        abort();
    uint8_t *g = gs_guarded_alloc(n);
    memcpy(g, t, n);
    gs_match_out mo = {.key_counts = kc, .hits = &kh, .oom = 0};
    e->scan(c, g, n, n, &mo);
    CHECK(!mo.oom);
    e->destroy(c);
    gs_guarded_free(g, n);
    free(kc);
    return kh;
}

static int hit_cmp(const void *a, const void *b)
{
    const gs_keyhit *x = a, *y = b;
    const uint64_t u[4] = {x->key, x->pos, x->len, x->dist}, v[4] = {y->key, y->pos, y->len, y->dist};
    for (int i = 0; i < 4; i++)
        if (u[i] != v[i])
            return u[i] < v[i] ? -1 : 1;
    return 0;
}

/* Primers whose equal pieces hold a code too wide for the filter, and
 * text with each planted many times at exactly K substitutions (or K
 * edits), both strands. */
static void test_plan_scan(void)
{
    static const char *const pats[] = {"GGACTACNVGGGTWTCTAAT", "ACGTNNACGTACCGTTAGCA",
                                       "TTGACCAGTNBACGGTCAATGC", "CYGAATGGGRVAACC"};
    uint64_t rng = 0x5ee0;
    gs_patset ps = {0};
    for (size_t i = 0; i < sizeof pats / sizeof *pats; i++)
        gs_test_add_pattern(&ps, pats[i], strlen(pats[i]), 0);
    enum { N = 60000 };
    uint8_t *t = malloc(N);
    for (size_t i = 0; i < N; i++)
        t[i] = "ACGT"[gs_test_below(&rng, 4)];
    for (uint32_t K = 0; K <= 3; K++)
        for (int mode = GS_MATCH_MISMATCHES; mode <= GS_MATCH_EDITS; mode++)
            for (uint32_t x3 = 0; x3 <= 3; x3 += 3) {
                for (size_t at = 0; at + 40 < N; at += 97) { /* plant: K substitutions */
                    const char *p = pats[gs_test_below(&rng, sizeof pats / sizeof *pats)];
                    size_t m = strlen(p);
                    for (size_t i = 0; i < m; i++)
                        t[at + i] = strchr("ACGT", p[i]) ? (uint8_t)p[i] : 'A';
                    for (uint32_t k = 0; k < K; k++) {
                        size_t i = gs_test_below(&rng, m - x3);
                        t[at + i] = "ACGT"[gs_test_below(&rng, 4)];
                    }
                }
                gs_keyset ks;
                gs_error err = {0};
                CHECK(gs_keyset_build_approx(&ps, 1, (gs_match_mode)mode, K, &ks, &err) == GS_OK);
                CHECK(gs_keyset_set_exact3p(&ks, &ps, x3, &err) == GS_OK);
                gs_seeds eq, pl;
                gs_tune seeds_only = {0}; /* no key sent to the zone scan first */
                seeds_only.match_zone_scan = -1;
                CHECK(gs_seeds_build(&ks, &seeds_only, &eq, &err) == GS_OK);
                CHECK(gs_seeds_build_planned(&ks, &seeds_only, &pl, &err) == GS_OK);
                CHECK(pl.n_filtered >= eq.n_filtered);
                if (K == 2) /* 806R's reverse complement (key 1): planned only */
                    CHECK(pl.filtered[1] && !eq.filtered[1]);
                gs_seeds_free(&eq);
                gs_seeds_free(&pl);
                gs_keyhits a = scan(&gs_engine_bv, &ks, t, N), b = scan(&gs_engine_bf, &ks, t, N);
                qsort(a.v, a.n, sizeof *a.v, hit_cmp);
                qsort(b.v, b.n, sizeof *b.v, hit_cmp);
                int ok = a.n == b.n;
                for (size_t i = 0; ok && i < a.n; i++)
                    ok = hit_cmp(&a.v[i], &b.v[i]) == 0;
                if (!ok)
                    fprintf(stderr, "plan scan K %u mode %d exact-3p %u: bv %zu hits, bf %zu\n",
                            K, mode, x3, a.n, b.n);
                CHECK(ok);
                CHECK(b.n > 100); /* the planted sites are found */
                free(a.v);
                free(b.v);
                gs_keyset_free(&ks);
            }
    free(t);
    gs_patset_free(&ps);
}

int main(void)
{
    test_plan_brute();
    test_plan_scan();
    return gs_test_done("test_seed_plan");
}
