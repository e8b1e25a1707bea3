/* hits.cuh - turn a segment's key hits into sorted (start, strand, pattern)
 * keys on the device (device code only; gpu.cu launches these).
 *
 * A key hit (pos << 32 | key) stands for one hit per output of the key. The
 * outputs are counted, offset with CUB's exclusive scan, written as one
 * 64-bit sort key each, pos << (1 + pbits) | strand << pbits | pattern, and
 * sorted with CUB's radix sort over only the bits in use, so the hits leave
 * the device in contract §3 order (the record and segment are the same for all).
 */
#ifndef GS_GPU_HITS_CUH
#define GS_GPU_HITS_CUH

#include <stdint.h>

__global__ void gs_hits_count(const unsigned long long *kh, uint32_t n, const uint32_t *out_off,
                              uint32_t *cnt)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uint32_t k = (uint32_t)kh[i];
        cnt[i] = out_off[k + 1] - out_off[k];
    } else if (i == n) {
        cnt[i] = 0; /* so the exclusive scan's last element is the total */
    }
}

__global__ void gs_hits_expand(const unsigned long long *kh, uint32_t n, const uint32_t *out_off,
                               const uint32_t *outputs, const uint32_t *offs, uint32_t pbits,
                               unsigned long long *keys)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long pos = kh[i] >> 32;
    uint32_t k = (uint32_t)kh[i], o = offs[i];
    for (uint32_t j = out_off[k]; j < out_off[k + 1]; j++, o++) {
        uint32_t out = outputs[j]; /* pattern * 2 + strand */
        keys[o] = pos << (1 + pbits) | (unsigned long long)(out & 1u) << pbits | (out >> 1);
    }
}

#endif
