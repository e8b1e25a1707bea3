/* bulge.h - mismatches and bulges, two budgets (--max-bulges), for C and CUDA.
 *
 * A hit under --max-mismatches K --max-bulges B is an alignment of the whole
 * key to the text before its end with at most K mismatched columns and at
 * most B bulge residues (a key residue the text lacks, or a text residue
 * the key lacks), its zone (--exact-3p) n matched columns; its distance is
 * its mismatches plus its bulge residues. Such an alignment is one of at
 * most K + B edits, so the engines search the keys as edit keys of K + B
 * (keyset.h, gs_keyset_set_bulges) and every end they report is tried here,
 * once: the CPU engine (bv.c), the GPU's finishing kernel (src/gpu/bv.cuh)
 * and the tests share this one definition; the brute-force engine (bf.c)
 * has its own.
 *
 * The DP runs backwards from the end: row r has taken key[m - r .. m),
 * column j the text t[e - j .. e), and a cell keeps, per count b of bulge
 * residues used, the fewest mismatches (above K: none). A band of
 * |j - r| <= B columns a row is all an alignment of <= B bulges can reach,
 * so a row is (2B + 1) x (B + 1) bytes and an end costs O(m B^2).
 */
#ifndef GS_BULGE_H
#define GS_BULGE_H

#include "bv_step.h"

/* Largest B of --max-bulges (the rows live in registers or local memory
 * on the GPU). */
#define GS_MAX_BULGES 4

/* The base bit (A=1 C=2 G=4 T=8, a non-base 0) of text position x: t holds
 * text bytes when raw (the GPU's batch), else base bits already (the CPU's
 * gs_approx_text_bits). */
GS_BV_FN uint32_t gs_bulge_bit(const uint8_t *t, int raw, uint64_t x)
{
    return raw ? (1u << gs_bv_code(t[x])) & 15u : t[x];
}

/* Key residues key[0 .. m) (base sets), the zone its first n when front,
 * else its last n: the best alignment ending at e within K mismatches and
 * B bulge residues. Returns its distance, the smallest, or K + B + 1 when
 * there is none; *len gets the longest text at that distance (the
 * smallest start). t[0 .. e) is the text before the end. A bulge next to
 * the zone is allowed, one inside it or beyond the key's zone end is not. */
GS_BV_FN uint32_t gs_bulge_end(const uint8_t *key, uint32_t m, uint32_t n, int front,
                               const uint8_t *t, int raw, uint64_t e, uint32_t K, uint32_t B,
                               uint32_t *len)
{
    enum { W = 2 * GS_MAX_BULGES + 1, NB = GS_MAX_BULGES + 1, NONE = 0xff };
    uint8_t row[2][W][NB];
    const uint32_t zlo = front ? 0 : m - n, w = 2 * B + 1;
    uint32_t best = K + B + 1, bl = 0;
    for (uint32_t r = 0; r <= m; r++) {
        uint8_t(*cur)[NB] = row[r & 1], (*prev)[NB] = row[(r & 1) ^ 1];
        const uint32_t q = m - r; /* the key residue row r takes */
        const int zq = r > 0 && n > 0 && q >= zlo && q < zlo + n;
        /* a text residue the key lacks, between key[q - 1] and key[q] */
        const int ins = !(n > 0 && (front ? r > m - n : r < n));
        for (uint32_t o = 0; o < w; o++) {
            const int64_t j = (int64_t)r + o - B; /* text residues taken */
            for (uint32_t b = 0; b <= B; b++) {
                uint32_t v = NONE;
                if (j >= 0 && (uint64_t)j <= e) {
                    if (r == 0) {
                        v = j == 0 && b == 0 ? 0 : NONE;
                    } else {
                        if (j >= 1 && prev[o][b] != NONE) { /* key[q] against t[e - j] */
                            const uint32_t x = (key[q] & gs_bulge_bit(t, raw, e - (uint64_t)j)) == 0;
                            if (!(zq && x))
                                v = prev[o][b] + x;
                        }
                        if (!zq && b > 0 && o + 1 < w && prev[o + 1][b - 1] < v)
                            v = prev[o + 1][b - 1]; /* key[q] the text lacks */
                    }
                    if (ins && b > 0 && o > 0 && cur[o - 1][b - 1] < v)
                        v = cur[o - 1][b - 1];
                }
                cur[o][b] = (uint8_t)(v <= K ? v : NONE);
            }
        }
        if (r < m)
            continue;
        for (uint32_t o = 0; o < w; o++)
            for (uint32_t b = 0; b <= B; b++)
                if (cur[o][b] != NONE && cur[o][b] + b <= best) {
                    best = cur[o][b] + b;
                    bl = m + o - B; /* o ascending: the longest text last */
                }
    }
    *len = bl;
    return best;
}

#endif
