/* zones.c - the keys scanned from their zone's occurrences (zones.h). */
#include "zones.h"

#include <stdlib.h>
#include <string.h>

/* Whether keys a and b have the same zone (residues, side). */
static int same_zone(const gs_keyset *ks, uint32_t a, uint32_t b)
{
    int fa, fb;
    uint32_t na = gs_key_zone(ks, a, &fa), nb = gs_key_zone(ks, b, &fb);
    const uint8_t *za = gs_key(ks, a) + (fa ? 0 : gs_key_len(ks, a) - na);
    const uint8_t *zb = gs_key(ks, b) + (fb ? 0 : gs_key_len(ks, b) - nb);
    return na == nb && fa == fb && memcmp(za, zb, na) == 0;
}

/* Of 2^16 text positions, how many key k's zone lets through (each zone
 * residue the share of bases its base set holds); 0 for a key without a
 * zone, or one that zone scans do not take. */
static uint32_t zone_pass(const gs_keyset *ks, uint32_t k, uint32_t max_len, const gs_tune *tune)
{
    int front;
    if (ks->zone == NULL || ks->mode != GS_MATCH_MISMATCHES || gs_key_len(ks, k) > max_len ||
        (tune && tune->match_zone_scan < 0))
        return 0;
    uint32_t n = gs_key_zone(ks, k, &front), pass = 1u << 16;
    const uint8_t *z = gs_key(ks, k) + (front ? 0 : gs_key_len(ks, k) - n);
    for (uint32_t i = 0; i < n && pass; i++)
        pass = pass * (uint32_t)__builtin_popcount(z[i]) / 4;
    return n ? pass : 0;
}

int gs_zone_selective(const gs_keyset *ks, uint32_t k, uint32_t max_len, const gs_tune *tune)
{
    const uint32_t pass = zone_pass(ks, k, max_len, tune);
    return pass && pass <= 1u << 14;
}

gs_status gs_zones_cheap(const gs_keyset *ks, const gs_tune *tune, uint8_t *cheap, gs_error *err)
{
    gs_zones all;
    memset(cheap, 0, ks->n_keys);
    if (gs_zones_build(ks, NULL, UINT32_MAX, tune, &all, err) != GS_OK)
        return err->code;
    for (uint32_t g = 0; g < all.n_runs; g++) {
        const uint32_t size = all.run[g + 1] - all.run[g];
        const uint64_t windows = (uint64_t)size * zone_pass(ks, all.keys[all.run[g]], UINT32_MAX, tune);
        for (uint32_t i = all.run[g]; i < all.run[g + 1]; i++)
            cheap[all.keys[i]] = windows <= (uint64_t)GS_ZONE_WINDOWS << 16;
    }
    gs_zones_free(&all);
    return GS_OK;
}

void gs_zones_free(gs_zones *z)
{
    free(z->zoned);
    free(z->keys);
    free(z->run);
    *z = (gs_zones){0};
}

gs_status gs_zones_build(const gs_keyset *ks, const gs_seeds *seeds, uint32_t max_len,
                         const gs_tune *tune, gs_zones *z, gs_error *err)
{
    *z = (gs_zones){0};
    if (ks->zone == NULL || ks->mode != GS_MATCH_MISMATCHES || ks->n_keys == 0)
        return GS_OK;
    uint8_t *mark = gs_calloc(ks->n_keys, 1, err, "zone scan");
    if (mark == NULL)
        return GS_ESYS;
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        mark[k] = (uint8_t)(gs_zone_selective(ks, k, max_len, tune) &&
                            !(seeds && seeds->filtered && seeds->filtered[k]));
        z->n_zoned += mark[k];
    }
    if (z->n_zoned == 0) {
        free(mark);
        return GS_OK;
    }
    z->zoned = mark;
    z->keys = gs_malloc(z->n_zoned * sizeof *z->keys, err, "zone scan");
    z->run = gs_malloc((z->n_zoned + 1) * sizeof *z->run, err, "zone scan");
    uint8_t *placed = gs_calloc(ks->n_keys, 1, err, "zone scan");
    if (!z->keys || !z->run || !placed) {
        free(placed);
        gs_zones_free(z);
        return GS_ESYS;
    }
    uint32_t nz = 0;
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        if (!mark[k] || placed[k])
            continue;
        z->run[z->n_runs++] = nz;
        for (uint32_t j = k; j < ks->n_keys; j++)
            if (mark[j] && !placed[j] && same_zone(ks, k, j)) {
                placed[j] = 1;
                z->keys[nz++] = j;
            }
    }
    z->run[z->n_runs] = nz;
    free(placed);
    return GS_OK;
}

gs_status gs_zones_tables(const gs_keyset *ks, const gs_zones *z, gs_zone_group **groups,
                          gs_zone_key **keys, gs_error *err)
{
    *groups = gs_calloc(z->n_runs ? z->n_runs : 1, sizeof **groups, err, "zone scan");
    *keys = gs_calloc(z->n_zoned ? z->n_zoned : 1, sizeof **keys, err, "zone scan");
    if (*groups == NULL || *keys == NULL) {
        free(*groups);
        free(*keys);
        *groups = NULL;
        *keys = NULL;
        return GS_ESYS;
    }
    for (uint32_t g = 0; g < z->n_runs; g++) {
        gs_zone_group *gr = &(*groups)[g];
        int front;
        const uint32_t k0 = z->keys[z->run[g]], n = gs_key_zone(ks, k0, &front);
        gr->k0 = z->run[g];
        gr->k1 = z->run[g + 1];
        gr->n = n;
        gr->zoff = ks->key_off[k0] + (front ? 0 : gs_key_len(ks, k0) - n);
        for (uint32_t i = gr->k0; i < gr->k1; i++)
            if (gs_key_len(ks, z->keys[i]) > gr->len)
                gr->len = gs_key_len(ks, z->keys[i]);
        gr->off = front ? 0 : (int32_t)n - (int32_t)gr->len;
        for (uint32_t i = gr->k0; i < gr->k1; i++) {
            gs_zone_key *zk = &(*keys)[i];
            const uint32_t k = z->keys[i], m = gs_key_len(ks, k);
            const uint32_t shift = front ? 0 : gr->len - m; /* key residue 0 at this bit */
            const uint8_t *key = gs_key(ks, k);
            uint64_t p[4] = {0, 0, 0, 0};
            for (uint32_t j = 0; j < m; j++)
                for (int c = 0; c < 4; c++)
                    p[c] |= (uint64_t)(key[j] >> c & 1u) << (j + shift);
            *zk = (gs_zone_key){.pa = p[0], .xac = p[0] ^ p[1], .pg = p[2], .xgt = p[2] ^ p[3],
                                .valid = (m == 64 ? ~0ull : (1ull << m) - 1) << shift,
                                .key = k, .m = m, .k = gs_key_k(ks, k),
                                .before = front ? 0 : m - n};
        }
    }
    return GS_OK;
}
