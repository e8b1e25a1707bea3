/* bv_direct.cuh - the edit kernel for few keys, 1 to 8 words chained in a
 * thread: text read straight from device memory, so the piece length no
 * longer sets the occupancy.
 *
 * gs_bv_kernel (bv.cuh) copies a block's chunk into shared memory so that
 * 256 keys share each residue. With one key (the seeds' benchmark: one
 * pattern, the minimum distance at every end) the block's 256 threads hold
 * 256 pieces of that chunk instead, so its shared memory grows with the
 * piece: pieces of 4 warm-ups left 3 blocks an SM, and each Myers step is a
 * chain of dependent operations that 24 warps could not hide (shorter
 * pieces were faster despite the extra warm-up). Here each thread walks its
 * own piece through the read-only cache, 16 residues a load, four bytes
 * turned into codes at a time (text.cuh), and writes its profile 16 ends
 * at a time:
 * nothing limits the warps an SM holds but registers, and pieces can be 8
 * warm-ups long. Used for edit keys of up to 8 words (512 residues) when a
 * class has few keys (bv.cu decides); the results are the shared-memory
 * kernel's.
 * Device code and its launch; included by bv.cu only.
 */
#ifndef GS_GPU_BV_DIRECT_CUH
#define GS_GPU_BV_DIRECT_CUH

#include "bv.cuh"

/* One thread's state over its piece of ends [st, en) of key k: the key's
 * R 64-bit words (the last, lastw, holding row m - 1) chained in the
 * thread, as the CPU chains them, with no lanes to exchange deltas. */
template <int R> struct gs_bv_walk {
    uint64_t p[R][4], pv[R], mv[R], hb_last;
    uint32_t score, st, en, w0, k, K, lastw;

    __device__ __forceinline__ int step(uint32_t c, bool base)
    {
        if (R == 1)
            return gs_bv_step(base ? gs_bv_pick2(p[0], c) : (uint64_t)0, pv[0], mv[0], 0, hb_last);
        int h = 0; /* semi-global: row 0 is 0 in every column */
#pragma unroll
        for (int r = 0; r < R; r++)
            if (r <= (int)lastw)
                h = gs_bv_step(base ? gs_bv_pick2(p[r], c) : (uint64_t)0, pv[r], mv[r], h,
                               r == (int)lastw ? hb_last : 1ull << 63);
        return h;
    }

    /* The 16 residues from g (16-aligned). KIND 0: all are ends of the
     * piece; 1: all are warm-up (after w0, before st); 2: anything, each
     * residue checked (the first group and the last). */
    template <int KIND>
    __device__ __forceinline__ void group(const gs_bv_view &v, const gs_gpu_scan &a, uint32_t g)
    {
        const uint4 q = __ldg(reinterpret_cast<const uint4 *>(a.text + g));
        const uint32_t ws[4] = {q.x, q.y, q.z, q.w};
        uint32_t prof[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll
        for (int i4 = 0; i4 < 4; i4++) {
            const uint32_t c4 = gs_dna_codes4(ws[i4]), ok4 = gs_dna_ok4(ws[i4], c4);
#pragma unroll
            for (int b = 0; b < 4; b++) {
                const int i = 4 * i4 + b;
                const uint32_t j = g + i;
                if (KIND == 2 && (j < w0 || j >= en))
                    continue;
                score += step(c4 >> (8 * b), (ok4 >> (8 * b)) & 1u);
                if (KIND == 0 || (KIND == 2 && j >= st)) {
                    prof[i / 2] |= (score & 0xFFFFu) << (16 * (i & 1));
                    if (score <= K)
                        gs_bv_hit(a, j + 1, score, k);
                }
            }
        }
        if (v.profile == NULL || KIND == 1)
            return;
        if (KIND == 0) {
            uint4 *o = reinterpret_cast<uint4 *>(v.profile + g); /* 32-byte aligned */
            o[0] = make_uint4(prof[0], prof[1], prof[2], prof[3]);
            o[1] = make_uint4(prof[4], prof[5], prof[6], prof[7]);
        } else {
#pragma unroll
            for (int i = 0; i < 16; i++)
                if (g + i >= st && g + i < en)
                    v.profile[g + i] = (uint16_t)(prof[i / 2] >> (16 * (i & 1)));
        }
    }
};

/* Threads a block: keys of 5-8 words take ~160 registers a thread, so
 * blocks of 128 let an SM hold 3 of them (12 warps) where 256 would hold 1. */
template <int R> struct gs_bv_direct_shape {
    enum { THREADS = R > 4 ? 128 : GS_BV_THREADS, MIN_BLOCKS = R > 4 ? 3 : 0 };
};

/* v.sub_len: ends a piece (a multiple of 16); v.n_chunks: pieces a key. */
template <int R>
__global__ void __launch_bounds__(gs_bv_direct_shape<R>::THREADS, gs_bv_direct_shape<R>::MIN_BLOCKS) gs_bv_direct(const __grid_constant__ gs_bv_view v,
                                                             const __grid_constant__ gs_gpu_scan a)
{
    const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t piece = (uint32_t)(t % v.n_chunks), slot = (uint32_t)(t / v.n_chunks);
    if (slot >= v.n_ids)
        return;
    gs_bv_walk<R> w;
    w.st = piece * v.sub_len;
    if (w.st >= v.stop)
        return;
    w.en = min(w.st + v.sub_len, v.stop);
    w.k = v.ids[slot];
    w.K = v.K;
    const uint32_t m = v.keys.mlen[w.k];
    const uint64_t *pq = v.keys.wpeq + 4 * (size_t)v.keys.woff[w.k];
    w.lastw = (m - 1) / 64;
#pragma unroll
    for (int r = 0; r < R; r++) {
#pragma unroll
        for (int i = 0; i < 4; i++)
            w.p[r][i] = r <= (int)w.lastw ? pq[4 * r + i] : 0;
        w.pv[r] = ~0ull;
        w.mv[r] = 0;
    }
    w.hb_last = 1ull << ((m - 1) & 63);
    w.score = m;
    w.w0 = w.st >= m + w.K ? w.st - (m + w.K) : 0;
    const uint32_t first = w.w0 & ~15u;
    for (uint32_t g = first; g < w.en; g += 16) {
        if (g >= w.st && g + 16 <= w.en)
            w.template group<0>(v, a, g);
        else if (g >= w.w0 && g + 16 <= w.st)
            w.template group<1>(v, a, g);
        else
            w.template group<2>(v, a, g);
    }
}

#endif
