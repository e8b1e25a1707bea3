/* gs_hitkey.h - the packed 64-bit hit key, one definition for the host and
 * the device.
 *
 * A hit travels from where it is found to the end of the scan as one
 * 64-bit key: the CPU workers (src/scan/pipeline.c) and the GPU kernels
 * (src/gpu: bv.cuh, hits.cuh) pack it, the GPU and the workers sort it, and
 * gs_hitsort.c unpacks it into a gs_hit. From the top: the position (start
 * relative to its run's segment table), the strand (forward 0), the
 * pattern, the hit's length (end - start) and its distance, each field as
 * wide as the run's layout says, so that ascending keys are contract §3
 * order within a segment (the distance, last, only breaks ties the
 * contract leaves open). Plain C, usable from CUDA (host and device).
 *
 * Beside it, the key hit of the GPU kernels before expansion: one key
 * occurrence, pos << 32 | key.
 */
#ifndef GS_HITKEY_H
#define GS_HITKEY_H

#include <stdint.h>

#ifdef __CUDACC__
#define GS_HITKEY_FN static inline __host__ __device__
#else
#define GS_HITKEY_FN static inline
#endif

/* Field widths of a run's keys; the strand is one bit. */
typedef struct gs_key_layout {
    uint8_t b_dist; /* bits of the distance (0: exact hits) */
    uint8_t b_len;  /* bits of end - start */
    uint8_t b_pat;  /* bits of the pattern id */
} gs_key_layout;

/* The lowest bit of each field. */
GS_HITKEY_FN int gs_hitkey_s_len(gs_key_layout l) { return l.b_dist; }
GS_HITKEY_FN int gs_hitkey_s_pat(gs_key_layout l) { return l.b_dist + l.b_len; }
GS_HITKEY_FN int gs_hitkey_s_strand(gs_key_layout l) { return l.b_dist + l.b_len + l.b_pat; }
GS_HITKEY_FN int gs_hitkey_s_pos(gs_key_layout l) { return l.b_dist + l.b_len + l.b_pat + 1; }

/* Everything below the position: out is a keyset output (pattern * 2 +
 * strand, strand 1 reverse). */
GS_HITKEY_FN uint64_t gs_hitkey_low(gs_key_layout l, uint32_t out, uint64_t len, uint32_t dist)
{
    return (uint64_t)(out & 1) << gs_hitkey_s_strand(l) | (uint64_t)(out >> 1) << gs_hitkey_s_pat(l) |
           len << gs_hitkey_s_len(l) | dist;
}

/* The whole key: position pos above gs_hitkey_low's bits. */
GS_HITKEY_FN uint64_t gs_hitkey_at(gs_key_layout l, uint64_t pos, uint64_t low)
{
    return pos << gs_hitkey_s_pos(l) | low;
}

GS_HITKEY_FN uint64_t gs_hitkey_pack(gs_key_layout l, uint64_t pos, uint32_t out, uint64_t len,
                                  uint32_t dist)
{
    return gs_hitkey_at(l, pos, gs_hitkey_low(l, out, len, dist));
}

GS_HITKEY_FN uint64_t gs_hitkey_mask(int bits) { return ((uint64_t)1 << bits) - 1; }

GS_HITKEY_FN uint64_t gs_hitkey_pos(gs_key_layout l, uint64_t k) { return k >> gs_hitkey_s_pos(l); }
GS_HITKEY_FN uint64_t gs_hitkey_len(gs_key_layout l, uint64_t k)
{
    return k >> gs_hitkey_s_len(l) & gs_hitkey_mask(l.b_len);
}
GS_HITKEY_FN uint32_t gs_hitkey_pattern(gs_key_layout l, uint64_t k)
{
    return (uint32_t)(k >> gs_hitkey_s_pat(l) & gs_hitkey_mask(l.b_pat));
}
/* 1: the reverse strand. */
GS_HITKEY_FN uint32_t gs_hitkey_strand(gs_key_layout l, uint64_t k)
{
    return (uint32_t)(k >> gs_hitkey_s_strand(l) & 1);
}
GS_HITKEY_FN uint32_t gs_hitkey_dist(gs_key_layout l, uint64_t k)
{
    return (uint32_t)(k & gs_hitkey_mask(l.b_dist));
}

/* A GPU key hit: key k occurs at pos. */
GS_HITKEY_FN uint64_t gs_keyhit_pack(uint32_t pos, uint32_t key)
{
    return (uint64_t)pos << 32 | key;
}
GS_HITKEY_FN uint32_t gs_keyhit_pos(uint64_t kh) { return (uint32_t)(kh >> 32); }
GS_HITKEY_FN uint32_t gs_keyhit_key(uint64_t kh) { return (uint32_t)kh; }

#endif
