/* rk.cu - the GPU Rabin-Karp engines: key hashes, bitmap and hash table
 * built on the host once; rk.cuh's kernels launched per segment.
 *
 * "rk" is the rolling formulation; "rkps" (or "rk" with GS_GPU_RK=prefix in
 * the environment) is the prefix-sum formulation kept for comparison: see
 * rk.cuh for both and docs/performance.md (GPU) for the measurements.
 */
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

/* no NVTX ranges from CUB: a library should not export the NVTX symbols */
#define CCCL_DISABLE_NVTX
#include <cub/device/device_scan.cuh>

#include "rk.cuh"

typedef struct rk_state {
    int ps; /* prefix-sum formulation */
    int dna;
    gs_rk_view v;
    gs_rkps_view pv;
    uint32_t *d_filter, *d_ids, *d_key_off, *d_lens;
    uint4 *d_keys;
    unsigned long long *d_kcodes;
    gs_rk_slot *d_table;
    uint8_t *d_key_bytes;
    unsigned long long *d_dpow, *d_w, *d_P;
    void *d_temp;
    size_t temp_bytes;
    void (*fn)(gs_rk_view, gs_gpu_scan);
    size_t smem;
    int threads, grid;
} rk_state;

static const unsigned long long RK_D = 0x2545F4914F6CDD1Dull % GS_RK_Q;

static void rk_close(void *p)
{
    rk_state *st = (rk_state *)p;
    if (st == NULL)
        return;
    cudaFree(st->d_filter);
    cudaFree(st->d_ids);
    cudaFree(st->d_keys);
    cudaFree(st->d_kcodes);
    cudaFree(st->d_key_off);
    cudaFree(st->d_lens);
    cudaFree(st->d_table);
    cudaFree(st->d_key_bytes);
    cudaFree(st->d_dpow);
    cudaFree(st->d_w);
    cudaFree(st->d_P);
    cudaFree(st->d_temp);
    delete st;
}

typedef struct rk_entry {
    uint32_t tag;
    unsigned long long h;
    uint32_t key;
} rk_entry;

/* Sort (tag, hash, key) entries and lay them out as ids + an open-addressing
 * table, one slot per distinct (tag, hash). */
static void rk_table(std::vector<rk_entry> &e, std::vector<uint32_t> &ids,
                     std::vector<gs_rk_slot> &table, uint32_t *hmask)
{
    std::sort(e.begin(), e.end(), [](const rk_entry &a, const rk_entry &b) {
        if (a.tag != b.tag)
            return a.tag < b.tag;
        if (a.h != b.h)
            return a.h < b.h;
        return a.key < b.key;
    });
    size_t distinct = 0;
    for (size_t i = 0; i < e.size(); i++)
        distinct += i == 0 || e[i].tag != e[i - 1].tag || e[i].h != e[i - 1].h;
    size_t size = 16;
    while (size < 2 * distinct)
        size *= 2;
    *hmask = (uint32_t)(size - 1);
    table.assign(size, gs_rk_slot{0, 0, 0, 0, 0});
    ids.resize(std::max<size_t>(e.size(), 1));
    for (size_t i = 0; i < e.size();) {
        size_t j = i;
        while (j < e.size() && e[j].tag == e[i].tag && e[j].h == e[i].h) {
            ids[j] = e[j].key;
            j++;
        }
        uint32_t s = gs_rk_slot_of(e[i].h, e[i].tag, *hmask);
        while (table[s].count)
            s = (s + 1) & *hmask;
        table[s] = gs_rk_slot{e[i].h, e[i].tag, (uint32_t)i, (uint32_t)(j - i), 0};
        i = j;
    }
}

template <bool DNA, typename H> static void (*rk_pick(uint32_t ng))(gs_rk_view, gs_gpu_scan)
{
    switch (ng) {
    case 1: return gs_rk_kernel<DNA, 1, H>;
    case 2: return gs_rk_kernel<DNA, 2, H>;
    case 3: return gs_rk_kernel<DNA, 3, H>;
    default: return gs_rk_kernel<DNA, 4, H>;
    }
}

/* The rolling formulation's groups, bitmap and table. */
static gs_status rk_open_rolling(const gs_keyset *ks, const gs_gpu_dev *dev, rk_state *st,
                                 gs_error *err)
{
    const int dna = st->dna;
    const uint32_t fcap = dna ? 32 : 8, bits = dna ? 2 : 8;
    std::vector<uint32_t> lens, filter, ids;
    std::vector<uint4> keys;
    std::vector<unsigned long long> kcodes;
    std::vector<rk_entry> ent;
    std::vector<gs_rk_slot> table;
    uint32_t glo[GS_RK_GROUPS], ng = 0, fbits = 13, maxf = 0;
    size_t budget, fbytes, cbytes;
    int nb = 0;
    try {
        for (uint32_t k = 0; k < ks->n_keys; k++)
            lens.push_back(gs_key_len(ks, k));
        std::sort(lens.begin(), lens.end());
        lens.erase(std::unique(lens.begin(), lens.end()), lens.end());
        /* groups: lengths within 1.5x of the group's shortest; a group whose
         * window is already the widest takes all the longer lengths */
        for (size_t i = 0; i < lens.size() && ng < GS_RK_GROUPS;) {
            glo[ng++] = lens[i];
            if (lens[i] >= fcap || ng == GS_RK_GROUPS)
                break;
            uint32_t hi = lens[i] + (lens[i] + 1) / 2;
            while (i < lens.size() && lens[i] < hi)
                i++;
        }
        for (uint32_t g = 0; g < ng; g++) {
            st->v.f[g] = std::min(glo[g], fcap);
            st->v.fmask[g] = st->v.f[g] * bits >= 64 ? ~0ull : (1ull << (st->v.f[g] * bits)) - 1;
            maxf = std::max(maxf, st->v.f[g]);
        }
        while (fbits < 19 && (1ull << fbits) < (unsigned long long)ks->n_keys * 512)
            fbits++;
        filter.assign((size_t)1 << (fbits - 5), 0);
        for (uint32_t k = 0; k < ks->n_keys; k++) {
            uint32_t L = gs_key_len(ks, k), g = 0;
            while (g + 1 < ng && L >= glo[g + 1])
                g++;
            const uint8_t *key = gs_key(ks, k);
            unsigned long long h = 0;
            for (uint32_t j = 0; j < st->v.f[g]; j++)
                h = h << bits | key[j];
            uint32_t bit = gs_rk_bit(h, g, fbits);
            filter[bit >> 5] |= 1u << (bit & 31);
            ent.push_back(rk_entry{g, h, k});
        }
        rk_table(ent, ids, table, &st->v.hmask);
        keys.resize(ids.size());
        kcodes.assign(ids.size(), 0);
        for (size_t j = 0; j < ids.size(); j++) {
            uint32_t L = gs_key_len(ks, ids[j]);
            keys[j] = make_uint4(ids[j], (uint32_t)ks->key_off[ids[j]], L, 0);
            for (uint32_t x = 0; dna && x < L && x < 32; x++)
                kcodes[j] |= (unsigned long long)gs_key(ks, ids[j])[x] << (2 * x);
        }
    } catch (const std::bad_alloc &) {
        return gs_fail(err, GS_ESYS, "out of memory (gpu rk engine)");
    }
    if (gs_gpu_upload((void **)&st->d_filter, filter.data(), filter.size() * 4, err) ||
        gs_gpu_upload((void **)&st->d_keys, keys.data(), keys.size() * sizeof(uint4), err) ||
        gs_gpu_upload((void **)&st->d_kcodes, kcodes.data(), kcodes.size() * 8, err) ||
        gs_gpu_upload((void **)&st->d_table, table.data(), table.size() * sizeof(gs_rk_slot), err))
        return err->code;
    st->v.filter = st->d_filter;
    st->v.table = st->d_table;
    st->v.keys = st->d_keys;
    st->v.kcodes = st->d_kcodes;
    st->v.key_bytes = st->d_key_bytes;
    st->v.fbits = fbits;
    st->v.n_keys = ks->n_keys;
    st->v.chunk = 1024;
    st->v.ng = ng;
    st->v.maxf = maxf;
    budget = dev->smem_optin - 64;
    fbytes = filter.size() * 4;
    cbytes = (size_t)ks->n_keys * 4;
    /* + one candidate queue per warp (at most 32 warps a block) */
    st->v.smem_counts = fbytes + (cbytes + 15) / 16 * 16 + 32 * GS_RK_QCAP * 16 <= budget;
    st->smem = fbytes + (st->v.smem_counts ? (cbytes + 15) / 16 * 16 : 0);
    st->threads = st->smem <= 48 * 1024 ? 256 : st->smem <= 100 * 1024 ? 512 : 1024;
    st->smem += (size_t)st->threads / 32 * GS_RK_QCAP * 16;
    if (maxf * bits <= 32)
        st->fn = dna ? rk_pick<true, uint32_t>(ng) : rk_pick<false, uint32_t>(ng);
    else
        st->fn = dna ? rk_pick<true, unsigned long long>(ng)
                     : rk_pick<false, unsigned long long>(ng);
    GS_CUDA_CHECK(cudaFuncSetAttribute(st->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)st->smem));
    GS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, st->fn, st->threads,
                                                                st->smem));
    st->grid = std::max(1, nb) * dev->sm_count;
    return GS_OK;
fail:
    return err->code;
}

/* The prefix-sum formulation's tables and scratch. */
static gs_status rk_open_prefix(const gs_keyset *ks, const gs_gpu_dev *dev, size_t text_cap,
                                rk_state *st, gs_error *err)
{
    std::vector<uint32_t> lens, ids;
    std::vector<unsigned long long> dpow;
    std::vector<rk_entry> ent;
    std::vector<gs_rk_slot> table;
    gs_rkps_view *v = &st->pv;
    unsigned long long T;
    try {
        for (uint32_t k = 0; k < ks->n_keys; k++) {
            uint32_t L = gs_key_len(ks, k);
            const uint8_t *key = gs_key(ks, k);
            unsigned long long h = 0;
            for (uint32_t j = 0; j < L; j++) /* Horner: sum v(key_j) d^(L-1-j) */
                h = gs_rk_modadd()(gs_rk_mulmod(h, RK_D), gs_rk_val(key[j]));
            ent.push_back(rk_entry{L, h, k});
            lens.push_back(L);
        }
        std::sort(lens.begin(), lens.end());
        lens.erase(std::unique(lens.begin(), lens.end()), lens.end());
        for (uint32_t L : lens)
            dpow.push_back(gs_rk_powmod(RK_D, L));
        rk_table(ent, ids, table, &v->hmask);
    } catch (const std::bad_alloc &) {
        return gs_fail(err, GS_ESYS, "out of memory (gpu rk engine)");
    }
    if (gs_gpu_upload((void **)&st->d_ids, ids.data(), ids.size() * 4, err) ||
        gs_gpu_upload((void **)&st->d_table, table.data(), table.size() * sizeof(gs_rk_slot),
                      err) ||
        gs_gpu_upload((void **)&st->d_lens, lens.data(), lens.size() * 4, err) ||
        gs_gpu_upload((void **)&st->d_dpow, dpow.data(), dpow.size() * 8, err))
        return err->code;
    GS_CUDA_CHECK(cudaMalloc((void **)&st->d_w, (text_cap + 1) * 8));
    GS_CUDA_CHECK(cudaMalloc((void **)&st->d_P, (text_cap + 1) * 8));
    GS_CUDA_CHECK(cub::DeviceScan::InclusiveScan(NULL, st->temp_bytes, st->d_w, st->d_P,
                                                 gs_rk_modadd(), (long long)text_cap));
    GS_CUDA_CHECK(cudaMalloc(&st->d_temp, std::max<size_t>(st->temp_bytes, 16)));
    st->threads = 256;
    st->grid = dev->sm_count * 8;
    T = (unsigned long long)st->grid * st->threads;
    v->table = st->d_table;
    v->ids = st->d_ids;
    v->key_off = st->d_key_off;
    v->key_bytes = st->d_key_bytes;
    v->lens = st->d_lens;
    v->dpow = st->d_dpow;
    v->w = st->d_w;
    v->P = st->d_P;
    v->d = RK_D;
    v->dinv = gs_rk_powmod(RK_D, GS_RK_Q - 2);
    v->dT = gs_rk_powmod(RK_D, T);
    v->dinvT = gs_rk_powmod(v->dinv, T);
    v->n_lens = (uint32_t)lens.size();
    return GS_OK;
fail:
    return err->code;
}

static gs_status rk_open_as(const gs_keyset *ks, const gs_gpu_dev *dev, size_t text_cap,
                            int ps, void **state, gs_error *err)
{
    std::vector<uint32_t> key_off;
    rk_state *st = new (std::nothrow) rk_state();
    if (st == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (gpu rk engine)");
    st->ps = ps;
    st->dna = ks->alphabet == GS_ALPHA_DNA;
    if (ks->key_off[ks->n_keys] >= 0xFFFFFFFFull) {
        gs_fail(err, GS_ESYS, "keys too large for the GPU (%llu symbols) (gpu rk engine)",
                (unsigned long long)ks->key_off[ks->n_keys]);
        goto fail;
    }
    try {
        key_off.resize(ks->n_keys + 1);
    } catch (const std::bad_alloc &) {
        gs_fail(err, GS_ESYS, "out of memory (gpu rk engine)");
        goto fail;
    }
    for (uint32_t k = 0; k <= ks->n_keys; k++)
        key_off[k] = (uint32_t)ks->key_off[k];
    if (gs_gpu_upload((void **)&st->d_key_off, key_off.data(), key_off.size() * 4, err) ||
        gs_gpu_upload((void **)&st->d_key_bytes, ks->key_bytes, ks->key_off[ks->n_keys], err))
        goto fail;
    if ((ps ? rk_open_prefix(ks, dev, text_cap, st, err) : rk_open_rolling(ks, dev, st, err)) !=
        GS_OK)
        goto fail;
    *state = st;
    return GS_OK;
fail:
    rk_close(st);
    return err->code;
}

static gs_status rk_open(const gs_keyset *ks, const gs_gpu_dev *dev, size_t text_cap,
                         int want_hits, void **state, gs_error *err)
{
    (void)want_hits;
    const char *env = getenv("GS_GPU_RK");
    return rk_open_as(ks, dev, text_cap, env && strcmp(env, "prefix") == 0, state, err);
}

static gs_status rkps_open(const gs_keyset *ks, const gs_gpu_dev *dev, size_t text_cap,
                           int want_hits, void **state, gs_error *err)
{
    (void)want_hits;
    return rk_open_as(ks, dev, text_cap, 1, state, err);
}

static gs_status rk_scan(void *state, const gs_gpu_scan *a, cudaStream_t s, gs_error *err)
{
    rk_state *st = (rk_state *)state;
    if (a->own == 0)
        return GS_OK;
    if (!st->ps) {
        size_t n_chunks = ((size_t)a->own + st->v.chunk - 1) / st->v.chunk;
        unsigned grid =
            (unsigned)std::min<size_t>(st->grid, gs_gpu_div_up(n_chunks, st->threads));
        st->fn<<<grid, st->threads, st->smem, s>>>(st->v, *a);
        GS_CUDA_LAUNCH_CHECK();
        return GS_OK;
    }
    if (st->dna)
        gs_rkps_weights<true><<<st->grid, st->threads, 0, s>>>(st->pv, *a);
    else
        gs_rkps_weights<false><<<st->grid, st->threads, 0, s>>>(st->pv, *a);
    GS_CUDA_LAUNCH_CHECK();
    GS_CUDA_CHECK(cub::DeviceScan::InclusiveScan(st->d_temp, st->temp_bytes, st->d_w, st->d_P,
                                                 gs_rk_modadd(), (long long)a->len, s));
    if (st->dna)
        gs_rkps_match<true><<<st->grid, st->threads, 0, s>>>(st->pv, *a);
    else
        gs_rkps_match<false><<<st->grid, st->threads, 0, s>>>(st->pv, *a);
    GS_CUDA_LAUNCH_CHECK();
    return GS_OK;
fail:
    return err->code;
}

const gs_gpu_engine gs_gpu_engine_rk = {"rk", rk_open, rk_scan, rk_close};
const gs_gpu_engine gs_gpu_engine_rkps = {"rkps", rkps_open, rk_scan, rk_close};
