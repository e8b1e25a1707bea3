/* text.cuh - device helpers every scan kernel shares: DNA codes from raw text
 * bytes in registers, and recording a key occurrence.
 *
 * The kernels read the segment as it was copied (one byte a residue) with
 * 16-byte loads and turn bytes into 2-bit codes with a few integer
 * instructions per 4 bytes instead of a table lookup per byte: shared-memory
 * bandwidth is what the automaton needs for itself. A separate packing pass
 * would move 1.25x the text through device memory before the scan starts.
 * Device code only.
 */
#ifndef GS_GPU_TEXT_CUH
#define GS_GPU_TEXT_CUH

#include <stdint.h>

#include "gpu_cuda.h"

/* Byte j of the result is the 2-bit code (A=0 C=1 G=2 T=3) of byte j of w,
 * correct for ACGTacgt and meaningless for any other byte: with x the byte
 * uppercased, ((x >> 1) ^ (x >> 2)) & 3 maps 0x41 0x43 0x47 0x54 to 0 1 2 3. */
__device__ __forceinline__ uint32_t gs_dna_codes4(uint32_t w)
{
    uint32_t x = w & 0xDFDFDFDFu;
    return ((x >> 1) ^ (x >> 2)) & 0x03030303u;
}

/* Non-zero when some byte of w is not a base: each byte's code is mapped
 * back to its uppercase letter (a byte permute of "ACGT") and compared. */
__device__ __forceinline__ uint32_t gs_dna_bad4(uint32_t w, uint32_t c4)
{
    uint32_t x = w & 0xDFDFDFDFu;
    uint32_t e01 = __byte_perm(0x54474341u, 0u, c4);       /* bytes 0, 2: letters of codes 0, 1 */
    uint32_t e23 = __byte_perm(0x54474341u, 0u, c4 >> 16); /* bytes 0, 2: letters of codes 2, 3 */
    uint32_t x01 = __byte_perm(x, 0x41u, 0x4140);          /* text bytes 0, 1 at bytes 0, 2 */
    uint32_t x23 = __byte_perm(x, 0x41u, 0x4342);          /* text bytes 2, 3 at bytes 0, 2 */
    return (e01 ^ x01) | (e23 ^ x23);
}

/* Per byte of w, 0xFF when it is A, C, G or T in either case, else 0;
 * c4 = gs_dna_codes4(w). The codes become a byte-permute selector that
 * spells each byte's expected letter, compared byte by byte. */
__device__ __forceinline__ uint32_t gs_dna_ok4(uint32_t w, uint32_t c4)
{
    const uint32_t t = c4 | (c4 >> 4); /* codes as nibbles */
    const uint32_t sel = (t & 0xFFu) | ((t >> 8) & 0xFF00u);
    return __vcmpeq4(__byte_perm(0x54474341u, 0u, sel), w & 0xDFDFDFDFu);
}

/* Code of one byte, or 4 (GS_NONBASE) for anything but ACGTacgt. */
__device__ __forceinline__ uint32_t gs_dna_code1(uint32_t b)
{
    uint32_t x = b & 0xDFu;
    uint32_t c = ((x >> 1) ^ (x >> 2)) & 3u;
    return ((0x54474341u >> (8 * c)) & 0xFFu) == x ? c : 4u;
}

/* 16 text bytes at q as 2-bit codes (residue j at bits 2j) and a mask of
 * non-bases (bit j). */
__device__ __forceinline__ void gs_dna_load16(const uint8_t *q, uint32_t &codes, uint32_t &bad)
{
    uint4 v = __ldg((const uint4 *)q);
    uint32_t w[4] = {v.x, v.y, v.z, v.w}, anybad = 0;
    codes = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        uint32_t c4 = gs_dna_codes4(w[j]);
        anybad |= gs_dna_bad4(w[j], c4);
        codes |= ((c4 | c4 >> 6 | c4 >> 12 | c4 >> 18) & 0xFFu) << (8 * j);
    }
    bad = 0;
    if (anybad)
#pragma unroll
        for (int j = 0; j < 16; j++)
            bad |= (gs_dna_code1((w[j / 4] >> (8 * (j % 4))) & 0xFFu) > 3u ? 1u : 0u) << j;
}

/* Append key hit (start, key) with one atomic per warp: hits are frequent
 * with dense k-mer sets and a per-thread atomic on one counter serializes.
 * Out of line: the scan loops are unrolled and this is their cold path. The
 * kernels take their parameters as __grid_constant__, so passing their
 * address here copies nothing. */
__device__ __noinline__ static void gs_push_hit(const gs_gpu_scan *a, uint32_t start, uint32_t key)
{
    unsigned m = __activemask();
    int lane = threadIdx.x & 31, leader = __ffs(m) - 1;
    uint32_t base = 0;
    if (lane == leader)
        base = atomicAdd(a->n_hits, (uint32_t)__popc(m));
    base = __shfl_sync(m, base, leader) + __popc(m & ((1u << lane) - 1u));
    if (base < a->hit_cap)
        a->hits[base] = gs_keyhit_pack(start, key);
}

/* Count and/or record one key occurrence; scnt is the block's shared counts
 * or NULL when they live in global memory. */
__device__ __forceinline__ void gs_note(const gs_gpu_scan &a, uint32_t *scnt, uint32_t start,
                                          uint32_t key)
{
    if (a.counts) {
        if (scnt)
            atomicAdd(&scnt[key], 1u);
        else
            atomicAdd(&a.counts[key], 1ull);
    }
    if (a.hits)
        gs_push_hit(&a, start, key);
}

/* Add the block's shared counts to the global ones, skipping zeros. */
/* Where block blockIdx.x starts flushing n counters (see gs_flush_counts). */
__device__ __forceinline__ uint32_t gs_flush_shift(uint32_t n)
{
    return (uint32_t)((unsigned long long)blockIdx.x * n / gridDim.x);
}

__device__ __forceinline__ void gs_flush_counts(const gs_gpu_scan &a, const uint32_t *scnt,
                                                uint32_t n_keys)
{
    if (!a.counts || !scnt)
        return;
    /* every block flushes all keys at the end of the launch: each starts at
     * its own offset, so the blocks' atomics meet different addresses
     * instead of queueing on the same ones */
    const uint32_t shift = gs_flush_shift(n_keys);
    for (uint32_t i = threadIdx.x; i < n_keys; i += blockDim.x) {
        uint32_t k = i + shift < n_keys ? i + shift : i + shift - n_keys;
        uint32_t c = scnt[k];
        if (c)
            atomicAdd(&a.counts[k], (unsigned long long)c);
    }
}

/* The next chunk of this thread: each warp takes 32 consecutive chunks at a
 * time from a counter the launch starts at 0. A fixed chunk-to-thread
 * assignment left SMs idle a quarter of the time on the genome (Nsight
 * Compute: SM active cycles 73% of elapsed), where dense-hit and non-base
 * regions make chunks unequal. Returns false when the work is done; c may be
 * past the end for some lanes of the last group. */
__device__ __forceinline__ bool gs_next_chunk(unsigned int *ctr, uint32_t n_chunks, uint32_t &c)
{
    uint32_t base = 0;
    if ((threadIdx.x & 31) == 0)
        base = atomicAdd(ctr, 1u);
    base = __shfl_sync(0xFFFFFFFFu, base, 0) * 32u;
    c = base + (threadIdx.x & 31);
    return base < n_chunks;
}

/* Copy n bytes (a multiple of 16, both pointers 16-byte aligned) into shared
 * memory with the whole block. */
__device__ __forceinline__ void gs_block_copy16(void *dst, const void *src, size_t n)
{
    const uint4 *s = (const uint4 *)src;
    uint4 *d = (uint4 *)dst;
    for (size_t i = threadIdx.x; i < n / 16; i += blockDim.x)
        d[i] = __ldg(&s[i]);
}

#endif
