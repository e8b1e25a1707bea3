/* rk.cuh - the Rabin-Karp scan kernels (device code only; rk.cu launches them).
 *
 * Hash every window, look the hash up among the keys' hashes, compare the
 * text where it hits. Each thread streams its chunk and keeps the
 * hash of the last f residues with h = h * d + t mod q. For DNA d = 4 and
 * q = 4^f (f <= 32, a 64-bit register): the hash is the 2-bit packed window
 * itself, so it rolls in three instructions with no outgoing term and never
 * collides; for bytes d = 256, q = 2^(8f), f <= 8. Keys are grouped by length
 * (up to 4 groups, lengths within 1.5x of the group's shortest, f = that
 * shortest, at most 32) so a short key does not force a short, unselective
 * window on the long ones. Each window's hash is tested against a bitmap in
 * shared memory.
 * DNA (gs_rk_dna_kernel): a key is anchored at the end of its first
 * lc = min(length, 32) residues, so when a window passes the bitmap those
 * residues are already in the rolling register; its bucket of keys (in
 * shared memory when it fits) is compared with one 64-bit xor and shift per
 * key, the text is never re-read (only the tail of keys longer than 32).
 * The bitmap tests f + ext residues ending there (bmask), not only the f of
 * the bucket: a key with lc >= f + ext sets one bit, a shorter one a bit for
 * every choice of the residues before it, so longer keys stop passing on
 * their last f residues alone. rk.cu picks ext and which groups to merge by
 * the expected cost on a 2-letter text (one group and ext = 4 for 256 keys
 * of 10..30: about 4.3% of windows pass, 3.5% of them by a key's window and
 * 0.8% by a bitmap collision, against 6.7% with the two groups of ext = 0).
 * Candidates are shared out over the warp through a per-warp queue, after a
 * vote that skips the queue when no lane has one.
 * Bytes (gs_rk_kernel): hits go to an open-addressing table in global
 * memory and then to a comparison of the key's remaining residues read from
 * the text.
 * Measured (H200, 2^27 residues over {A, C}, k = 1..256 keys of 10..30):
 * 517 / 505 / 369 / 344 / 299 GB/s for k = 1 / 4 / 16 / 64 / 256, against
 * 405 / 282 / 170 / 150 / 149 for the first dna version, which probed the
 * bytes kernel's global table. That version, the lane-local verification
 * and the prefix-sum formulation (CUB scan of v(t_i) d^(n-1-i) mod 2^61 - 1,
 * several times slower: memory traffic and 64-bit multiplies) were compared
 * in docs/performance.md and left the product; git has them.
 */
#ifndef GS_GPU_RK_CUH
#define GS_GPU_RK_CUH

#include "text.cuh"

#define GS_RK_GROUPS 4

/* Open-addressing table entry of the window hashes of the keys: keys with
 * this (group, hash) are keys[first .. first + count). */
typedef struct gs_rk_slot {
    unsigned long long h;
    uint32_t tag;   /* group */
    uint32_t first; /* into ids */
    uint32_t count; /* 0 = empty slot */
    uint32_t pad;
} gs_rk_slot;

typedef struct gs_rk_view {
    const uint32_t *filter;  /* bitmap, 2^fbits bits */
    const gs_rk_slot *table; /* [hmask + 1] */
    const uint4 *keys;       /* [first .. first + count) of a slot: key, offset, length */
    const uint8_t *key_bytes;
    uint32_t fbits, hmask, n_keys, chunk;
    uint32_t ng;                   /* groups */
    uint32_t f[GS_RK_GROUPS];      /* window length of each group */
    unsigned long long fmask[GS_RK_GROUPS];
    unsigned long long bmask[GS_RK_GROUPS]; /* dna: the bitmap's window, f + ext residues */
    uint32_t maxf;
    int smem_counts;
    /* dna: buckets of the keys' windows, exact comparison in registers */
    const uint2 *bucket; /* [ng << tbits]: (first, count) into ent */
    const uint4 *ent;    /* code lo, code hi, key, length */
    const uint32_t *key_off;
    uint32_t tbits;
    uint32_t bucket_words; /* 0, or the 16-byte words of bucket + ent to copy into shared memory */
} gs_rk_view;

/* Bitmap bit of a window hash of group g. The high half only mixes in when
 * the window is wider than 32 bits, so 32-bit and 64-bit kernels agree. */
__host__ __device__ __forceinline__ uint32_t gs_rk_bit(unsigned long long h, uint32_t g,
                                                       uint32_t fbits)
{
    uint32_t x = (uint32_t)h ^ ((uint32_t)(h >> 32) * 0x85EBCA6Bu) ^ (g * 0x7FEB352Du);
    return (x * 0x9E3779B1u) >> (32 - fbits);
}

__host__ __device__ __forceinline__ uint32_t gs_rk_slot_of(unsigned long long h, uint32_t tag,
                                                           uint32_t hmask)
{
    unsigned long long x = (h ^ ((unsigned long long)tag << 40)) * 0xD6E8FEB86659FD93ull;
    return (uint32_t)(x >> 32) & hmask;
}

/* Compare symbols [from, L) of a key with the text at i. */
__device__ __forceinline__ bool gs_rk_same(const uint8_t *text, const uint8_t *key, uint32_t from,
                                           uint32_t L, bool dna)
{
    for (uint32_t x = from; x < L; x++) {
        uint32_t t = __ldg(&text[x]);
        if ((dna ? gs_dna_code1(t) : t) != __ldg(&key[x]))
            return false;
    }
    return true;
}

/* A bitmap hit for group g at window start i: probe the table, compare the
 * rest of each key (the window equals the first f symbols exactly). */
__device__ __forceinline__ void gs_rk_probe(const gs_rk_view *v, const gs_gpu_scan *a,
                                                uint32_t *scnt, unsigned long long h, uint32_t g,
                                                uint32_t i)
{
    for (uint32_t s = gs_rk_slot_of(h, g, v->hmask);; s = (s + 1) & v->hmask) {
        gs_rk_slot e = v->table[s];
        if (e.count == 0)
            return;
        if (e.h != h || e.tag != g)
            continue;
        for (uint32_t j = e.first; j < e.first + e.count; j++) {
            uint4 k = v->keys[j]; /* key, offset, length */
            if (k.z <= a->len - i &&
                gs_rk_same(a->text + i, v->key_bytes + k.y, v->f[g], k.z, false))
                gs_note(*a, scnt, i, k.x);
        }
        return;
    }
}

/* A window's hash rebuilt from the text (bytes: candidates are rare). */
__device__ __forceinline__ unsigned long long gs_rk_rehash(const uint8_t *t, uint32_t f)
{
    unsigned long long h = 0;
    for (uint32_t x = 0; x < f; x++)
        h = h << 8 | __ldg(&t[x]);
    return h;
}

/* Per-warp queue of candidates in shared memory (hash lo, hash hi, start,
 * group): a lane's candidates are spread over the whole warp for probing. */
#define GS_RK_QCAP 64

/* The rolling kernel for bytes.
 * H: uint32_t when every window fits 32 bits (f <= 4).
 * Lanes of a warp walk their chunks in step (same number of 16-residue
 * vectors, idle lanes included) so that after each vector the warp can share
 * out its candidates: probing them where they were found left 6 of 32 lanes
 * active on average (Nsight Compute, 2-letter text, k = 256). */
template <int NG, typename H>
__global__ void __launch_bounds__(1024, 1) gs_rk_kernel(const __grid_constant__ gs_rk_view v,
                                                     const __grid_constant__ gs_gpu_scan a)
{
    extern __shared__ __align__(16) unsigned char gs_rk_smem[];
    const uint32_t fwords = 1u << (v.fbits - 5);
    uint32_t *sbits = (uint32_t *)gs_rk_smem;
    uint32_t *scnt = v.smem_counts ? sbits + fwords : NULL;
    uint4 *queue = (uint4 *)(gs_rk_smem + (size_t)fwords * 4 +
                             (v.smem_counts ? ((size_t)v.n_keys * 4 + 15) / 16 * 16 : 0)) +
                   (threadIdx.x >> 5) * GS_RK_QCAP;
    gs_block_copy16(sbits, v.filter, (size_t)fwords * 4);
    if (scnt)
        for (uint32_t k = threadIdx.x; k < v.n_keys; k += blockDim.x)
            scnt[k] = 0;
    __syncthreads();

    const uint32_t lane = threadIdx.x & 31;
    const uint32_t n_chunks = (a.own + v.chunk - 1) / v.chunk;
    for (uint32_t c; gs_next_chunk(a.work, n_chunks, c);) {
        const bool have = c < n_chunks;
        const uint32_t s0 = have ? c * v.chunk : 0;
        const uint32_t lim = have ? min(s0 + v.chunk, a.own) : 0;
        const uint32_t end = have ? (uint32_t)min((unsigned long long)lim + v.maxf - 1,
                                                  (unsigned long long)a.len)
                                  : 0;
        const uint32_t span = end - s0;
        const uint32_t wspan = __reduce_max_sync(0xFFFFFFFFu, span);
        H h = 0;
        uint4 nx = make_uint4(0, 0, 0, 0);
        if (span)
            nx = __ldg((const uint4 *)(a.text + s0));
        for (uint32_t off = 0; off < wspan; off += 16) {
            const uint32_t p = s0 + off;
            const bool act = off < span;
            const uint32_t w[4] = {nx.x, nx.y, nx.z, nx.w};
            if (off + 16 < span)
                nx = __ldg((const uint4 *)(a.text + p + 16));
            uint32_t cand[NG];
#pragma unroll
            for (int g = 0; g < NG; g++)
                cand[g] = 0;
#pragma unroll
            for (int j = 0; j < 4; j++)
#pragma unroll
                for (int b = 0; b < 4; b++) {
                    h = (H)(h << 8) | ((w[j] >> (8 * b)) & 0xFFu);
#pragma unroll
                    for (int g = 0; g < NG; g++) {
                        uint32_t bit = gs_rk_bit((unsigned long long)(h & (H)v.fmask[g]), g,
                                                 v.fbits);
                        cand[g] |= ((sbits[bit >> 5] >> (bit & 31)) & 1u) << (4 * j + b);
                    }
                }
            /* keep the candidates whose window is inside this lane's work */
            uint32_t n = 0;
#pragma unroll
            for (int g = 0; g < NG; g++) {
                const uint32_t f = v.f[g];
                uint32_t keep = 0;
                for (uint32_t m = act ? cand[g] : 0; m; m &= m - 1) {
                    const uint32_t j = __ffs(m) - 1, e = p + j, i = e + 1 - f;
                    if (e < a.len && i < lim && e + 1 >= f && i >= s0)
                        keep |= 1u << j;
                }
                cand[g] = keep;
                n += __popc(keep);
            }
            /* share them out: rounds of at most GS_RK_QCAP */
            for (;;) {
                uint32_t incl = n;
#pragma unroll
                for (int d = 1; d < 32; d <<= 1) {
                    uint32_t y = __shfl_up_sync(0xFFFFFFFFu, incl, d);
                    if (lane >= (uint32_t)d)
                        incl += y;
                }
                const uint32_t total = __shfl_sync(0xFFFFFFFFu, incl, 31);
                if (total == 0)
                    break;
                uint32_t slot = incl - n;
#pragma unroll
                for (int g = 0; g < NG; g++)
                    while (cand[g] && slot < GS_RK_QCAP) {
                        const uint32_t j = __ffs(cand[g]) - 1, f = v.f[g];
                        cand[g] &= cand[g] - 1;
                        n--;
                        const uint32_t i = p + j + 1 - f;
                        const unsigned long long hg = gs_rk_rehash(a.text + i, f);
                        queue[slot++] = make_uint4((uint32_t)hg, (uint32_t)(hg >> 32), i, g);
                    }
                __syncwarp();
                for (uint32_t x = lane; x < min(total, (uint32_t)GS_RK_QCAP); x += 32) {
                    uint4 q = queue[x];
                    gs_rk_probe(&v, &a, scnt, (unsigned long long)q.y << 32 | q.x, q.w, q.z);
                }
                __syncwarp();
            }
        }
    }
    __syncthreads();
    gs_flush_counts(a, scnt, v.n_keys);
}

/* ---- dna: buckets and exact comparison in registers ---- */

/* Bucket of the window bits h of group g: group g's buckets are
 * [g << tbits, (g + 1) << tbits). A constant other than gs_rk_bit's, so a
 * window that passes the bitmap by a collision lands in an empty bucket. */
__host__ __device__ __forceinline__ uint32_t gs_rk_bucket(unsigned long long h, uint32_t g,
                                                          uint32_t tbits)
{
    uint32_t x = ((uint32_t)h ^ ((uint32_t)(h >> 32) * 0x85EBCA6Bu)) * 0xCC9E2D51u;
    return g << tbits | x >> (32 - tbits);
}

/* The window x (the residues up to e, the last at bits 0-1) passed group g's
 * bitmap: compare every key of its bucket. A key's entry holds the 2-bit
 * codes of its first lc = min(length, 32) residues, the first one highest,
 * so the key occurs at e + 1 - lc when those bits of x equal them (and, for
 * keys longer than 32, the text after them equals the rest). lcmin..lcmax:
 * the lc whose start lies in the lane's chunk and after its last non-base. */
__device__ __forceinline__ void gs_rk_check(const gs_rk_view &v, const gs_gpu_scan &a,
                                            uint32_t *scnt, const uint2 *bk, const uint4 *ent,
                                            unsigned long long x, uint32_t g, uint32_t e,
                                            uint32_t lcmin, uint32_t lcmax)
{
    const uint2 b = bk[gs_rk_bucket(x & v.fmask[g], g, v.tbits)];
    for (uint32_t j = b.x; j < b.x + b.y; j++) {
        const uint4 k = ent[j]; /* code lo, code hi, key, length */
        const uint32_t lc = min(k.w, 32u);
        if (lc < lcmin || lc > lcmax ||
            ((x ^ ((unsigned long long)k.y << 32 | k.x)) << (64 - 2 * lc)) != 0)
            continue;
        const uint32_t i = e + 1 - lc;
        if (k.w > 32 && (k.w > a.len - i || !gs_rk_same(a.text + i, v.key_bytes + v.key_off[k.z],
                                                        32, k.w, true)))
            continue;
        gs_note(a, scnt, i, k.z);
    }
}

/* The rolling kernel for dna. Unlike the bytes kernel (and the first dna
 * version, "probe"), a key is anchored at the end of its first lc residues,
 * not at its start: the bitmap tests the last f residues of that part, and
 * when the window passes, the whole part is already in the rolling register
 * (which keeps the last 32 residues), so verifying is a 64-bit compare
 * against the bucket's keys in shared memory instead of a probe of a global
 * table and a re-read of the text. A chunk therefore reads up to lc - 1
 * residues past its last owned start, at most 31. Candidates are shared out
 * over the warp through the per-warp queue as in gs_rk_kernel. */
template <int NG, typename H>
__global__ void __launch_bounds__(1024, 1) gs_rk_dna_kernel(const __grid_constant__ gs_rk_view v,
                                                         const __grid_constant__ gs_gpu_scan a)
{
    extern __shared__ __align__(16) unsigned char gs_rk_smem[];
    const uint32_t fwords = 1u << (v.fbits - 5);
    uint32_t *sbits = (uint32_t *)gs_rk_smem;
    unsigned char *pos = gs_rk_smem + (size_t)fwords * 4;
    uint32_t *scnt = NULL;
    if (v.smem_counts) {
        scnt = (uint32_t *)pos;
        pos += ((size_t)v.n_keys * 4 + 15) / 16 * 16;
    }
    const uint2 *bk = v.bucket;
    const uint4 *ent = v.ent;
    if (v.bucket_words) {
        gs_block_copy16(pos, v.bucket, (size_t)v.bucket_words * 16);
        bk = (const uint2 *)pos;
        ent = (const uint4 *)(pos + ((size_t)v.ng << v.tbits) * 8);
        pos += (size_t)v.bucket_words * 16;
    }
    uint4 *queue = (uint4 *)pos + (threadIdx.x >> 5) * GS_RK_QCAP;
    gs_block_copy16(sbits, v.filter, (size_t)fwords * 4);
    if (scnt)
        for (uint32_t k = threadIdx.x; k < v.n_keys; k += blockDim.x)
            scnt[k] = 0;
    __syncthreads();

    constexpr int HB = 8 * sizeof(H);
    const uint32_t lane = threadIdx.x & 31;
    const uint32_t n_chunks = (a.own + v.chunk - 1) / v.chunk;
    for (uint32_t c; gs_next_chunk(a.work, n_chunks, c);) {
        const bool have = c < n_chunks;
        const uint32_t s0 = have ? c * v.chunk : 0;
        const uint32_t lim = have ? min(s0 + v.chunk, a.own) : 0;
        const uint32_t end = have ? (uint32_t)min((unsigned long long)lim + v.maxf - 1,
                                                  (unsigned long long)a.len)
                                  : 0;
        const uint32_t span = end - s0;
        const uint32_t wspan = __reduce_max_sync(0xFFFFFFFFu, span);
        H h = 0, hp = 0;
        uint32_t ok = s0; /* keys start at ok or later: in the chunk, after non-bases */
        uint4 nx = make_uint4(0, 0, 0, 0);
        if (span)
            nx = __ldg((const uint4 *)(a.text + s0));
        for (uint32_t off = 0; off < wspan; off += 16) {
            const uint32_t p = s0 + off;
            const bool act = off < span;
            const uint32_t w[4] = {nx.x, nx.y, nx.z, nx.w};
            if (off + 16 < span)
                nx = __ldg((const uint4 *)(a.text + p + 16));
            uint32_t c4[4], bad = 0, nbm = 0, cand[NG];
#pragma unroll
            for (int j = 0; j < 4; j++) {
                c4[j] = gs_dna_codes4(w[j]);
                bad |= gs_dna_bad4(w[j], c4[j]);
            }
            if (bad && act)
#pragma unroll 1
                for (int j = 0; j < 16; j++) {
                    uint32_t wj = j < 4 ? w[0] : j < 8 ? w[1] : j < 12 ? w[2] : w[3];
                    nbm |= (gs_dna_code1((wj >> (8 * (j & 3))) & 0xFFu) > 3u ? 1u : 0u) << j;
                }
            hp = h;
#pragma unroll
            for (int g = 0; g < NG; g++)
                cand[g] = 0;
#pragma unroll
            for (int j = 0; j < 4; j++)
#pragma unroll
                for (int b = 0; b < 4; b++) {
                    h = (H)(h << 2) | ((c4[j] >> (8 * b)) & 3u);
#pragma unroll
                    for (int g = 0; g < NG; g++) {
                        uint32_t bit = gs_rk_bit((unsigned long long)(h & (H)v.bmask[g]), g,
                                                 v.fbits);
                        cand[g] |= ((sbits[bit >> 5] >> (bit & 31)) & 1u) << (4 * j + b);
                    }
                }
            /* keep the windows inside the lane's text, after its last
             * non-base, that can end a key starting before lim */
            const H older = HB == 64 ? (H)(hp >> (HB / 2)) : hp;
            const uint32_t ok0 = ok;
            uint32_t n = 0;
#pragma unroll
            for (int g = 0; g < NG; g++) {
                const uint32_t f = v.f[g];
                uint32_t keep = 0;
                for (uint32_t m = act ? cand[g] : 0; m; m &= m - 1) {
                    const uint32_t j = __ffs(m) - 1, e = p + j;
                    const uint32_t nb = nbm & ((2u << j) - 1u);
                    const uint32_t lo = nb ? p + 32 - __clz(nb) : ok0;
                    if (e >= a.len || e + 1 < lo + f || e + 1 >= lim + v.maxf)
                        continue;
                    keep |= 1u << j;
                }
                cand[g] = keep;
                n += __popc(keep);
            }
            if (nbm)
                ok = p + 32 - __clz(nbm);
            /* share them out: rounds of at most GS_RK_QCAP; one vote first,
             * since most vectors of most warps have none (the scan of the
             * counts on every vector halved k = 1 on the 2-letter text) */
            while (__any_sync(0xFFFFFFFFu, n)) {
                uint32_t incl = n;
#pragma unroll
                for (int d = 1; d < 32; d <<= 1) {
                    uint32_t y = __shfl_up_sync(0xFFFFFFFFu, incl, d);
                    if (lane >= (uint32_t)d)
                        incl += y;
                }
                const uint32_t total = __shfl_sync(0xFFFFFFFFu, incl, 31);
                if (total == 0)
                    break;
                uint32_t slot = incl - n;
#pragma unroll
                for (int g = 0; g < NG; g++)
                    while (cand[g] && slot < GS_RK_QCAP) {
                        const uint32_t j = __ffs(cand[g]) - 1, e = p + j;
                        cand[g] &= cand[g] - 1;
                        n--;
                        const uint32_t nb = nbm & ((2u << j) - 1u);
                        const uint32_t lo = nb ? p + 32 - __clz(nb) : ok0;
                        const uint32_t lcmin = e + 1 < lim ? 1 : e + 2 - lim;
                        const uint32_t lcmax = min(e + 1 - lo, 32u);
                        const uint32_t sh = 2 * (15 - j);
                        const unsigned long long x =
                            (unsigned long long)(sh ? (H)(h >> sh) | (H)(older << (HB - sh)) : h);
                        queue[slot++] = make_uint4((uint32_t)x, (uint32_t)(x >> 32), e,
                                                   g | lcmin << 8 | lcmax << 16);
                    }
                __syncwarp();
                for (uint32_t x = lane; x < min(total, (uint32_t)GS_RK_QCAP); x += 32) {
                    const uint4 q = queue[x];
                    gs_rk_check(v, a, scnt, bk, ent, (unsigned long long)q.y << 32 | q.x,
                                q.w & 0xFFu, q.z, (q.w >> 8) & 0xFFu, q.w >> 16);
                }
                __syncwarp();
            }
        }
    }
    __syncthreads();
    gs_flush_counts(a, scnt, v.n_keys);
}

#endif
