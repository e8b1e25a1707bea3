/* seeds.h - the pigeonhole seed filter of the bv engines, for C and CUDA.
 *
 * K + 1 disjoint pieces cover each key, their lengths differing by at most
 * one (all m residues used: a longer piece is a rarer seed), and each
 * piece's first q residues, q its length capped at GS_SEED_MAX, are its
 * seed. K mismatches or edits leave at least one piece, hence its seed,
 * untouched, so only text around an exact seed occurrence is verified.
 * "Exact" is position by position on base sets (key[i] & text base), as in
 * the rest of the mode (contract §1): a degenerate seed is entered in the
 * table under every concrete q-mer it stands for, up to GS_SEED_EXPAND of
 * them; a key with a wider seed keeps the full scan.
 *
 * One builder (seeds.c) decides which keys are filtered and fills the
 * tables for both engines, the CPU's (bv.c) and the GPU's (src/gpu/bv.cu),
 * so they cannot disagree; the CPU's seeds may instead be planned
 * (gs_seeds_build_planned: any K + 1 disjoint stretches, the rarest). The
 * window arithmetic and the verification steps below are shared the same
 * way: the GPU kernel calls them, and a CPU unit test (test_bv_step)
 * replays the kernel's schedule with them.
 */
#ifndef GS_SEEDS_H
#define GS_SEEDS_H

#include "bv_step.h"
#include "core/gs_tune.h"
#include "keyset.h"

enum {
    GS_SEED_MIN = 4,    /* shorter pieces are too common to pay (docs/engines.md) */
    GS_SEED_MAX = 8,    /* 4^8 offsets: 256 KiB, the largest table */
    GS_SEED_EXPAND = 16, /* concrete q-mers a degenerate seed may stand for */
    GS_SEED_MAX_KEY = 4096 /* longest filtered key: the GPU holds its text margins */
};

/* One table entry: piece `rank` (0..K) of key `key` starts `off` residues
 * into the key. K is the key's own (gs_key_k): pieces, windows and ranks
 * of a key all use it. */
typedef struct gs_seed {
    uint32_t key, off, rank;
} gs_seed;

typedef struct gs_seeds {
    uint8_t *filtered;  /* [n_keys]: 1 when the key is found through seeds; NULL: none is */
    uint32_t n_filtered;
    uint32_t max_len;   /* longest filtered key */
    /* per seed length q (GS_SEED_MIN..GS_SEED_MAX): entries of the q-mer
     * with code c (2 bits a residue, first residue highest) are
     * seeds[q][off[q][c] .. off[q][c + 1]); off[q] is NULL when no seed has
     * length q */
    uint32_t *off[GS_SEED_MAX + 1];
    gs_seed *seeds[GS_SEED_MAX + 1];
    uint32_t n_seeds[GS_SEED_MAX + 1];
    /* the seeds of filtered key k, K + 1 by offset: piece[at[k] + r] =
     * off | q << 16 (gs_seed_piece's and gs_seed_len's with gs_seeds_build,
     * the plan's with gs_seeds_build_planned) */
    uint32_t *piece, *at;
} gs_seeds;

/* The filter of an approximate keyset: none when tune->match_seed_filter is
 * -1 (the full scan everywhere, for comparisons; tune NULL: the defaults).
 * Keys are
 * filtered when their pieces are at least GS_SEED_MIN long, each seed
 * stands for at most GS_SEED_EXPAND q-mers, the key is at most
 * GS_SEED_MAX_KEY long and, with edits, fits one 64-bit word (verification
 * is one Myers word); with tune->match_zone_scan 1, not when the zone scan
 * may take them (zones.h). */
gs_status gs_seeds_build(const gs_keyset *ks, const gs_tune *tune, gs_seeds *s, gs_error *err);
void gs_seeds_free(gs_seeds *s);

/* The same filter with planned seeds (the CPU engine's; the GPU kernel
 * knows only gs_seed_piece's): any K + 1 disjoint stretches of a key are a
 * pigeonhole, so each key takes the K + 1 stretches of GS_SEED_MIN ..
 * GS_SEED_MAX residues, each standing for at most GS_SEED_EXPAND q-mers,
 * that occur least often in random text (the sum of width / 4^q). This
 * takes every key gs_seeds_build takes, with seeds at most as frequent, and
 * more: one wide IUPAC code is stepped over instead of ending in a seed.
 * Keys over 64 residues keep the equal pieces. */
gs_status gs_seeds_build_planned(const gs_keyset *ks, const gs_tune *tune, gs_seeds *s,
                                 gs_error *err);

/* The plan of one key of m residues (gs_seeds_build_planned): 1 and the
 * K + 1 seeds' offsets and lengths by offset, or 0 where none fits. */
int gs_seeds_plan(const uint8_t *key, uint32_t m, uint32_t K, uint32_t *off, uint32_t *len);

/* The tables as two flat arrays for the GPU (and its CPU replay):
 * tab[q] (q = 0..GS_SEED_MAX) is where length q's offsets start in tab, or
 * GS_SEED_NONE; those offsets (4^q + 1 of them) index ent directly; an
 * entry is two words, key and off | rank << 16. Freed with free(). */
#define GS_SEED_NONE 0xFFFFFFFFu
gs_status gs_seeds_flatten(const gs_seeds *s, uint32_t **tab, size_t *n_tab, uint32_t **ent,
                           size_t *n_ent, gs_error *err);

/* Where piece r of a key of m residues starts, and its seed's length. */
GS_BV_FN uint32_t gs_seed_piece(uint32_t m, uint32_t K, uint32_t r) { return r * m / (K + 1); }

GS_BV_FN uint32_t gs_seed_len(uint32_t m, uint32_t K, uint32_t r)
{
    uint32_t q = gs_seed_piece(m, K, r + 1) - gs_seed_piece(m, K, r);
    return q > GS_SEED_MAX ? GS_SEED_MAX : q;
}

/* Edits: an alignment holding the seed of a key of m residues (piece at
 * `off`) exactly at text position `at` ends in [e0 - K, e0 + K], e0 = at -
 * off + m. Myers from w0 = e0 - m - 2K sees every start of those ends, so
 * its scores there are the true best distances wherever they are <= K (and
 * equal from every seed that finds the end). Steps j = w0 .. hi - 1; ends
 * j + 1 with j >= lo are reported; ends past stop are not scanned. */
GS_BV_FN void gs_seed_window(uint64_t at, uint32_t off, uint32_t m, uint32_t K, uint64_t stop,
                             uint64_t *w0, uint64_t *lo, uint64_t *hi)
{
    uint64_t e0 = at + m - off; /* off < m */
    *hi = e0 + K < stop ? e0 + K : stop;
    *lo = e0 > (uint64_t)K + 1 ? e0 - K - 1 : 0;
    *w0 = e0 > (uint64_t)m + 2 * K ? e0 - m - 2 * K : 0;
}

/* A text position's walk through the flat tables: its first `valid` codes
 * (up to GS_SEED_MAX bases before a non-base or the end) as `code`, and the
 * entries ent[i .. e) of seed length q still to take. */
typedef struct gs_seed_cursor {
    uint32_t code, valid, q, i, e;
} gs_seed_cursor;

/* Start the walk at text codes t[0 .. n). */
GS_BV_FN void gs_seed_start(gs_seed_cursor *c, const uint8_t *t, uint64_t n)
{
    c->code = c->valid = 0;
    c->q = GS_SEED_MIN - 1;
    c->i = c->e = 0;
    while (c->valid < GS_SEED_MAX && c->valid < n && t[c->valid] < 4)
        c->code = c->code << 2 | t[c->valid++];
}

/* Move to the next non-empty range; false when the position has none left. */
GS_BV_FN int gs_seed_next(gs_seed_cursor *c, const uint32_t *tab)
{
    while (c->i == c->e) {
        if (++c->q > c->valid)
            return 0;
        uint32_t base = tab[c->q];
        if (base == GS_SEED_NONE)
            continue;
        uint32_t x = c->code >> 2 * (c->valid - c->q);
        c->i = tab[base + x];
        c->e = tab[base + x + 1];
    }
    return 1;
}

/* Mismatches: the distance of the key at the text whose base codes (0..3,
 * 4 for a non-base) are t[0 .. m), or K + 1 when it is over K or when a
 * piece before `rank` has its seed matching there too: each start is
 * reported by the first of its seeds (by rank) that matches, so once. */
GS_BV_FN uint32_t gs_seed_mismatches(const uint8_t *key, uint32_t m, uint32_t K, uint32_t rank,
                                     const uint8_t *t)
{
    for (uint32_t r = 0; r < rank; r++) {
        uint32_t o = gs_seed_piece(m, K, r), q = gs_seed_len(m, K, r), x = 0;
        while (x < q && (key[o + x] >> t[o + x] & 1u)) /* code 4: no key bit */
            x++;
        if (x == q)
            return K + 1;
    }
    uint32_t d = 0;
    for (uint32_t x = 0; x < m && d <= K; x++)
        d += (key[x] >> t[x] & 1u) ^ 1u;
    return d <= K ? d : K + 1;
}

/* Edits: the ends of one window (gs_seed_window) whose best distance is
 * <= K, as bit i for end lo + 1 + i (2K + 1 <= 31 ends) and that distance
 * in four bit planes: registers only, so the GPU keeps no per-thread array. */
typedef struct gs_seed_ends {
    uint32_t mask, d[4];
} gs_seed_ends;

/* One window of a key of m <= 32 (B = 32) or <= 64 (B = 64) residues with
 * match masks p[0..3]: n steps over the text codes t[0 .. n) (n = hi - w0),
 * ends reported from step `first` = lo - w0 on (32-bit counters: the GPU's
 * native width). */
#define GS_SEED_DEFINE(B, T)                                                               \
    GS_BV_FN gs_seed_ends gs_seed_edits##B(const T *p, uint32_t m, uint32_t K,             \
                                           const uint8_t *t, uint32_t n, uint32_t first)   \
    {                                                                                      \
        gs_seed_ends r = {0, {0, 0, 0, 0}};                                                \
        const T p0 = p[0], p1 = p[1], p2 = p[2], p3 = p[3], hb = (T)1 << (m - 1);          \
        T pv = (T)~(T)0, mv = 0;                                                           \
        uint32_t score = m;                                                                \
        for (uint32_t s = 0; s < n; s++) {                                                 \
            uint32_t c = t[s];                                                             \
            T eq = c == 0 ? p0 : c == 1 ? p1 : c == 2 ? p2 : c == 3 ? p3 : (T)0;           \
            score += (uint32_t)gs_bv_edit_step##B(eq, &pv, &mv, 0, hb);                    \
            if (score <= K && s >= first) {                                                \
                uint32_t i = s - first;                                                    \
                r.mask |= 1u << i;                                                         \
                for (int b = 0; b < 4; b++)                                                \
                    r.d[b] |= (score >> b & 1u) << i;                                      \
            }                                                                              \
        }                                                                                  \
        return r;                                                                          \
    }

GS_SEED_DEFINE(32, uint32_t)
GS_SEED_DEFINE(64, uint64_t)

/* Distance of end bit i of a window's result. */
GS_BV_FN uint32_t gs_seed_end_dist(const gs_seed_ends *r, uint32_t i)
{
    return (r->d[0] >> i & 1u) | (r->d[1] >> i & 1u) << 1 | (r->d[2] >> i & 1u) << 2 |
           (r->d[3] >> i & 1u) << 3;
}

#endif
