/* pipeline_gpu.c - the GPU side of one rank's pipeline (pipeline.c has the
 * readers, the pool and the CPU workers): one feeding thread opens the GPU
 * and submits the batches the readers queue; each batch's hits come back as
 * a sorted run of packed keys (sorted on the device), spilled past the
 * budget, and are collected like the CPU workers' runs once the GPU is done.
 */
#define _POSIX_C_SOURCE 200809L
#include "pipeline_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu.h"

/* Copying into pinned memory reaches the memory's speed on a few threads. */
enum { COPY_THREADS = 8 };

/* GPU: one feeding thread opens the GPU, submits the batches the readers
 * queue, in the order they come (one reader: corpus order), and collects
 * the results; so reading overlaps the GPU's setup (context, pinned
 * buffers, tables) and the copy of every segment into pinned memory, and
 * only the feeder makes CUDA calls. */
typedef struct feeder {
    pool *p;
    gs_scan_res *res;
    gs_hit_runs runs; /* each batch's sorted keys, 8 bytes a hit */
    gs_tally landed;  /* cfg->tally_files: the rows the GPU counted as keys landed */
    int copy_threads; /* the threads the readers leave, at most COPY_THREADS */
    gs_status st;
    gs_error err;
    gs_gpu_times t;
    double t_open, t_pin, t_wait, t_feed, t_land; /* --debug time: opening the GPU,
                                                   * pinning the pool, waiting for the
                                                   * readers' batches, submitting them,
                                                   * waiting for their copies to land */
    int in_place;   /* the readers lay out packed batches, copied from the pool's
                     * buffers as they lie (gs_gpu_submit_run with a ticket) */
    worker cpu;     /* circular records shorter than a key (feed_cpu) */
    void *compiled; /* the CPU engine, compiled at the first of them */
} feeder;

/* A circular record shorter than a key is scanned by the CPU engine of the
 * same name, whose hits kept() filters (the kernels know nothing of turns);
 * such records are shorter than a pattern, so this costs little. */
static gs_status feed_cpu(feeder *f, const gs_segment *seg)
{
    const gs_scan_cfg *cfg = f->p->cfg;
    if (f->cpu.key_counts == NULL &&
        ((f->cpu.key_counts = gs_calloc(cfg->ks->n_keys, sizeof(uint64_t), &f->err,
                                        "key counts")) == NULL ||
         cfg->engine->compile(cfg->ks, cfg->tune, &f->compiled, &f->err) != GS_OK))
        return f->err.code;
    if (gs_pipe_scan_segment(cfg, f->compiled, seg, &f->cpu) == GS_OK)
        return GS_OK;
    if (f->cpu.spill_err.code != GS_OK) { /* a run that could not be spilled */
        f->err = f->cpu.spill_err;
        return f->err.code;
    }
    return gs_fail(&f->err, GS_ESYS, "out of memory (hits of circular records)");
}

/* What feed_cpu found, added to the GPU's results; its state freed. */
static void feed_cpu_end(feeder *f)
{
    const gs_scan_cfg *cfg = f->p->cfg;
    if (f->st == GS_OK && f->cpu.key_counts) {
        for (uint32_t k = 0; k < cfg->ks->n_keys; k++)
            f->res->key_counts[k] += f->cpu.key_counts[k];
        f->st = gs_hit_runs_move(&f->runs, &f->cpu.runs, &f->err);
        if (f->st == GS_OK)
            f->st = gs_seqcap_move(&f->res->seq, &f->cpu.seq, &f->err);
    }
    if (f->compiled)
        cfg->engine->destroy(f->compiled);
    free(f->cpu.key_counts);
    free(f->cpu.kh.v);
    free(f->cpu.tmp);
    gs_hit_runs_free(&f->cpu.runs);
    gs_seqcap_free(&f->cpu.seq);
}

/* The batches' hits as they come back from the GPU, spilled as one sorted
 * run once they reach the budget (expanded on the copy threads, which the
 * readers leave free). */
static gs_status feeder_spill(feeder *f, gs_gpu *g)
{
    const gs_scan_cfg *cfg = f->p->cfg;
    if (gs_gpu_take_runs(g, &f->runs, &f->err) != GS_OK)
        return f->err.code;
    if (f->runs.n_hits * GS_HIT_HELD_BYTES < cfg->hit_budget)
        return GS_OK;
    gs_hits h = {0};
    if (gs_hit_runs_expand(&f->runs, f->copy_threads, &h, &f->err) == GS_OK)
        gs_spill_run(cfg->spill, h.v, h.n, &f->err);
    gs_hits_free(&h);
    return f->err.code;
}

/* One filled batch to the GPU: raw bytes as runs of segments (short
 * circular records to the CPU between them), else runs of segments, laid
 * out as a packed batch takes them where the readers left separators
 * (gs_gpu_submit_run takes the others one at a time), in place where the
 * pool's buffers may be the device's batches (f->in_place).
 * *ticket: the fence of its last run from the buffer (gs_gpu_wait), or -1. */
static gs_status feed_slot(feeder *f, gs_gpu *g, slot *sl, long *ticket)
{
    const gs_scan_cfg *cfg = f->p->cfg;
    *ticket = -1;
    if (sl->n_laid) { /* the readers' table as it is, then the segments it could not take */
        unsigned t;
        const int pinned = sl->laid_buf && sl->pinned > 0;
        if (gs_gpu_submit_laid(g, sl->buf, pinned ? sl->laid_buf : sl->laid, pinned,
                               cfg->want_hits ? &sl->laid_hit : NULL,
                               &sl->hit_cap, sl->n_laid, &t, &f->err) != GS_OK)
            return f->err.code;
        *ticket = t;
    }
    for (size_t i = sl->n_laid, j; i < sl->n; i = j) {
        if (gs_pipe_short_turn(cfg->ks, &sl->seg[i])) {
            if (feed_cpu(f, &sl->seg[i]) != GS_OK)
                return f->err.code;
            j = i + 1;
            continue;
        }
        for (j = i + 1; j < sl->n && !gs_pipe_short_turn(cfg->ks, &sl->seg[j]);)
            j++;
        unsigned t;
        if (f->p->raw) {
            if (gs_gpu_submit_raw(g, &sl->seg[i], &sl->raw[i], j - i, &t, &f->err) != GS_OK)
                return f->err.code;
            *ticket = t;
        } else {
            if (gs_gpu_submit_run(g, &sl->seg[i], j - i, f->in_place ? &t : NULL, &f->err) !=
                GS_OK)
                return f->err.code;
            if (f->in_place)
                *ticket = t;
        }
    }
    return GS_OK;
}

/* The batch whose raw bytes may still be on their way to the device goes
 * back to the readers once they are there; the one before it first. */
static void feed_release(feeder *f, gs_gpu *g, int *held, long *held_ticket, int s, long ticket)
{
    pool *p = f->p;
    if (*held >= 0) {
        const double t0 = gs_now();
        if (*held_ticket >= 0 && f->st == GS_OK &&
            (f->st = gs_gpu_wait(g, (unsigned)*held_ticket, &f->err)) != GS_OK)
            atomic_store(&p->stop, 1);
        f->t_land += gs_now() - t0;
        gs_pipe_push(p, &p->free_q, *held);
    }
    *held = s;
    *held_ticket = ticket;
}

/* Raw batches and batches in place go to the device straight from the
 * pool's buffers: each pinned here, on the feeding thread, the first time
 * it comes filled. Its pages are then in memory, which makes the pinning
 * several times cheaper than of fresh ones, and no batch waits for the
 * whole pool (pinned up front, the pool took 0.13-0.17 s of an H100 host's
 * feeder before its first batch). A buffer that cannot be pinned is copied
 * all the same, staged by the driver. */
static void feeder_pin(feeder *f, slot *sl)
{
    const pool *p = f->p;
    if ((p->raw || f->in_place) && sl->pinned == 0) {
        const double t0 = gs_now();
        sl->pinned = gs_gpu_pin(sl->buf, gs_pipe_buf_bytes(p->cfg)) ? 1 : -1;
        f->t_pin += gs_now() - t0;
    }
}

static void feeder_unpin(feeder *f)
{
    for (int s = 0; s < f->p->n_slots; s++)
        if (f->p->slots[s].pinned > 0)
            gs_gpu_unpin(f->p->slots[s].buf);
}

static void *feeder_main(void *arg)
{
    feeder *f = arg;
    pool *p = f->p;
    const gs_scan_cfg *cfg = p->cfg;
    gs_gpu *g = NULL;
    gs_gpu_args args = {.device = cfg->gpu_device, .engine = cfg->engine->name,
                        .want_hits = cfg->want_hits, .tally_files = cfg->tally_files,
                        .block = cfg->block, .tune = cfg->tune};
    double t0 = gs_now();
    f->st = gs_gpu_open(&args, cfg->ks, &g, &f->err);
    f->t_open = gs_now() - t0;
    if (f->st != GS_OK)
        atomic_store(&p->stop, 1);
    else
        gs_gpu_set_copy_threads(g, f->copy_threads);
    if (f->st == GS_OK && cfg->want_seq)
        gs_gpu_set_seqcap(g, &f->res->seq);
    int held = -1;
    long held_ticket = -1, ticket = -1;
    for (int s; t0 = gs_now(), (s = gs_pipe_pop(p, &p->filled)) >= 0;) {
        double t1 = gs_now();
        f->t_wait += t1 - t0;
        if (f->st == GS_OK)
            feeder_pin(f, &p->slots[s]);
        if (f->st == GS_OK && (f->st = feed_slot(f, g, &p->slots[s], &ticket)) != GS_OK)
            atomic_store(&p->stop, 1);
        f->t_feed += gs_now() - t1;
        feed_release(f, g, &held, &held_ticket, s, f->st == GS_OK ? ticket : -1);
        if (f->st == GS_OK && cfg->spill && (f->st = feeder_spill(f, g)) != GS_OK)
            atomic_store(&p->stop, 1);
    }
    feed_release(f, g, &held, &held_ticket, -1, -1);
    if (f->st == GS_OK)
        f->st = gs_gpu_finish(g, f->res->key_counts, &f->runs, &f->t, &f->err);
    if (f->st == GS_OK && cfg->tally_files)
        f->st = gs_gpu_take_tally(g, &f->landed, &f->err);
    feed_cpu_end(f);
    gs_gpu_close(g); /* every copy done: the buffers may be unpinned */
    feeder_unpin(f);
    return NULL;
}

gs_status gs_pipe_run_gpu(const gs_scan_cfg *cfg, gs_source *src, int n_src, gs_scan_res *res,
                          gs_error *err)
{
    pool p;
    int spare = cfg->threads - n_src;
    feeder f = {.p = &p, .res = res, .st = GS_OK,
                .copy_threads = spare < 1 ? 1 : spare > COPY_THREADS ? COPY_THREADS : spare};
    gs_task task;
    gs_status st = gs_pipe_pool_init(&p, cfg, 2 + n_src, err);
    if (st != GS_OK)
        goto fail;
    /* the files' own bytes to the device, where every source can give them */
    const int laid = gs_gpu_takes_laid(cfg->ks, cfg->want_seq);
    p.raw = laid;
    for (int i = 0; i < n_src; i++)
        p.raw = p.raw && src[i].next_raw != NULL;
    p.sep = !p.raw && gs_gpu_packs(cfg->ks) ? GS_GPU_SEPARATOR : 0;
    f.in_place = gs_gpu_in_place(cfg->ks, cfg->want_seq) && !p.raw;
    p.pin = p.raw || f.in_place;
    if (gs_task_spawn(&task, feeder_main, &f) != GS_OK) {
        st = gs_fail_spawn(err, "the GPU feeding thread", NULL);
        goto fail;
    }
    st = gs_pipe_read_all(&p, src, n_src, res, err);
    gs_task_join(&task);
    /* a read error comes first: the GPU side may only have stopped after it */
    if (st == GS_OK && f.st != GS_OK) {
        *err = f.err;
        st = f.st;
    }
    res->t_transfer += f.t.transfer;
    if (gs_pipe_debug_time(cfg))
        fprintf(stderr, "gscan: gpu: kernels %.3f s, copies %.3f s, hits back %.3f s "
                "(runs made or tallied %.3f s, most as each batch's keys land; "
                "%lu batches with hits, "
                "%lu made again after their scan; readers' tables copied %.3f s) "
                "(on the feeding thread: open %.3f s, pinning the pool %.3f s, waiting for "
                "batches %.3f s, submitting them %.3f s, waiting for their copies to land "
                "%.3f s; waiting for a device slot to finish its batch %.3f s, the end's "
                "included)\n", f.t.kernel, f.t.transfer, f.t.hits, f.t.keep, f.t.batches,
                f.t.redone, f.t.tables, f.t_open, f.t_pin, f.t_wait, f.t_feed, f.t_land, f.t.slot);
    /* the feeder only kept each batch's keys: the records are made here, on
     * all threads, once the GPU is done */
    if (st == GS_OK && cfg->want_hits)
        st = gs_pipe_collect_hits(cfg, &f.runs, &f.landed, cfg->threads > 0 ? cfg->threads : 1,
                                  res, err);
fail:
    gs_hit_runs_free(&f.runs);
    gs_tally_free(&f.landed);
    gs_pipe_pool_free(&p);
    return st;
}
