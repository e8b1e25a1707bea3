/* wm.cuh - the Wu-Manber scan kernel (device code only; wm.cu launches it).
 *
 * Wu-Manber looks at the last B residues ("gram") of an m-residue window
 * (m = the shortest key) and shifts by the table's safe distance; a zero
 * shift sends the window to the keys of that gram's bucket for a full
 * comparison. On the GPU each thread runs it over its own chunk of starts.
 *
 * What bounds it. DNA: the thread streams its chunk through a 32-residue
 * register window of 2-bit codes (16-byte loads, refilled 16 residues at a
 * time), so a step is ~12 integer instructions plus one shared-memory
 * shift lookup; with 8-mers the largest safe shift is m - B + 1 (2 for
 * d = 1000 at B = 7, 1 for d >= 8000 at B = 8), so the steps per residue,
 * the bucket lookups of zero shifts (global memory through L1, two
 * dependent loads) and the divergence between threads that shift
 * differently bound it, not DRAM: 146 GB/s at d = 1000 and 91 GB/s at
 * d = 16000 on the genome (H200), where half of all positions end a key.
 * When m <= 16 the window holds the whole m-residue window too, and a zero
 * shift compares the bucket's keys (16 bytes each: their first residues
 * packed like the window) with the window in registers; only keys longer
 * than m go on to the text in global memory.
 * Bytes: B <= 3 bytes are read per step straight from global memory (L1).
 */
#ifndef GS_GPU_WM_CUH
#define GS_GPU_WM_CUH

#include "text.cuh"

typedef struct gs_wm_view {
    const uint8_t *shift;    /* [G] safe shifts, capped at 255 */
    const uint32_t *bucket;  /* [G + 1] offsets into ents */
    const uint4 *ents;       /* keys whose m-prefix ends with the gram: (first min(len, 16)
                                codes packed 2 bits each, key, len, 0) */
    const uint32_t *key_off; /* [n_keys + 1] */
    const uint8_t *key_bytes;
    uint32_t G, B, m, n_keys, chunk, maxshift;
    int smem_counts;
} gs_wm_view;

/* Compare the keys of a bucket with the text at i and record the matches. */
__device__ __noinline__ static void gs_wm_verify(const gs_wm_view *v, const gs_gpu_scan *a,
                                                 uint32_t *scnt, uint32_t g, uint32_t i, int dna)
{
    for (uint32_t j = v->bucket[g]; j < v->bucket[g + 1]; j++) {
        uint32_t k = v->ents[j].y, o = v->key_off[k], L = v->key_off[k + 1] - o;
        if (L > a->len - i)
            continue;
        uint32_t x = 0;
        if (dna)
            while (x < L && gs_dna_code1(__ldg(&a->text[i + x])) == __ldg(&v->key_bytes[o + x]))
                x++;
        else
            while (x < L && __ldg(&a->text[i + x]) == __ldg(&v->key_bytes[o + x]))
                x++;
        if (x == L)
            gs_note(*a, scnt, i, k);
    }
}

/* One DNA key at i (the window already matched its first m residues). */
__device__ __noinline__ static void gs_wm_verify_key(const gs_wm_view *v, const gs_gpu_scan *a,
                                                     uint32_t *scnt, uint32_t k, uint32_t i)
{
    uint32_t o = v->key_off[k], L = v->key_off[k + 1] - o, x = 0;
    if (L > a->len - i)
        return;
    while (x < L && gs_dna_code1(__ldg(&a->text[i + x])) == __ldg(&v->key_bytes[o + x]))
        x++;
    if (x == L)
        gs_note(*a, scnt, i, k);
}

/* Gram hash of B <= 3 bytes into 16 bits (exact for B <= 2). */
__host__ __device__ __forceinline__ uint32_t gs_wm_gram_bytes(uint32_t c0, uint32_t c1,
                                                               uint32_t c2, uint32_t B)
{
    if (B == 1)
        return c0;
    if (B == 2)
        return c0 | c1 << 8;
    return ((c0 | c1 << 8 | c2 << 16) * 2654435761u) >> 16;
}

template <bool DNA>
__global__ void __launch_bounds__(1024, 1) gs_wm_kernel(const __grid_constant__ gs_wm_view v,
                                                   const __grid_constant__ gs_gpu_scan a)
{
    extern __shared__ __align__(16) unsigned char gs_wm_smem[];
    uint8_t *sshift = gs_wm_smem;
    uint32_t *scnt = v.smem_counts ? (uint32_t *)(gs_wm_smem + v.G) : NULL;
    gs_block_copy16(sshift, v.shift, v.G);
    if (scnt)
        for (uint32_t k = threadIdx.x; k < v.n_keys; k += blockDim.x)
            scnt[k] = 0;
    __syncthreads();

    const uint32_t B = v.B, m = v.m;
    const uint32_t gmask = B >= 16 ? 0xFFFFFFFFu : (1u << (2 * B)) - 1u, bmask = (1u << B) - 1u;
    const uint32_t n_chunks = (a.own + v.chunk - 1) / v.chunk;
    for (uint32_t c; gs_next_chunk(a.work, n_chunks, c);) {
        if (c >= n_chunks)
            continue;
        const uint32_t s0 = c * v.chunk;
        const uint32_t lim = min(s0 + v.chunk, a.own);
        if ((unsigned long long)s0 + m > a.len)
            continue;
        uint32_t e = s0 + m - 1;
        const uint32_t last_e = (uint32_t)min((unsigned long long)lim - 1 + m - 1,
                                              (unsigned long long)a.len - 1);
        if (DNA) {
            /* residues the register window must hold: the m-window or the gram */
            const uint32_t S = m <= 16 ? m : B;
            uint32_t p = (e - (S - 1)) & ~15u, c0, c1, b0, b1;
            gs_dna_load16(a.text + p, c0, b0);
            gs_dna_load16(a.text + p + 16, c1, b1);
            unsigned long long w = (unsigned long long)c1 << 32 | c0;
            uint32_t nb = b1 << 16 | b0;
            while (e <= last_e) {
                if (e >= p + 32) {
                    uint32_t np = (e - (S - 1)) & ~15u;
                    if (np == p + 16) {
                        gs_dna_load16(a.text + p + 32, c1, b1);
                        w = (w >> 32) | (unsigned long long)c1 << 32;
                        nb = (nb >> 16) | b1 << 16;
                    } else {
                        gs_dna_load16(a.text + np, c0, b0);
                        gs_dna_load16(a.text + np + 16, c1, b1);
                        w = (unsigned long long)c1 << 32 | c0;
                        nb = b1 << 16 | b0;
                    }
                    p = np;
                }
                uint32_t o = e - (B - 1) - p;
                uint32_t g = (uint32_t)(w >> (2 * o)) & gmask;
                uint32_t sh = (nb >> o) & bmask ? v.maxshift : sshift[g];
                if (sh == 0) {
                    const uint32_t i = e - m + 1;
                    if (m <= 16) {
                        const uint32_t cmask = m == 16 ? 0xFFFFFFFFu : (1u << (2 * m)) - 1u;
                        const uint32_t win = (uint32_t)(w >> (2 * (i - p))) & cmask;
                        const bool clean = ((nb >> (i - p)) & ((1u << m) - 1u)) == 0;
                        for (uint32_t j = __ldg(&v.bucket[g]), je = __ldg(&v.bucket[g + 1]);
                             clean && j < je; j++) {
                            uint4 k = __ldg(&v.ents[j]);
                            if ((k.x & cmask) != win)
                                continue;
                            if (k.z == m)
                                gs_note(a, scnt, i, k.y);
                            else
                                gs_wm_verify_key(&v, &a, scnt, k.y, i);
                        }
                    } else {
                        gs_wm_verify(&v, &a, scnt, g, i, 1);
                    }
                    sh = 1;
                }
                e += sh;
            }
        } else {
            while (e <= last_e) {
                uint32_t c0 = __ldg(&a.text[e + 1 - B]);
                uint32_t c1 = B > 1 ? __ldg(&a.text[e + 2 - B]) : 0;
                uint32_t c2 = B > 2 ? __ldg(&a.text[e]) : 0;
                uint32_t g = gs_wm_gram_bytes(c0, c1, c2, B);
                uint32_t sh = sshift[g];
                if (sh == 0) {
                    gs_wm_verify(&v, &a, scnt, g, e - m + 1, 0);
                    sh = 1;
                }
                e += sh;
            }
        }
    }
    __syncthreads();
    gs_flush_counts(a, scnt, v.n_keys);
}

#endif
