/* pipeline.c - read -> match -> collect for one rank (the GPU feeder is
 * pipeline_gpu.c; what both share, pipeline_internal.h).
 *
 * Readers (the calling thread, plus one thread per further source) read
 * segments into a pool of batch buffers (each up to two blocks; short
 * records are packed many to a batch) and hand them on through a queue.
 * Memory stays bounded by the pool whatever the corpus size. CPU: threads +
 * 1 + readers buffers, worker threads match; each worker owns its key counts
 * and hits, so the hot path takes no lock. A worker sorts each segment's
 * hits as packed 64-bit keys (radix, in cache-sized pieces, on all workers
 * at once) and keeps them as a run of 8 bytes a hit; at the end the runs,
 * ordered by segment, are the rank's sorted hits and are expanded into it
 * on all threads, so no sort of the whole set is left. GPU: 2 + readers buffers and one
 * feeding thread that opens the GPU and submits them in the order they
 * come; the GPU pipeline overlaps copies and kernels itself, and hands back
 * each batch's hits as the same kind of run (sorted on the device), so the
 * feeder never touches a hit record and both paths end in one expansion
 * (gs_hit_runs_expand).
 */
#define _POSIX_C_SOURCE 200809L
#include "pipeline_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/gs_hitkey.h"
#include "core/gs_hitsort.h"
#include "core/gs_parallel.h"
#include "gpu/gpu.h"

void gs_pipe_push(pool *p, queue *q, int v)
{
    pthread_mutex_lock(&p->mu);
    q->v[(q->head + q->n) % q->cap] = v;
    q->n++;
    pthread_cond_signal(&q->cond);
    pthread_mutex_unlock(&p->mu);
}

/* -1 when the queue is closed and empty. */
int gs_pipe_pop(pool *p, queue *q)
{
    pthread_mutex_lock(&p->mu);
    while (q->n == 0 && !q->closed)
        pthread_cond_wait(&q->cond, &p->mu);
    int v = -1;
    if (q->n) {
        v = q->v[q->head];
        q->head = (q->head + 1) % q->cap;
        q->n--;
    }
    pthread_mutex_unlock(&p->mu);
    return v;
}

static void q_close(pool *p, queue *q)
{
    pthread_mutex_lock(&p->mu);
    q->closed = 1;
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&p->mu);
}

static int bits_of(uint64_t v)
{
    int b = 0;
    while (v >> b)
        b++;
    return b;
}

/* Whether x is a hit of this segment, and the text it spans. Approximate
 * hits ending before the span belong to the previous segment of the record
 * when there is one (engine.h). Where the text runs on round a circular
 * record (seg->turn), a hit starts before the turn and spans at most one:
 * an approximate hit starting past it is the one at its start less the
 * turn, which the record's first segment owns. */
static inline int kept(const gs_keyset *ks, const gs_segment *seg, const gs_keyhit *x,
                       uint32_t *len)
{
    if (ks->mode == GS_MATCH_EXACT) {
        *len = gs_key_len(ks, x->key);
        return !seg->turn || *len <= seg->turn;
    }
    *len = x->len;
    if (seg->turn && (seg->base + x->pos >= seg->turn || x->len > seg->turn))
        return 0;
    return !(seg->base > 0 && x->pos + x->len < ks->span);
}

/* The segment's hits as one run of packed keys, radix-sorted here (on all
 * workers at once, in cache-sized pieces); a segment whose fields do not
 * fit 64 bits keeps its hits as records, sorted the slow way. GS_ESYS when
 * out of memory (the worker reports it once it is joined). */
static gs_status emit_hits(const gs_scan_cfg *cfg, const gs_segment *seg, const gs_keyhits *kh,
                           worker *w)
{
    const gs_keyset *ks = cfg->ks;
    const int want_seq = cfg->want_seq;
    const uint32_t owner = gs_run_owner(seg, cfg->tally_files);
    gs_error unused = {0};
    size_t n = 0;
    uint64_t max_pos = 0, max_len = 0, max_dist = 0;
    for (size_t i = 0; i < kh->n; i++) {
        const gs_keyhit *x = &kh->v[i];
        uint32_t len;
        if (!kept(ks, seg, x, &len))
            continue;
        n += ks->out_off[x->key + 1] - ks->out_off[x->key];
        max_pos = x->pos > max_pos ? x->pos : max_pos;
        max_len = len > max_len ? len : max_len;
        max_dist = x->dist > max_dist ? x->dist : max_dist;
    }
    if (n == 0)
        return GS_OK;
    gs_hit_run r = {.n = n, .first = {.base = seg->base, .record = owner}};
    r.lay.b_dist = (uint8_t)bits_of(max_dist);
    r.lay.b_len = (uint8_t)bits_of(max_len);
    r.lay.b_pat = (uint8_t)bits_of(ks->n_patterns ? ks->n_patterns - 1 : 0);
    const int s_pos = gs_hitkey_s_pos(r.lay), bits = s_pos + bits_of(max_pos);
    if (bits > 64 || s_pos > 63) {
        if ((r.hits = malloc(n * sizeof *r.hits)) == NULL)
            return GS_ESYS;
    } else {
        if (n > w->tmp_cap) {
            free(w->tmp);
            w->tmp = malloc(n * sizeof *w->tmp);
            w->tmp_cap = w->tmp ? n : 0;
        }
        if (w->tmp_cap == 0 || (r.keys = malloc(n * sizeof *r.keys)) == NULL)
            return GS_ESYS;
    }
    size_t o = 0;
    for (size_t i = 0; i < kh->n; i++) {
        const gs_keyhit *x = &kh->v[i];
        uint32_t len;
        if (!kept(ks, seg, x, &len))
            continue;
        if (want_seq && gs_seqcap_add(&w->seq, seg->record, seg->base + x->pos, seg->text + x->pos,
                                      len) != GS_OK)
            goto fail;
        for (uint32_t j = ks->out_off[x->key]; j < ks->out_off[x->key + 1]; j++) {
            uint32_t out = ks->outputs[j]; /* pattern * 2 + strand */
            if (r.hits)
                r.hits[o++] = (gs_hit){.start = seg->base + x->pos, .end = seg->base + x->pos + len,
                                       .record = owner, .pattern = out >> 1,
                                       .strand = (out & 1) ? -1 : 1, .distance = x->dist};
            else
                r.keys[o++] = gs_hitkey_pack(r.lay, x->pos, out, len, x->dist);
        }
    }
    if (r.hits)
        qsort(r.hits, n, sizeof *r.hits, gs_hit_cmp);
    else
        gs_radix_sort_u64(r.keys, w->tmp, n, bits); /* in place, in the run itself */
    if (gs_hit_runs_push(&w->runs, &r, &unused) == GS_OK)
        return GS_OK;
fail:
    free(r.keys);
    free(r.hits);
    return GS_ESYS;
}

int gs_pipe_debug_time(const gs_scan_cfg *cfg)
{
    return cfg->tune && (cfg->tune->debug & GS_DEBUG_TIME);
}

/* The rank's hits from its runs, on as many threads as scanned. Segments
 * own disjoint ranges of starts, so ordered by segment the runs are the
 * sorted whole (but for the few rows approximate neighbours share), and
 * each run is expanded straight into its place. With tally_runs, the runs'
 * per-record tally instead (per file with tally_files, where a GPU's rows
 * come by file in any order: they are put in order by a counting sort). */
gs_status gs_pipe_collect_hits(const gs_scan_cfg *cfg, gs_hit_runs *runs, gs_tally *landed,
                               int threads, gs_scan_res *res, gs_error *err)
{
    double t0 = gs_now();
    size_t n_runs = runs->n, n_hits = runs->n_hits, n_landed = landed ? landed->n : 0;
    gs_status st = cfg->tally_runs
                       ? gs_tally_add_runs(&res->tally, runs, cfg->ks->n_patterns, threads, err)
                       : gs_hit_runs_expand(runs, threads, &res->hits, err);
    if (st == GS_OK && landed && landed->n > 0 &&
        (st = gs_tally_move(&res->tally, landed, err)) == GS_OK)
        st = gs_tally_remap(&res->tally, NULL, err);
    res->t_hits = gs_now() - t0;
    if (gs_pipe_debug_time(cfg)) /* the part of the scan phase the records take */
        fprintf(stderr, "gscan: hits: %zu from %zu runs %s, %zu rows tallied as they landed "
                "combined, in %.3f s on up to %d threads\n", n_hits, n_runs,
                cfg->tally_runs ? "tallied" : "expanded", n_landed, res->t_hits, threads);
    return st;
}

/* A worker whose runs reached its share of the hit budget writes them,
 * sorted, as one spilled run and starts again empty. GS_ESYS with
 * w->spill_err set when the run cannot be written. */
static gs_status spill_if_full(const gs_scan_cfg *cfg, worker *w)
{
    int nt = cfg->threads > 0 ? cfg->threads : 1;
    if (cfg->spill == NULL || w->runs.n_hits * GS_HIT_HELD_BYTES < cfg->hit_budget / (size_t)nt)
        return GS_OK;
    gs_hits h = {0};
    if (gs_hit_runs_expand(&w->runs, 1, &h, &w->spill_err) == GS_OK)
        gs_spill_run(cfg->spill, h.v, h.n, &w->spill_err);
    gs_hits_free(&h);
    return w->spill_err.code;
}

/* Scan one segment on the CPU into w's key counts and, with want_hits, its
 * runs. On a circular record shorter than a key the hits are taken
 * whatever is asked, and the exact ones that kept() drops are uncounted.
 * GS_ESYS when out of memory. */
gs_status gs_pipe_scan_segment(const gs_scan_cfg *cfg, const void *compiled, const gs_segment *seg,
                              worker *w)
{
    const gs_keyset *ks = cfg->ks;
    const int uncount = ks->mode == GS_MATCH_EXACT && gs_pipe_short_turn(ks, seg);
    gs_match_out out = {.key_counts = w->key_counts,
                        .hits = cfg->want_hits || uncount ? &w->kh : NULL, .oom = 0};
    w->kh.n = 0;
    cfg->engine->scan(compiled, seg->text, seg->len, seg->own, &out);
    if (out.oom)
        return GS_ESYS;
    for (size_t i = 0; uncount && i < w->kh.n; i++)
        if (gs_key_len(ks, w->kh.v[i].key) > seg->turn)
            w->key_counts[w->kh.v[i].key]--;
    if (!cfg->want_hits || emit_hits(cfg, seg, &w->kh, w) != GS_OK)
        return cfg->want_hits ? GS_ESYS : GS_OK;
    return spill_if_full(cfg, w);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    pool *p = w->p;
    const gs_scan_cfg *cfg = p->cfg;
    for (;;) {
        int s = gs_pipe_pop(p, &p->filled);
        if (s < 0)
            break;
        slot *sl = &p->slots[s];
        for (size_t i = 0; i < sl->n && !w->oom; i++)
            if (gs_pipe_scan_segment(cfg, p->compiled, &sl->seg[i], w) != GS_OK) {
                w->oom = 1;
                atomic_store(&p->stop, 1);
            }
        gs_pipe_push(p, &p->free_q, s);
    }
    return NULL;
}

/* Buffers and queues for n_slots batches, all in free_q. */
gs_status gs_pipe_pool_init(pool *p, const gs_scan_cfg *cfg, int n_slots, gs_error *err)
{
    *p = (pool){.cfg = cfg, .n_slots = n_slots};
    p->slots = gs_calloc((size_t)n_slots, sizeof *p->slots, err, "scan buffers");
    p->filled.v = gs_calloc((size_t)n_slots, sizeof(int), err, "scan queue");
    p->free_q.v = gs_calloc((size_t)n_slots, sizeof(int), err, "scan queue");
    if (!p->slots || !p->filled.v || !p->free_q.v)
        return GS_ESYS;
    p->filled.cap = p->free_q.cap = n_slots;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->filled.cond, NULL);
    pthread_cond_init(&p->free_q.cond, NULL);
    pthread_cond_init(&p->helper_done, NULL);
    p->sync = 1;
    for (int i = 0; i < n_slots; i++) {
        if ((p->slots[i].buf = gs_malloc(gs_pipe_buf_bytes(cfg), err, "scan block")) == NULL)
            return GS_ESYS;
        p->free_q.v[p->free_q.n++] = i;
    }
    return GS_OK;
}

void gs_pipe_pool_free(pool *p)
{
    for (int i = 0; p->slots && i < p->n_slots; i++) {
        free(p->slots[i].buf);
        free(p->slots[i].seg);
        free(p->slots[i].raw);
        free(p->slots[i].laid);
        free(p->slots[i].laid_hit);
    }
    if (p->sync) {
        pthread_cond_destroy(&p->filled.cond);
        pthread_cond_destroy(&p->free_q.cond);
        pthread_cond_destroy(&p->helper_done);
        pthread_mutex_destroy(&p->mu);
    }
    free(p->slots);
    free(p->filled.v);
    free(p->free_q.v);
}

/* One reading thread: its source, what it read, how it ended. */
typedef struct reader {
    pool *p;
    gs_source *src;
    int first; /* the calling thread's: reports progress */
    uint64_t residues;
    double t_read;
    double t_free; /* --debug time: waiting for a free batch */
    gs_status st;
    gs_error err;
    gs_task task;
} reader;

/* The device's entry for segment n of sl, just read (x, t; pool->raw): a
 * whole segment whose text is residues, or a loose text, and with hits
 * whose hits it holds. 0 when it is neither: that segment and the batch's
 * later ones go to the submits that take a segment at a time. */
static int lay(const gs_scan_cfg *cfg, slot *sl, size_t n, const gs_segment *x,
               const gs_raw_text *t)
{
    const int hits = cfg->want_hits;
    const size_t span = t->codes ? 0 : t->span ? t->span : x->len;
    sl->laid_ok = sl->laid_ok && x->own == x->len && x->turn == 0 && (t->span || t->lb == 0) &&
                  sl->laid_out + x->len < UINT32_MAX &&
                  gs_grow(&sl->laid, &sl->laid_cap, n, sizeof *sl->laid, 1024) == GS_OK &&
                  (!hits || gs_grow(&sl->laid_hit, &sl->hit_cap, n, sizeof *sl->laid_hit,
                                    1024) == GS_OK);
    if (sl->laid_ok) {
        sl->laid[n] = (gs_laid){(uint32_t)(x->text - sl->buf), (uint32_t)sl->laid_out,
                                    (uint32_t)x->len, (uint32_t)span};
        if (hits)
            sl->laid_hit[n] = (gs_run_seg){x->base, (uint32_t)sl->laid_out,
                                           gs_run_owner(x, cfg->tally_files), (uint32_t)x->own, 0};
    }
    sl->laid_out += x->len + 1;
    return sl->laid_ok;
}

/* Entries a table grows by at least for a run (lay_run). */
enum { RUN = 4096 };

/* The source's next segments laid a run at a time (gs_source.next_run)
 * into sl's tables from sl->buf + used on: run->n of them, 0 where the
 * source gives the next one itself (or the batch is full: run->full). */
static gs_status lay_run(const pool *p, slot *sl, reader *r, size_t used, gs_laid_run *run)
{
    const gs_scan_cfg *cfg = p->cfg;
    const size_t n = sl->n, fit = cfg->block + cfg->overlap;
    if (gs_grow(&sl->laid, &sl->laid_cap, n + RUN, sizeof *sl->laid, 1024) != GS_OK ||
        (cfg->want_hits &&
         gs_grow(&sl->laid_hit, &sl->hit_cap, n + RUN, sizeof *sl->laid_hit, 1024) != GS_OK))
        return r->st = gs_fail(&r->err, GS_ESYS, "out of memory (segment table)");
    const size_t cap = cfg->want_hits && sl->hit_cap < sl->laid_cap ? sl->hit_cap : sl->laid_cap;
    *run = (gs_laid_run){.v = sl->laid + n, .max = cap - n, .at0 = (uint32_t)used,
                         .out0 = (uint32_t)sl->laid_out, .bytes_below = cfg->block - used,
                         .out_cap = fit < UINT32_MAX ? fit : UINT32_MAX - 1};
    if ((r->st = r->src->next_run(r->src->ctx, sl->buf + used, run, &r->err)) != GS_OK ||
        run->n == 0)
        return r->st;
    for (size_t k = 0; cfg->want_hits && k < run->n; k++) { /* whole segments, as lay() */
        const gs_segment x = {.record = run->record + (uint32_t)k, .file = run->file};
        sl->laid_hit[n + k] = (gs_run_seg){0, run->v[k].out, gs_run_owner(&x, cfg->tally_files),
                                           run->v[k].len, 0};
    }
    const gs_laid *last = &run->v[run->n - 1];
    sl->laid_out = (uint64_t)last->out + last->len + 1;
    sl->n += run->n;
    sl->n_laid = sl->n;
    return GS_OK;
}

/* Room for segment n in sl's tables of segments. */
static gs_status seg_room(const pool *p, slot *sl, size_t n, reader *r)
{
    if (gs_grow(&sl->seg, &sl->cap, n, sizeof *sl->seg, 64) != GS_OK ||
        (p->raw && gs_grow(&sl->raw, &sl->raw_cap, n, sizeof *sl->raw, 64) != GS_OK))
        return r->st = gs_fail(&r->err, GS_ESYS, "out of memory (segment table)");
    return GS_OK;
}

/* A buffer the device's feeder will pin: its pages made by the reader that
 * first takes it, where the readers have time to spare (pinning pages never
 * touched makes them on the feeding thread, and a batch of reads as 2-bit
 * codes touches a quarter of its buffer). */
static void touch(const pool *p, slot *sl)
{
    if (!p->pin || sl->touched)
        return;
    const size_t n = gs_pipe_buf_bytes(p->cfg);
    for (size_t i = 0; i < n; i += 4096)
        sl->buf[i] = 0;
    sl->touched = 1;
}

/* A laid table copied into the batch's buffer past its bytes, where it fits,
 * so that it goes to the device from there once the buffer is pinned: the
 * feeding thread then copies nothing (the copy was most of what it did for
 * a batch of 10^5 reads beyond the calls themselves). */
static void table_in_buffer(const pool *p, slot *sl, size_t used)
{
    const size_t at = (used + 15) / 16 * 16, n = sl->n_laid * sizeof *sl->laid;
    sl->laid_buf = NULL;
    if (!p->pin || sl->n_laid == 0 || at + n > gs_pipe_buf_bytes(p->cfg))
        return;
    sl->laid_buf = (gs_laid *)(sl->buf + at);
    memcpy(sl->laid_buf, sl->laid, n);
}

/* Fill a batch while another whole segment still fits after a block's
 * worth of residues (at most two blocks a batch), queue it on filled, and
 * stop at the end of the source, on a read error (which stops the other
 * readers too), or once a consumer has set p->stop. */
static void *reader_main(void *arg)
{
    reader *r = arg;
    pool *p = r->p;
    const gs_scan_cfg *cfg = p->cfg;
    r->st = GS_OK;
    for (int more = 1; more && !atomic_load(&p->stop);) {
        const double t_pop = gs_now();
        int s = gs_pipe_pop(p, &p->free_q);
        r->t_free += gs_now() - t_pop;
        slot *sl = &p->slots[s];
        size_t used = 0, cap = gs_pipe_buf_bytes(cfg);
        sl->n = sl->n_laid = 0;
        sl->laid_out = 0;
        sl->laid_ok = p->raw && !(cfg->tune && cfg->tune->gpu_laid < 0);
        /* timed per batch, not per segment: a batch of 500-residue records
         * would spend a noticeable share of its time reading the clock */
        double t0 = gs_now();
        touch(p, sl);
        uint64_t got = 0; /* owned residues of the batch: one atomic add a batch, not a
                           * segment (12 readers of 150 bp reads contend for it) */
        while (used < cfg->block) {
            if (sl->laid_ok && r->src->next_run) { /* a run of loose texts */
                gs_laid_run run;
                if (lay_run(p, sl, r, used, &run) != GS_OK) {
                    more = 0;
                    break;
                }
                used += run.bytes;
                got += run.residues;
                if (run.full || cap - used < cfg->block + cfg->overlap)
                    break;
                if (run.n)
                    continue;
            }
            /* while the batch is laid, a segment is read into one and
             * laid; the first that is not goes into the tables with the
             * batch's later ones */
            gs_segment one;
            gs_raw_text one_raw;
            const int laid = sl->laid_ok;
            if (!laid && seg_room(p, sl, sl->n, r) != GS_OK)
                break;
            gs_segment *x = laid ? &one : &sl->seg[sl->n];
            gs_raw_text *t = laid ? &one_raw : p->raw ? &sl->raw[sl->n] : NULL;
            r->st = p->raw ? r->src->next_raw(r->src->ctx, sl->buf + used, cap - used, x, t,
                                              &more, &r->err)
                           : r->src->next(r->src->ctx, sl->buf + used, x, &more, &r->err);
            if (r->st != GS_OK || !more) {
                more = 0;
                break;
            }
            if (laid && !lay(cfg, sl, sl->n, x, t)) {
                if (seg_room(p, sl, sl->n, r) != GS_OK)
                    break;
                sl->seg[sl->n] = one;
                sl->raw[sl->n] = one_raw;
            }
            used += p->raw ? t->bytes : x->len;
            if (p->sep)
                sl->buf[used++] = (uint8_t)p->sep;
            got += x->own;
            sl->n_laid = sl->laid_ok ? sl->n + 1 : sl->n_laid;
            sl->n++;
            if (cap - used < cfg->block + cfg->overlap + (p->sep != 0))
                break;
            /* a laid table stops where the next text, as long as this one,
             * would not fit the device's batch after the others: one batch
             * takes the table as it is (packed reads are about a residue a
             * byte, and a few read past the batch made a second, tiny one) */
            if (sl->laid_ok && sl->laid_out + x->len > cfg->block + cfg->overlap)
                break;
        }
        table_in_buffer(p, sl, used);
        r->residues += got;
        atomic_fetch_add(&p->residues, got);
        r->t_read += gs_now() - t0;
        if (r->st != GS_OK) {
            atomic_store(&p->stop, 1);
            gs_pipe_push(p, &p->free_q, s);
            break;
        }
        if (r->first && cfg->progress)
            cfg->progress(cfg->progress_ctx, atomic_load(&p->residues));
        gs_pipe_push(p, sl->n ? &p->filled : &p->free_q, s);
    }
    return NULL;
}

static void *helper_main(void *arg)
{
    reader *r = arg;
    reader_main(r);
    pthread_mutex_lock(&r->p->mu);
    r->p->helpers--;
    pthread_cond_signal(&r->p->helper_done);
    pthread_mutex_unlock(&r->p->mu);
    return NULL;
}

/* The reading side of both paths: one reader per source, the first on the
 * calling thread (the only one that may make MPI calls, which only a
 * single source needs) and the others on threads of their own; filled is
 * closed once all are done. The first error in source order is returned;
 * t_read is the longest any reader spent in its source. */
gs_status gs_pipe_read_all(pool *p, gs_source *src, int n_src, gs_scan_res *res, gs_error *err)
{
    gs_status st = GS_OK;
    int started = 1;
    reader *rd = gs_calloc((size_t)n_src, sizeof *rd, err, "reading threads");
    if (rd == NULL) {
        q_close(p, &p->filled);
        return GS_ESYS;
    }
    for (int i = 0; i < n_src; i++)
        rd[i] = (reader){.p = p, .src = &src[i], .first = i == 0};
    for (; started < n_src; started++) {
        pthread_mutex_lock(&p->mu);
        p->helpers++;
        pthread_mutex_unlock(&p->mu);
        if (gs_task_spawn(&rd[started].task, helper_main, &rd[started]) != GS_OK) {
            char what[64];
            snprintf(what, sizeof what, "reading thread %d of %d", started + 1, n_src);
            st = gs_fail_spawn(err, what, NULL);
            atomic_store(&p->stop, 1);
            pthread_mutex_lock(&p->mu);
            p->helpers--;
            pthread_mutex_unlock(&p->mu);
            break;
        }
    }
    reader_main(&rd[0]);
    /* keep the progress going while the other readers finish */
    pthread_mutex_lock(&p->mu);
    while (p->helpers > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 200000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&p->helper_done, &p->mu, &ts);
        if (p->cfg->progress) {
            pthread_mutex_unlock(&p->mu);
            p->cfg->progress(p->cfg->progress_ctx, atomic_load(&p->residues));
            pthread_mutex_lock(&p->mu);
        }
    }
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < started; i++)
        gs_task_join(&rd[i].task);
    q_close(p, &p->filled);
    double fill = 0, wait = 0;
    for (int i = 0; i < started; i++) {
        fill += rd[i].t_read;
        wait += rd[i].t_free;
        res->residues += rd[i].residues;
        res->t_read = rd[i].t_read > res->t_read ? rd[i].t_read : res->t_read;
        if (st == GS_OK && rd[i].st != GS_OK) {
            *err = rd[i].err;
            st = rd[i].st;
        }
    }
    if (gs_pipe_debug_time(p->cfg)) /* docs/performance.md */
        fprintf(stderr, "gscan: readers: %d, %.3f s filling batches and %.3f s waiting for a "
                "free one (summed), the longest %.3f s\n", started, fill, wait, res->t_read);
    free(rd);
    return st;
}

static gs_status run_cpu(const gs_scan_cfg *cfg, gs_source *src, int n_src, gs_scan_res *res,
                        gs_error *err)
{
    gs_status st;
    int nt = cfg->threads > 0 ? cfg->threads : 1;
    pool p;
    worker *w = gs_calloc((size_t)nt, sizeof *w, err, "scan workers");
    int started = 0;
    void *compiled = NULL;
    if ((st = gs_pipe_pool_init(&p, cfg, nt + 1 + n_src, err)) != GS_OK || w == NULL) {
        st = GS_ESYS;
        goto fail;
    }
    if ((st = cfg->engine->compile(cfg->ks, cfg->tune, &compiled, err)) != GS_OK)
        goto fail;
    p.compiled = compiled;
    for (int i = 0; i < nt; i++) {
        w[i].p = &p;
        if ((w[i].key_counts = gs_calloc(cfg->ks->n_keys, sizeof(uint64_t), err, "key counts")) == NULL) {
            st = GS_ESYS;
            goto fail_workers;
        }
    }
    for (; started < nt; started++)
        if (gs_task_spawn(&w[started].task, worker_main, &w[started]) != GS_OK) {
            char what[64];
            snprintf(what, sizeof what, "scan thread %d of %d", started + 1, nt);
            st = gs_fail_spawn(err, what, NULL);
            goto fail_workers;
        }
    st = gs_pipe_read_all(&p, src, n_src, res, err);

fail_workers:
    q_close(&p, &p.filled);
    for (int i = 0; i < started; i++)
        gs_task_join(&w[i].task);
    for (int i = 0; i < nt; i++) {
        if (w[i].oom && st == GS_OK && w[i].spill_err.code != GS_OK) {
            *err = w[i].spill_err;
            st = err->code;
        }
        if (w[i].oom && st == GS_OK)
            st = gs_fail(err, GS_ESYS, "out of memory (hits of scan thread %d)", i + 1);
        if (st == GS_OK && w[i].key_counts)
            for (uint32_t k = 0; k < cfg->ks->n_keys; k++)
                res->key_counts[k] += w[i].key_counts[k];
        free(w[i].key_counts);
        free(w[i].kh.v);
        free(w[i].tmp);
    }
    if (st == GS_OK && cfg->want_hits) {
        gs_hit_runs all = {0};
        for (int i = 0; i < nt && st == GS_OK; i++)
            st = gs_hit_runs_move(&all, &w[i].runs, err);
        for (int i = 0; i < nt && st == GS_OK; i++)
            st = gs_seqcap_move(&res->seq, &w[i].seq, err);
        if (st == GS_OK)
            st = gs_pipe_collect_hits(cfg, &all, NULL, nt, res, err);
        gs_hit_runs_free(&all);
    }
    for (int i = 0; i < nt; i++) {
        gs_hit_runs_free(&w[i].runs);
        gs_seqcap_free(&w[i].seq);
    }
fail:
    cfg->engine->destroy(compiled);
    gs_pipe_pool_free(&p);
    free(w);
    return st;
}

gs_status gs_scan_run(const gs_scan_cfg *cfg, gs_source *src, int n_src, gs_scan_res *res,
                      gs_error *err)
{
    memset(res, 0, sizeof *res);
    double t0 = gs_now();
    res->key_counts = gs_calloc(cfg->ks->n_keys, sizeof(uint64_t), err, "key counts");
    if (res->key_counts == NULL)
        return GS_ESYS;
    gs_status st = cfg->use_gpu ? gs_pipe_run_gpu(cfg, src, n_src, res, err)
                                : run_cpu(cfg, src, n_src, res, err);
    if (st == GS_OK && cfg->want_seq)
        gs_seqcap_finish(&res->seq);
    res->t_scan = gs_now() - t0;
    return st;
}

void gs_scan_res_free(gs_scan_res *res)
{
    free(res->key_counts);
    free(res->counts);
    gs_hits_free(&res->hits);
    gs_tally_free(&res->tally);
    gs_seqcap_free(&res->seq);
    memset(res, 0, sizeof *res);
}
