/* zones.h - which approximate keys are scanned from their --exact-3p zone's
 * occurrences instead of at every window, grouped by zone; one rule for the
 * CPU engine (bv.c scan_zoned) and the GPU's (src/gpu/bv_zone.cuh).
 *
 * A mismatch key whose zone lets few text positions through (NGG: one in
 * 16) costs a zone test per position and a count only where it matches,
 * instead of a count at every window. Keys sharing a zone (100 guides with
 * NGG: one zone a strand) share the test. The seed filter (seeds.h) keeps
 * the keys it takes, unless their zone group is small (gs_zones_cheap) or
 * tune->match_zone_scan is 1.
 */
#ifndef GS_ZONES_H
#define GS_ZONES_H

#include "core/gs_tune.h"
#include "keyset.h"
#include "seeds.h"

typedef struct gs_zones {
    uint8_t *zoned;  /* [n_keys]: 1 for a key scanned from its zone; NULL: none is */
    uint32_t *keys;  /* the zoned keys, grouped: keys[run[g] .. run[g + 1]) share zone g */
    uint32_t *run;   /* [n_runs + 1] */
    uint32_t n_runs, n_zoned;
} gs_zones;

/* Whether key k may be scanned from its zone: a mismatch key whose zone
 * lets at most one text position in four through (each zone residue lets
 * through the share of bases its base set holds) and is at most max_len
 * long; tune->match_zone_scan -1 (never) makes it 0. Edits are not taken:
 * an indel beside the zone moves the window's other end. */
int gs_zone_selective(const gs_keyset *ks, uint32_t k, uint32_t max_len, const gs_tune *tune);

/* Keys the zone scan takes before the seed filter (tune->match_zone_scan
 * 0, the default): those whose zone group lets through at most
 * GS_ZONE_WINDOWS key windows a text position (the group's keys times
 * their zone's pass; 100 guides with NGG: 6.25 a strand, 1000: 62.5).
 * Measured on one H100, 3 GB, K = 4 (docs/performance.md): 100 guides'
 * kernels 0.13 s by the zone scan against 0.28 s by the seed filter; 1000
 * guides' whole job 5.9 s against 2.7 s. cheap[n_keys] is set for them. */
enum { GS_ZONE_WINDOWS = 16 };
gs_status gs_zones_cheap(const gs_keyset *ks, const gs_tune *tune, uint8_t *cheap, gs_error *err);

/* The keys gs_zone_selective takes that the seed filter does not (seeds may
 * be NULL or empty), grouped by equal zone (residues and side), in key
 * order within a group and by first key across groups. GS_ESYS when out of
 * memory; *z is zeroed first and safe to free either way. */
gs_status gs_zones_build(const gs_keyset *ks, const gs_seeds *seeds, uint32_t max_len,
                         const gs_tune *tune, gs_zones *z, gs_error *err);
void gs_zones_free(gs_zones *z);

/* The GPU's zone scan (src/gpu/bv_zone.cuh), its tables built and its
 * arithmetic written here, for C and CUDA, so that a CPU test replays it.
 * Keys of <= 64 residues: a zone found at text position p puts a key's
 * window at p - before; the group's planes hold the codes of residues
 * p + off .. p + off + len as bits 0 .. len of three words (the codes' low
 * bits, their high bits, and the non-bases), and each key's base sets are
 * masks on the same bits, so one window costs a dozen word operations and
 * a popcount whatever its IUPAC codes. */
typedef struct gs_zone_key {
    uint64_t pa, xac, pg, xgt; /* bits where the key holds A; A ^ C; G; G ^ T */
    uint64_t valid;            /* the key's bits */
    uint32_t key, m, k;        /* keyset key, its length and its own K */
    uint32_t before;           /* window start to zone: m - n, or 0 for a front zone */
} gs_zone_key;

typedef struct gs_zone_group {
    uint64_t zoff;  /* the zone's base sets: keyset bytes key_bytes[zoff .. zoff + n) */
    uint32_t k0, k1; /* its keys: tables' keys[k0 .. k1) */
    uint32_t n;     /* zone residues */
    uint32_t len;   /* plane bits: the group's longest key */
    int32_t off;    /* planes start at p + off: 0 (front zone) or n - len */
    uint32_t pad;
} gs_zone_group;

/* The tables of z (built with max_len <= 64): one group per run, one key
 * entry per zoned key in z->keys order. GS_ESYS when out of memory. */
gs_status gs_zones_tables(const gs_keyset *ks, const gs_zones *z, gs_zone_group **groups,
                          gs_zone_key **keys, gs_error *err);

/* The planes of codes tx[from .. from + len) (tx holds t_len codes, A=0 C=1
 * G=2 T=3, 4 a non-base; what lies outside counts as a non-base). */
GS_BV_FN void gs_zone_planes(const uint8_t *tx, int64_t from, int64_t t_len, uint32_t len,
                             uint64_t pl[3])
{
    uint64_t lo = 0, hi = 0, bad = 0;
    for (uint32_t i = 0; i < len; i++) {
        const int64_t q = from + i;
        const uint32_t c = q >= 0 && q < t_len ? tx[q] : 4u;
        lo |= (uint64_t)(c & 1u) << i;
        hi |= (uint64_t)(c >> 1 & 1u) << i;
        bad |= (uint64_t)(c > 3u) << i;
    }
    pl[0] = lo;
    pl[1] = hi;
    pl[2] = bad;
}

/* Whether zone base sets zb[0 .. n) match codes tx[0 .. n) (4, a non-base, never). */
GS_BV_FN int gs_zone_codes_ok(const uint8_t *zb, uint32_t n, const uint8_t *tx)
{
    for (uint32_t i = 0; i < n; i++)
        if (!(zb[i] >> tx[i] & 1u))
            return 0;
    return 1;
}

/* A block's share of a segment whose ends run to stop: zone positions
 * [c0, c1) and the text [t0, t1) they need (max_len: the longest zoned
 * key; planes and windows reach less than that before and after). */
GS_BV_FN void gs_zone_block(uint32_t c0, uint32_t chunk, uint32_t stop, uint32_t max_len,
                            uint32_t *c1, uint32_t *t0, uint32_t *t1)
{
    const uint64_t e = (uint64_t)c0 + chunk, f = (uint64_t)c0 + chunk + max_len;
    *c1 = e < stop ? (uint32_t)e : stop;
    *t0 = c0 > max_len ? c0 - max_len : 0;
    *t1 = f < stop ? (uint32_t)f : stop;
}

/* Key zk's window for a zone found at p, within ends 1 .. stop: whether it
 * fits there, and its end. */
GS_BV_FN int gs_zone_fits(const gs_zone_key *zk, uint32_t p, uint32_t stop, uint32_t *end)
{
    if (p < zk->before || (uint64_t)p - zk->before + zk->m > stop)
        return 0;
    *end = p - zk->before + zk->m;
    return 1;
}

/* Mismatches of key zk's window in planes pl: a position matches where its
 * code's bit is in the key's base set (picked by the code's two bits). */
GS_BV_FN uint32_t gs_zone_mismatches(const gs_zone_key *zk, const uint64_t pl[3])
{
    const uint64_t m0 = zk->pa ^ (zk->xac & pl[0]), m1 = zk->pg ^ (zk->xgt & pl[0]);
    const uint64_t match = m0 ^ ((m0 ^ m1) & pl[1]);
#if defined(__CUDA_ARCH__)
    return (uint32_t)__popcll((~match | pl[2]) & zk->valid);
#else
    return (uint32_t)__builtin_popcountll((~match | pl[2]) & zk->valid);
#endif
}

#endif
