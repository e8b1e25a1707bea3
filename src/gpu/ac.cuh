/* ac.cuh - the Aho-Corasick scan kernels (device code only; ac.cu launches them).
 *
 * Two kernels over one automaton: gs_acc_kernel for counts only (the fast
 * path, below), gs_ac_kernel when hits are recorded or the compact tables do
 * not fit in shared memory.
 *
 * What bounds it. Each residue costs one dependent table lookup; the text is
 * read once with 16-byte loads (1 GiB at the ~4.3 TB/s copy rate of an H200
 * is 0.25 ms, 1/4 of the measured kernel time), so the lookups decide. They
 * stay in shared memory:
 *   - Mealy form: a trie leaf has no transitions of its own (they equal its
 *     failure state's), so an edge into a leaf goes straight to the nearest
 *     internal state and carries the leaf's output. 16000 distinct 8-mers
 *     need ~15k internal states instead of ~31k.
 *   - 16-bit entries while the states fit in 15 bits, 32-bit beyond (and the
 *     32-bit "wide" counts-only form when it fits: state + output id).
 *   - one copy per block of a persistent grid, loaded once per launch.
 * Measured (H200, 2^30 genome residues, d = 1000 8-mers, counts): 0.995 ms,
 * 1.08 TB/s of text. Nsight Compute puts L1/TEX (shared memory + L1) at 93%
 * of its peak: the lookups hit random states, 3.7-way bank conflicts on
 * average, and each warp-wide 16-byte text load touches 32 lines; DRAM is at
 * 25%. Issue slots are 59% busy at ~18 instructions per 32-residue warp step.
 *
 * Work split (gs_ac_kernel): a thread owns the starts [s0, s0 + chunk) and
 * scans [s0, s0 + chunk + max_len - 1) from the root, so threads are
 * independent and no match is seen twice. Chunks are handed out to warps
 * from a counter (gs_next_chunk).
 */
#ifndef GS_GPU_AC_CUH
#define GS_GPU_AC_CUH

#include "text.cuh"

/* The output of a state that ends a key: the key, its length and the next
 * record of the output chain (keys that are suffixes of this one), or -1. */
typedef struct gs_ac_out {
    uint32_t key, len;
    int32_t next, pad;
} gs_ac_out;

typedef struct gs_ac_view {
    const void *delta;        /* [n_int * A] entries: internal state | flag */
    const int32_t *edge_out;  /* [n_int * A] first output record of a flagged edge */
    const gs_ac_out *outs;    /* output records */
    const uint8_t *cls;       /* [256] byte classes (bytes alphabet) */
    uint32_t A;               /* symbols: 4 (dna) or byte classes */
    uint32_t n_keys;
    uint32_t chunk;           /* owned starts per thread, a multiple of 32 */
    uint32_t overlap;         /* max_len - 1 */
    uint32_t table_bytes;     /* bytes of delta, a multiple of 16 */
    int smem_counts;
} gs_ac_view;

template <typename E> struct gs_ac_flag;
template <> struct gs_ac_flag<uint16_t> { static constexpr uint32_t v = 0x8000u; };
template <> struct gs_ac_flag<uint32_t> { static constexpr uint32_t v = 0x80000000u; };

/* The rest of an output chain (a key that is a suffix of another): rare, so
 * out of line to keep the unrolled scan loop small. */
__device__ __noinline__ static void gs_ac_chain(const gs_ac_out *outs, const gs_gpu_scan *a,
                                                uint32_t *scnt, int32_t r, uint32_t e,
                                                uint32_t lim)
{
    while (r >= 0) {
        gs_ac_out o = outs[r];
        uint32_t start = e + 1 - o.len;
        if (start < lim)
            gs_note(*a, scnt, start, o.key);
        r = o.next;
    }
}

/* A flagged edge ending at text position e: record the keys that end there.
 * Out of line, so the 32 unrolled steps stay small. */
__device__ __noinline__ static void gs_ac_emit(const gs_ac_view *v, const gs_gpu_scan *a,
                                               uint32_t *scnt, uint32_t x, uint32_t e,
                                               uint32_t lim)
{
    if (e >= a->len)
        return;
    gs_ac_chain(v->outs, a, scnt, __ldg(&v->edge_out[x]), e, lim);
}

template <typename E, bool DNA, bool STAB>
__global__ void __launch_bounds__(1024, 1) gs_ac_kernel(const __grid_constant__ gs_ac_view v,
                                                   const __grid_constant__ gs_gpu_scan a)
{
    extern __shared__ __align__(16) unsigned char gs_ac_smem[];
    __shared__ uint8_t scls[256];
    constexpr uint32_t FLAG = gs_ac_flag<E>::v;
    const E *tab = STAB ? (const E *)gs_ac_smem : (const E *)v.delta;
    uint32_t *scnt = NULL;
    if (STAB)
        gs_block_copy16(gs_ac_smem, v.delta, v.table_bytes);
    if (v.smem_counts) {
        scnt = (uint32_t *)(gs_ac_smem + (STAB ? v.table_bytes : 0));
        for (uint32_t k = threadIdx.x; k < v.n_keys; k += blockDim.x)
            scnt[k] = 0;
    }
    if (!DNA)
        for (uint32_t b = threadIdx.x; b < 256; b += blockDim.x)
            scls[b] = v.cls[b];
    __syncthreads();

    const uint32_t n_chunks = (a.own + v.chunk - 1) / v.chunk;
    for (uint32_t c; gs_next_chunk(a.work, n_chunks, c);) {
        if (c >= n_chunks)
            continue;
        const uint32_t s0 = c * v.chunk;
        const uint32_t lim = min(s0 + v.chunk, a.own);
        const uint32_t end = (uint32_t)min((unsigned long long)lim + v.overlap,
                                           (unsigned long long)a.len);
        uint32_t st = 0;
        uint4 nx0 = __ldg((const uint4 *)(a.text + s0));
        uint4 nx1 = __ldg((const uint4 *)(a.text + s0 + 16));
        for (uint32_t p = s0; p < end; p += 32) {
            uint32_t w[8] = {nx0.x, nx0.y, nx0.z, nx0.w, nx1.x, nx1.y, nx1.z, nx1.w};
            if (p + 32 < end) { /* the next 32 bytes are in flight while these are scanned */
                nx0 = __ldg((const uint4 *)(a.text + p + 32));
                nx1 = __ldg((const uint4 *)(a.text + p + 48));
            }
            if (DNA) {
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    uint32_t c4[4], bad = 0;
#pragma unroll
                    for (int j = 0; j < 4; j++) {
                        c4[j] = gs_dna_codes4(w[4 * h + j]);
                        bad |= gs_dna_bad4(w[4 * h + j], c4[j]);
                    }
                    const uint32_t q = p + 16 * h;
                    if (bad == 0) {
#pragma unroll
                        for (int j = 0; j < 4; j++)
#pragma unroll
                            for (int b = 0; b < 4; b++) {
                                uint32_t x = st * 4 + ((c4[j] >> (8 * b)) & 3u);
                                uint32_t ent = STAB ? tab[x] : __ldg(&tab[x]);
                                st = ent & (FLAG - 1);
                                if (ent & FLAG)
                                    gs_ac_emit(&v, &a, scnt, x, q + 4 * j + b, lim);
                            }
                    } else { /* a non-base among these 16: rare, kept rolled */
#pragma unroll 1
                        for (int j = 0; j < 4; j++)
#pragma unroll
                            for (int b = 0; b < 4; b++) {
                                uint32_t wj = j == 0   ? w[4 * h]
                                              : j == 1 ? w[4 * h + 1]
                                              : j == 2 ? w[4 * h + 2]
                                                       : w[4 * h + 3];
                                uint32_t code = gs_dna_code1((wj >> (8 * b)) & 0xFFu);
                                if (code > 3) {
                                    st = 0;
                                    continue;
                                }
                                uint32_t x = st * 4 + code;
                                uint32_t ent = STAB ? tab[x] : __ldg(&tab[x]);
                                st = ent & (FLAG - 1);
                                if (ent & FLAG)
                                    gs_ac_emit(&v, &a, scnt, x, q + 4 * j + b, lim);
                            }
                    }
                }
            } else {
#pragma unroll
                for (int j = 0; j < 8; j++)
#pragma unroll
                    for (int b = 0; b < 4; b++) {
                        uint32_t x = st * v.A + scls[(w[j] >> (8 * b)) & 0xFFu];
                        uint32_t ent = STAB ? tab[x] : __ldg(&tab[x]);
                        st = ent & (FLAG - 1);
                        if (ent & FLAG)
                            gs_ac_emit(&v, &a, scnt, x, p + 4 * j + b, lim);
                    }
            }
        }
    }
    __syncthreads();
    gs_flush_counts(a, scnt, v.n_keys);
}

/* ---- counts only: the compact kernel ----
 *
 * The counts-only form moves all per-hit work into shared memory. A flagged
 * entry names an output state o; the block counts o (one shared atomic) and
 * continues from o's nearest internal state. At the end each o's count is
 * added to every key of o's output chain. For this to count every key ending
 * at e, matches are owned by the thread whose chunk holds their END position
 * (the thread warms up over the max_len - 1 residues before its chunk
 * without counting); only ends at or past the segment's owned starts need
 * the per-key start check, done by the exact out-of-line path in the few
 * threads whose chunk reaches there.
 *
 * Two entry layouts. Wide (32-bit, when the table fits): next state in the
 * low 16 bits, o + 1 in the high 16 (0: no output), so a step is one LDS, one
 * mask and a predicated shared atomic, with no branch: with dense k-mer sets
 * most warps have some lane at a key end at every step, and a divergent
 * branch there doubled the instructions per residue (measured with Nsight
 * Compute: 24 warp instructions per residue step at d = 1000 on the genome).
 * Narrow (16-bit, 15-bit ids): a flagged entry holds o only and the next
 * state comes from a second lookup, orep[o].
 */
typedef struct gs_acc_view {
    const void *delta;       /* [n_int * A] wide or narrow entries */
    const uint16_t *orep;    /* narrow: [n_out] internal state to continue from */
    const int32_t *ofirst;   /* [n_out] first output record (outs) of the output state */
    const gs_ac_out *outs;
    const uint8_t *cls;
    uint32_t A, n_out;
    uint32_t chunk, overlap;
    uint32_t table_bytes, orep_bytes; /* multiples of 16 */
} gs_acc_view;

/* The automata of one launch: block row blockIdx.y scans with v[blockIdx.y],
 * taking its chunks from work counter blockIdx.y. The parts of a key set
 * too large for one automaton (ac.cu) run side by side this way: a 16 MiB
 * segment is 32 blocks of chunks, a quarter of an H100, so one launch a part
 * left the device idle and paid each launch's fixed costs (the table's copy
 * into shared memory, the flush) in turn. */
enum { GS_ACC_MAX_VIEWS = 16 };
typedef struct gs_acc_views {
    gs_acc_view v[GS_ACC_MAX_VIEWS];
} gs_acc_views;

/* An end at e >= own: every key of the chain with its own start check. */
__device__ __noinline__ static void gs_acc_exact(const gs_acc_view *v, const gs_gpu_scan *a,
                                                 uint32_t o, uint32_t e)
{
    if (e >= a->len)
        return;
    for (int32_t r = v->ofirst[o]; r >= 0;) {
        gs_ac_out x = v->outs[r];
        if (e + 1 - x.len < a->own)
            atomicAdd(&a->counts[x.key], 1ull);
        r = x.next;
    }
}

/* One chunk of ends [s0, cend). EXACT: some ends reach past own. */
template <bool DNA, bool WIDE, bool EXACT>
__device__ __forceinline__ void gs_acc_chunk(const gs_acc_view &v, const gs_gpu_scan &a,
                                             const void *tabv, const uint16_t *orep,
                                             uint32_t *ocnt, const uint8_t *scls, uint32_t s0,
                                             uint32_t cend)
{
    const uint32_t *tab32 = (const uint32_t *)tabv;
    const uint16_t *tab16 = (const uint16_t *)tabv;
    const uint32_t fast = min(cend, a.own); /* ends below this count in shared memory */
    uint32_t st = 0;
    /* one transition; o is the output state reached, or -1 */
    auto step = [&](uint32_t x, uint32_t e) {
        int32_t o;
        if (WIDE) {
            uint32_t ent = tab32[x];
            st = ent & 0xFFFFu;
            o = (int32_t)(ent >> 16) - 1;
        } else {
            uint32_t ent = tab16[x];
            o = ent & 0x8000u ? (int32_t)(ent & 0x7FFFu) : -1;
            st = o >= 0 ? orep[o] : ent;
        }
        if (o >= 0) {
            if (!EXACT || e < fast)
                atomicAdd(&ocnt[o], 1u);
            else if (e < cend)
                gs_acc_exact(&v, &a, (uint32_t)o, e);
        }
    };
    /* warm-up: the residues before the chunk that a key ending in it may use */
#pragma unroll 1
    for (uint32_t i = s0 > v.overlap ? s0 - v.overlap : 0; i < s0; i++) {
        uint32_t b = __ldg(&a.text[i]), x;
        if (DNA) {
            uint32_t code = gs_dna_code1(b);
            if (code > 3) {
                st = 0;
                continue;
            }
            x = st * 4 + code;
        } else {
            x = st * v.A + scls[b];
        }
        if (WIDE) {
            st = tab32[x] & 0xFFFFu;
        } else {
            uint32_t ent = tab16[x];
            st = ent & 0x8000u ? orep[ent & 0x7FFFu] : ent;
        }
    }
    uint4 nx0 = __ldg((const uint4 *)(a.text + s0));
    uint4 nx1 = __ldg((const uint4 *)(a.text + s0 + 16));
    for (uint32_t p = s0; p < cend; p += 32) {
        uint32_t w[8] = {nx0.x, nx0.y, nx0.z, nx0.w, nx1.x, nx1.y, nx1.z, nx1.w};
        if (p + 32 < cend) {
            nx0 = __ldg((const uint4 *)(a.text + p + 32));
            nx1 = __ldg((const uint4 *)(a.text + p + 48));
        }
        if (DNA) {
#pragma unroll
            for (int h = 0; h < 2; h++) {
                uint32_t c4[4], bad = 0;
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    c4[j] = gs_dna_codes4(w[4 * h + j]);
                    bad |= gs_dna_bad4(w[4 * h + j], c4[j]);
                }
                const uint32_t q = p + 16 * h;
                if (bad == 0) {
#pragma unroll
                    for (int j = 0; j < 4; j++)
#pragma unroll
                        for (int b = 0; b < 4; b++)
                            step(st * 4 + ((c4[j] >> (8 * b)) & 3u), q + 4 * j + b);
                } else { /* a non-base among these 16: rare, kept rolled */
#pragma unroll 1
                    for (int j = 0; j < 4; j++) {
                        uint32_t wj = j == 0   ? w[4 * h]
                                      : j == 1 ? w[4 * h + 1]
                                      : j == 2 ? w[4 * h + 2]
                                               : w[4 * h + 3];
#pragma unroll
                        for (int b = 0; b < 4; b++) {
                            uint32_t code = gs_dna_code1((wj >> (8 * b)) & 0xFFu);
                            if (code > 3)
                                st = 0;
                            else
                                step(st * 4 + code, q + 4 * j + b);
                        }
                    }
                }
            }
        } else {
#pragma unroll
            for (int j = 0; j < 8; j++)
#pragma unroll
                for (int b = 0; b < 4; b++)
                    step(st * v.A + scls[(w[j] >> (8 * b)) & 0xFFu], p + 4 * j + b);
        }
    }
}

template <bool DNA, bool WIDE>
__global__ void __launch_bounds__(1024, 1) gs_acc_kernel(const __grid_constant__ gs_acc_views vs,
                                                         const __grid_constant__ gs_gpu_scan a)
{
    const gs_acc_view v = vs.v[blockIdx.y];
    extern __shared__ __align__(16) unsigned char gs_acc_smem[];
    __shared__ uint8_t scls[256];
    uint16_t *orep = (uint16_t *)(gs_acc_smem + v.table_bytes);
    uint32_t *ocnt = (uint32_t *)(gs_acc_smem + v.table_bytes + v.orep_bytes);
    gs_block_copy16(gs_acc_smem, v.delta, v.table_bytes);
    if (!WIDE)
        gs_block_copy16(orep, v.orep, v.orep_bytes);
    for (uint32_t k = threadIdx.x; k < v.n_out; k += blockDim.x)
        ocnt[k] = 0;
    if (!DNA)
        for (uint32_t b = threadIdx.x; b < 256; b += blockDim.x)
            scls[b] = v.cls[b];
    __syncthreads();

    /* ends [0, E): starts < own plus the keys that finish after own */
    const uint32_t E = (uint32_t)min((unsigned long long)a.own + v.overlap,
                                     (unsigned long long)a.len);
    const uint32_t n_chunks = (E + v.chunk - 1) / v.chunk;
    for (uint32_t c; gs_next_chunk(a.work + blockIdx.y, n_chunks, c);) {
        if (c >= n_chunks)
            continue;
        const uint32_t s0 = c * v.chunk, cend = min(s0 + v.chunk, E);
        if (s0 + v.chunk <= a.own) /* whole vectors, every end owned */
            gs_acc_chunk<DNA, WIDE, false>(v, a, gs_acc_smem, orep, ocnt, scls, s0, cend);
        else
            gs_acc_chunk<DNA, WIDE, true>(v, a, gs_acc_smem, orep, ocnt, scls, s0, cend);
    }
    __syncthreads();
    const uint32_t shift = gs_flush_shift(v.n_out); /* as gs_flush_counts */
    for (uint32_t i = threadIdx.x; i < v.n_out; i += blockDim.x) {
        uint32_t o = i + shift < v.n_out ? i + shift : i + shift - v.n_out;
        uint32_t n = ocnt[o];
        if (n)
            for (int32_t r = __ldg(&v.ofirst[o]); r >= 0; r = __ldg(&v.outs[r].next))
                atomicAdd(&a.counts[__ldg(&v.outs[r].key)], (unsigned long long)n);
    }
}

#endif
