/* pipeline_internal.h - what the two halves of one rank's pipeline share:
 * the pool of batch buffers and its queues, the CPU worker, and the steps
 * the GPU feeder (pipeline_gpu.c) takes from the CPU side (pipeline.c):
 * reading, the CPU scan of a segment, collecting the runs of hits.
 * Private to src/scan.
 */
#ifndef GS_SCAN_PIPELINE_INTERNAL_H
#define GS_SCAN_PIPELINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/gs_hitsort.h"
#include "core/gs_parallel.h"
#include "gpu/gpu.h"
#include "pipeline.h"

/* The bytes of a batch buffer: two blocks and their overlaps (a batch is
 * filled while another whole segment fits after a block's worth). */
static inline size_t gs_pipe_buf_bytes(const gs_scan_cfg *cfg)
{
    return 2 * (cfg->block + cfg->overlap);
}

/* A batch of segments in one buffer. Short records (ESTs, contigs) are
 * packed many to a batch, so a worker is woken once per block of residues,
 * not once per record. */
typedef struct slot {
    uint8_t *buf;    /* 2 x (block + overlap) bytes */
    gs_segment *seg; /* segments [n_laid, n) */
    size_t n, cap;
    gs_raw_text *raw; /* pool->raw: how each segment's text lies in buf */
    size_t raw_cap;
    gs_laid *laid; /* pool->raw: the device's table of segments [0, n_laid),
                        * each of which fits one; those are in no other table
                        * (at 10^8 reads the seg and raw rows were 12 GB of
                        * writes the device never read) */
    gs_run_seg *laid_hit; /* with hits, whose hits each of them holds */
    size_t laid_cap, hit_cap, n_laid;
    uint64_t laid_out;
    int laid_ok;     /* every segment so far went into laid */
    gs_laid *laid_buf; /* where the reader copied laid[0, n_laid) into buf, past the
                        * batch's bytes, to go to the device from there (NULL: not) */
    int pinned;      /* buf is pinned (by the GPU's feeder, pipeline_gpu.c) */
    int touched;     /* buf's pages were made by a reader (pool->pin) */
} slot;

/* A bounded queue of slot indices guarded by one mutex. */
typedef struct queue {
    int *v;
    int cap, head, n;
    int closed;
    pthread_cond_t cond;
} queue;

typedef struct pool {
    const gs_scan_cfg *cfg;
    const void *compiled; /* the CPU engine's compiled keyset */
    slot *slots;
    int n_slots;
    int raw;          /* the readers read the files' own bytes (src->next_raw)
                       * and make the device's table of each batch
                       * (gs_gpu_submit_laid) */
    int sep;          /* else, with sep a byte the readers leave it after each
                       * segment: a packing GPU's layout (gs_gpu_submit_run) */
    int pin;          /* the buffers go to a device as they lie, pinned by its
                       * feeder the first time each comes filled */
    queue filled, free_q;
    pthread_mutex_t mu;
    int sync;         /* mu and the conditions are initialised */
    atomic_int stop;  /* a reader or consumer failed: read no further */
    atomic_ullong residues; /* owned residues read so far, all readers */
    int helpers;            /* reading threads besides the calling one still reading (mu) */
    pthread_cond_t helper_done;
} pool;

typedef struct worker {
    pool *p;
    gs_task task;
    uint64_t *key_counts;
    gs_keyhits kh;
    uint64_t *tmp; /* radix scratch, tmp_cap keys */
    size_t tmp_cap;
    gs_hit_runs runs; /* one a segment with hits */
    gs_seqcap seq;    /* want_seq: the residues of its hits */
    int oom;
    gs_error spill_err; /* a run that could not be spilled (a full disk) */
} worker;

/* A circular record shorter than a key: the key may match its text read
 * more than once round, which is no hit (see kept). */
static inline int gs_pipe_short_turn(const gs_keyset *ks, const gs_segment *seg)
{
    return seg->turn && seg->turn < ks->span;
}

void gs_pipe_push(pool *p, queue *q, int v);
/* -1 when the queue is closed and empty. */
int gs_pipe_pop(pool *p, queue *q);
gs_status gs_pipe_pool_init(pool *p, const gs_scan_cfg *cfg, int n_slots, gs_error *err);
void gs_pipe_pool_free(pool *p);
/* The calling thread reads src[0] (and one thread each of the others)
 * into the pool's batches until the end or p->stop. */
gs_status gs_pipe_read_all(pool *p, gs_source *src, int n_src, gs_scan_res *res, gs_error *err);
/* Scan one segment on the CPU into w (pipeline.c). */
gs_status gs_pipe_scan_segment(const gs_scan_cfg *cfg, const void *compiled, const gs_segment *seg,
                               worker *w);
/* The rank's hits (or with tally_runs their tally) from its runs; with
 * landed (or NULL), the rows a GPU tallied as its batches landed
 * (tally_files) combined with them (landed is left empty). */
gs_status gs_pipe_collect_hits(const gs_scan_cfg *cfg, gs_hit_runs *runs, gs_tally *landed,
                               int threads, gs_scan_res *res, gs_error *err);
int gs_pipe_debug_time(const gs_scan_cfg *cfg);
/* The GPU path: one feeding thread beside the readers (pipeline_gpu.c). */
gs_status gs_pipe_run_gpu(const gs_scan_cfg *cfg, gs_source *src, int n_src, gs_scan_res *res,
                          gs_error *err);

#endif
