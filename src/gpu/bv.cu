/* bv.cu - the GPU engine "bv": approximate matching (contract §1) with
 * bv.cuh's kernels, the GPU counterpart of src/match/bv.c.
 *
 * open sorts the keys into classes by the kernel that runs them (32- or
 * 64-bit word, lanes and words a lane for long edit keys, direct counts for
 * long mismatch keys) and uploads one table of match masks for all of them;
 * scan sizes each class's launch to the segment (bv_plan) and queues one
 * kernel per class. Counts are not kept here: in approximate modes they are
 * taken from the hits (engine.h), so the key counts stay zero, as on the CPU.
 *
 * Keys the pigeonhole seed filter takes (src/match/seeds.c decides, for the
 * CPU engine too) are in no class: gs_bv_filter (bv.cuh) finds their seed
 * occurrences and verifies the windows around them, about 2-3 windows of
 * ~33 word steps per residue for 2000 primer keys at K = 3 where the full
 * scan takes 2000 key steps. Edit ends found through several seeds come
 * back once per seed; gpu.cu removes the repeats after sorting.
 * match.seed.filter=-1 (gs_tune) scans every key in full, as on the CPU.
 *
 * Mismatch keys of <= 64 residues whose --exact-3p zone is selective
 * (src/match/zones.h, the CPU's rule) and that the seed filter does not
 * take are in no class either: gs_bv_zone (bv_zone.cuh) counts them only
 * at the windows where their zone matches (NGG: one position in 16, a test
 * shared by every guide). match.zone.scan=-1 keeps them in their classes.
 */
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "bv.cuh"
#include "bv_direct.cuh"
#include "bv_zone.cuh"

extern "C" {
#include "match/engine.h"
}

/* Kernel classes: what runs a key. Edits: C32 / C64 (one word), then lanes
 * of 2 .. 32 with one word each, then 32 lanes of 2, 4, 8 words. */
enum { C32, C64, CL2, CL4, CL8, CL16, CL32, CR2, CR4, CR8, CDIRECT, NCLASS };
/* Shared memory of a block: 96 KiB where the device lets a block opt in
 * (long keys need long pieces to amortise their warm-up; two blocks of 8
 * warps still fit a multiprocessor), 48 KiB otherwise. */
enum { BV_MAX_WORDS = 32 * 8, BV_SMEM_BIG = 96 * 1024, BV_SMEM_SMALL = 48 * 1024 };

typedef struct bv_class {
    uint32_t *d_ids;
    uint32_t n_ids, max_m, G;
} bv_class;

typedef struct bv_state {
    int edits;
    gs_seeds seeds;         /* which keys the filter takes (seeds.h) */
    uint32_t *d_tab, *d_ent; /* their tables, flat (gs_seeds_flatten) */
    gs_zones zones;          /* keys scanned from their zone (zones.h) */
    gs_zone_group *d_zgroups; /* their tables (gs_zones_tables) */
    gs_zone_key *d_zkeys;
    uint32_t zmax_len;       /* the longest of them */
    uint32_t K, n_keys, span, bulges;
    int sm_count;
    int direct;    /* gpu.bv.direct: -1 never, 0 where it pays, 1 wherever it fits */
    uint32_t smem; /* bytes a block may take */
    bv_class cls[NCLASS];
    uint32_t *d_mlen, *d_woff, *d_out_off, *d_outputs;
    uint32_t *d_zone; /* keyset.h's zones, or NULL */
    uint8_t *d_kk;    /* keyset.h's key_k, or NULL */
    uint64_t *d_wpeq, *d_rpeq, *d_koff;
    uint8_t *d_kbytes;
    uint16_t *profile;
} bv_state;

static void bv_close(void *p)
{
    bv_state *st = (bv_state *)p;
    if (st == NULL)
        return;
    for (bv_class &c : st->cls)
        cudaFree(c.d_ids);
    cudaFree(st->d_mlen);
    cudaFree(st->d_woff);
    cudaFree(st->d_out_off);
    cudaFree(st->d_outputs);
    cudaFree(st->d_wpeq);
    cudaFree(st->d_rpeq);
    cudaFree(st->d_koff);
    cudaFree(st->d_kbytes);
    cudaFree(st->d_zone);
    cudaFree(st->d_kk);
    cudaFree(st->d_tab);
    cudaFree(st->d_ent);
    cudaFree(st->d_zgroups);
    cudaFree(st->d_zkeys);
    gs_seeds_free(&st->seeds);
    gs_zones_free(&st->zones);
    delete st;
}

static int bv_class_of(int edits, uint32_t m)
{
    if (m <= 32)
        return C32;
    if (m <= 64)
        return C64;
    if (!edits)
        return CDIRECT;
    uint32_t w = (m + 63) / 64;
    if (w <= 32) {
        int c = CL2;
        for (uint32_t g = 2; g < w; g *= 2)
            c++;
        return c;
    }
    return w <= 64 ? CR2 : w <= 128 ? CR4 : CR8;
}

static const uint32_t bv_lanes[NCLASS] = {1, 1, 2, 4, 8, 16, 32, 32, 32, 32, 1};

/* The keys of the zone scan (after the seed filter's: a key takes one
 * path) and their tables on the device. */
static gs_status bv_zone_open(bv_state *st, const gs_keyset *ks, const gs_tune *tune,
                              gs_error *err)
{
    gs_zone_group *groups = NULL;
    gs_zone_key *keys = NULL;
    if (gs_zones_build(ks, &st->seeds, 64, tune, &st->zones, err) != GS_OK)
        return err->code;
    if (st->zones.n_runs == 0)
        return GS_OK;
    if (gs_zones_tables(ks, &st->zones, &groups, &keys, err) != GS_OK)
        return err->code;
    for (uint32_t g = 0; g < st->zones.n_runs; g++)
        st->zmax_len = std::max(st->zmax_len, groups[g].len);
    gs_status r = gs_gpu_upload((void **)&st->d_zgroups, groups,
                                st->zones.n_runs * sizeof *groups, err);
    if (r == GS_OK)
        r = gs_gpu_upload((void **)&st->d_zkeys, keys, st->zones.n_zoned * sizeof *keys, err);
    free(groups);
    free(keys);
    return r;
}

static gs_status bv_open(const gs_keyset *ks, const gs_gpu_dev *dev, const gs_gpu_args *a,
                         size_t text_cap, void **state, gs_error *err)
{
    (void)text_cap;
    const int want_hits = a->want_hits;
    bv_state *st = new (std::nothrow) bv_state();
    if (st == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (gpu bv)");
    std::vector<uint32_t> mlen(ks->n_keys), woff(ks->n_keys);
    std::vector<uint64_t> wpeq, rpeq(4 * (size_t)ks->n_keys, 0);
    std::vector<std::vector<uint32_t>> ids(NCLASS);
    st->edits = ks->mode == GS_MATCH_EDITS;
    st->K = ks->max_dist;
    st->bulges = ks->bulges;
    st->n_keys = ks->n_keys;
    st->sm_count = dev->sm_count;
    st->smem = dev->smem_optin >= BV_SMEM_BIG ? BV_SMEM_BIG : BV_SMEM_SMALL;
    st->span = ks->span;
    st->direct = a->tune->gpu_bv_direct;
    /* K <= 15: hits carry 4 bits of distance and the mismatch counters
     * saturate at 16; without hits, edits may take any K (benchmarks take
     * K = m - 1, which makes every distance exact) */
    if (ks->mode == GS_MATCH_EXACT || ks->alphabet != GS_ALPHA_DNA ||
        (ks->max_dist > 15 && (want_hits || ks->mode != GS_MATCH_EDITS)) ||
        ks->n_keys >= 1u << GS_BV_KEYBITS) {
        gs_fail(err, GS_EUSAGE,
                "GPU engine bv takes approximate dna keysets of < 2^27 keys, K <= 15 (gpu)");
        goto fail;
    }
    /* keys the seed filter takes skip the full scan (want_hits is 0 only in
     * benchmarks of the full-scan kernels: all of them are scanned) */
    if (want_hits && (gs_seeds_build(ks, a->tune, &st->seeds, err) != GS_OK ||
                      bv_zone_open(st, ks, a->tune, err) != GS_OK))
        goto fail;
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        const uint8_t *key = gs_key(ks, k);
        uint32_t m = gs_key_len(ks, k), nw = (m + 63) / 64;
        if (st->edits && nw > BV_MAX_WORDS) {
            gs_fail(err, GS_EUSAGE,
                    "pattern %u is %u residues long; the GPU engine bv takes up to %u with "
                    "--max-edits (use --device cpu)",
                    ks->outputs[ks->out_off[k]] >> 1, m, 64 * BV_MAX_WORDS);
            goto fail;
        }
        mlen[k] = m;
        woff[k] = (uint32_t)(wpeq.size() / 4);
        wpeq.resize(wpeq.size() + 4 * (size_t)nw, 0);
        uint64_t *w = &wpeq[4 * (size_t)woff[k]];
        for (uint32_t i = 0; i < m; i++)
            for (int c = 0; c < 4; c++)
                if (key[i] >> c & 1) {
                    w[4 * (i / 64) + c] |= 1ull << (i % 64);
                    if (m <= 64)
                        rpeq[4 * (size_t)k + c] |= 1ull << (m - 1 - i);
                }
        if ((!st->seeds.filtered || !st->seeds.filtered[k]) &&
            (!st->zones.zoned || !st->zones.zoned[k]))
            ids[bv_class_of(st->edits, m)].push_back(k);
    }
    for (int c = 0; c < NCLASS; c++) {
        std::vector<uint32_t> &v = ids[c];
        /* neighbours in a warp walk the same residues: similar lengths */
        std::stable_sort(v.begin(), v.end(),
                         [&](uint32_t a, uint32_t b) { return mlen[a] < mlen[b]; });
        st->cls[c].n_ids = (uint32_t)v.size();
        st->cls[c].G = bv_lanes[c];
        st->cls[c].max_m = v.empty() ? 0 : mlen[v.back()];
        if (!v.empty() && gs_gpu_upload((void **)&st->cls[c].d_ids, v.data(), v.size() * 4, err))
            goto fail;
    }
    if (gs_gpu_upload((void **)&st->d_mlen, mlen.data(), mlen.size() * 4, err) ||
        gs_gpu_upload((void **)&st->d_woff, woff.data(), woff.size() * 4, err) ||
        gs_gpu_upload((void **)&st->d_wpeq, wpeq.data(), wpeq.size() * 8, err) ||
        gs_gpu_upload((void **)&st->d_rpeq, rpeq.data(), rpeq.size() * 8, err) ||
        gs_gpu_upload((void **)&st->d_out_off, ks->out_off, ((size_t)ks->n_keys + 1) * 4, err) ||
        gs_gpu_upload((void **)&st->d_outputs, ks->outputs, (size_t)ks->out_off[ks->n_keys] * 4,
                      err) ||
        gs_gpu_upload((void **)&st->d_koff, ks->key_off, (size_t)ks->n_keys * 8, err) ||
        gs_gpu_upload((void **)&st->d_kbytes, ks->key_bytes, ks->key_off[ks->n_keys], err) ||
        (ks->zone && gs_gpu_upload((void **)&st->d_zone, ks->zone, (size_t)ks->n_keys * 4, err)) ||
        (ks->key_k && gs_gpu_upload((void **)&st->d_kk, ks->key_k, ks->n_keys, err)))
        goto fail;
    if (st->seeds.n_filtered) {
        uint32_t *tab = NULL, *ent = NULL;
        size_t n_tab = 0, n_ent = 0;
        if (gs_seeds_flatten(&st->seeds, &tab, &n_tab, &ent, &n_ent, err) != GS_OK)
            goto fail;
        gs_status r = gs_gpu_upload((void **)&st->d_tab, tab, n_tab * 4, err);
        if (r == GS_OK)
            r = gs_gpu_upload((void **)&st->d_ent, ent, (n_ent ? n_ent : 1) * 8, err);
        free(tab);
        free(ent);
        if (r != GS_OK)
            goto fail;
    }
    *state = st;
    return GS_OK;
fail:
    bv_close(st);
    return err->code;
}

static gs_bv_keys bv_keys(const bv_state *st)
{
    return gs_bv_keys{st->d_mlen, st->d_woff, st->d_wpeq, st->d_kbytes, st->d_koff, st->d_zone,
                      st->d_kk};
}

/* Size one class's launch for `stop` ends: keys per block, pieces per
 * chunk, piece length. A piece is at least 2x its warm-up long (so the
 * warm-up costs <= 50%) unless the segment is too short to fill the device
 * that way; the chunk and its warm-up fit in the block's shared memory.
 * With few keys a block holds 256 pieces, so its shared memory, hence the
 * blocks an SM can hold, grows with the piece: each step is a chain of
 * dependent operations, and more warps to hide it beat less warm-up (one
 * key of 32 / 64 / 1024 at 2^30 on an H100: 4x warm-up 7.5 / 11.3 / 116 ms,
 * 2x 5.7 / 8.6 / 107 ms, 1x 6.4 / 8.0 / 131 ms). */
static gs_bv_view bv_plan(const bv_state *st, const bv_class *c, uint32_t stop)
{
    gs_bv_view v;
    memset(&v, 0, sizeof v);
    v.ids = c->d_ids;
    v.n_ids = c->n_ids;
    v.K = st->K;
    v.stop = stop;
    v.keys = bv_keys(st);
    v.profile = st->profile;
    const uint32_t groups = GS_BV_THREADS / c->G;
    v.kb = std::min(c->n_ids, groups);
    v.subs = groups / v.kb;
    v.pre = st->edits && c->max_m > 0 ? c->max_m + st->K : c->max_m - 1;
    const uint32_t n_batches = gs_gpu_div_up(c->n_ids, v.kb);
    uint64_t len = std::max<uint64_t>(2ull * v.pre, 4096 / v.subs);
    /* enough blocks to fill the device 4 times over, where the text allows */
    uint64_t want = (uint64_t)4 * st->sm_count;
    uint64_t per_batch = std::max<uint64_t>(1, (want + n_batches - 1) / n_batches);
    uint64_t fill = (uint64_t)stop / per_batch / v.subs;
    if (fill < len)
        len = std::max<uint64_t>(std::max<uint64_t>(fill, v.pre), 32);
    uint64_t cap = (st->smem - 16 - (uint64_t)v.pre) / v.subs;
    len = std::min(len, cap);
    /* piece starts an odd number of 4-byte words apart: a warp's pieces
     * fall into different shared-memory banks */
    len = len >= 8 ? len / 8 * 8 - 4 : 4;
    v.sub_len = (uint32_t)len;
    v.chunk = v.subs * v.sub_len;
    v.n_chunks = gs_gpu_div_up(stop, v.chunk);
    return v;
}

/* Edit keys of up to 8 words in classes of at most BV_DIRECT_KEYS keys
 * take gs_bv_direct (bv_direct.cuh): text from the read-only cache, pieces
 * of 8 warm-ups (multiples of 16 ends), or shorter where that leaves fewer
 * than a quarter of the device's thread slots busy: on a short segment a
 * quarter with short chains beat a full device with long ones (one key of
 * 32 on 2^22 residues: 0.058 ms with pieces for two full waves, 0.032 with
 * a quarter wave). A key of 3 or 4 words is one thread there but 4 lanes
 * in gs_bv_kernel, so on a short segment, where pieces of 4 warm-ups would
 * not fill the device once, the lanes win (256 residues on 2^22: 0.44 ms
 * direct, 0.34 on lanes; 128 residues: 0.13 direct, 0.23 on lanes). Keys
 * of 5 to 8 words hold an SM to 384 threads (registers), and cross over
 * between 2^26 and 2^27 residues for one key of 512 on an H200 (lanes 3.83
 * and 7.36 ms, direct 3.96 and 5.98; at 2^30 55.0 and 30.4): direct from
 * 192 pieces of 4 warm-ups an SM.
 * gpu.bv.direct -1 keeps every class on gs_bv_kernel, 1 sends every class
 * it can take to gs_bv_direct (tests, comparisons). */
enum { BV_DIRECT_KEYS = 8, BV_DIRECT_SLOTS8 = 192 };

static int bv_direct(const bv_state *st, const gs_bv_view *v)
{
    const int off = st->direct < 0, on = st->direct > 0;
    if (off || !st->edits || v->n_ids > BV_DIRECT_KEYS || v->pre == 0)
        return 0;
    const uint32_t words = (v->pre - st->K + 63) / 64; /* pre = longest key + K */
    const uint64_t pieces = (uint64_t)v->stop * v->n_ids / (4ull * v->pre); /* of 4 warm-ups */
    if (words <= 2 || on)
        return words <= 8;
    return words <= 4 ? pieces >= 2048ull * st->sm_count
                      : words <= 8 && pieces >= (uint64_t)BV_DIRECT_SLOTS8 * st->sm_count;
}

template <int R>
static gs_status bv_launch_direct(const bv_state *st, gs_bv_view v, const gs_gpu_scan *a,
                                  cudaStream_t s, gs_error *err)
{
    uint64_t len = (8ull * v.pre + 15) / 16 * 16;
    /* threads: a quarter of the device's slots (2048 an SM), 1.3 waves of
     * the 5-8 word kernel's 384 */
    const uint64_t want = 512ull * st->sm_count;
    const uint64_t fill = (uint64_t)v.stop * v.n_ids / want;
    if (fill < len)
        len = std::max<uint64_t>(16, (fill + 15) / 16 * 16);
    v.sub_len = (uint32_t)std::min<uint64_t>(len, 1u << 30);
    v.n_chunks = gs_gpu_div_up(v.stop, v.sub_len);
    const uint32_t threads = gs_bv_direct_shape<R>::THREADS;
    const uint64_t blocks = gs_gpu_div_up((uint64_t)v.n_chunks * v.n_ids, threads);
    if (blocks > 0x7FFFFFFFull)
        return gs_fail(err, GS_EUSAGE,
                       "GPU bv launch of %llu blocks: use a smaller --block-size (gpu)",
                       (unsigned long long)blocks);
    gs_bv_direct<R><<<(unsigned)blocks, threads, 0, s>>>(v, *a);
    GS_CUDA_LAUNCH_CHECK();
    return GS_OK;
fail:
    return err->code;
}

template <typename W, int G, int R, int MODE>
static gs_status bv_launch(const gs_bv_view &v, const gs_gpu_scan *a, cudaStream_t s,
                           gs_error *err)
{
    uint64_t blocks = (uint64_t)v.n_chunks * gs_gpu_div_up(v.n_ids, v.kb);
    size_t smem = ((size_t)v.chunk + v.pre + 15) / 16 * 16;
    if (blocks > 0x7FFFFFFFull)
        return gs_fail(err, GS_EUSAGE,
                       "GPU bv launch of %llu blocks: use a smaller --block-size (gpu)",
                       (unsigned long long)blocks);
    if (smem > BV_SMEM_SMALL)
        GS_CUDA_CHECK(cudaFuncSetAttribute(gs_bv_kernel<W, G, R, MODE>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    gs_bv_kernel<W, G, R, MODE><<<(unsigned)blocks, GS_BV_THREADS, smem, s>>>(v, *a);
    GS_CUDA_LAUNCH_CHECK();
    return GS_OK;
fail:
    return err->code;
}

/* The seed filter's launch: one block per chunk of seed starts, its text
 * with the margins of every window (seeds.h: a window reaches m - 1 + 2K
 * before its seed and m + K past it; mismatches less) in shared memory
 * after the candidate queue. */
static gs_status bv_filter_launch(const bv_state *st, const gs_gpu_scan *a, uint32_t stop,
                                  cudaStream_t s, gs_error *err)
{
    enum { CHUNK = 4096 };
    gs_bv_fview v;
    memset(&v, 0, sizeof v);
    v.tab = st->d_tab;
    v.ent = (const uint2 *)st->d_ent;
    v.chunk = CHUNK;
    v.pre = st->seeds.max_len - 1 + 2 * st->K;
    v.post = std::max<uint32_t>(st->seeds.max_len + st->K, GS_SEED_MAX);
    v.stop = stop;
    v.K = st->K;
    v.edits = st->edits;
    v.keys = bv_keys(st);
    /* under 21 KiB: filtered keys are at most GS_SEED_MAX_KEY long */
    const size_t smem = GS_BV_QCAP * sizeof(uint2) + ((size_t)v.chunk + v.pre + v.post + 15) / 16 * 16;
    gs_bv_filter<<<gs_gpu_div_up(stop, v.chunk), GS_BV_THREADS, smem, s>>>(v, *a);
    GS_CUDA_LAUNCH_CHECK();
    return GS_OK;
fail:
    return err->code;
}

/* The zone scan's launch: one block per GS_BV_ZCHUNK zone positions, the
 * text they need as codes in shared memory (bv_zone.cuh). */
static gs_status bv_zone_launch(const bv_state *st, const gs_gpu_scan *a, uint32_t stop,
                                cudaStream_t s, gs_error *err)
{
    gs_bv_zview v;
    memset(&v, 0, sizeof v);
    v.groups = st->d_zgroups;
    v.keys = st->d_zkeys;
    v.kbytes = st->d_kbytes;
    v.n_groups = st->zones.n_runs;
    v.chunk = GS_BV_ZCHUNK;
    v.max_len = st->zmax_len;
    v.stop = stop;
    const size_t smem = ((size_t)v.chunk + 2 * v.max_len + 15) / 16 * 16;
    gs_bv_zone<<<gs_gpu_div_up(stop, v.chunk), GS_BV_THREADS, smem, s>>>(v, *a);
    GS_CUDA_LAUNCH_CHECK();
    return GS_OK;
fail:
    return err->code;
}

static gs_status bv_scan(void *state, const gs_gpu_scan *a, cudaStream_t s, gs_error *err)
{
    bv_state *st = (bv_state *)state;
    /* ends e <= len with e - span < own (engine.h) */
    const uint32_t stop = (uint32_t)std::min<uint64_t>((uint64_t)a->own + st->span - 1, a->len);
    const int ed = st->edits;
    for (int c = 0; c < NCLASS && stop > 0; c++) {
        if (st->cls[c].n_ids == 0)
            continue;
        const gs_bv_view v = bv_plan(st, &st->cls[c], stop);
        const int direct = bv_direct(st, &v);
        gs_status r = GS_OK;
        switch (c) {
        case C32:
            r = ed && direct ? bv_launch_direct<1>(st, v, a, s, err)
                : ed         ? bv_launch<uint32_t, 1, 1, 1>(v, a, s, err)
                             : bv_launch<uint32_t, 1, 1, 0>(v, a, s, err);
            break;
        case C64:
            r = ed && direct ? bv_launch_direct<1>(st, v, a, s, err)
                : ed         ? bv_launch<uint64_t, 1, 1, 1>(v, a, s, err)
                             : bv_launch<uint64_t, 1, 1, 0>(v, a, s, err);
            break;
        case CL2:
            r = direct ? bv_launch_direct<2>(st, v, a, s, err) : bv_launch<uint64_t, 2, 1, 1>(v, a, s, err);
            break;
        case CL4:
            r = direct ? bv_launch_direct<4>(st, v, a, s, err) : bv_launch<uint64_t, 4, 1, 1>(v, a, s, err);
            break;
        case CL8:
            r = direct ? bv_launch_direct<8>(st, v, a, s, err) : bv_launch<uint64_t, 8, 1, 1>(v, a, s, err);
            break;
        case CL16: r = bv_launch<uint64_t, 16, 1, 1>(v, a, s, err); break;
        case CL32: r = bv_launch<uint64_t, 32, 1, 1>(v, a, s, err); break;
        case CR2: r = bv_launch<uint64_t, 32, 2, 1>(v, a, s, err); break;
        case CR4: r = bv_launch<uint64_t, 32, 4, 1>(v, a, s, err); break;
        case CR8: r = bv_launch<uint64_t, 32, 8, 1>(v, a, s, err); break;
        default: r = bv_launch<uint64_t, 1, 1, 2>(v, a, s, err); break;
        }
        if (r != GS_OK)
            return r;
    }
    if (st->zones.n_runs && stop > 0 && a->hits && bv_zone_launch(st, a, stop, s, err) != GS_OK)
        return err->code;
    if (st->seeds.n_filtered && stop > 0 && a->hits)
        return bv_filter_launch(st, a, stop, s, err);
    return GS_OK;
}

gs_status gs_gpu_bv_finish(void *state, const uint8_t *text, const unsigned long long *kh,
                           uint32_t n, uint32_t pbits, uint32_t lbits, unsigned long long *keys,
                           cudaStream_t s, gs_error *err)
{
    const bv_state *st = (const bv_state *)state;
    gs_bv_fin f = {text,          st->edits,     st->d_mlen, st->d_rpeq,  st->d_out_off,
                   st->d_outputs, pbits,         lbits,      st->d_zone,  st->d_kbytes,
                   st->d_koff,    st->K,         st->d_kk,    st->bulges};
    if (n == 0)
        return GS_OK;
    gs_bv_finish<<<gs_gpu_div_up(n, 256), 256, 0, s>>>(kh, n, f, keys);
    GS_CUDA_LAUNCH_CHECK();
    return GS_OK;
fail:
    return err->code;
}

void gs_gpu_bv_profile(void *state, uint16_t *profile) { ((bv_state *)state)->profile = profile; }

const gs_gpu_engine gs_gpu_engine_bv = {"bv", bv_open, bv_scan, bv_close};
