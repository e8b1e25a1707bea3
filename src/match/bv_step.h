/* bv_step.h - the bit-vector steps of approximate matching, for C and CUDA.
 *
 * One definition of each word-level step serves the CPU engine (bv.c), the
 * GPU kernels (src/gpu/bv.cuh) and a CPU unit test that checks them against
 * the DP reference, so a logic error in a kernel shows up without a GPU.
 * Functions are defined for 32- and 64-bit words (suffix 32 / 64): the GPU
 * runs keys of <= 32 residues on 32-bit words, half the integer operations
 * of emulated 64-bit ones.
 *
 * Edits: Myers' bit-parallel column of the edit-distance DP in the block
 * form of Hyyrö / edlib: a word holds 32 or 64 rows of one column as
 * vertical deltas (pv: +1, mv: -1); the horizontal delta entering the
 * word's top row (hin, -1/0/+1) stands for the carry from the word above,
 * so a long key is a chain of words with only hin/hout between them. hin = 0
 * at the top row is the semi-global DP (a match may start anywhere), hin =
 * +1 the global one (row 0 of column l is l).
 *
 * Mismatches: four bit-sliced counter planes and an overflow plane, one
 * saturating 4-bit counter per alignment in flight (contract §1 allows K up
 * to 15), shifted by one row per text residue and added to with a ripple
 * carry.
 *
 * Text bytes become base codes here too (A=0 C=1 G=2 T=3, anything else 4:
 * a non-base matches nothing), with the same arithmetic as gs_dna_code.
 */
#ifndef GS_BV_STEP_H
#define GS_BV_STEP_H

#include <stdint.h>

#if defined(__CUDACC__)
#define GS_BV_FN static __host__ __device__ __forceinline__
#else
#define GS_BV_FN static inline
#endif

/* Code of one text byte: ((x >> 1) ^ (x >> 2)) & 3 maps the uppercased
 * letters A C G T to 0..3; any other byte fails the check against them. */
GS_BV_FN uint32_t gs_bv_code(uint32_t b)
{
    uint32_t x = b & 0xDFu;
    uint32_t c = ((x >> 1) ^ (x >> 2)) & 3u;
    return ((0x54474341u >> (8 * c)) & 0xFFu) == x ? c : 4u;
}

/* eq of a word for text code c: peq[c] for a base, 0 for a non-base. */
#define GS_BV_DEFINE(B, T)                                                                 \
    GS_BV_FN T gs_bv_eq##B(const T *peq, uint32_t c) { return c < 4 ? peq[c] : (T)0; }     \
                                                                                           \
    /* One column step of one word: returns the horizontal delta leaving row hb          \
     * (the word's top bit when a word follows, the key's last row otherwise). */       \
    GS_BV_FN int gs_bv_edit_step##B(T eq, T *pv, T *mv, int hin, T hb)                     \
    {                                                                                      \
        T hneg = (T)(hin < 0), hpos = (T)(hin > 0);                                        \
        T xv = eq | *mv;                                                                   \
        eq |= hneg;                                                                        \
        T xh = (((eq & *pv) + *pv) ^ *pv) | eq;                                            \
        T ph = *mv | ~(xh | *pv);                                                          \
        T mh = *pv & xh;                                                                   \
        int hout = (int)((ph & hb) != 0) - (int)((mh & hb) != 0);                          \
        ph = (T)(ph << 1) | hpos;                                                          \
        mh = (T)(mh << 1) | hneg;                                                          \
        *pv = mh | ~(xv | ph);                                                             \
        *mv = ph & xv;                                                                     \
        return hout;                                                                       \
    }                                                                                      \
                                                                                           \
    /* Add mismatch mask x (1: the key row does not match) to the counters after         \
     * shifting them one row: p[0..3] are the counter bits, p[4] the overflow. */         \
    GS_BV_FN void gs_bv_ham_step##B(T x, T *p)                                             \
    {                                                                                      \
        T c0, c1, c2;                                                                      \
        p[0] <<= 1;                                                                        \
        p[1] <<= 1;                                                                        \
        p[2] <<= 1;                                                                        \
        p[3] <<= 1;                                                                        \
        p[4] <<= 1;                                                                        \
        c0 = p[0] & x;                                                                     \
        p[0] ^= x;                                                                         \
        c1 = p[1] & c0;                                                                    \
        p[1] ^= c0;                                                                        \
        c2 = p[2] & c1;                                                                    \
        p[2] ^= c1;                                                                        \
        p[4] |= p[3] & c2;                                                                 \
        p[3] ^= c2;                                                                        \
    }                                                                                      \
                                                                                           \
    /* The counter of row sh: mismatches of the alignment that has just compared        \
     * its row sh; 16 or more when it overflowed. */                                      \
    GS_BV_FN uint32_t gs_bv_ham_read##B(const T *p, uint32_t sh)                           \
    {                                                                                      \
        return (uint32_t)((p[0] >> sh & 1) | (p[1] >> sh & 1) << 1 | (p[2] >> sh & 1) << 2 | \
                          (p[3] >> sh & 1) << 3 | (p[4] >> sh & 1) << 4);                  \
    }

GS_BV_DEFINE(32, uint32_t)
GS_BV_DEFINE(64, uint64_t)

/* Edits, the start of a hit: the length of the longest text[e - l .. e)
 * (l <= min(m + d, e)) whose edit distance to the key is d, the key's best
 * distance at end e (gs_approx_edit_len's contract, for keys of <= 64
 * residues). The DP runs backwards over the text against the reversed key
 * (rpeq: bit i set where key[m - 1 - i] holds the base) with hin = +1, the
 * global DP whose row 0 of column l is l. O(m + d) word steps. */
GS_BV_FN uint32_t gs_bv_edit_len64(const uint64_t *rpeq, uint32_t m, const uint8_t *text,
                                   uint64_t e, uint32_t d)
{
    uint64_t pv = ~(uint64_t)0, mv = 0, hb = (uint64_t)1 << (m - 1);
    uint64_t lmax = (uint64_t)m + d < e ? (uint64_t)m + d : e;
    uint32_t score = m, best = 0;
    for (uint64_t l = 1; l <= lmax; l++) {
        uint64_t eq = gs_bv_eq64(rpeq, gs_bv_code(text[e - l]));
        score += gs_bv_edit_step64(eq, &pv, &mv, +1, hb);
        if (score == d)
            best = (uint32_t)l;
    }
    return best;
}

/* --exact-3p: whether key residues zk[0 .. n) (base sets, A=1 C=2 G=4 T=8)
 * match the text bytes t[0 .. n) position by position (a non-base never). */
GS_BV_FN int gs_bv_zone_ok(const uint8_t *zk, uint32_t n, const uint8_t *t)
{
    for (uint32_t i = 0; i < n; i++)
        if (!(zk[i] >> gs_bv_code(t[i]) & 1u)) /* code 4: above the four base bits */
            return 0;
    return 1;
}

/* Edits under a zone of n residues of a key of m <= 64 (the first n when
 * front, else the last n; key: its base sets, rpeq: gs_bv_edit_len64's
 * reversed masks): gs_approx_zone_end's contract, i.e. the best distance
 * at end e of an alignment whose zone is n matched columns (K + 1 when
 * none is within K) and in *len the longest text at that distance. The
 * core beside the zone runs backwards from the zone's edge with hin = +1,
 * its reversed masks being rpeq without the zone's bits. */
GS_BV_FN uint32_t gs_bv_zone_end64(const uint64_t *rpeq, const uint8_t *key, uint32_t m,
                                   uint32_t n, int front, const uint8_t *text, uint64_t e,
                                   uint32_t K, uint32_t *len)
{
    const uint32_t c = m - n;
    const uint8_t *zk = key + (front ? 0 : c);
    if (e < n || (!front && !gs_bv_zone_ok(zk, n, text + (e - n))))
        return K + 1;
    const uint64_t ce = front ? e : e - n, lmax = (uint64_t)c + K < e - n ? (uint64_t)c + K : e - n;
    const uint64_t keep = c == 64 ? ~(uint64_t)0 : ((uint64_t)1 << c) - 1;
    uint64_t p[4], pv = ~(uint64_t)0, mv = 0, hb = c ? (uint64_t)1 << (c - 1) : 0;
    for (int x = 0; x < 4; x++)
        p[x] = front ? rpeq[x] & keep : rpeq[x] >> n; /* bit j: core residue c - 1 - j */
    uint32_t score = c, best = K + 1, bl = 0;
    for (uint64_t l = 0; l <= lmax; l++) {
        if (l > 0 && c > 0)
            score += gs_bv_edit_step64(gs_bv_eq64(p, gs_bv_code(text[ce - l])), &pv, &mv, +1, hb);
        else if (l > 0)
            score++; /* no core: every residue is an insertion */
        if (score <= best && (!front || gs_bv_zone_ok(zk, n, text + (ce - l - n)))) {
            best = score;
            bl = (uint32_t)l;
        }
    }
    *len = bl + n;
    return best;
}

#endif
