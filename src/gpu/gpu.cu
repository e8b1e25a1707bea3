/* gpu.cu - the device pipeline behind gpu.h: pinned buffers, streams,
 * batches of short records, per-key counts and sorted hits.
 *
 * Three slots, each with its own stream, pinned host buffer and device
 * buffers, take batches in turn: a submit appends the segment to the open
 * slot's pinned buffer; when the batch is closed, its copy -> scan -> (hit
 * count back) is queued on the slot's stream, so the copy of one batch
 * overlaps the scan of the one before. The scans themselves are chained with
 * an event (one at a time): each fills the whole device. An exact batch's
 * key hits are expanded to (pattern, strand, length) sort keys, sorted and
 * copied back right behind its scan on the same stream, and kept as runs
 * of keys (gs_hitsort.h, 8 bytes a hit) on CUDA's host thread as they land
 * (gpu_hits.cu): no per-hit work on the feeding thread, which goes
 * straight back to launching. A slot is retired (waited for) only when it
 * is reused or at finish; there the hits a queued batch could not hold,
 * and approximate hits, are made. The caller turns the runs into records
 * on all its threads after the scan.
 * Counts stay on the device, added to by every scan, and are copied back
 * once at finish.
 *
 * Batching: a corpus of short records (ESTs, contigs) would otherwise pay a
 * launch, four events and a stream round-trip per record, far more than the
 * scan of 500 residues. For the dna alphabet, consecutive segments are packed
 * into one slot, joined by one 'N': a non-base matches no key position, so
 * no key occurrence spans the join, and the packed text is scanned as one
 * segment whose owned starts end at (offset of the last segment + its own).
 * Only the last segment of a batch may have an overlap: a segment with
 * own < len closes its batch. Each slot keeps (offset, record, base) per
 * segment, the run's segment table, which maps a hit's packed position
 * back when the run is expanded; segments of one reader arrive in corpus
 * order, so sorting by (packed position, strand, pattern) is contract §3
 * order (a batch packed from several readers' buffers is cut into runs
 * where the order steps back). The bytes alphabet has no byte that
 * matches nothing, so there a batch is one segment.
 *
 * Approximate keysets (engine "bv") are never packed: an alignment with
 * edits could reach across the separator, and its start is found by a DP
 * that must stop where the segment begins. Their hits carry a distance and
 * an end: bv.cu turns them into sort keys that hold both, in the same run
 * layout, and the runs drop those that the previous segment of the record
 * owns (engine.h). Hits are owned by their end, so the starts of
 * neighbouring segments interleave by a few rows: the expansion merges
 * those. bv's seed filter may push one edit hit once per seed that finds
 * it: equal sort keys are removed on the device after the sort.
 *
 * Overflow of a slot's hit buffer is found at retire (the kernels count past
 * the capacity): the buffer grows and the batch, still on the device, is
 * scanned again for hits only. Library code: errors are returned, never
 * printed.
 */
#include <algorithm>
#include <cctype>
#include <cstring>
#include <new>

#include "gpu_pipe.cuh"

extern "C" {
#include "core/gs_clock.h"
#include "core/gs_copy.h"
}

gs_status gs_gpu_cuda_fail(gs_error *err, cudaError_t e, const char *call, const char *file,
                           int line)
{
    return gs_fail(err, GS_ESYS, "CUDA call %s failed: %s (%s:%d)", call, cudaGetErrorName(e),
                   file, line);
}

gs_status gs_gpu_upload(void **d, const void *h, size_t bytes, gs_error *err)
{
    *d = NULL;
    GS_CUDA_CHECK(cudaMalloc(d, bytes ? bytes : 16));
    if (bytes)
        GS_CUDA_CHECK(cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice));
    return GS_OK;
fail:
    cudaFree(*d);
    *d = NULL;
    return err->code;
}

int gs_gpu_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* no driver or no device: not an error here */
        return 0;
    }
    return n;
}

int gs_gpu_bus_id(int device, char *id, size_t cap)
{
    if (cap < 2 || cudaDeviceGetPCIBusId(id, (int)cap, device) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    for (char *c = id; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    return 0;
}

void gs_gpu_warm(int device)
{
    int n = gs_gpu_device_count();
    if (n > 0 && cudaSetDevice(device % n) == cudaSuccess)
        cudaFree(NULL); /* makes the primary context */
    cudaGetLastError();
}

static const gs_gpu_engine *gpu_engine_find(const char *name)
{
    static const gs_gpu_engine *const all[] = {&gs_gpu_engine_ac, &gs_gpu_engine_wm,
                                               &gs_gpu_engine_rk, &gs_gpu_engine_bv};
    for (const gs_gpu_engine *e : all)
        if (strcmp(e->name, name) == 0)
            return e;
    return NULL;
}

float gs_gpu_elapsed(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return ms;
}

void gs_gpu_close(gs_gpu *g)
{
    if (g == NULL)
        return;
    for (int i = 0; i < NSLOT; i++) {
        gs_gpu_slot *s = &g->slot[i];
        if (s->st)
            cudaStreamSynchronize(s->st);
    }
    gs_gpu_raw_free(g);
    if (g->eng && g->est)
        g->eng->close(g->est);
    for (int i = 0; i < NSLOT; i++) {
        gs_gpu_slot *s = &g->slot[i];
        cudaFreeHost(s->h_text);
        cudaFreeHost(s->h_nhits);
        cudaFree(s->d_text);
        cudaFree(s->d_kh);
        cudaFree(s->d_nhits);
        free(s->segs);
        gs_gpu_queue_free(s);
        cudaEvent_t ev[4] = {s->t0, s->t1, s->k0, s->k1};
        for (cudaEvent_t e : ev)
            if (e)
                cudaEventDestroy(e);
        if (s->st)
            cudaStreamDestroy(s->st);
    }
    cudaEvent_t ev[3] = {g->scan_done, g->h0, g->h1};
    for (cudaEvent_t e : ev)
        if (e)
            cudaEventDestroy(e);
    cudaFree(g->d_counts);
    cudaFree(g->d_work);
    cudaFree(g->d_out_off);
    cudaFree(g->d_outkey);
    cudaFree(g->d_cnt);
    cudaFree(g->d_offs);
    cudaFree(g->d_keys);
    cudaFree(g->d_sorted);
    cudaFreeHost(g->h_sorted);
    cudaFree(g->d_temp);
    gs_hit_runs_free(&g->runs);
    gs_tally_free(&g->tally);
    gs_tally_counter_free(&g->counter);
    delete g;
}

static uint32_t bits_for(unsigned long long n) /* bits to write 0 .. n-1, at least 1 */
{
    uint32_t b = 1;
    while (b < 64 && (1ull << b) < n)
        b++;
    return b;
}

/* Exact keys: each output's low bits of a sort key, length included (every
 * key of a pattern has the pattern's length), and the keys' output offsets. */
static gs_status gpu_upload_outkeys(gs_gpu *g, const gs_keyset *ks, gs_error *err)
{
    size_t n_out = ks->out_off[ks->n_keys];
    unsigned long long *ok =
        (unsigned long long *)gs_malloc((n_out ? n_out : 1) * 8, err, "GPU hit keys");
    if (ok == NULL)
        return GS_ESYS;
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        g->max_out = std::max(g->max_out, ks->out_off[k + 1] - ks->out_off[k]);
        for (uint32_t j = ks->out_off[k]; j < ks->out_off[k + 1]; j++)
            ok[j] = gs_hitkey_low(g->lay, ks->outputs[j], gs_key_len(ks, k), 0);
    }
    gs_status up = gs_gpu_upload((void **)&g->d_outkey, ok, n_out * 8, err);
    free(ok);
    if (up != GS_OK)
        return up;
    return gs_gpu_upload((void **)&g->d_out_off, ks->out_off, ((size_t)ks->n_keys + 1) * 4, err);
}

gs_status gs_gpu_open(const gs_gpu_args *a, const gs_keyset *ks, gs_gpu **out, gs_error *err)
{
    const int device = a->device, want_hits = a->want_hits;
    const char *engine = a->engine;
    const size_t block = a->block;
    gs_gpu *g = NULL;
    cudaDeviceProp prop;
    int n_dev = gs_gpu_device_count();
    *out = NULL;
    if (n_dev == 0)
        return gs_fail(err, GS_ESYS, "no CUDA device found (gpu)");
    if (device < 0 || device >= n_dev)
        return gs_fail(err, GS_ESYS, "CUDA device %d does not exist; %d visible (gpu)", device,
                       n_dev);
    const gs_gpu_engine *eng = gpu_engine_find(engine);
    if (eng == NULL)
        return gs_fail(err, GS_EUSAGE, "unknown GPU engine '%s' (--engine)", engine);
    if ((ks->mode != GS_MATCH_EXACT) != (eng == &gs_gpu_engine_bv))
        return gs_fail(err, GS_EUSAGE, "GPU engine %s does %s matching only (gpu)", engine,
                       eng == &gs_gpu_engine_bv ? "approximate" : "exact");
    size_t text_cap = block + gs_keyset_overlap(ks);
    if (block == 0 || text_cap + 256 >= 0xFFFFFFFFull)
        return gs_fail(err, GS_EUSAGE,
                       "GPU block of %zu residues out of range 1 .. 2^32 - max_len (gpu)", block);
    g = new (std::nothrow) gs_gpu();
    if (g == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (gpu)");
    g->eng = eng;
    g->want_hits = want_hits;
    g->pack = gs_gpu_packs(ks);
    g->ks = ks;
    g->approx = ks->mode != GS_MATCH_EXACT;
    g->block = block;
    g->text_cap = text_cap;
    g->text_alloc = (text_cap + 63) / 64 * 64 + 128; /* kernels read whole 16-byte vectors */
    g->n_keys = ks->n_keys;
    g->pbits = bits_for(ks->n_patterns ? ks->n_patterns : 1);
    g->lbits = bits_for((unsigned long long)ks->span + 1);
    g->lay = gs_key_layout{(uint8_t)(g->approx ? 4 : 0), (uint8_t)g->lbits, (uint8_t)g->pbits};
    /* approximate: a start may be the text's end until the host finds it */
    g->sort_bits = bits_for(text_cap + g->approx) + gs_hitkey_s_pos(g->lay);
    if (g->sort_bits > 64) {
        gs_fail(err, GS_EUSAGE, "too many patterns for GPU hit sorting (%u) (gpu)",
                ks->n_patterns);
        goto fail;
    }

    GS_CUDA_CHECK(cudaSetDevice(device));
    GS_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    g->dev.id = device;
    g->dev.sm_count = prop.multiProcessorCount;
    g->dev.smem_optin = prop.sharedMemPerBlockOptin;
    g->dev.smem_sm = prop.sharedMemPerMultiprocessor;

    GS_CUDA_CHECK(cudaMalloc((void **)&g->d_counts, std::max<size_t>(g->n_keys, 1) * 8));
    GS_CUDA_CHECK(cudaMemset(g->d_counts, 0, std::max<size_t>(g->n_keys, 1) * 8));
    GS_CUDA_CHECK(cudaMalloc((void **)&g->d_work, GS_GPU_WORK_COUNTERS * sizeof *g->d_work));
    if (want_hits && !g->approx && gpu_upload_outkeys(g, ks, err) != GS_OK)
        goto fail;
    g->by_file = want_hits && !g->approx && a->tally_files;
    if (g->by_file && gs_tally_counter_init(&g->counter, ks->n_patterns, err) != GS_OK)
        goto fail;
    GS_CUDA_CHECK(cudaEventCreate(&g->scan_done));
    GS_CUDA_CHECK(cudaEventCreate(&g->h0));
    GS_CUDA_CHECK(cudaEventCreate(&g->h1));
    for (int i = 0; i < NSLOT; i++) {
        gs_gpu_slot *s = &g->slot[i];
        s->g = g;
        GS_CUDA_CHECK(cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking));
        GS_CUDA_CHECK(cudaMallocHost((void **)&s->h_nhits, 4));
        GS_CUDA_CHECK(cudaMalloc((void **)&s->d_text, g->text_alloc));
        GS_CUDA_CHECK(cudaMemset(s->d_text, 0, g->text_alloc));
        GS_CUDA_CHECK(cudaMalloc((void **)&s->d_nhits, 4));
        GS_CUDA_CHECK(cudaEventCreate(&s->t0));
        GS_CUDA_CHECK(cudaEventCreate(&s->t1));
        GS_CUDA_CHECK(cudaEventCreate(&s->k0));
        GS_CUDA_CHECK(cudaEventCreate(&s->k1));
        if (want_hits) {
            s->kh_cap = (uint32_t)std::min<size_t>(std::max<size_t>(block / 16, 4096), 1u << 24);
            GS_CUDA_CHECK(cudaMalloc((void **)&s->d_kh, (size_t)s->kh_cap * 8));
        }
    }
    GS_CUDA_CHECK(cudaEventRecord(g->scan_done, g->slot[0].st));
    g->args = *a;
    if (a->tune)
        g->tune = *a->tune;
    g->args.tune = &g->tune;
    if (g->n_keys && g->eng->open(ks, &g->dev, &g->args, text_cap, &g->est, err) != GS_OK)
        goto fail;
    *out = g;
    return GS_OK;
fail:
    gs_gpu_close(g);
    return err->code;
}

gs_status gs_gpu_scan_slot(gs_gpu *g, gs_gpu_slot *s, int counts, gs_error *err)
{
    gs_gpu_scan a;
    a.text = s->d_text;
    a.len = (uint32_t)s->len;
    a.own = (uint32_t)s->own;
    a.counts = counts ? g->d_counts : NULL;
    a.hits = g->want_hits ? s->d_kh : NULL;
    a.n_hits = s->d_nhits;
    a.hit_cap = s->kh_cap;
    a.work = g->d_work;
    if (g->want_hits)
        GS_CUDA_CHECK(cudaMemsetAsync(s->d_nhits, 0, 4, s->st));
    GS_CUDA_CHECK(cudaStreamWaitEvent(s->st, g->scan_done, 0));
    GS_CUDA_CHECK(cudaMemsetAsync(g->d_work, 0, 4, s->st));
    GS_CUDA_CHECK(cudaEventRecord(s->k0, s->st));
    if (g->est && g->eng->scan(g->est, &a, s->st, err) != GS_OK)
        goto fail;
    GS_CUDA_CHECK(cudaEventRecord(s->k1, s->st));
    GS_CUDA_CHECK(cudaEventRecord(g->scan_done, s->st));
    if (g->want_hits)
        GS_CUDA_CHECK(cudaMemcpyAsync(s->h_nhits, s->d_nhits, 4, cudaMemcpyDeviceToHost, s->st));
    return GS_OK;
fail:
    return err->code;
}


/* Wait for a slot's segment and take its results. */
static gs_status gpu_retire(gs_gpu *g, gs_gpu_slot *s, gs_error *err)
{
    if (!s->busy)
        return GS_OK;
    s->busy = 0;
    const double t_sync = gs_now();
    GS_CUDA_CHECK(cudaStreamSynchronize(s->st));
    g->times.slot += gs_now() - t_sync;
    g->times.transfer += gs_gpu_elapsed(s->t0, s->t1) / 1e3;
    g->times.kernel += gs_gpu_elapsed(s->k0, s->k1) / 1e3;
    if (s->raw_batch && gs_gpu_raw_check(s, err) != GS_OK)
        return err->code;
    if (g->want_hits) {
        double t0 = gs_now();
        gs_status st = gs_gpu_collect_hits(g, s, err);
        g->times.hits += gs_now() - t0;
        return st;
    }
    return GS_OK;
fail:
    return err->code;
}

/* Queue the open batch of slot s: copy (raw bytes: copy and parse; a
 * batch in place: copy on the copy stream), scan, and move on to the next
 * slot. */
static gs_status gpu_launch(gs_gpu *g, gs_gpu_slot *s, gs_error *err)
{
    s->open = 0;
    g->next = (g->next + 1) % NSLOT;
    if (s->raw) {
        if (gs_gpu_raw_copy(g, s, err) != GS_OK)
            goto fail;
    } else {
        cudaStream_t st = s->src ? g->copy_st : s->st;
        GS_CUDA_CHECK(cudaEventRecord(s->t0, st));
        GS_CUDA_CHECK(cudaMemcpyAsync(s->d_text, s->src ? s->src : s->h_text, s->len,
                                      cudaMemcpyHostToDevice, st));
        GS_CUDA_CHECK(cudaEventRecord(s->t1, st));
        if (s->src)
            GS_CUDA_CHECK(cudaStreamWaitEvent(s->st, s->t1, 0));
        s->src = NULL; /* in the copy stream now: the fence says when it is free */
    }
    if (gs_gpu_scan_slot(g, s, 1, err) != GS_OK ||
        (g->want_hits && !g->approx && gs_gpu_queue_hits(g, s, err) != GS_OK))
        goto fail;
    s->busy = 1;
    return GS_OK;
fail:
    return err->code;
}

gs_status gs_gpu_copy_stream(gs_gpu *g, gs_error *err)
{
    if (g->copy_st)
        return GS_OK;
    GS_CUDA_CHECK(cudaStreamCreateWithFlags(&g->copy_st, cudaStreamNonBlocking));
    for (cudaEvent_t &e : g->fence)
        GS_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return GS_OK;
fail:
    return err->code;
}

gs_status gs_gpu_fence(gs_gpu *g, unsigned *ticket, gs_error *err)
{
    *ticket = g->fences++;
    GS_CUDA_CHECK(cudaEventRecord(g->fence[*ticket % FENCES], g->copy_st));
    return GS_OK;
fail:
    return err->code;
}

gs_status gs_gpu_wait(gs_gpu *g, unsigned ticket, gs_error *err)
{
    /* the copies run in order on one stream: where the ticket's event has
     * been recorded again (many submits since), a later fence covers it */
    if (g->fences - ticket > FENCES)
        ticket = g->fences - 1;
    GS_CUDA_CHECK(cudaEventSynchronize(g->fence[ticket % FENCES]));
    return GS_OK;
fail:
    return err->code;
}

void gs_gpu_set_copy_threads(gs_gpu *g, int threads)
{
    g->copy_threads = threads;
}

void gs_gpu_set_seqcap(gs_gpu *g, gs_seqcap *cap)
{
    g->seqcap = cap;
}

int gs_gpu_pin(void *p, size_t bytes)
{
    if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess)
        return 1;
    cudaGetLastError(); /* the copies from p are then staged by the driver */
    return 0;
}

void gs_gpu_unpin(void *p)
{
    if (cudaHostUnregister(p) != cudaSuccess)
        cudaGetLastError();
}

gs_status gs_gpu_check_seg(const gs_gpu *g, const gs_segment *seg, gs_error *err)
{
    if (seg->len > g->text_cap || seg->own > seg->len || seg->own > g->block)
        return gs_fail(err, GS_ESYS,
                       "segment of %zu residues (%zu owned) exceeds the GPU block of %zu "
                       "(record %u, gpu)",
                       seg->len, seg->own, g->block, seg->record);
    return GS_OK;
}

/* Slot s, retired, opened for a batch: raw bytes from raw on, in place
 * from src on (in the caller's buffers), or in h_text (both NULL), which
 * is made pinned here the first time: raw batches and batches in place
 * never need it, and made in gs_gpu_open it cost their first batch 35-60
 * ms (cudaMallocHost at 0.37-0.61 ms a MiB on H100 hosts). */
static gs_status slot_open(gs_gpu *g, gs_gpu_slot *s, const uint8_t *raw, const uint8_t *src,
                           gs_error *err)
{
    if (gpu_retire(g, s, err) != GS_OK)
        return err->code;
    if (raw == NULL && src == NULL && s->h_text == NULL)
        GS_CUDA_CHECK(cudaMallocHost((void **)&s->h_text, g->text_cap));
    s->open = 1;
    s->len = s->own = s->n_seg = s->n_loose = 0;
    s->laid = 0;
    s->raw = raw;
    s->src = src;
    return GS_OK;
fail:
    return err->code;
}

gs_status gs_gpu_slot_for(gs_gpu *g, const gs_segment *seg, const uint8_t *raw,
                          gs_gpu_slot **out, gs_error *err)
{
    gs_gpu_slot *s = &g->slot[g->next];
    /* an open batch ends with a segment without overlap (one with overlap is
     * launched at once), so the next one may follow it after a separator;
     * a batch in place takes runs in place only (gs_gpu_submit_run) */
    if (s->open && (s->len + 1 + seg->len > g->text_cap || s->n_seg == BATCH_SEGS ||
                    (raw == NULL) != (s->raw == NULL) || s->src)) {
        if (gpu_launch(g, s, err) != GS_OK)
            return err->code;
        s = &g->slot[g->next];
    }
    if (!s->open && slot_open(g, s, raw, NULL, err) != GS_OK)
        return err->code;
    *out = s;
    return GS_OK;
}

gs_status gs_gpu_slot_add(gs_gpu *g, gs_gpu_slot *s, const gs_segment *seg, size_t *at,
                          gs_error *err)
{
    if (s->n_seg)
        s->len++; /* the separator */
    if (g->want_hits) {
        if (s->n_seg == s->seg_cap) {
            size_t cap = s->seg_cap ? 2 * s->seg_cap : 64;
            gs_run_seg *v = (gs_run_seg *)gs_realloc(s->segs, cap * sizeof *v, err,
                                                     "GPU batch table");
            if (v == NULL)
                return err->code;
            s->segs = v;
            s->seg_cap = cap;
        }
        s->segs[s->n_seg] = gs_run_seg{seg->base, (uint32_t)s->len, gs_run_owner(seg, g->by_file),
                                       (uint32_t)seg->own,
                                       seg->turn ? (uint32_t)(seg->turn - seg->base) : 0u};
    }
    s->n_seg++;
    *at = s->len;
    s->own = s->len + seg->own;
    s->len += seg->len;
    return GS_OK;
}

gs_status gs_gpu_slot_added(gs_gpu *g, gs_gpu_slot *s, const gs_segment *seg, gs_error *err)
{
    if (!g->pack || seg->own < seg->len || s->len + 2 > g->text_cap)
        return gpu_launch(g, s, err);
    return GS_OK;
}

gs_status gs_gpu_launch_open(gs_gpu *g, gs_error *err)
{
    gs_gpu_slot *s = &g->slot[g->next];
    return s->open ? gpu_launch(g, s, err) : GS_OK;
}

gs_status gs_gpu_slot_fresh(gs_gpu *g, const uint8_t *raw, gs_gpu_slot **out, gs_error *err)
{
    if (gs_gpu_launch_open(g, err) != GS_OK)
        return err->code;
    *out = &g->slot[g->next];
    return slot_open(g, *out, raw, NULL, err);
}

gs_status gs_gpu_submit(gs_gpu *g, const gs_segment *seg, gs_error *err)
{
    gs_gpu_slot *s;
    size_t at;
    if (gs_gpu_check_seg(g, seg, err) != GS_OK)
        return err->code;
    if (seg->own == 0) /* no start of its own: nothing to find */
        return GS_OK;
    if (gs_gpu_slot_for(g, seg, NULL, &s, err) != GS_OK ||
        gs_gpu_slot_add(g, s, seg, &at, err) != GS_OK)
        return err->code;
    if (at)
        s->h_text[at - 1] = SEPARATOR;
    gs_copy(s->h_text + at, seg->text, seg->len, g->copy_threads);
    return gs_gpu_slot_added(g, s, seg, err);
}

/* How many of seg[0, n) fit as a run after n_seg segments taking len bytes
 * (an open batch; 0, 0 for a fresh one): whole segments (every start
 * owned), each text right after the one before and a separator. *bytes:
 * the run's, a separator before each segment but a fresh batch's first. */
static size_t run_fits(const gs_gpu *g, size_t n_seg, size_t len, const gs_segment *seg, size_t n,
                       size_t *bytes)
{
    const size_t len0 = len;
    size_t k = 0;
    for (; k < n; k++) {
        const gs_segment *x = &seg[k];
        const size_t at = len + (n_seg + k > 0);
        if (x->own != x->len || x->own == 0 || x->own > g->block || x->len > g->text_cap ||
            (k > 0 && x->text != seg[k - 1].text + seg[k - 1].len + 1) ||
            at + x->len > g->text_cap || n_seg + k == BATCH_SEGS)
            break;
        len = at + x->len;
    }
    *bytes = len - len0;
    return k;
}

/* Add run seg[0, k) (run_fits: *bytes) to the open batch of slot s: its
 * table where hits need one; the text copied into h_text unless the batch
 * lies in place. */
static gs_status run_add(gs_gpu *g, gs_gpu_slot *s, const gs_segment *seg, size_t k,
                         size_t bytes, gs_error *err)
{
    const size_t at0 = s->n_seg ? s->len + 1 : 0;
    size_t at;
    if (g->want_hits) {
        for (size_t j = 0; j < k; j++)
            if (gs_gpu_slot_add(g, s, &seg[j], &at, err) != GS_OK)
                return err->code;
    } else { /* whole segments: the batch's counts at once */
        s->n_seg += k;
        s->len += bytes;
        s->own = s->len;
    }
    if (s->src == NULL) {
        if (at0)
            s->h_text[at0 - 1] = SEPARATOR;
        gs_copy(s->h_text + at0, seg[0].text, s->len - at0, g->copy_threads);
    }
    return gs_gpu_slot_added(g, s, &seg[k - 1], err);
}

/* seg as a batch of its own, copied to the device from where it lies (a
 * caller's pinned buffer): approximate keys in place. */
static gs_status submit_alone_in_place(gs_gpu *g, const gs_segment *seg, gs_error *err)
{
    size_t at;
    if (gs_gpu_check_seg(g, seg, err) != GS_OK || seg->own == 0)
        return err->code;
    gs_gpu_slot *s = &g->slot[g->next];
    if (s->open && gpu_launch(g, s, err) != GS_OK)
        return err->code;
    s = &g->slot[g->next];
    if (slot_open(g, s, NULL, seg->text, err) != GS_OK ||
        gs_gpu_slot_add(g, s, seg, &at, err) != GS_OK)
        return err->code;
    return gpu_launch(g, s, err);
}

gs_status gs_gpu_submit_run(gs_gpu *g, const gs_segment *seg, size_t n, unsigned *ticket,
                            gs_error *err)
{
    if (ticket && (g->ks->alphabet != GS_ALPHA_DNA || g->seqcap))
        return gs_fail(err, GS_ESYS, "batches in place need dna keys and no --seq (gpu)");
    if (ticket && gs_gpu_copy_stream(g, err) != GS_OK)
        return err->code;
    for (size_t i = 0, k, bytes; i < n; i += k) {
        gs_gpu_slot *s = &g->slot[g->next];
        /* the open batch goes on where it is of the run's kind and, in
         * place, where the run follows it in the caller's buffer */
        int on = s->open && s->raw == NULL &&
                 (ticket ? s->src && seg[i].text == s->src + s->len + 1 : s->src == NULL);
        k = g->pack && on ? run_fits(g, s->n_seg, s->len, seg + i, n - i, &bytes) : 0;
        if (k == 0 && g->pack) {
            on = 0;
            k = run_fits(g, 0, 0, seg + i, n - i, &bytes);
        }
        if (k == 0 || (k == 1 && !ticket)) { /* alone, as gs_gpu_submit takes it */
            k = 1;
            if ((ticket && !g->pack ? submit_alone_in_place(g, &seg[i], err)
                                    : gs_gpu_submit(g, &seg[i], err)) != GS_OK)
                return err->code;
            continue;
        }
        if (!on) {
            if (s->open && gpu_launch(g, s, err) != GS_OK)
                return err->code;
            s = &g->slot[g->next];
            if (slot_open(g, s, NULL, ticket ? seg[i].text : NULL, err) != GS_OK)
                return err->code;
        }
        if (run_add(g, s, &seg[i], k, bytes, err) != GS_OK)
            return err->code;
    }
    if (ticket == NULL)
        return GS_OK;
    /* no batch stays open on the caller's buffer */
    gs_gpu_slot *open = &g->slot[g->next];
    if (open->open && open->src && gs_gpu_launch_open(g, err) != GS_OK)
        return err->code;
    return gs_gpu_fence(g, ticket, err);
}

gs_status gs_gpu_take_runs(gs_gpu *g, gs_hit_runs *runs, gs_error *err)
{
    std::lock_guard<std::mutex> hold(g->runs_lock);
    return g->runs.n ? gs_hit_runs_move(runs, &g->runs, err) : GS_OK;
}

gs_status gs_gpu_take_tally(gs_gpu *g, gs_tally *t, gs_error *err)
{
    std::lock_guard<std::mutex> hold(g->runs_lock);
    if (g->counter.n_touched && gs_tally_counter_flush(&g->counter, &g->tally, g->unit) != GS_OK)
        return gs_fail(err, GS_ESYS, "out of memory (tally of the GPU's hits)");
    return gs_tally_move(t, &g->tally, err);
}

gs_status gs_gpu_finish(gs_gpu *g, uint64_t *key_counts, gs_hit_runs *runs, gs_gpu_times *t,
                        gs_error *err)
{
    unsigned long long *h_counts = NULL;
    if (gs_gpu_launch_open(g, err) != GS_OK)
        goto fail;
    for (int i = 0; i < NSLOT; i++)
        if (gpu_retire(g, &g->slot[(g->next + i) % NSLOT], err) != GS_OK)
            goto fail;
    if (g->n_keys) {
        h_counts = (unsigned long long *)gs_malloc((size_t)g->n_keys * 8, err, "GPU counts");
        if (h_counts == NULL)
            goto fail;
        GS_CUDA_CHECK(cudaMemcpy(h_counts, g->d_counts, (size_t)g->n_keys * 8,
                                 cudaMemcpyDeviceToHost));
        GS_CUDA_CHECK(cudaMemset(g->d_counts, 0, (size_t)g->n_keys * 8));
        for (uint32_t k = 0; key_counts && k < g->n_keys; k++)
            key_counts[k] += h_counts[k];
    }
    if (runs != NULL && gs_hit_runs_move(runs, &g->runs, err) != GS_OK)
        goto fail;
    gs_hit_runs_free(&g->runs);
    if (t)
        *t = g->times;
    g->times = gs_gpu_times{};
    free(h_counts);
    return GS_OK;
fail:
    free(h_counts);
    return err->code;
}

