/* bv.cuh - the GPU bit-vector kernels of approximate matching (device code
 * only; bv.cu launches them).
 *
 * A block copies a chunk of the segment into shared memory as base codes
 * (one byte each, 4 for a non-base), together with the `pre` residues before
 * it that its keys need to warm up, and its thread groups walk it: a group
 * of G lanes owns one key and one piece of the chunk. With many keys every
 * group of a block takes its own key over the whole chunk (the text is
 * read once per block and broadcast from shared memory); with few keys the
 * chunk is cut into pieces and groups of the same key take one each.
 *
 * A piece of ends [st, en) starts its DP with a fresh column m + K residues
 * before st (m - 1 for mismatches): an alignment within K edits spans at
 * most m + K residues, so from st on the column gives the true best distance
 * wherever that is <= K, and something > K elsewhere. Pieces are
 * independent; no carry between blocks.
 *
 * Keys of <= 32 residues run on one 32-bit word per thread, <= 64 on one
 * 64-bit word (bv_step.h). Longer keys (edits) are chains of 64-bit words
 * over the G lanes of a group (R words a lane), processed as a wavefront:
 * at step t lane l updates its words for text residue t - l, with the
 * horizontal delta its upper neighbour produced for that residue one step
 * before, passed by one warp shuffle. G - 1 extra steps per piece is the
 * price. Longer mismatch keys are counted directly per start (with an early
 * exit past K: a few residues per start on genomic text).
 *
 * Keys of the seed filter (src/match/seeds.h) take gs_bv_filter instead:
 * seed occurrences queued in shared memory, their windows verified one a
 * thread with the same word steps.
 *
 * A hit is pushed as (end << 32 | distance << 27 | key); gs_bv_finish turns
 * it into a sort key once the start is known.
 *
 * --exact-3p (keyset.h's zone): mismatch kernels test the zone before they
 * push a window (the seed filter before it counts one, so the exact zone
 * rejects most seed occurrences); edit kernels push every end within K of
 * the unconstrained DP, a superset, and gs_bv_finish finds each end's
 * distance and start under the zone (gs_bv_zone_end64), turning an end
 * with none within K into GS_BV_DROPPED, which sorts last and is cut off.
 */
#ifndef GS_GPU_BV_CUH
#define GS_GPU_BV_CUH

extern "C" {
#include "match/seeds.h"
}
#include "match/bulge.h"
#include "text.cuh"

enum { GS_BV_THREADS = 256, GS_BV_KEYBITS = 27, GS_BV_DBITS = 4 };

/* The keys on the device, as every kernel reads them. */
typedef struct gs_bv_keys {
    const uint32_t *mlen;  /* [n_keys] */
    const uint32_t *woff;  /* [n_keys] first word of the key in wpeq */
    const uint64_t *wpeq;  /* [words][4]: bit i of word w: row 64 w + i holds the base */
    const uint8_t *kbytes; /* key base sets (A=1 C=2 G=4 T=8) */
    const uint64_t *koff;  /* [n_keys] offsets into kbytes */
    const uint32_t *zone;  /* [n_keys] keyset.h's zones, or NULL: none */
    const uint8_t *kk;     /* [n_keys] the keys' own K (keyset.h key_k), or NULL: K */
} gs_bv_keys;

/* Mismatches: whether key k's window at text codes t[0 .. m) keeps its zone. */
__device__ __forceinline__ bool gs_bv_zone_codes(const gs_bv_keys &ks, uint32_t k, uint32_t m,
                                                 const uint8_t *t)
{
    const uint32_t z = ks.zone ? ks.zone[k] : 0, n = z & ~(uint32_t)GS_ZONE_FRONT;
    if (n == 0)
        return true;
    const uint32_t o = (z & GS_ZONE_FRONT) ? 0 : m - n;
    const uint8_t *key = ks.kbytes + ks.koff[k];
    for (uint32_t i = o; i < o + n; i++)
        if (!(__ldg(&key[i]) >> t[i] & 1u)) /* code 4: no key bit */
            return false;
    return true;
}

/* One launch: the keys of one class over one segment. */
typedef struct gs_bv_view {
    const uint32_t *ids;   /* [n_ids] keys of the class, shortest first */
    uint32_t n_ids;
    uint32_t kb;           /* keys per block */
    uint32_t subs;         /* pieces per chunk: groups per block / kb */
    uint32_t sub_len;      /* ends per piece */
    uint32_t chunk;        /* ends per block: subs * sub_len */
    uint32_t n_chunks;     /* blocks per key batch */
    uint32_t pre;          /* residues before a piece its keys need (warm-up) */
    uint32_t stop;         /* ends 1 .. stop are scanned (ownership: engine.h) */
    uint32_t K;
    gs_bv_keys keys;
    uint16_t *profile;     /* [stop] best distance at every end, one key (benchmarks); or NULL */
} gs_bv_view;

/* What gs_bv_finish needs to turn raw hits into sort keys. */
typedef struct gs_bv_fin {
    const uint8_t *text;
    int edits;
    const uint32_t *mlen;
    const uint64_t *rpeq;     /* [n_keys][4]: reversed keys of <= 64 (bv_step.h) */
    const uint32_t *out_off, *outputs;
    uint32_t pbits, lbits;    /* bits of a pattern id and of a hit length */
    const uint32_t *zone;     /* keyset.h's zones, or NULL */
    const uint8_t *kbytes;    /* key base sets, for the zones */
    const uint64_t *koff;
    uint32_t K;               /* the run's; a key's own where kk is not NULL */
    const uint8_t *kk;
    uint32_t bulges;          /* keyset.h's: ends settled by bulge.h */
} gs_bv_fin;

__device__ __forceinline__ int gs_bv_step(uint32_t eq, uint32_t &pv, uint32_t &mv, int hin,
                                          uint32_t hb)
{
    return gs_bv_edit_step32(eq, &pv, &mv, hin, hb);
}
__device__ __forceinline__ int gs_bv_step(uint64_t eq, uint64_t &pv, uint64_t &mv, int hin,
                                          uint64_t hb)
{
    return gs_bv_edit_step64(eq, &pv, &mv, hin, hb);
}
__device__ __forceinline__ void gs_bv_ham(uint32_t x, uint32_t *p) { gs_bv_ham_step32(x, p); }
__device__ __forceinline__ void gs_bv_ham(uint64_t x, uint64_t *p) { gs_bv_ham_step64(x, p); }
__device__ __forceinline__ uint32_t gs_bv_ham_get(const uint32_t *p, uint32_t sh)
{
    return gs_bv_ham_read32(p, sh);
}
__device__ __forceinline__ uint32_t gs_bv_ham_get(const uint64_t *p, uint32_t sh)
{
    return gs_bv_ham_read64(p, sh);
}

/* eq for code c from four registers (selects: an indexed register array
 * would be spilled to local memory). */
template <typename W> __device__ __forceinline__ W gs_bv_pick(const W (&p)[4], uint32_t c)
{
    W e = 0;
#pragma unroll
    for (uint32_t i = 0; i < 4; i++)
        e = c == i ? p[i] : e;
    return e;
}

/* eq for a code known to be a base (0..3): a select tree on its two bits. */
template <typename W> __device__ __forceinline__ W gs_bv_pick2(const W (&p)[4], uint32_t c)
{
    const W lo = (c & 1u) ? p[1] : p[0], hi = (c & 1u) ? p[3] : p[2];
    return (c & 2u) ? hi : lo;
}

/* The block's chunk of ends and its text as codes in shared memory, from t0. */
__device__ __forceinline__ void gs_bv_load(const gs_bv_view &v, const gs_gpu_scan &a, uint8_t *sm,
                                           uint32_t c0, uint32_t &t0, uint32_t &c1)
{
    c1 = min(c0 + v.chunk, v.stop);
    t0 = c0 > v.pre ? c0 - v.pre : 0;
    for (uint32_t i = t0 + threadIdx.x; i < c1; i += blockDim.x)
        sm[i - t0] = (uint8_t)gs_bv_code(a.text[i]);
    __syncthreads();
}

/* Record one hit: end e (one past the last residue), distance d, key k. */
__device__ __forceinline__ void gs_bv_hit(const gs_gpu_scan &a, uint32_t e, uint32_t d, uint32_t k)
{
    if (a.hits)
        gs_push_hit(&a, e, d << GS_BV_KEYBITS | k);
}

/* MODE 0: mismatches, 1: edits, 2: mismatches counted per start (long
 * keys). G lanes a key, R 64-bit words a lane (G, R > 1: edits, W 64-bit). */
template <typename W, int G, int R, int MODE>
__global__ void __launch_bounds__(GS_BV_THREADS) gs_bv_kernel(const __grid_constant__ gs_bv_view v,
                                                             const __grid_constant__ gs_gpu_scan a)
{
    extern __shared__ __align__(16) uint8_t gs_bv_smem[];
    const uint32_t chunk_i = blockIdx.x % v.n_chunks, batch = blockIdx.x / v.n_chunks;
    uint32_t t0, c1, c0 = chunk_i * v.chunk;
    gs_bv_load(v, a, gs_bv_smem, c0, t0, c1);
    const uint8_t *sm = gs_bv_smem;
    const uint32_t g = threadIdx.x / G, lane = threadIdx.x % G;
    const uint32_t slot = batch * v.kb + g % v.kb, sub = g / v.kb;
    if (sub >= v.subs || slot >= v.n_ids)
        return; /* whole groups leave together; no barrier follows */
    const uint32_t st = c0 + sub * v.sub_len, en = min(st + v.sub_len, c1);
    if (st >= en)
        return;
    const uint32_t k = v.ids[slot], m = v.keys.mlen[k], K = v.K;
    const uint64_t *pq = v.keys.wpeq + 4 * (size_t)v.keys.woff[k];

    if constexpr (MODE == 2) { /* long mismatch keys: count per start */
        const uint8_t *key = v.keys.kbytes + v.keys.koff[k];
        for (uint32_t j = max(st, m - 1); j < en; j++) {
            const uint8_t *s = sm + (j + 1 - m - t0);
            uint32_t d = 0;
            for (uint32_t i = 0; i < m && d <= K; i++)
                d += (__ldg(&key[i]) >> s[i] & 1u) ^ 1u;
            if (d <= K)
                gs_bv_hit(a, j + 1, d, k);
        }
        return;
    } else if constexpr (MODE == 0) { /* mismatches, one word */
        W p[4], c[5] = {0, 0, 0, 0, 0};
#pragma unroll
        for (int i = 0; i < 4; i++)
            p[i] = (W)pq[i];
        const uint32_t sh = m - 1;
        for (uint32_t j = st >= sh ? st - sh : 0; j < en; j++) {
            gs_bv_ham((W)~gs_bv_pick(p, sm[j - t0]), c);
            if (j >= st && j >= sh) {
                uint32_t d = gs_bv_ham_get(c, sh);
                if (v.profile)
                    v.profile[j] = (uint16_t)d;
                if (d <= K && gs_bv_zone_codes(v.keys, k, m, sm + (j - sh - t0)))
                    gs_bv_hit(a, j + 1, d, k);
            }
        }
        return;
    } else if constexpr (G == 1) { /* edits, one word */
        const uint32_t w0 = st >= m + K ? st - (m + K) : 0;
        W p[4], pv = ~(W)0, mv = 0, hb = (W)1 << (m - 1);
#pragma unroll
        for (int i = 0; i < 4; i++)
            p[i] = (W)pq[i];
        uint32_t score = m;
        for (uint32_t j = w0; j < en; j++) {
            score += gs_bv_step(gs_bv_pick(p, sm[j - t0]), pv, mv, 0, hb);
            if (j >= st) {
                if (v.profile) /* benchmarks; one key takes gs_bv_direct */
                    v.profile[j] = (uint16_t)score;
                if (score <= K)
                    gs_bv_hit(a, j + 1, score, k);
            }
        }
    } else { /* edits, a wavefront of words over the group's lanes */
        const uint32_t w0 = st >= m + K ? st - (m + K) : 0;
        const uint32_t nw = (m + 63) / 64, lastw = nw - 1, last_lane = lastw / R;
        const uint64_t hb_last = 1ull << ((m - 1) & 63), top = 1ull << 63;
        uint64_t p[R][4], pv[R], mv[R];
#pragma unroll
        for (int r = 0; r < R; r++) {
            uint32_t w = lane * R + r;
#pragma unroll
            for (int i = 0; i < 4; i++)
                p[r][i] = w < nw ? pq[4 * w + i] : 0;
            pv[r] = ~0ull;
            mv[r] = 0;
        }
        const unsigned gmask =
            G == 32 ? 0xFFFFFFFFu : ((1u << G) - 1u) << ((threadIdx.x & 31u) & ~(unsigned)(G - 1));
        const uint32_t n = en - w0;
        uint32_t score = m;
        int hprev = 0;
        for (uint32_t t = 0; t < n + G - 1; t++) {
            int hin = __shfl_up_sync(gmask, hprev, 1, G);
            if (lane == 0)
                hin = 0; /* semi-global: row 0 is 0 in every column */
            const uint32_t idx = t - lane; /* wraps past n when t < lane */
            int h = 0;
            if (t >= lane && idx < n) {
                const uint32_t j = w0 + idx, c = sm[j - t0];
                h = hin;
#pragma unroll
                for (int r = 0; r < R; r++) {
                    uint32_t w = lane * R + r;
                    if (w <= lastw)
                        h = gs_bv_step(gs_bv_pick(p[r], c), pv[r], mv[r], h,
                                       w == lastw ? hb_last : top);
                }
                if (lane == last_lane) { /* h left the key's last row */
                    score += h;
                    if (j >= st) {
                        if (v.profile) /* one lane in G writes: gathering did not pay */
                            v.profile[j] = (uint16_t)score;
                        if (score <= K)
                            gs_bv_hit(a, j + 1, score, k);
                    }
                }
            }
            hprev = h;
        }
    }
}

/* The seed filter (seeds.h) of the keys it takes: one launch a segment. */
typedef struct gs_bv_fview {
    const uint32_t *tab;   /* gs_seeds_flatten's tab */
    const uint2 *ent;      /* its entries: key, off | rank << 16 */
    uint32_t chunk;        /* seed starts per block */
    uint32_t pre, post;    /* residues a block holds before and after its chunk */
    uint32_t stop;         /* ends 1 .. stop are scanned (ownership: engine.h) */
    uint32_t K;
    int edits;
    gs_bv_keys keys;
} gs_bv_fview;

/* Candidates (seed start, entry) a block queues before verifying them. */
enum { GS_BV_QCAP = 1024 };

/* Verify one candidate: the seed of entry x found at text position at; tx
 * holds the codes of the block's text from t0. */
__device__ __forceinline__ void gs_bv_verify(const gs_bv_fview &v, const gs_gpu_scan &a,
                                             const uint8_t *tx, uint32_t t0, uint32_t at, uint2 x)
{
    const uint32_t k = x.x, off = x.y & 0xFFFFu, rank = x.y >> 16, m = v.keys.mlen[k];
    const uint32_t K = v.keys.kk ? v.keys.kk[k] : v.K; /* the key's pigeonhole (seeds.h) */
    if (!v.edits) {
        if (at < off || at - off + m > v.stop)
            return;
        const uint32_t s = at - off;
        const uint8_t *key = v.keys.kbytes + v.keys.koff[k];
        if (!gs_bv_zone_codes(v.keys, k, m, tx + (s - t0)))
            return; /* the exact zone first: it rejects most seed occurrences */
        uint32_t d = gs_seed_mismatches(key, m, K, rank, tx + (s - t0));
        if (d <= K)
            gs_bv_hit(a, s + m, d, k);
        return;
    }
    uint64_t w0, lo, hi;
    gs_seed_window(at, off, m, K, v.stop, &w0, &lo, &hi);
    const uint64_t *pq = v.keys.wpeq + 4 * (size_t)v.keys.woff[k];
    const uint8_t *t = tx + ((uint32_t)w0 - t0);
    const uint32_t n = (uint32_t)(hi - w0), first = (uint32_t)(lo - w0);
    gs_seed_ends r;
    if (m <= 32) {
        const uint32_t p[4] = {(uint32_t)pq[0], (uint32_t)pq[1], (uint32_t)pq[2], (uint32_t)pq[3]};
        r = gs_seed_edits32(p, m, K, t, n, first);
    } else {
        const uint64_t p[4] = {pq[0], pq[1], pq[2], pq[3]};
        r = gs_seed_edits64(p, m, K, t, n, first);
    }
    while (r.mask) { /* every end of the window within K; other seeds may find it too */
        uint32_t i = __ffs(r.mask) - 1;
        r.mask &= r.mask - 1;
        gs_bv_hit(a, (uint32_t)lo + 1 + i, gs_seed_end_dist(&r, i), k);
    }
}

/* A block takes the seed starts [c0, c1) of the segment, with its text from
 * c0 - pre to c1 + post (every window of a seed starting there) as codes in
 * shared memory. Rounds: every thread queues the table entries of its
 * position (gs_seed_cursor) in a shared queue, moving to its next position
 * (blockDim apart) once all are queued, until the queue is half full; then
 * the whole block verifies the queue, one candidate a thread. A thread that
 * finds the queue full keeps its cursor for the next round, so a position
 * with many entries (a common q-mer) costs rounds, never correctness. */
__global__ void __launch_bounds__(GS_BV_THREADS)
    gs_bv_filter(const __grid_constant__ gs_bv_fview v, const __grid_constant__ gs_gpu_scan a)
{
    extern __shared__ __align__(16) uint8_t gs_bv_smem[];
    __shared__ uint32_t qn;
    uint2 *queue = (uint2 *)gs_bv_smem;
    uint8_t *tx = gs_bv_smem + GS_BV_QCAP * sizeof(uint2);
    const uint32_t c0 = blockIdx.x * v.chunk, c1 = min(c0 + v.chunk, v.stop);
    const uint32_t t0 = c0 > v.pre ? c0 - v.pre : 0, t1 = min(c1 + v.post, v.stop);
    for (uint32_t i = t0 + threadIdx.x; i < t1; i += blockDim.x)
        tx[i - t0] = (uint8_t)gs_bv_code(a.text[i]);
    uint32_t p = c0 + threadIdx.x; /* this thread's position */
    gs_seed_cursor cur;
    bool have = false; /* cur walks p */
    for (;;) {
        if (threadIdx.x == 0)
            qn = 0;
        __syncthreads();
        uint32_t n;
        for (;;) { /* fill */
            bool full = false;
            while (p < c1 && !full) {
                if (!have) {
                    gs_seed_start(&cur, tx + (p - t0), t1 - p);
                    have = true;
                }
                if (!gs_seed_next(&cur, v.tab)) {
                    p += blockDim.x;
                    have = false;
                    break; /* one position a round: the queue fills evenly */
                }
                uint32_t want = cur.e - cur.i, slot = atomicAdd(&qn, want);
                uint32_t take = slot < GS_BV_QCAP ? min(want, GS_BV_QCAP - slot) : 0;
                for (uint32_t j = 0; j < take; j++)
                    queue[slot + j] = make_uint2(p, cur.i + j);
                cur.i += take;
                full = take < want;
            }
            const int more = __syncthreads_or(p < c1);
            n = min(qn, (uint32_t)GS_BV_QCAP);
            __syncthreads(); /* every thread has read qn before it grows again */
            if (!more || n >= GS_BV_QCAP / 2)
                break;
        }
        for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
            uint2 c = queue[i];
            gs_bv_verify(v, a, tx, t0, c.x, __ldg(&v.ent[c.y]));
        }
        if (!__syncthreads_or(p < c1))
            break;
    }
}

/* Raw hits (end << 32 | d << 27 | key) to sort keys: start, strand,
 * pattern, length, distance from the most to the least significant bits,
 * i.e. contract §3 order within the segment. Edits find the start of keys
 * of <= 64 here (gs_bv_edit_len64); longer keys get length 0 and the host
 * finds theirs (gs_approx_edit_len), which is rare enough to pay there. */
__global__ void gs_bv_finish(const unsigned long long *kh, uint32_t n, gs_bv_fin f,
                             unsigned long long *keys)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long x = kh[i];
    uint32_t e = (uint32_t)(x >> 32), lo = (uint32_t)x;
    uint32_t k = lo & ((1u << GS_BV_KEYBITS) - 1u), d = lo >> GS_BV_KEYBITS, m = f.mlen[k];
    const uint32_t z = f.zone ? f.zone[k] : 0, zn = z & ~(uint32_t)GS_ZONE_FRONT;
    const uint32_t K = f.kk ? f.kk[k] : f.K;
    const int front = (z & GS_ZONE_FRONT) != 0;
    if (d > K) { /* within the run's K, not the key's own */
        keys[i] = GS_BV_DROPPED;
        return;
    }
    uint32_t l = f.bulges  ? 0
                 : !f.edits ? m
                 : m <= 64  ? gs_bv_edit_len64(f.rpeq + 4 * (size_t)k, m, f.text, e, d)
                            : 0;
    if (f.bulges) { /* any key length: the band is narrow */
        d = gs_bulge_end(f.kbytes + f.koff[k], m, zn, front, f.text, 1, e, K - f.bulges,
                         f.bulges, &l);
        if (d > K) {
            keys[i] = GS_BV_DROPPED;
            return;
        }
    } else if (zn && !f.edits) { /* the kernels tested it; long keys are tested here */
        const uint8_t *key = f.kbytes + f.koff[k];
        if (!gs_bv_zone_ok(key + (front ? 0 : m - zn), zn, f.text + e - (front ? m : zn))) {
            keys[i] = GS_BV_DROPPED;
            return;
        }
    } else if (zn && m <= 64) { /* d was the unconstrained best, a lower bound */
        d = gs_bv_zone_end64(f.rpeq + 4 * (size_t)k, f.kbytes + f.koff[k], m, zn, front, f.text,
                             e, K, &l);
        if (d > K) {
            keys[i] = GS_BV_DROPPED;
            return;
        }
    }
    uint32_t o = f.outputs[f.out_off[k]];
    const gs_key_layout lay = {GS_BV_DBITS, (uint8_t)f.lbits, (uint8_t)f.pbits};
    keys[i] = gs_hitkey_pack(lay, e - l, o, l, d);
}

#endif
