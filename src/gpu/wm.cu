/* wm.cu - the GPU Wu-Manber engine: shift table and buckets built on the
 * host once, wm.cuh's kernel launched per segment.
 *
 * Block size B: DNA grams are exact 2-bit strings, so B is the smallest value
 * (at most 8, at most m) whose 4^B table is at least twice as large as the
 * number of (key, prefix position) entries: large enough that most grams
 * shift, small enough for shared memory (4^8 = 64 KB of one-byte shifts).
 * Bytes: B = 2 (exact) for small sets, 3 (hashed into 16 bits) for larger
 * ones, as in the original paper.
 */
#include <algorithm>
#include <new>
#include <vector>

#include "wm.cuh"

typedef struct wm_state {
    gs_wm_view v;
    uint8_t *d_shift;
    uint32_t *d_bucket, *d_key_off;
    uint4 *d_ents;
    uint8_t *d_key_bytes;
    void (*fn)(gs_wm_view, gs_gpu_scan);
    size_t smem;
    int threads, grid;
} wm_state;

static void wm_close(void *p)
{
    wm_state *st = (wm_state *)p;
    if (st == NULL)
        return;
    cudaFree(st->d_shift);
    cudaFree(st->d_bucket);
    cudaFree(st->d_ents);
    cudaFree(st->d_key_off);
    cudaFree(st->d_key_bytes);
    delete st;
}

/* Gram of the B symbols ending at key[q] (q >= B - 1). */
static uint32_t wm_gram(const uint8_t *key, uint32_t q, uint32_t B, int dna)
{
    if (dna) {
        uint32_t g = 0;
        for (uint32_t j = 0; j < B; j++)
            g |= (uint32_t)key[q + 1 - B + j] << (2 * j);
        return g;
    }
    return gs_wm_gram_bytes(key[q + 1 - B], B > 1 ? key[q + 2 - B] : 0, B > 2 ? key[q] : 0, B);
}

static gs_status wm_open(const gs_keyset *ks, const gs_gpu_dev *dev, const gs_gpu_args *a,
                         size_t text_cap, void **state, gs_error *err)
{
    (void)text_cap;
    (void)a;
    int dna = ks->alphabet == GS_ALPHA_DNA;
    uint32_t m = ks->min_len, B = 1, G, maxshift;
    size_t budget, cbytes;
    wm_state *st = NULL;
    std::vector<uint8_t> shift;
    std::vector<uint32_t> bucket, key_off;
    std::vector<uint4> ents;
    if (ks->key_off[ks->n_keys] >= 0xFFFFFFFFull)
        return gs_fail(err, GS_ESYS, "keys too large for the GPU (%llu symbols) (gpu wm engine)",
                       (unsigned long long)ks->key_off[ks->n_keys]);
    if (dna) {
        uint32_t bmax = std::min<uint32_t>(m, 8);
        for (B = 1; B < bmax; B++)
            if ((1ull << (2 * B)) >= 2ull * ks->n_keys * (m - B + 1))
                break;
        G = 1u << (2 * B);
    } else {
        B = std::min<uint32_t>(m, (uint64_t)ks->n_keys * (m - 1) <= 4096 ? 2 : 3);
        G = B == 1 ? 256 : 65536;
    }
    maxshift = std::min<uint32_t>(m - B + 1, 255);
    st = new (std::nothrow) wm_state();
    if (st == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (gpu wm engine)");
    try {
        shift.assign(G < 16 ? 16 : G, (uint8_t)maxshift);
        bucket.assign(G + 1, 0);
        ents.resize(std::max<uint32_t>(ks->n_keys, 1));
        key_off.resize(ks->n_keys + 1);
    } catch (const std::bad_alloc &) {
        gs_fail(err, GS_ESYS, "out of memory (gpu wm engine)");
        goto fail;
    }
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        const uint8_t *key = gs_key(ks, k);
        for (uint32_t q = B - 1; q < m; q++) {
            uint32_t g = wm_gram(key, q, B, dna);
            shift[g] = (uint8_t)std::min<uint32_t>(shift[g], m - 1 - q);
        }
        bucket[wm_gram(key, m - 1, B, dna) + 1]++;
        key_off[k] = (uint32_t)ks->key_off[k];
    }
    key_off[ks->n_keys] = (uint32_t)ks->key_off[ks->n_keys];
    for (uint32_t g = 0; g < G; g++)
        bucket[g + 1] += bucket[g];
    {
        std::vector<uint32_t> fill(bucket.begin(), bucket.end() - 1);
        for (uint32_t k = 0; k < ks->n_keys; k++) {
            const uint8_t *key = gs_key(ks, k);
            uint32_t L = gs_key_len(ks, k), packed = 0;
            for (uint32_t j = 0; dna && j < L && j < 16; j++)
                packed |= (uint32_t)key[j] << (2 * j);
            ents[fill[wm_gram(key, m - 1, B, dna)]++] = make_uint4(packed, k, L, 0);
        }
    }
    if (gs_gpu_upload((void **)&st->d_shift, shift.data(), shift.size(), err) ||
        gs_gpu_upload((void **)&st->d_bucket, bucket.data(), bucket.size() * 4, err) ||
        gs_gpu_upload((void **)&st->d_ents, ents.data(), ents.size() * sizeof(uint4), err) ||
        gs_gpu_upload((void **)&st->d_key_off, key_off.data(), key_off.size() * 4, err) ||
        gs_gpu_upload((void **)&st->d_key_bytes, ks->key_bytes, ks->key_off[ks->n_keys], err))
        goto fail;
    st->v.shift = st->d_shift;
    st->v.bucket = st->d_bucket;
    st->v.ents = st->d_ents;
    st->v.key_off = st->d_key_off;
    st->v.key_bytes = st->d_key_bytes;
    st->v.G = (uint32_t)shift.size();
    st->v.B = B;
    st->v.m = m;
    st->v.n_keys = ks->n_keys;
    st->v.chunk = 1024;
    st->v.maxshift = maxshift;
    budget = dev->smem_optin - 64;
    cbytes = (size_t)ks->n_keys * 4;
    st->v.smem_counts = st->v.G + cbytes <= budget;
    st->smem = st->v.G + (st->v.smem_counts ? cbytes : 0);
    st->threads = st->smem <= 56 * 1024 ? 256 : st->smem <= 112 * 1024 ? 512 : 1024;
    st->fn = dna ? gs_wm_kernel<true> : gs_wm_kernel<false>;
    if (gs_gpu_fit_grid(st->fn, st->threads, st->smem, dev, &st->grid, err) != GS_OK)
        goto fail;
    *state = st;
    return GS_OK;
fail:
    wm_close(st);
    return err->code;
}

static gs_status wm_scan(void *state, const gs_gpu_scan *a, cudaStream_t s, gs_error *err)
{
    wm_state *st = (wm_state *)state;
    size_t n_chunks = ((size_t)a->own + st->v.chunk - 1) / st->v.chunk;
    unsigned grid = (unsigned)std::min<size_t>(st->grid, gs_gpu_div_up(n_chunks, st->threads));
    if (a->own == 0)
        return GS_OK;
    st->fn<<<grid, st->threads, st->smem, s>>>(st->v, *a);
    GS_CUDA_LAUNCH_CHECK();
    return GS_OK;
fail:
    return err->code;
}

const gs_gpu_engine gs_gpu_engine_wm = {"wm", wm_open, wm_scan, wm_close};
