/* raw.cu - batches of raw FASTA bytes, parsed on the device.
 *
 * The host's reader of an indexed file copies every line into a buffer of
 * residues, checking each byte, and the feeding thread copies that buffer
 * again into pinned memory: three passes over every byte on the host, which
 * at 16 GiB was most of a whole job. Here the readers pread the file's own
 * bytes (line ends included) straight into pinned batch buffers; a batch
 * goes to the device as it is, and one kernel drops the line ends, writes
 * the residues where gs_gpu_submit would have put them (segments joined by
 * the separator) and checks every byte as the host reader does
 * (io/seq/fai_range.c). The host touches each byte once, in the kernel's
 * copy of pread.
 *
 * The copies run on a stream of their own, in order, and the slot's stream
 * waits for its batch's copy before the parse and the scan: so copies
 * follow one another while the previous batches are parsed and scanned, and
 * each gs_gpu_submit_raw ends with a fence that says when the caller's
 * buffer is free again. A fault the parse finds is reported when its batch
 * is retired, before any of the batch's results are taken.
 */
#include <algorithm>
#include <cinttypes>
#include <cstring>

#include "gpu_pipe.cuh"

extern "C" {
#include "core/gs_clock.h"
}

/* Each block parses TILE bytes of the packed text, THREADS at a time. */
enum { TILE = 4096, THREADS = 256 };

__device__ static inline void raw_fault(unsigned long long *bad, uint32_t seg, uint32_t r,
                                        int line_end)
{
    atomicMin(bad, (unsigned long long)seg << 33 | (unsigned long long)r << 1 | line_end);
}

/* text[0, total) of a batch from its raw bytes: segment s's residues at
 * text[d[s].out ..), the separator after each but the last. The first
 * fault in text order goes to *bad as (segment << 33 | residue << 1 |
 * line_end). */
__global__ void gs_raw_parse(const uint8_t *__restrict__ raw, const gs_raw_desc *__restrict__ d,
                             uint32_t n, uint32_t total, uint8_t *__restrict__ text,
                             unsigned long long *bad)
{
    __shared__ uint32_t first;
    const uint32_t t0 = blockIdx.x * TILE;
    if (threadIdx.x == 0) { /* the last segment that starts at or before t0 */
        uint32_t lo = 0, hi = n - 1;
        while (lo < hi) {
            uint32_t mid = (lo + hi + 1) / 2;
            if (d[mid].out <= t0)
                lo = mid;
            else
                hi = mid - 1;
        }
        first = lo;
    }
    __syncthreads();
    uint32_t s = first;
    gs_raw_desc e = d[s];
    const uint32_t stop = min(total, t0 + TILE);
    for (uint32_t o = t0 + threadIdx.x; o < stop; o += THREADS) {
        while (s + 1 < n && d[s + 1].out <= o)
            e = d[++s];
        const uint32_t r = o - e.out;
        if (r >= e.len) {
            text[o] = SEPARATOR;
            continue;
        }
        if (e.flags & RAW_LOOSE)
            continue; /* gs_raw_loose's */
        const uint32_t c = e.col + r, line = c / e.lb, x = c - line * e.lb;
        const unsigned long long b = e.at + (unsigned long long)line * e.lw + x - e.col;
        const uint8_t v = raw[b];
        text[o] = v;
        if (!(e.flags & RAW_CHECK))
            continue;
        if (v == '\n' || v == '\r' || v == ' ' || v == '\t' || (x == 0 && v == '>')) {
            raw_fault(bad, s, r, 0);
        } else if (x == e.lb - 1 && (r + 1 < e.len || (e.flags & RAW_TAIL))) {
            const uint32_t gap = e.lw - e.lb; /* '\n', after '\r' or blanks */
            for (uint32_t k = 1; k <= gap; k++) {
                const uint8_t ch = raw[b + k];
                if (k == gap ? ch != '\n' : ch != '\r' && ch != ' ' && ch != '\t') {
                    raw_fault(bad, s, r, 1);
                    break;
                }
            }
        }
    }
}

/* One loose text on one warp: every 32 bytes of src[0, span), the
 * residues among them (neither line end nor blank) written to out after
 * the ones before, found by a ballot; then the separator (where the batch
 * goes on). Returns the residues found, for the warp's lane 0 to check. */
__device__ static inline uint32_t loose_text(const uint8_t *__restrict__ src, uint32_t span,
                                             uint32_t len, uint8_t *__restrict__ out, int sep)
{
    const uint32_t lane = threadIdx.x % 32;
    uint32_t k = 0;
    for (uint32_t i = 0; i < span; i += 32) {
        const uint32_t j = i + lane;
        const uint8_t c = j < span ? src[j] : '\n';
        const int keep = !(c == '\n' || c == '\r' || c == ' ' || c == '\t');
        const unsigned m = __ballot_sync(0xFFFFFFFFu, keep);
        const uint32_t o = k + __popc(m & ((1u << lane) - 1));
        if (keep && o < len)
            out[o] = c;
        k += __popc(m);
    }
    if (lane == 0 && sep)
        out[len] = SEPARATOR;
    return k;
}

/* One text of 2-bit codes (core/gs_dna2.h) on one warp: its len residues
 * from src's (len + 3) / 4 bytes, four a lane at a time, written to out;
 * then the separator (where the batch goes on). */
__device__ static inline void code_text(const uint8_t *__restrict__ src, uint32_t len,
                                        uint8_t *__restrict__ out, int sep)
{
    const uint32_t lane = threadIdx.x % 32;
    for (uint32_t j = lane; j < (len + 3) / 4; j += 32) {
        const uint32_t b = src[j];
        for (uint32_t k = 0, r = 4 * j; k < 4 && r < len; k++, r++)
            out[r] = (uint8_t)(GS_DNA2_BASES >> 8 * (b >> 2 * k & 3));
    }
    if (lane == 0 && sep)
        out[len] = SEPARATOR;
}

/* The loose texts of a batch of descriptors (RAW_LOOSE), a warp each; a
 * count that is not the host's (parts_loose.c) goes to *bad as a fault. */
__global__ void gs_raw_loose(const uint8_t *__restrict__ raw, const gs_raw_desc *__restrict__ d,
                             uint32_t n, uint32_t total, uint8_t *__restrict__ text,
                             unsigned long long *bad)
{
    const uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (w >= n || !(d[w].flags & RAW_LOOSE))
        return;
    const gs_raw_desc e = d[w];
    const int sep = e.out + e.len < total;
    if (e.flags & RAW_CODES) {
        code_text(raw + e.at, e.len, text + e.out, sep);
        return;
    }
    const uint32_t k = loose_text(raw + e.at, e.lb, e.len, text + e.out, sep);
    if (threadIdx.x % 32 == 0 && k != e.len)
        raw_fault(bad, w, 0, 0);
}

/* A batch of a reader's table (gs_gpu_submit_laid), a warp an entry. */
__global__ void gs_raw_laid(const uint8_t *__restrict__ raw, const gs_laid *__restrict__ v,
                            uint32_t n, uint32_t at0, uint32_t out0, uint32_t total,
                            uint8_t *__restrict__ text, unsigned long long *bad)
{
    const uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (w >= n)
        return;
    const gs_laid e = v[w];
    const uint32_t out = e.out - out0;
    if (e.span == 0) {
        code_text(raw + (e.at - at0), e.len, text + out, out + e.len < total);
        return;
    }
    const uint32_t k = loose_text(raw + (e.at - at0), e.span, e.len, text + out,
                                  out + e.len < total);
    if (threadIdx.x % 32 == 0 && k != e.len)
        raw_fault(bad, w, 0, 0);
}

/* Grow pinned host memory to n elements of es bytes, keeping the first keep. */
static gs_status pinned_grow(void **p, size_t *cap, size_t n, size_t es, size_t keep,
                             gs_error *err)
{
    void *q = NULL;
    size_t c = 0;
    if (n <= *cap)
        return GS_OK;
    if (gs_gpu_reserve(&q, &c, std::max<size_t>(std::max<size_t>(n, 2 * *cap), 256), es, 1,
                       err) != GS_OK)
        return err->code;
    if (keep)
        memcpy(q, *p, keep * es);
    cudaFreeHost(*p);
    *p = q;
    *cap = c;
    return GS_OK;
}

gs_status gs_gpu_raw_copy(gs_gpu *g, gs_gpu_slot *s, gs_error *err)
{
    size_t cap = s->d_raw_cap;
    if (gs_gpu_reserve((void **)&s->d_raw, &cap, s->raw_bytes + 16, 1, 0, err) != GS_OK)
        return err->code;
    s->d_raw_cap = cap;
    if (s->laid) {
        cap = s->d_laid_cap;
        if (gs_gpu_reserve((void **)&s->d_laid, &cap, s->n_seg, sizeof *s->d_laid, 0, err) != GS_OK)
            return err->code;
        s->d_laid_cap = cap;
    } else {
        cap = s->d_desc_cap;
        if (gs_gpu_reserve((void **)&s->d_desc, &cap, s->n_seg, sizeof *s->d_desc, 0, err) != GS_OK)
            return err->code;
        s->d_desc_cap = cap;
    }
    if (s->h_bad == NULL) {
        GS_CUDA_CHECK(cudaMallocHost((void **)&s->h_bad, 8));
        GS_CUDA_CHECK(cudaMalloc((void **)&s->d_bad, 8));
    }
    GS_CUDA_CHECK(cudaEventRecord(s->t0, g->copy_st));
    GS_CUDA_CHECK(cudaMemcpyAsync(s->d_raw, s->raw, s->raw_bytes, cudaMemcpyHostToDevice,
                                  g->copy_st));
    if (s->laid)
        GS_CUDA_CHECK(cudaMemcpyAsync(s->d_laid, s->laid_src, s->n_seg * sizeof *s->d_laid,
                                      cudaMemcpyHostToDevice, g->copy_st));
    else
        GS_CUDA_CHECK(cudaMemcpyAsync(s->d_desc, s->h_desc, s->n_seg * sizeof *s->d_desc,
                                      cudaMemcpyHostToDevice, g->copy_st));
    GS_CUDA_CHECK(cudaEventRecord(s->t1, g->copy_st));
    GS_CUDA_CHECK(cudaStreamWaitEvent(s->st, s->t1, 0));
    GS_CUDA_CHECK(cudaMemsetAsync(s->d_bad, 0xFF, 8, s->st));
    if (s->laid) {
        gs_raw_laid<<<(unsigned)((s->n_seg * 32 + THREADS - 1) / THREADS), THREADS, 0, s->st>>>(
            s->d_raw, s->d_laid, (uint32_t)s->n_seg, s->laid_at0, s->laid_out0, (uint32_t)s->len,
            s->d_text, s->d_bad);
        GS_CUDA_LAUNCH_CHECK();
    } else if (s->n_loose < s->n_seg) {
        gs_raw_parse<<<(unsigned)((s->len + TILE - 1) / TILE), THREADS, 0, s->st>>>(
            s->d_raw, s->d_desc, (uint32_t)s->n_seg, (uint32_t)s->len, s->d_text, s->d_bad);
        GS_CUDA_LAUNCH_CHECK();
    }
    if (s->n_loose && !s->laid) {
        gs_raw_loose<<<(unsigned)((s->n_seg * 32 + THREADS - 1) / THREADS), THREADS, 0, s->st>>>(
            s->d_raw, s->d_desc, (uint32_t)s->n_seg, (uint32_t)s->len, s->d_text, s->d_bad);
        GS_CUDA_LAUNCH_CHECK();
    }
    GS_CUDA_CHECK(cudaMemcpyAsync(s->h_bad, s->d_bad, 8, cudaMemcpyDeviceToHost, s->st));
    s->raw = NULL; /* in the copy stream now: the fence says when it is free */
    s->raw_batch = 1;
    return GS_OK;
fail:
    return err->code;
}

gs_status gs_gpu_raw_check(gs_gpu_slot *s, gs_error *err)
{
    s->raw_batch = 0;
    if (*s->h_bad == ~0ull)
        return GS_OK;
    const unsigned long long bad = *s->h_bad;
    if (s->laid)
        return gs_fail(err, GS_ESYS, "the device's parse of a batch disagrees with its "
                       "reader's count (entry %llu)", bad >> 33);
    const gs_raw_where *w = &s->where[bad >> 33];
    if (s->h_desc[bad >> 33].flags & RAW_LOOSE)
        return gs_fail(err, GS_ESYS, "the device's parse of a part of %s disagrees with the "
                       "host's (record %" PRIu64 ")", w->path, w->base);
    return gs_raw_stale(err, w->record, w->path, w->base + (bad >> 1 & 0xFFFFFFFFu),
                        (int)(bad & 1));
}

void gs_gpu_raw_free(gs_gpu *g)
{
    if (g->copy_st) {
        cudaStreamSynchronize(g->copy_st);
        cudaStreamDestroy(g->copy_st);
    }
    for (cudaEvent_t e : g->fence)
        if (e)
            cudaEventDestroy(e);
    for (gs_gpu_slot &s : g->slot) {
        cudaFreeHost(s.h_desc);
        cudaFreeHost(s.h_laid);
        cudaFree(s.d_laid);
        cudaFreeHost(s.h_bad);
        cudaFree(s.d_desc);
        cudaFree(s.d_raw);
        cudaFree(s.d_bad);
        free(s.where);
    }
}

/* The descriptor of seg, just added to slot s at text offset at. */
static gs_status raw_describe(gs_gpu_slot *s, const gs_segment *seg, const gs_raw_text *raw,
                              size_t at, gs_error *err)
{
    const size_t i = s->n_seg - 1;
    if (pinned_grow((void **)&s->h_desc, &s->h_desc_cap, i + 1, sizeof *s->h_desc, i, err) !=
        GS_OK)
        return err->code;
    if (gs_grow(&s->where, &s->where_cap, i, sizeof *s->where, 256) != GS_OK)
        return gs_fail(err, GS_ESYS, "out of memory (GPU batch table)");
    const uint32_t len = (uint32_t)seg->len, parsed = raw->lb == 0;
    s->h_desc[i] = gs_raw_desc{(unsigned long long)(seg->text - s->raw), (uint32_t)at, len,
                               parsed ? len : raw->lb, parsed ? len : raw->lw,
                               parsed ? 0u : raw->col,
                               parsed ? 0u : RAW_CHECK | (raw->tail ? RAW_TAIL : 0)};
    s->where[i] = gs_raw_where{raw->record, raw->path, seg->base};
    s->raw_bytes = (size_t)(seg->text + raw->bytes - s->raw);
    return GS_OK;
}

/* Loose texts from seg[0] on into the open batch of slot s, which takes
 * seg[0]: as many as follow while they fit, in one loop (a 150 bp read
 * costs a few ns here, not a call chain of its own). Returns how many. */
static size_t loose_run(gs_gpu *g, gs_gpu_slot *s, const gs_segment *seg, const gs_raw_text *raw,
                        size_t n, gs_error *err)
{
    size_t k = 0, len = s->len, n_seg = s->n_seg;
    for (; k < n && raw[k].span && seg[k].own == seg[k].len && seg[k].len <= g->block &&
           n_seg + k < BATCH_SEGS;
         k++) {
        const size_t at = len + (n_seg + k > 0);
        if (at + seg[k].len > g->text_cap)
            break;
        len = at + seg[k].len;
    }
    if (k == 0 ||
        pinned_grow((void **)&s->h_desc, &s->h_desc_cap, n_seg + k, sizeof *s->h_desc, n_seg,
                    err) != GS_OK)
        return 0;
    if ((n_seg + k > s->where_cap &&
         gs_grow(&s->where, &s->where_cap, n_seg + k - 1, sizeof *s->where, 256) != GS_OK) ||
        (g->want_hits && n_seg + k > s->seg_cap &&
         gs_grow(&s->segs, &s->seg_cap, n_seg + k - 1, sizeof *s->segs, 64) != GS_OK)) {
        gs_fail(err, GS_ESYS, "out of memory (GPU batch table)");
        return 0;
    }
    for (size_t j = 0; j < k; j++) {
        const gs_segment *x = &seg[j];
        const size_t at = s->len + (s->n_seg > 0), i = s->n_seg;
        s->h_desc[i] = gs_raw_desc{(unsigned long long)(x->text - s->raw), (uint32_t)at,
                                   (uint32_t)x->len, (uint32_t)raw[j].span, 0u, 0u,
                                   RAW_LOOSE | (raw[j].codes ? RAW_CODES : 0u)};
        s->where[i] = gs_raw_where{NULL, raw[j].path, x->record};
        if (g->want_hits)
            s->segs[i] = gs_run_seg{x->base, (uint32_t)at, gs_run_owner(x, g->by_file),
                                    (uint32_t)x->own, 0u};
        s->n_seg++;
        s->len = at + x->len;
    }
    s->own = s->len;
    s->n_loose += k;
    s->raw_bytes = (size_t)(seg[k - 1].text + raw[k - 1].span - s->raw);
    return k;
}

gs_status gs_gpu_submit_raw(gs_gpu *g, const gs_segment *seg, const gs_raw_text *raw, size_t n,
                            unsigned *ticket, gs_error *err)
{
    if (!g->pack || g->seqcap)
        return gs_fail(err, GS_ESYS, "raw FASTA bytes need exact dna keys and no --seq (gpu)");
    if (gs_gpu_copy_stream(g, err) != GS_OK)
        return err->code;
    for (size_t i = 0, k; i < n; i += k) {
        gs_gpu_slot *s;
        size_t at;
        k = 1;
        if (gs_gpu_check_seg(g, &seg[i], err) != GS_OK)
            return err->code;
        if (seg[i].own == 0)
            continue;
        if (gs_gpu_slot_for(g, &seg[i], seg[i].text, &s, err) != GS_OK)
            return err->code;
        if (raw[i].span) {
            if ((k = loose_run(g, s, &seg[i], &raw[i], n - i, err)) == 0)
                return err->code ? err->code
                                 : gs_fail(err, GS_ESYS, "a loose text does not fit a batch (gpu)");
            if (gs_gpu_slot_added(g, s, &seg[i + k - 1], err) != GS_OK)
                return err->code;
            continue;
        }
        if (gs_gpu_slot_add(g, s, &seg[i], &at, err) != GS_OK ||
            raw_describe(s, &seg[i], &raw[i], at, err) != GS_OK ||
            gs_gpu_slot_added(g, s, &seg[i], err) != GS_OK)
            return err->code;
    }
    /* no batch stays open on the caller's buffer */
    gs_gpu_slot *open = &g->slot[g->next];
    if (open->open && open->raw && gs_gpu_launch_open(g, err) != GS_OK)
        return err->code;
    return gs_gpu_fence(g, ticket, err);
}

gs_status gs_gpu_submit_laid(gs_gpu *g, const uint8_t *buf, const gs_laid *v, int v_pinned,
                             gs_run_seg **hit, size_t *hit_cap, size_t n, unsigned *ticket,
                             gs_error *err)
{
    if (!g->pack || g->seqcap || (g->want_hits && (hit == NULL || *hit == NULL)))
        return gs_fail(err, GS_ESYS, "a reader's table needs exact dna keys, no --seq and, "
                       "with hits, their segments (gpu)");
    if (gs_gpu_copy_stream(g, err) != GS_OK)
        return err->code;
    for (size_t i = 0, j; i < n; i = j) {
        /* entries i .. j - 1: the most whose texts fit a batch */
        const uint64_t out0 = v[i].out;
        size_t lo = i + 1, hi = n;
        if (v[i].len > g->text_cap)
            return gs_fail(err, GS_ESYS, "a text of %u residues exceeds the GPU block (gpu)",
                           v[i].len);
        while (lo < hi) {
            const size_t mid = lo + (hi - lo + 1) / 2;
            if (v[mid - 1].out + (uint64_t)v[mid - 1].len - out0 <= g->text_cap)
                lo = mid;
            else
                hi = mid - 1;
        }
        j = lo;
        gs_gpu_slot *s;
        if (gs_gpu_slot_fresh(g, buf + v[i].at, &s, err) != GS_OK ||
            (!v_pinned && pinned_grow((void **)&s->h_laid, &s->h_laid_cap, j - i,
                                      sizeof *s->h_laid, 0, err) != GS_OK))
            return err->code;
        const double t0 = gs_now();
        if (v_pinned) {
            s->laid_src = v + i;
        } else {
            memcpy(s->h_laid, v + i, (j - i) * sizeof *v);
            s->laid_src = s->h_laid;
        }
        if (g->want_hits && i == 0 && j == n && out0 == 0) { /* the caller's, as it is */
            std::swap(s->segs, *hit);
            std::swap(s->seg_cap, *hit_cap);
        } else if (g->want_hits) { /* whose hits: offsets from the batch's first text */
            if (gs_grow(&s->segs, &s->seg_cap, j - i - 1, sizeof *s->segs, 64) != GS_OK)
                return gs_fail(err, GS_ESYS, "out of memory (GPU batch table)");
            for (size_t k = i; k < j; k++) {
                s->segs[k - i] = (*hit)[k];
                s->segs[k - i].off -= out0;
            }
        }
        g->times.tables += gs_now() - t0;
        s->laid = 1;
        s->laid_at0 = v[i].at;
        s->laid_out0 = v[i].out;
        s->n_seg = s->n_loose = j - i;
        s->len = s->own = (size_t)(v[j - 1].out + (uint64_t)v[j - 1].len - out0);
        s->raw_bytes = (size_t)(v[j - 1].at + gs_laid_bytes(&v[j - 1]) - v[i].at);
        if (gs_gpu_launch_open(g, err) != GS_OK)
            return err->code;
    }
    return gs_gpu_fence(g, ticket, err);
}
