/* gpu_hits.cu - a finished batch's hits, from the key hits its scan pushed
 * to a sorted run of packed keys (gs_hitsort.h): each key hit expanded to
 * its outputs' (pattern, strand, length) sort keys, radix-sorted on the
 * device and copied back once; approximate hits (bv) finished and, where a
 * key is too long for the device, given their start by the host's DP
 * (gpu.cu describes the pipeline).
 */
#include <algorithm>

/* no NVTX ranges from CUB: a library should not export the NVTX symbols */
#define CCCL_DISABLE_NVTX
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "gpu_pipe.cuh"
#include "hits.cuh"

extern "C" {
#include "core/gs_clock.h"
#include "match/approx.h"
}

gs_status gs_gpu_reserve(void **d, size_t *cap, size_t n, size_t es, int pinned, gs_error *err)
{
    if (n <= *cap)
        return GS_OK;
    size_t c = std::max(n, *cap + *cap / 2);
    if (pinned)
        cudaFreeHost(*d);
    else
        cudaFree(*d);
    *d = NULL;
    *cap = 0;
    if (pinned)
        GS_CUDA_CHECK(cudaMallocHost(d, c * es));
    else
        GS_CUDA_CHECK(cudaMalloc(d, c * es));
    *cap = c;
    return GS_OK;
fail:
    return err->code;
}

/* Room for n sort keys on the device. */
static gs_status gpu_keys_reserve(gs_gpu *g, size_t n, gs_error *err)
{
    size_t k_cap = g->keys_cap, sorted_cap = g->keys_cap;
    if (gs_gpu_reserve((void **)&g->d_keys, &k_cap, n, 8, 0, err) ||
        gs_gpu_reserve((void **)&g->d_sorted, &sorted_cap, n, 8, 0, err))
        return err->code;
    g->keys_cap = std::min(k_cap, sorted_cap);
    return GS_OK;
}

/* Sort the *n keys of d_keys on slot s's stream, copy them to h_sorted and
 * wait. unique: equal keys are copied once and *n becomes their number
 * (bv's seed filter finds an edit hit once per seed that holds it). */
static gs_status gpu_sort_back(gs_gpu *g, gs_gpu_slot *s, uint32_t *n, int unique,
                               gs_error *err)
{
    size_t t2 = 0, t3 = 0;
    unsigned long long *out = g->d_sorted;
    GS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(NULL, t2, g->d_keys, g->d_sorted, *n, 0,
                                                 (int)g->sort_bits));
    if (unique)
        GS_CUDA_CHECK(cub::DeviceSelect::Unique(NULL, t3, g->d_sorted, g->d_keys, s->d_nhits, *n));
    if (gs_gpu_reserve(&g->d_temp, &g->temp_cap, std::max(t2, t3), 1, 0, err))
        goto fail;
    t2 = t3 = g->temp_cap;
    GS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(g->d_temp, t2, g->d_keys, g->d_sorted, *n, 0,
                                                 (int)g->sort_bits, s->st));
    if (unique) { /* into d_keys, free again; the slot's hit counter is read */
        GS_CUDA_CHECK(cub::DeviceSelect::Unique(g->d_temp, t3, g->d_sorted, g->d_keys, s->d_nhits,
                                                *n, s->st));
        GS_CUDA_CHECK(cudaMemcpyAsync(s->h_nhits, s->d_nhits, 4, cudaMemcpyDeviceToHost, s->st));
        GS_CUDA_CHECK(cudaStreamSynchronize(s->st));
        *n = *s->h_nhits;
        out = g->d_keys;
    }
    if (gs_gpu_reserve((void **)&g->h_sorted, &g->h_sorted_cap, std::max<size_t>(*n, 1), 8, 1,
                       err) != GS_OK)
        return err->code;
    GS_CUDA_CHECK(cudaEventRecord(g->h0, s->st));
    GS_CUDA_CHECK(cudaMemcpyAsync(g->h_sorted, out, (size_t)*n * 8, cudaMemcpyDeviceToHost,
                                  s->st));
    GS_CUDA_CHECK(cudaEventRecord(g->h1, s->st));
    GS_CUDA_CHECK(cudaStreamSynchronize(s->st));
    g->times.transfer += gs_gpu_elapsed(g->h0, g->h1) / 1e3;
    return GS_OK;
fail:
    return err->code;
}

/* --seq: the residues of the batch's n sorted keys, taken from its host
 * text while the slot still holds it. */
static gs_status gpu_capture(gs_gpu *g, const gs_gpu_slot *s, const uint64_t *keys, size_t n,
                             size_t n_seg, gs_error *err)
{
    if (g->seqcap == NULL ||
        gs_seqcap_add_keys(g->seqcap, keys, n, s->segs, n_seg, g->lay, s->h_text) == GS_OK)
        return GS_OK;
    return gs_fail(err, GS_ESYS, "out of memory (matched residues of %zu hits, gpu)", n);
}

/* An exact batch's n sorted keys (on the host) kept as its runs, or with
 * by_file counted by file: a file's hits were 32 bytes of fresh memory
 * each as runs (0.76 s of page clearing for 26 M hits of reads, H200
 * host), and the tally from them 0.4 s after the scan. */
static gs_status gpu_keep(gs_gpu *g, const gs_gpu_slot *s, const uint64_t *keys, uint32_t n,
                          gs_error *err)
{
    std::lock_guard<std::mutex> hold(g->runs_lock);
    const double t0 = gs_now();
    if (g->by_file) {
        if (gs_tally_count_keys(&g->tally, &g->counter, &g->unit, keys, n, s->segs, s->n_seg,
                                g->lay) != GS_OK)
            return gs_fail(err, GS_ESYS, "out of memory (tally of the GPU's hits)");
    } else if (gs_hit_runs_add_batch(&g->runs, keys, n, s->segs, s->n_seg, g->lay, 0,
                                     g->copy_threads, err) != GS_OK ||
               gpu_capture(g, s, keys, n, s->n_seg, err) != GS_OK) {
        return err->code;
    }
    g->times.keep += gs_now() - t0;
    return GS_OK;
}

/* Approximate hits: sort keys from bv, sorted on the device, kept as a
 * run of the slot's one segment (they are never queued: no host thread of
 * CUDA's adds to the runs meanwhile). */
static gs_status gpu_collect_approx(gs_gpu *g, gs_gpu_slot *s, uint32_t n, gs_error *err)
{
    uint8_t *bits = NULL, *txt = NULL;
    uint32_t *col = NULL;
    int moved = 0;
    if (gpu_keys_reserve(g, n, err) != GS_OK ||
        gs_gpu_bv_finish(g->est, s->d_text, s->d_kh, n, g->pbits, g->lbits, g->d_keys, s->st,
                         err) != GS_OK ||
        gpu_sort_back(g, s, &n, 1, err) != GS_OK)
        goto fail;
    {
        /* an edit key over 64 residues comes back with length 0 and its end
         * as its start: the CPU's own DP finds the start, and the key is
         * rewritten (rare: patterns that long; the batch is sorted again) */
        const gs_keyset *ks = g->ks;
        const gs_key_layout lay = g->lay;
        const int s_pos = gs_hitkey_s_pos(lay);
        uint32_t kept = 0;
        while (n > 0 && g->h_sorted[n - 1] == GS_BV_DROPPED)
            n--; /* ends with no alignment under --exact-3p (bv.cuh), sorted last */
        for (uint32_t i = 0; i < n; i++) {
            uint64_t x = g->h_sorted[i];
            if (gs_hitkey_len(lay, x) != 0) {
                g->h_sorted[kept++] = x;
                continue;
            }
            uint32_t d = gs_hitkey_dist(lay, x), pat = gs_hitkey_pattern(lay, x);
            uint32_t strand = gs_hitkey_strand(lay, x);
            uint64_t e = gs_hitkey_pos(lay, x);
            uint32_t k = pat * (uint32_t)ks->n_strands + strand; /* keyset.h: one key each */
            uint32_t m = gs_key_len(ks, k), w = (uint32_t)std::min<uint64_t>(m + d, e);
            if (bits == NULL) {
                bits = (uint8_t *)gs_malloc(2 * (size_t)ks->span, err, "GPU hit starts");
                col = (uint32_t *)gs_malloc(((size_t)ks->max_len + 1) * 4, err, "GPU hit starts");
                if (bits == NULL || col == NULL)
                    goto fail;
                txt = bits + ks->span;
            }
            int front;
            uint32_t zn = gs_key_zone(ks, k, &front), zl = 0;
            if (zn) /* the end's distance under the zone, from the text before it */
                w = (uint32_t)std::min<uint64_t>(m + gs_key_k(ks, k), e);
            /* the batch's text from the device: a batch in place has no
             * host copy once its buffer went back to the readers */
            GS_CUDA_CHECK(cudaMemcpy(txt, s->d_text + (e - w), w, cudaMemcpyDeviceToHost));
            gs_approx_text_bits(txt, w, bits);
            uint64_t l = zn ? 0 : gs_approx_edit_len(gs_key(ks, k), m, bits, w, d, col);
            if (zn) {
                d = gs_approx_zone_end(gs_key(ks, k), m, zn, front, bits, w, gs_key_k(ks, k), col,
                                       &zl);
                if (d > gs_key_k(ks, k))
                    continue; /* dropped */
                l = zl;
                x = (x & ~gs_hitkey_mask(lay.b_dist)) | d; /* the distance is lowest */
            }
            g->h_sorted[kept++] = gs_hitkey_at(lay, e - l, (x & gs_hitkey_mask(s_pos)) | l << gs_hitkey_s_len(lay));
            moved = 1;
        }
        n = kept;
        if (moved)
            std::sort(g->h_sorted, g->h_sorted + n);
        if (gs_hit_runs_add_batch(&g->runs, g->h_sorted, n, s->segs, 1, g->lay, ks->span,
                                  g->copy_threads, err) != GS_OK ||
            gpu_capture(g, s, g->h_sorted, n, 1, err) != GS_OK)
            goto fail;
    }
    free(bits);
    free(col);
    return GS_OK;
fail:
    free(bits);
    free(col);
    return err->code;
}

/* Sort keys at most in a queued batch: past them the padding's sort costs
 * more than the wait it saves. */
enum { QUEUE_MAX = 1 << 23 };

/* On CUDA's host thread, once a queued batch's keys and total landed:
 * the keys kept as its runs where they were all made (else its retire
 * makes them again). Making the runs is mostly the page faults of fresh
 * memory, 0.7 s of the feeding thread's 1.5 s for 7 Gi residues of reads
 * with 26 M hits (H100 host): here they overlap the feeding. No CUDA call
 * may be made here. The slot's keys, segments and text stay until its
 * retire, which waits for this. */
static void CUDART_CB keep_landed(void *arg)
{
    gs_gpu_slot *s = (gs_gpu_slot *)arg;
    const uint32_t n = *s->h_nhits, total = *s->h_total;
    int kept = 0;
    if (n <= s->kh_cap && total <= s->q_keys) {
        s->keep_st = total ? gpu_keep(s->g, s, s->q_host, total, &s->keep_err) : GS_OK;
        kept = 1;
    }
    __atomic_store_n(&s->kept, kept, __ATOMIC_RELEASE);
}

gs_status gs_gpu_queue_hits(gs_gpu *g, gs_gpu_slot *s, gs_error *err)
{
    const unsigned threads = 256;
    const size_t cap = s->kh_cap;
    const size_t most = std::min<size_t>((size_t)cap * g->max_out, QUEUE_MAX);
    size_t t_scan = 0, t_sort = 0;
    s->queued = 0;
    if (g->max_out == 0 || cap == 0)
        return GS_OK;
    s->q_keys = (uint32_t)std::min<size_t>(std::max<size_t>(g->q_guess, 1u << 16), most);
    if (gs_gpu_reserve((void **)&s->q_cnt, &s->q_cnt_cap, cap + 1, 4, 0, err) ||
        gs_gpu_reserve((void **)&s->q_offs, &s->q_offs_cap, cap + 1, 4, 0, err) ||
        gs_gpu_reserve((void **)&s->q_in, &s->q_in_cap, s->q_keys, 8, 0, err) ||
        gs_gpu_reserve((void **)&s->q_sorted, &s->q_sorted_cap, s->q_keys, 8, 0, err) ||
        gs_gpu_reserve((void **)&s->q_host, &s->q_host_cap, s->q_keys, 8, 1, err))
        goto fail;
    if (s->h_total == NULL)
        GS_CUDA_CHECK(cudaMallocHost((void **)&s->h_total, 4));
    GS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, t_scan, s->q_cnt, s->q_offs, cap + 1));
    GS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(NULL, t_sort, s->q_in, s->q_sorted,
                                                 (int)s->q_keys, 0, (int)g->sort_bits));
    if (gs_gpu_reserve(&s->q_temp, &s->q_temp_cap, std::max(t_scan, t_sort), 1, 0, err))
        goto fail;
    gs_hits_count<<<gs_gpu_div_up(cap + 1, threads), threads, 0, s->st>>>(
        s->d_kh, s->d_nhits, (uint32_t)cap, g->d_out_off, s->q_cnt);
    GS_CUDA_LAUNCH_CHECK();
    t_scan = s->q_temp_cap;
    GS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(s->q_temp, t_scan, s->q_cnt, s->q_offs, cap + 1,
                                                s->st));
    /* the padding (every bit set) sorts after every key: the sort is
     * stable, so even a key equal to it in the sort bits stays first */
    GS_CUDA_CHECK(cudaMemsetAsync(s->q_in, 0xFF, (size_t)s->q_keys * 8, s->st));
    gs_hits_expand<<<gs_gpu_div_up(cap, threads), threads, 0, s->st>>>(
        s->d_kh, s->d_nhits, (uint32_t)cap, g->d_out_off, g->d_outkey, s->q_offs, g->lay,
        s->q_in, s->q_keys);
    GS_CUDA_LAUNCH_CHECK();
    t_sort = s->q_temp_cap;
    GS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(s->q_temp, t_sort, s->q_in, s->q_sorted,
                                                 (int)s->q_keys, 0, (int)g->sort_bits, s->st));
    GS_CUDA_CHECK(cudaMemcpyAsync(s->h_total, s->q_offs + cap, 4, cudaMemcpyDeviceToHost, s->st));
    /* all q_keys back, the total not being known: the copy engine this
     * way is idle, and the feeding thread then waits for nothing at retire */
    GS_CUDA_CHECK(cudaMemcpyAsync(s->q_host, s->q_sorted, (size_t)s->q_keys * 8,
                                  cudaMemcpyDeviceToHost, s->st));
    s->kept = 0;
    GS_CUDA_CHECK(cudaLaunchHostFunc(s->st, keep_landed, s));
    s->queued = 1;
    return GS_OK;
fail:
    return err->code;
}

void gs_gpu_queue_free(gs_gpu_slot *s)
{
    cudaFree(s->q_cnt);
    cudaFree(s->q_offs);
    cudaFree(s->q_in);
    cudaFree(s->q_sorted);
    cudaFree(s->q_temp);
    cudaFreeHost(s->q_host);
    cudaFreeHost(s->h_total);
}

/* A queued batch: its runs, where keep_landed made them (*taken 1; its
 * error, if any), else 0 (*taken): the batch must be made again. */
static gs_status take_queued(gs_gpu *g, gs_gpu_slot *s, int *taken, gs_error *err)
{
    const uint32_t total = *s->h_total;
    g->q_guess = (uint32_t)std::min<uint64_t>(std::max<uint64_t>(g->q_guess, 2ull * total),
                                              QUEUE_MAX);
    *taken = __atomic_load_n(&s->kept, __ATOMIC_ACQUIRE);
    if (*taken && s->keep_st != GS_OK) {
        *err = s->keep_err;
        return err->code;
    }
    return GS_OK;
}

gs_status gs_gpu_collect_hits(gs_gpu *g, gs_gpu_slot *s, gs_error *err)
{
    uint32_t n = *s->h_nhits, total = 0;
    size_t temp = 0;
    unsigned threads = 256;
    const int queued = s->queued && n <= s->kh_cap; /* all its key hits were taken */
    s->queued = 0;
    if (n > 0)
        g->times.batches++;
    if (n > s->kh_cap) { /* overflow: grow and scan this batch again, hits only */
        cudaFree(s->d_kh);
        s->d_kh = NULL;
        s->kh_cap = 0;
        GS_CUDA_CHECK(cudaMalloc((void **)&s->d_kh, ((size_t)n + n / 4) * 8));
        s->kh_cap = n + n / 4;
        if (gs_gpu_scan_slot(g, s, 0, err) != GS_OK)
            goto fail;
        GS_CUDA_CHECK(cudaStreamSynchronize(s->st));
        g->times.kernel += gs_gpu_elapsed(s->k0, s->k1) / 1e3;
        n = *s->h_nhits;
    }
    if (n == 0)
        return GS_OK;
    if (g->approx)
        return gpu_collect_approx(g, s, n, err);
    if (queued) {
        int taken;
        if (take_queued(g, s, &taken, err) != GS_OK)
            return err->code;
        if (taken)
            return GS_OK;
    }
    g->times.redone++;
    {
        size_t cap = g->cnt_cap;
        if (gs_gpu_reserve((void **)&g->d_cnt, &cap, (size_t)n + 1, 4, 0, err))
            goto fail;
        cap = g->cnt_cap;
        if (gs_gpu_reserve((void **)&g->d_offs, &cap, (size_t)n + 1, 4, 0, err))
            goto fail;
        g->cnt_cap = cap;
    }
    GS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, temp, g->d_cnt, g->d_offs, n + 1));
    if (gs_gpu_reserve(&g->d_temp, &g->temp_cap, temp, 1, 0, err))
        goto fail;
    gs_hits_count<<<gs_gpu_div_up(n + 1, threads), threads, 0, s->st>>>(s->d_kh, s->d_nhits, n,
                                                                       g->d_out_off, g->d_cnt);
    GS_CUDA_LAUNCH_CHECK();
    temp = g->temp_cap;
    GS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(g->d_temp, temp, g->d_cnt, g->d_offs, n + 1,
                                                s->st));
    GS_CUDA_CHECK(cudaMemcpyAsync(s->h_nhits, g->d_offs + n, 4, cudaMemcpyDeviceToHost, s->st));
    GS_CUDA_CHECK(cudaStreamSynchronize(s->st));
    total = *s->h_nhits;

    if (gpu_keys_reserve(g, total, err) != GS_OK)
        goto fail;
    gs_hits_expand<<<gs_gpu_div_up(n, threads), threads, 0, s->st>>>(
        s->d_kh, s->d_nhits, n, g->d_out_off, g->d_outkey, g->d_offs, g->lay, g->d_keys, total);
    GS_CUDA_LAUNCH_CHECK();
    if (gpu_sort_back(g, s, &total, 0, err) != GS_OK ||
        gpu_keep(g, s, g->h_sorted, total, err) != GS_OK)
        goto fail;
    return GS_OK;
fail:
    return err->code;
}
