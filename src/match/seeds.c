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
    for (int q = 0; q <= GS_SEED_MAX; q++) {
        free(s->off[q]);
        free(s->seeds[q]);
    }
    *s = (gs_seeds){0};
}

gs_status gs_seeds_build(const gs_keyset *ks, const gs_tune *tune, gs_seeds *s, gs_error *err)
{
    *s = (gs_seeds){0};
    if (ks->n_keys == 0 || ks->mode == GS_MATCH_EXACT || (tune && tune->match_seed_filter < 0))
        return GS_OK;
    if ((s->filtered = gs_calloc(ks->n_keys, 1, err, "bv seeds")) == NULL)
        return GS_ESYS;
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        uint32_t m = gs_key_len(ks, k), K = gs_key_k(ks, k); /* the key's own pigeonhole */
        int ok = m / (K + 1) >= GS_SEED_MIN && m <= GS_SEED_MAX_KEY &&
                 (ks->mode == GS_MATCH_MISMATCHES || m <= 64) &&
                 !(tune && tune->match_zone_scan > 0 && gs_zone_selective(ks, k, UINT32_MAX, tune));
        for (uint32_t r = 0; r <= K && ok; r++)
            ok = seed_width(gs_key(ks, k), gs_seed_piece(m, K, r), gs_seed_len(m, K, r)) <=
                 GS_SEED_EXPAND;
        for (uint32_t r = 0; r <= K && ok; r++) {
            uint32_t q = gs_seed_len(m, K, r);
            s->n_seeds[q] += seed_width(gs_key(ks, k), gs_seed_piece(m, K, r), q);
        }
        s->filtered[k] = (uint8_t)ok;
        s->n_filtered += (uint32_t)ok;
        if (ok && m > s->max_len)
            s->max_len = m;
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
                uint32_t m = gs_key_len(ks, k), K = gs_key_k(ks, k);
                for (uint32_t r = 0; r <= K && s->filtered[k]; r++) {
                    if (gs_seed_len(m, K, r) != q)
                        continue;
                    p.entry = (gs_seed){k, gs_seed_piece(m, K, r), r};
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
