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
#include <cstring>

#include "gpu_pipe.cuh"

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
    cap = s->d_desc_cap;
    if (gs_gpu_reserve((void **)&s->d_desc, &cap, s->n_seg, sizeof *s->d_desc, 0, err) != GS_OK)
        return err->code;
    s->d_desc_cap = cap;
    if (s->h_bad == NULL) {
        GS_CUDA_CHECK(cudaMallocHost((void **)&s->h_bad, 8));
        GS_CUDA_CHECK(cudaMalloc((void **)&s->d_bad, 8));
    }
    GS_CUDA_CHECK(cudaEventRecord(s->t0, g->copy_st));
    GS_CUDA_CHECK(cudaMemcpyAsync(s->d_raw, s->raw, s->raw_bytes, cudaMemcpyHostToDevice,
                                  g->copy_st));
    GS_CUDA_CHECK(cudaMemcpyAsync(s->d_desc, s->h_desc, s->n_seg * sizeof *s->d_desc,
                                  cudaMemcpyHostToDevice, g->copy_st));
    GS_CUDA_CHECK(cudaEventRecord(s->t1, g->copy_st));
    GS_CUDA_CHECK(cudaStreamWaitEvent(s->st, s->t1, 0));
    GS_CUDA_CHECK(cudaMemsetAsync(s->d_bad, 0xFF, 8, s->st));
    gs_raw_parse<<<(unsigned)((s->len + TILE - 1) / TILE), THREADS, 0, s->st>>>(
        s->d_raw, s->d_desc, (uint32_t)s->n_seg, (uint32_t)s->len, s->d_text, s->d_bad);
    GS_CUDA_LAUNCH_CHECK();
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
    const gs_raw_where *w = &s->where[bad >> 33];
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

gs_status gs_gpu_submit_raw(gs_gpu *g, const gs_segment *seg, const gs_raw_text *raw, size_t n,
                            unsigned *ticket, gs_error *err)
{
    if (!g->pack || g->seqcap)
        return gs_fail(err, GS_ESYS, "raw FASTA bytes need exact dna keys and no --seq (gpu)");
    if (gs_gpu_copy_stream(g, err) != GS_OK)
        return err->code;
    for (size_t i = 0; i < n; i++) {
        gs_gpu_slot *s;
        size_t at;
        if (gs_gpu_check_seg(g, &seg[i], err) != GS_OK)
            return err->code;
        if (seg[i].own == 0)
            continue;
        if (gs_gpu_slot_for(g, &seg[i], seg[i].text, &s, err) != GS_OK)
            return err->code;
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
