/* rk.cu - the GPU Rabin-Karp engine: key hashes, bitmap and hash table
 * built on the host once; rk.cuh's kernels launched per segment.
 *
 * rk.cuh describes the rolling formulation and docs/performance.md (GPU)
 * has the measurements.
 */
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "rk.cuh"

typedef struct rk_state {
    int dna;
    int fixed_ext; /* gs_gpu_args.rk_ext - 1: every group's bitmap window f + N; -1: chosen */
    gs_rk_view v;
    uint32_t *d_filter, *d_key_off;
    uint4 *d_keys;
    gs_rk_slot *d_table;
    uint8_t *d_key_bytes;
    uint4 *d_bucket; /* dna: buckets, then entries */
    void (*fn)(gs_rk_view, gs_gpu_scan);
    size_t smem;
    int threads, grid;
} rk_state;

static void rk_close(void *p)
{
    rk_state *st = (rk_state *)p;
    if (st == NULL)
        return;
    cudaFree(st->d_filter);
    cudaFree(st->d_keys);
    cudaFree(st->d_key_off);
    cudaFree(st->d_table);
    cudaFree(st->d_key_bytes);
    cudaFree(st->d_bucket);
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

template <typename H> static void (*rk_pick(uint32_t ng))(gs_rk_view, gs_gpu_scan)
{
    switch (ng) {
    case 1: return gs_rk_kernel<1, H>;
    case 2: return gs_rk_kernel<2, H>;
    case 3: return gs_rk_kernel<3, H>;
    default: return gs_rk_kernel<4, H>;
    }
}

template <typename H> static void (*rk_pick_dna(uint32_t ng))(gs_rk_view, gs_gpu_scan)
{
    switch (ng) {
    case 1: return gs_rk_dna_kernel<1, H>;
    case 2: return gs_rk_dna_kernel<2, H>;
    case 3: return gs_rk_dna_kernel<3, H>;
    default: return gs_rk_dna_kernel<4, H>;
    }
}

static unsigned long long rk_mask(uint32_t nbits)
{
    return nbits >= 64 ? ~0ull : (1ull << nbits) - 1;
}

static uint32_t rk_fbits(double bits)
{
    uint32_t fbits = 13;
    while (fbits < 19 && (double)(1ull << fbits) < bits * 512)
        fbits++;
    return fbits;
}

#define RK_EXT_MAX 6

/* dna: which of the length groups glo[0 .. *ng) (the 1.5x rule) to merge,
 * and how far each group's bitmap window reaches back past its f residues
 * (ext[g]). A key is anchored at the end of its first lc residues, so the
 * bitmap can test up to lc of them: a window of f + ext residues sets one
 * bit for a key with lc >= f + ext and 4^(f + ext - lc) bits (every choice
 * of the residues before it) for a shorter one. Chosen by the expected cost
 * per position on a 2-letter text (the least selective DNA text): 1/16 of a
 * candidate per group for its bitmap test (measured, docs/performance.md),
 * plus the windows that pass: 2^-min(lc, f + ext) per key and the bitmap's
 * false positives. st->fixed_ext (tests) fixes ext at N, as far as the
 * keys reach. */
static void rk_dna_plan(const gs_keyset *ks, const rk_state *st, uint32_t *glo, uint32_t *ng,
                        uint32_t *ext, uint32_t *fbits)
{
    double cnt[33] = {0}; /* keys by lc */
    for (uint32_t k = 0; k < ks->n_keys; k++)
        cnt[std::min(gs_key_len(ks, k), 32u)] += 1;
    const uint32_t n0 = *ng;
    double best = HUGE_VAL;
    uint32_t best_glo[GS_RK_GROUPS] = {0}, best_ng = n0;
    for (uint32_t mask = 0; mask < (1u << (n0 - 1)); mask++) {
        /* bit i of mask: base group i + 1 joins the group before it */
        uint32_t lo[GS_RK_GROUPS], hi[GS_RK_GROUPS], emax[GS_RK_GROUPS], g0[GS_RK_GROUPS];
        uint32_t m = 0;
        for (uint32_t i = 0; i < n0; i++)
            if (i == 0 || !((mask >> (i - 1)) & 1u)) {
                g0[m] = glo[i];
                lo[m++] = std::min(glo[i], 32u);
            }
        for (uint32_t g = 0; g < m; g++) {
            hi[g] = g + 1 < m ? lo[g + 1] : 33;
            uint32_t top = lo[g];
            for (uint32_t lc = lo[g]; lc < hi[g]; lc++)
                if (cnt[lc] > 0)
                    top = lc;
            emax[g] = std::min(top - lo[g], st->fixed_ext >= 0 ? (uint32_t)st->fixed_ext
                                                                : (uint32_t)RK_EXT_MAX);
        }
        uint32_t e[GS_RK_GROUPS] = {0, 0, 0, 0};
        if (st->fixed_ext >= 0)
            std::copy(emax, emax + m, e);
        for (;;) {
            double bits = 0, cand = 0;
            for (uint32_t g = 0; g < m; g++)
                for (uint32_t lc = lo[g]; lc < hi[g]; lc++) {
                    const uint32_t w = lo[g] + e[g];
                    bits += cnt[lc] * std::ldexp(1.0, 2 * (int)(w > lc ? w - lc : 0));
                    cand += cnt[lc] * std::ldexp(1.0, -(int)std::min(lc, w));
                }
            const uint32_t fb = rk_fbits(bits);
            const double fp = 1 - std::exp(-bits / std::ldexp(1.0, (int)fb));
            const double cost = m / 16.0 + cand + m * fp;
            if (cost < best) {
                best = cost;
                best_ng = m;
                std::copy(g0, g0 + m, best_glo);
                std::copy(e, e + m, ext);
                *fbits = fb;
            }
            if (st->fixed_ext >= 0)
                break;
            uint32_t g = 0; /* next ext vector */
            while (g < m && e[g] == emax[g])
                e[g++] = 0;
            if (g == m)
                break;
            e[g]++;
        }
    }
    *ng = best_ng;
    std::copy(best_glo, best_glo + best_ng, glo);
}

/* dna: each key's entry (codes of its first lc = min(length, 32) residues,
 * the first highest) in the bucket of the last f[g] of them, buckets as
 * (first, count) followed by the entries in one array; its bitmap bits set
 * for the last f[g] + ext[g] residues (rk_dna_plan). */
static void rk_dna_buckets(const gs_keyset *ks, rk_state *st, const uint32_t *glo,
                           const uint32_t *ext, std::vector<uint32_t> &filter,
                           std::vector<uint4> &buf)
{
    const uint32_t ng = st->v.ng;
    std::vector<uint32_t> per(ng, 0), grp(ks->n_keys), bkt(ks->n_keys), order(ks->n_keys);
    std::vector<unsigned long long> code(ks->n_keys);
    uint32_t tbits = 1, maxlc = 1;
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        uint32_t L = gs_key_len(ks, k), g = 0;
        while (g + 1 < ng && L >= glo[g + 1])
            g++;
        grp[k] = g;
        per[g]++;
        const uint32_t lc = std::min(L, 32u);
        maxlc = std::max(maxlc, lc);
        unsigned long long c = 0;
        for (uint32_t j = 0; j < lc; j++)
            c = c << 2 | gs_key(ks, k)[j];
        code[k] = c;
    }
    for (uint32_t g = 0; g < ng; g++)
        while ((1ull << tbits) < 2ull * per[g])
            tbits++;
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        const uint32_t g = grp[k], lc = std::min(gs_key_len(ks, k), 32u);
        const uint32_t wl = st->v.f[g] + ext[g]; /* the bitmap's window */
        /* the residues of the window before the key's start: every choice */
        const unsigned long long n_pre = lc >= wl ? 1 : 1ull << (2 * (wl - lc));
        for (unsigned long long x = 0; x < n_pre; x++) {
            const unsigned long long w =
                lc >= wl ? code[k] & st->v.bmask[g] : x << (2 * lc) | code[k];
            const uint32_t bit = gs_rk_bit(w, g, st->v.fbits);
            filter[bit >> 5] |= 1u << (bit & 31);
        }
        bkt[k] = gs_rk_bucket(code[k] & st->v.fmask[g], g, tbits);
        order[k] = k;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return bkt[a] < bkt[b]; });
    const size_t nb = (size_t)ng << tbits; /* even: a whole number of uint4 */
    std::vector<uint2> bucket(nb, make_uint2(0, 0));
    buf.assign(nb / 2 + ks->n_keys, make_uint4(0, 0, 0, 0));
    for (uint32_t x = 0; x < ks->n_keys; x++) {
        const uint32_t k = order[x];
        uint2 &b = bucket[bkt[k]];
        if (b.y == 0)
            b.x = x;
        b.y++;
        buf[nb / 2 + x] = make_uint4((uint32_t)code[k], (uint32_t)(code[k] >> 32), k,
                                     gs_key_len(ks, k));
    }
    std::memcpy(buf.data(), bucket.data(), nb * sizeof(uint2));
    st->v.tbits = tbits;
    st->v.maxf = maxlc;
}

/* Length groups into glo: lengths within 1.5x of the group's shortest; a
 * group whose window is already the widest (fcap) takes all the longer
 * lengths. Returns their number. */
static uint32_t rk_groups(const gs_keyset *ks, uint32_t fcap, uint32_t *glo)
{
    std::vector<uint32_t> lens;
    uint32_t ng = 0;
    for (uint32_t k = 0; k < ks->n_keys; k++)
        lens.push_back(gs_key_len(ks, k));
    std::sort(lens.begin(), lens.end());
    lens.erase(std::unique(lens.begin(), lens.end()), lens.end());
    for (size_t i = 0; i < lens.size() && ng < GS_RK_GROUPS;) {
        glo[ng++] = lens[i];
        if (lens[i] >= fcap || ng == GS_RK_GROUPS)
            break;
        uint32_t hi = lens[i] + (lens[i] + 1) / 2;
        while (i < lens.size() && lens[i] < hi)
            i++;
    }
    return ng;
}

/* The rolling kernels' tables on the host. */
typedef struct rk_host {
    std::vector<uint32_t> filter, ids;
    std::vector<uint4> keys, buckets;
    std::vector<gs_rk_slot> table;
} rk_host;

/* Groups, bitmap, and the keys: dna in buckets (rk_dna_buckets), bytes in
 * the hash table of their first f symbols. Throws std::bad_alloc. */
static void rk_build(const gs_keyset *ks, rk_state *st, rk_host &h)
{
    const int dna = st->dna;
    const uint32_t fcap = dna ? 32 : 8, bits = dna ? 2 : 8;
    uint32_t glo[GS_RK_GROUPS], ext[GS_RK_GROUPS] = {0, 0, 0, 0}, fbits = 13, maxf = 0;
    uint32_t ng = rk_groups(ks, fcap, glo);
    std::vector<rk_entry> ent;
    if (dna && ng > 0)
        rk_dna_plan(ks, st, glo, &ng, ext, &fbits);
    else
        fbits = rk_fbits((double)ks->n_keys);
    for (uint32_t g = 0; g < ng; g++) {
        st->v.f[g] = std::min(glo[g], fcap);
        st->v.fmask[g] = rk_mask(st->v.f[g] * bits);
        st->v.bmask[g] = rk_mask((st->v.f[g] + ext[g]) * bits);
        maxf = std::max(maxf, st->v.f[g]);
    }
    h.filter.assign((size_t)1 << (fbits - 5), 0);
    st->v.fbits = fbits;
    st->v.ng = ng;
    if (dna)
        rk_dna_buckets(ks, st, glo, ext, h.filter, h.buckets);
    for (uint32_t k = 0; !dna && k < ks->n_keys; k++) {
        uint32_t L = gs_key_len(ks, k), g = 0;
        while (g + 1 < ng && L >= glo[g + 1])
            g++;
        const uint8_t *key = gs_key(ks, k);
        unsigned long long x = 0;
        for (uint32_t j = 0; j < st->v.f[g]; j++)
            x = x << bits | key[j];
        uint32_t bit = gs_rk_bit(x, g, fbits);
        h.filter[bit >> 5] |= 1u << (bit & 31);
        ent.push_back(rk_entry{g, x, k});
    }
    rk_table(ent, h.ids, h.table, &st->v.hmask);
    h.keys.resize(h.ids.size());
    for (size_t j = 0; j < h.ids.size(); j++)
        h.keys[j] = make_uint4(h.ids[j], (uint32_t)ks->key_off[h.ids[j]],
                               gs_key_len(ks, h.ids[j]), 0);
    if (!dna)
        st->v.maxf = maxf; /* dna: the longest key part compared in registers (rk_dna_buckets) */
}

/* Shared memory, block size and kernel: the bitmap and one candidate queue
 * per warp (at most 32 warps a block), then the buckets (dna), then the
 * counts, as far as they fit. */
static gs_status rk_launch(const gs_keyset *ks, const gs_gpu_dev *dev, const rk_host &h,
                           rk_state *st, gs_error *err)
{
    const size_t budget = dev->smem_optin - 64, fbytes = h.filter.size() * 4;
    const size_t cbytes = (size_t)ks->n_keys * 4, qbytes = 32 * GS_RK_QCAP * 16;
    const size_t tbytes = h.buckets.size() * sizeof(uint4);
    const uint32_t bits = st->dna ? 2 : 8, ng = st->v.ng;
    if (tbytes && fbytes + qbytes + tbytes <= budget)
        st->v.bucket_words = (uint32_t)h.buckets.size();
    st->smem = fbytes + (size_t)st->v.bucket_words * 16;
    st->v.smem_counts = st->smem + (cbytes + 15) / 16 * 16 + qbytes <= budget;
    st->smem += st->v.smem_counts ? (cbytes + 15) / 16 * 16 : 0;
    st->threads = st->smem <= 48 * 1024 ? 256 : st->smem <= 100 * 1024 ? 512 : 1024;
    st->smem += (size_t)st->threads / 32 * GS_RK_QCAP * 16;
    if (st->v.maxf * bits <= 32)
        st->fn = st->dna ? rk_pick_dna<uint32_t>(ng) : rk_pick<uint32_t>(ng);
    else
        st->fn = st->dna ? rk_pick_dna<unsigned long long>(ng) : rk_pick<unsigned long long>(ng);
    return gs_gpu_fit_grid(st->fn, st->threads, st->smem, dev, &st->grid, err);
}

/* The rolling formulation's groups, bitmap and table, on the device. */
static gs_status rk_open_rolling(const gs_keyset *ks, const gs_gpu_dev *dev, rk_state *st,
                                 gs_error *err)
{
    rk_host h;
    try {
        rk_build(ks, st, h);
    } catch (const std::bad_alloc &) {
        return gs_fail(err, GS_ESYS, "out of memory (gpu rk engine)");
    }
    if (gs_gpu_upload((void **)&st->d_filter, h.filter.data(), h.filter.size() * 4, err) ||
        gs_gpu_upload((void **)&st->d_keys, h.keys.data(), h.keys.size() * sizeof(uint4), err) ||
        gs_gpu_upload((void **)&st->d_table, h.table.data(), h.table.size() * sizeof(gs_rk_slot),
                      err) ||
        gs_gpu_upload((void **)&st->d_bucket, h.buckets.data(), h.buckets.size() * sizeof(uint4),
                      err))
        return err->code;
    st->v.filter = st->d_filter;
    st->v.table = st->d_table;
    st->v.keys = st->d_keys;
    st->v.key_bytes = st->d_key_bytes;
    st->v.key_off = st->d_key_off;
    st->v.bucket = (const uint2 *)st->d_bucket;
    st->v.ent = st->d_bucket + ((size_t)st->v.ng << st->v.tbits) / 2;
    st->v.n_keys = ks->n_keys;
    st->v.chunk = 1024;
    return rk_launch(ks, dev, h, st, err);
}

static gs_status rk_open(const gs_keyset *ks, const gs_gpu_dev *dev, const gs_gpu_args *a,
                         size_t text_cap, void **state, gs_error *err)
{
    (void)text_cap;
    std::vector<uint32_t> key_off;
    rk_state *st = new (std::nothrow) rk_state();
    if (st == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (gpu rk engine)");
    st->dna = ks->alphabet == GS_ALPHA_DNA;
    st->fixed_ext = a->rk_ext > 0 ? std::min(a->rk_ext - 1, RK_EXT_MAX) : -1;
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
        gs_gpu_upload((void **)&st->d_key_bytes, ks->key_bytes, ks->key_off[ks->n_keys], err) ||
        rk_open_rolling(ks, dev, st, err) != GS_OK)
        goto fail;
    *state = st;
    return GS_OK;
fail:
    rk_close(st);
    return err->code;
}

static gs_status rk_scan(void *state, const gs_gpu_scan *a, cudaStream_t s, gs_error *err)
{
    rk_state *st = (rk_state *)state;
    if (a->own == 0)
        return GS_OK;
    size_t n_chunks = ((size_t)a->own + st->v.chunk - 1) / st->v.chunk;
    unsigned grid = (unsigned)std::min<size_t>(st->grid, gs_gpu_div_up(n_chunks, st->threads));
    st->fn<<<grid, st->threads, st->smem, s>>>(st->v, *a);
    GS_CUDA_LAUNCH_CHECK();
    return GS_OK;
fail:
    return err->code;
}

const gs_gpu_engine gs_gpu_engine_rk = {"rk", rk_open, rk_scan, rk_close};
