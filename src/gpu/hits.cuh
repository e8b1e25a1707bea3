/* hits.cuh - turn a segment's key hits into sorted (start, strand, pattern,
 * length) keys on the device (device code only; gpu.cu launches these).
 *
 * A key hit (gs_keyhit_pack) stands for one hit per output of the key. The
 * outputs are counted, offset with CUB's exclusive scan, written as one
 * 64-bit sort key each (core/gs_hitkey.h: the position above
 * outkey[output], which holds strand, pattern and length), and
 * sorted with CUB's radix sort over only the bits in use, so the hits leave
 * the device in contract §3 order and as a run the host keeps as it is.
 */
#ifndef GS_GPU_HITS_CUH
#define GS_GPU_HITS_CUH

#include <stdint.h>

#include "core/gs_hitkey.h"

/* A batch's key hits: n = min(*d_n, cap), read on the device (so a batch
 * can be queued before the host knows n). cnt[0, cap] gets each key hit's
 * outputs and zeros past n, so an exclusive scan of cap + 1 entries ends
 * with the total. */
__global__ void gs_hits_count(const unsigned long long *kh, const uint32_t *d_n, uint32_t cap,
                              const uint32_t *out_off, uint32_t *cnt)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x, n = min(*d_n, cap);
    if (i < n) {
        uint32_t k = gs_keyhit_key(kh[i]);
        cnt[i] = out_off[k + 1] - out_off[k];
    } else if (i <= cap) {
        cnt[i] = 0;
    }
}

/* Each key hit's sort keys at its offset, into keys[0, n_keys): those past
 * it are not written (the host sees the total and makes room). */
__global__ void gs_hits_expand(const unsigned long long *kh, const uint32_t *d_n, uint32_t cap,
                               const uint32_t *out_off, const unsigned long long *outkey,
                               const uint32_t *offs, gs_key_layout lay, unsigned long long *keys,
                               uint32_t n_keys)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= min(*d_n, cap))
        return;
    uint32_t pos = gs_keyhit_pos(kh[i]), k = gs_keyhit_key(kh[i]), o = offs[i];
    for (uint32_t j = out_off[k]; j < out_off[k + 1] && o < n_keys; j++, o++)
        keys[o] = gs_hitkey_at(lay, pos, outkey[j]);
}

#endif
