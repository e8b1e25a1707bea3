/* seeds.c - the pigeonhole seed tables of the bv engines (seeds.h).
 *
 * Tables are CSR arrays per seed length: a count pass and a place pass over
 * the keys, degenerate seeds enumerated into their concrete q-mers (at most
 * GS_SEED_EXPAND each, so a table holds a few entries per seed). Entries
 * of one q-mer are in key order.
 */
#include "seeds.h"
#include "zones.h"

#include <stdlib.h>
#include <string.h>

/* Concrete q-mers the seed key[o .. o + q) stands for (0 if a position holds
 * no base). */
static uint32_t seed_width(const uint8_t *key, uint32_t o, uint32_t q)
{
    uint32_t n = 1;
    for (uint32_t i = 0; i < q && n <= GS_SEED_EXPAND; i++)
        n *= (uint32_t)__builtin_popcount(key[o + i] & 15u);
    return n;
}

/* Call fn for every code the seed stands for: an odometer over the base
 * sets, first residue highest in the code. */
static void seed_codes(const uint8_t *key, uint32_t o, uint32_t q, void (*fn)(void *, uint32_t),
                       void *arg)
{
    uint8_t pick[GS_SEED_MAX] = {0}; /* the chosen base's code per position */
    for (uint32_t i = 0; i < q; i++) {
        if ((key[o + i] & 15u) == 0)
            return;
        pick[i] = (uint8_t)__builtin_ctz(key[o + i]);
    }
    for (;;) {
        uint32_t code = 0;
        for (uint32_t i = 0; i < q; i++)
            code = code << 2 | pick[i];
        fn(arg, code);
        uint32_t i = q;
        while (i > 0) { /* next base of the last position that has one, the rest reset */
            i--;
            uint32_t rest = key[o + i] & ~((2u << pick[i]) - 1u) & 15u;
            if (rest) {
                pick[i] = (uint8_t)__builtin_ctz(rest);
                break;
            }
            pick[i] = (uint8_t)__builtin_ctz(key[o + i]);
            if (i == 0)
                return;
        }
    }
}

typedef struct place {
    uint32_t *off;
    gs_seed *seeds;
    gs_seed entry;
    int pass;
} place;

static void place_code(void *arg, uint32_t code)
{
    place *p = arg;
    if (p->pass == 0)
        p->off[code + 1]++;
    else
        p->seeds[p->off[code]++] = p->entry;
}

void gs_seeds_free(gs_seeds *s)
{
    free(s->filtered);
    free(s->piece);
    free(s->at);
    for (int q = 0; q <= GS_SEED_MAX; q++) {
        free(s->off[q]);
        free(s->seeds[q]);
    }
    *s = (gs_seeds){0};
}

enum { PLAN_MAX_KEY = 64, PLAN_MAX_SEEDS = PLAN_MAX_KEY / GS_SEED_MIN };

int gs_seeds_plan(const uint8_t *key, uint32_t m, uint32_t K, uint32_t *off, uint32_t *len)
{
    if (m > PLAN_MAX_KEY || (K + 1) * GS_SEED_MIN > m)
        return 0;
    /* f[r][i]: the least cost of r seeds inside key[0 .. i), a seed of q
     * residues and width w costing w * 4^(GS_SEED_MAX - q) (its
     * occurrences in 4^GS_SEED_MAX random positions); q[r][i]: the length
     * of the seed that ends at i in it, 0 for none */
    static const uint64_t none = UINT64_MAX;
    uint64_t f[PLAN_MAX_SEEDS + 1][PLAN_MAX_KEY + 1];
    uint8_t q[PLAN_MAX_SEEDS + 1][PLAN_MAX_KEY + 1];
    for (uint32_t i = 0; i <= m; i++)
        f[0][i] = 0;
    for (uint32_t r = 1; r <= K + 1; r++) {
        f[r][0] = none;
        q[r][0] = 0;
        for (uint32_t i = 1; i <= m; i++) {
            f[r][i] = f[r][i - 1];
            q[r][i] = 0;
            for (uint32_t l = GS_SEED_MIN; l <= GS_SEED_MAX && l <= i; l++) {
                uint32_t w = seed_width(key, i - l, l);
                if (f[r - 1][i - l] == none || w > GS_SEED_EXPAND)
                    continue;
                uint64_t c = f[r - 1][i - l] + ((uint64_t)w << 2 * (GS_SEED_MAX - l));
                if (c < f[r][i]) {
                    f[r][i] = c;
                    q[r][i] = (uint8_t)l;
                }
            }
        }
    }
    if (f[K + 1][m] == none)
        return 0;
    for (uint32_t r = K + 1, i = m; r > 0;) { /* back from the end */
        if (q[r][i] == 0) {
            i--;
            continue;
        }
        len[r - 1] = q[r][i];
        off[r - 1] = i - q[r][i];
        i -= q[r][i];
        r--;
    }
    return 1;
}

/* Key k's seeds into off/len (K + 1 of them); 0 when it stays on the full
 * scan. */
static int key_seeds(const gs_keyset *ks, uint32_t k, int planned, uint32_t *off, uint32_t *len)
{
    uint32_t m = gs_key_len(ks, k), K = gs_key_k(ks, k); /* the key's own pigeonhole */
    if (m > GS_SEED_MAX_KEY || (ks->mode != GS_MATCH_MISMATCHES && m > 64))
        return 0;
    if (planned && m <= PLAN_MAX_KEY)
        return gs_seeds_plan(gs_key(ks, k), m, K, off, len);
    if (m / (K + 1) < GS_SEED_MIN)
        return 0;
    for (uint32_t r = 0; r <= K; r++) {
        off[r] = gs_seed_piece(m, K, r);
        len[r] = gs_seed_len(m, K, r);
        if (seed_width(gs_key(ks, k), off[r], len[r]) > GS_SEED_EXPAND)
            return 0;
    }
    return 1;
}

/* Which keys are filtered, and their seeds in s->piece. */
static gs_status choose(const gs_keyset *ks, const gs_tune *tune, int planned, gs_seeds *s,
                        gs_error *err)
{
    uint32_t most = 0;
    for (uint32_t k = 0; k < ks->n_keys; k++)
        most = gs_key_k(ks, k) > most ? gs_key_k(ks, k) : most;
    uint32_t *off = gs_malloc(2 * ((size_t)most + 1) * sizeof *off, err, "bv seeds"),
             *len = off + most + 1;
    s->filtered = gs_calloc(ks->n_keys, 1, err, "bv seeds");
    s->at = gs_calloc((size_t)ks->n_keys + 1, sizeof *s->at, err, "bv seeds");
    /* the keys the zone scan takes first: small groups, or all with the knob */
    uint8_t *zoned = gs_calloc(ks->n_keys ? ks->n_keys : 1, 1, err, "bv seeds");
    int ok = off && s->filtered && s->at && zoned;
    const int knob = tune ? tune->match_zone_scan : 0;
    if (ok && knob == 0 && gs_zones_cheap(ks, tune, zoned, err) != GS_OK)
        ok = 0;
    for (uint32_t k = 0; ok && knob > 0 && k < ks->n_keys; k++)
        zoned[k] = (uint8_t)gs_zone_selective(ks, k, UINT32_MAX, tune);
    size_t n = 0, cap = 0;
    for (uint32_t k = 0; ok && k < ks->n_keys; k++) {
        uint32_t m = gs_key_len(ks, k), K = gs_key_k(ks, k);
        s->at[k + 1] = s->at[k];
        if (zoned[k] || !key_seeds(ks, k, planned, off, len))
            continue; /* the zone scan takes it (zones.h), or no seeds fit */
        if (gs_grow(&s->piece, &cap, n + K, sizeof *s->piece, 64) != GS_OK) {
            ok = 0;
            gs_fail(err, GS_ESYS, "out of memory (bv seeds)");
            break;
        }
        for (uint32_t r = 0; r <= K; r++) {
            s->piece[n++] = off[r] | len[r] << 16;
            s->n_seeds[len[r]] += seed_width(gs_key(ks, k), off[r], len[r]);
        }
        s->at[k + 1] = (uint32_t)n;
        s->filtered[k] = 1;
        s->n_filtered++;
        s->max_len = m > s->max_len ? m : s->max_len;
    }
    free(off);
    free(zoned);
    return ok ? GS_OK : err->code ? err->code : GS_ESYS;
}

static gs_status build(const gs_keyset *ks, const gs_tune *tune, int planned, gs_seeds *s,
                       gs_error *err)
{
    *s = (gs_seeds){0};
    if (ks->n_keys == 0 || ks->mode == GS_MATCH_EXACT || (tune && tune->match_seed_filter < 0))
        return GS_OK;
    if (choose(ks, tune, planned, s, err) != GS_OK) {
        gs_seeds_free(s);
        return GS_ESYS;
    }
    for (uint32_t q = GS_SEED_MIN; q <= GS_SEED_MAX; q++) {
        size_t n_codes = (size_t)1 << (2 * q);
        if (s->n_seeds[q] == 0)
            continue;
        place p = {.off = gs_calloc(n_codes + 1, sizeof *p.off, err, "bv seeds"),
                   .seeds = gs_malloc(s->n_seeds[q] * sizeof *p.seeds, err, "bv seeds")};
        s->off[q] = p.off;
        s->seeds[q] = p.seeds;
        if (!p.off || !p.seeds) {
            gs_seeds_free(s);
            return GS_ESYS;
        }
        for (p.pass = 0; p.pass < 2; p.pass++) { /* count, then place */
            for (uint32_t k = 0; k < ks->n_keys; k++) {
                for (uint32_t i = s->at[k]; i < s->at[k + 1]; i++) {
                    if (s->piece[i] >> 16 != q)
                        continue;
                    p.entry = (gs_seed){k, s->piece[i] & 0xFFFF, i - s->at[k]};
                    seed_codes(gs_key(ks, k), p.entry.off, q, place_code, &p);
                }
            }
            if (p.pass == 0)
                for (size_t c = 0; c < n_codes; c++)
                    p.off[c + 1] += p.off[c];
        }
        for (size_t c = n_codes; c > 0; c--) /* placing advanced each start by its count */
            p.off[c] = p.off[c - 1];
        p.off[0] = 0;
    }
    return GS_OK;
}

gs_status gs_seeds_build(const gs_keyset *ks, const gs_tune *tune, gs_seeds *s, gs_error *err)
{
    return build(ks, tune, 0, s, err);
}

gs_status gs_seeds_build_planned(const gs_keyset *ks, const gs_tune *tune, gs_seeds *s,
                                 gs_error *err)
{
    return build(ks, tune, 1, s, err);
}

gs_status gs_seeds_flatten(const gs_seeds *s, uint32_t **tab, size_t *n_tab, uint32_t **ent,
                           size_t *n_ent, gs_error *err)
{
    size_t nt = GS_SEED_MAX + 1, ne = 0;
    for (uint32_t q = GS_SEED_MIN; q <= GS_SEED_MAX; q++)
        if (s->off[q]) {
            nt += ((size_t)1 << 2 * q) + 1;
            ne += s->n_seeds[q];
        }
    *tab = gs_malloc(nt * sizeof **tab, err, "bv seed tables");
    *ent = gs_malloc((ne ? 2 * ne : 1) * sizeof **ent, err, "bv seed tables");
    if (*tab == NULL || *ent == NULL) {
        free(*tab);
        free(*ent);
        *tab = *ent = NULL;
        return GS_ESYS;
    }
    size_t t = GS_SEED_MAX + 1, e = 0;
    for (uint32_t q = 0; q <= GS_SEED_MAX; q++) {
        (*tab)[q] = GS_SEED_NONE;
        if (q < GS_SEED_MIN || s->off[q] == NULL)
            continue;
        (*tab)[q] = (uint32_t)t;
        for (size_t c = 0; c <= (size_t)1 << 2 * q; c++)
            (*tab)[t++] = (uint32_t)e + s->off[q][c];
        for (uint32_t i = 0; i < s->n_seeds[q]; i++, e++) {
            (*ent)[2 * e] = s->seeds[q][i].key;
            (*ent)[2 * e + 1] = s->seeds[q][i].off | s->seeds[q][i].rank << 16;
        }
    }
    *n_tab = nt;
    *n_ent = ne;
    return GS_OK;
}
