/* h5_direct.c - write chunked shuffle+deflate datasets by compressing their
 * chunks on all cores and handing them to HDF5 as they are.
 *
 * Why: at 10^8 hits the write phase was mostly zlib's deflate, run by
 * H5Dwrite one chunk after another on one core. Here each chunk is filled,
 * shuffled (HDF5's byte transposition) and deflated (ISA-L's igzip, a zlib
 * stream as HDF5's filter writes it) by one thread, and the chunks are
 * stored in order with H5Dwrite_chunk. The file is the same standard
 * filtered dataset (h5py, h5dump read it; only the compressed bytes differ
 * from zlib's). H5Dwrite_chunk allocates file space on its own rank, which
 * parallel HDF5 cannot share, so h5out.c uses this path only when one
 * process writes the file.
 *
 * A pipeline, not batches: compressing a batch of chunks and then storing
 * it left every core but one idle while HDF5 stored, and the batch waited
 * for its slowest chunk. Here the unit of work is a row group, chunk r of
 * every dataset of the call (the hit columns share their chunk rows);
 * workers take the next group as soon as they are free, into a ring of
 * slots (two per thread: memory stays bounded however many chunks there
 * are), and the calling thread stores group g, its chunks in dataset order,
 * as soon as it is ready, compressing one itself while it waits, so n
 * threads keep n cores busy and a machine without threads still finishes.
 * A group's rows are filled for every column in turn a few thousand at a
 * time, so the 32-byte hits are read from memory once, not once a column
 * (that was half the CPU time of the fill). The file's chunks are thus
 * interleaved by row group, which suits a reader streaming rows of every
 * column (gscan export).
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "h5_internal.h"
#include "core/gs_parallel.h"

#include <inttypes.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MAX_THREADS = 64, SLOTS_PER_THREAD = 2 };

enum { S_FREE, S_BUSY, S_READY, S_FAILED };

/* One row group: chunk r of every dataset, compressed. */
typedef struct slot {
    uint8_t *out[GS_H5_DIRECT_MAX]; /* dataset k's chunk */
    size_t len[GS_H5_DIRECT_MAX];
    int state;                      /* S_* */
} slot;

/* The row groups in order; each is stored as dataset 0's chunk, then 1's,
 * and so on. */
typedef struct ring {
    const gs_h5_direct *d;
    int n_dsets;
    uint64_t n_groups;
    size_t cap[GS_H5_DIRECT_MAX]; /* bytes of a slot's out[k] */
    int n_slots;
    slot *slots;
    pthread_mutex_t mu;
    pthread_cond_t ready; /* a slot became S_READY or S_FAILED (the writer waits) */
    pthread_cond_t freed; /* a slot became free, or stop (the workers wait) */
    uint64_t next;        /* the next group to compress */
    uint64_t written;     /* groups stored: group g may use its slot once g < written + n_slots */
    int stop;             /* the writer is done: compress nothing more */
    struct worker *workers;
    int failed_in;        /* the dataset of the last chunk stored or failed */
} ring;

/* One thread's tools; workers[0] runs on the caller and stores. Seconds
 * and bytes are summed for GS_DEBUG_TIME. */
typedef struct worker {
    ring *p;
    uint8_t *raw[GS_H5_DIRECT_MAX]; /* the group's chunks, filled */
    uint8_t *packed;                /* one of them shuffled */
    struct libdeflate_compressor *c;
    uint8_t *level_buf;    /* ISA-L's level 1 tables, ISAL_DEF_LVL1_DEFAULT bytes */
    gs_status st;          /* the writer: GS_OK when every chunk was stored */
    double fill, shuffle, deflate, store, wait;
    uint64_t stored;       /* compressed bytes handed to HDF5 */
} worker;

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The steps in CPU seconds of the thread (a shared or busy machine would
 * count waiting for a core as work); waits and the call in wall seconds. */
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu(void) { return clock_s(CLOCK_THREAD_CPUTIME_ID); }

/* HDF5's shuffle: byte k of every element together. A constant width lets
 * the compiler keep each element in a register and vectorize the scatter
 * (5-7x the speed of the loop with the width a variable). */
#define SHUFFLE(W)                                                                                \
    for (size_t e = 0; e < n; e++)                                                                \
        for (size_t k = 0; k < (W); k++)                                                          \
            out[k * n + e] = raw[e * (W) + k];
static void shuffle(const uint8_t *restrict raw, uint8_t *restrict out, size_t elem, size_t n)
{
    switch (elem) {
    case 2: SHUFFLE(2) break;
    case 4: SHUFFLE(4) break;
    case 8: SHUFFLE(8) break;
    default: SHUFFLE(elem) break;
    }
}
#undef SHUFFLE

/* A zlib stream of in[0, n) as HDF5's deflate filter stores it, by ISA-L's
 * igzip at its level 1 (for level 1): 4-7x libdeflate's level 1 on the
 * shuffled hit columns (40x on the record column) for 5-10% more bytes
 * (docs/format.md). 0 when it does not fit in cap. */
static size_t isal_zlib(worker *w, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    /* isal_deflate_stateless_init leaves hist_bits as it finds it, and a
     * stale value on the stack narrowed the window: the same chunk then
     * compressed to other bytes on another call (valgrind: a jump on an
     * uninitialised value). Zeroed first, hist_bits 0 is the full 32 KiB. */
    struct isal_zstream z;
    memset(&z, 0, sizeof z);
    isal_deflate_stateless_init(&z);
    z.level = 1;
    z.level_buf = w->level_buf;
    z.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
    z.gzip_flag = IGZIP_ZLIB;
    z.end_of_stream = 1;
    z.flush = NO_FLUSH;
    z.next_in = (uint8_t *)in;
    z.avail_in = (uint32_t)n;
    z.next_out = out;
    z.avail_out = (uint32_t)cap;
    return isal_deflate_stateless(&z) == COMP_OK && z.avail_in == 0 ? z.total_out : 0;
}

/* Rows filled for every dataset in turn: the sources (the hits, 32 bytes
 * each) of these rows stay in the core's cache from the first dataset's
 * fill to the last, so the hit array is read from memory once, not once a
 * column. */
enum { FILL_ROWS = 4096 };

/* Fill, shuffle and deflate row group g into its slot; GS_ESYS when a
 * chunk did not compress (a worker thread: the writer says where). */
static gs_status compress_group(worker *w, uint64_t g)
{
    ring *p = w->p;
    const gs_h5_direct *d = p->d;
    size_t cr = d[0].chunk_rows;
    uint64_t from = g * cr, rows = d[0].n_rows - from < cr ? d[0].n_rows - from : cr;
    slot *s = &p->slots[g % (uint64_t)p->n_slots];
    int ok = 1;
    double t0 = cpu();
    for (uint64_t r = 0; r < rows; r += FILL_ROWS) {
        size_t m = rows - r < FILL_ROWS ? (size_t)(rows - r) : FILL_ROWS;
        for (int k = 0; k < p->n_dsets; k++)
            d[k].fill(d[k].src, d[k].elem, from + r, m, w->raw[k] + r * d[k].elem);
    }
    for (int k = 0; k < p->n_dsets; k++) /* an edge chunk is stored whole */
        memset(w->raw[k] + rows * d[k].elem, 0, (cr - rows) * d[k].elem);
    w->fill += cpu() - t0;
    for (int k = 0; k < p->n_dsets; k++) {
        size_t bytes = cr * d[k].elem;
        uint8_t *in = w->raw[k];
        double t1 = cpu();
        if (d[k].shuffle && d[k].elem > 1) {
            shuffle(w->raw[k], w->packed, d[k].elem, cr);
            in = w->packed;
        }
        double t2 = cpu();
        s->len[k] = d[k].level == 1 ? isal_zlib(w, in, bytes, s->out[k], p->cap[k]) : 0;
        if (s->len[k] == 0) /* another level, or ISA-L did not fit it in libdeflate's bound */
            s->len[k] = libdeflate_zlib_compress(w->c, in, bytes, s->out[k], p->cap[k]);
        w->shuffle += t2 - t1;
        w->deflate += cpu() - t2;
        ok = ok && s->len[k] > 0;
    }
    return ok ? GS_OK : GS_ESYS;
}

/* Take the next group whose slot is free; mu is held. */
static int claim(ring *p, uint64_t *c)
{
    uint64_t n = p->n_groups;
    if (p->stop || p->next >= n || p->next >= p->written + (uint64_t)p->n_slots)
        return 0;
    *c = p->next++;
    p->slots[*c % (uint64_t)p->n_slots].state = S_BUSY;
    return 1;
}

static void compress_claimed(worker *w, uint64_t c)
{
    gs_status st = compress_group(w, c);
    pthread_mutex_lock(&w->p->mu);
    w->p->slots[c % (uint64_t)w->p->n_slots].state = st == GS_OK ? S_READY : S_FAILED;
    pthread_cond_signal(&w->p->ready);
}

/* Threads 1..: compress groups until there are none left or the writer
 * stopped. */
static void compress_loop(worker *w)
{
    ring *p = w->p;
    uint64_t c;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (claim(p, &c)) {
            pthread_mutex_unlock(&p->mu);
            compress_claimed(w, c); /* returns with mu held */
            continue;
        }
        if (p->stop || p->next >= p->n_groups)
            break;
        pthread_cond_wait(&p->freed, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
}

/* Thread 0: store the groups in order; while the next one is not ready,
 * compress one (it only ever waits for a group another thread holds).
 * GS_ESYS when one could not be stored (p->failed_in: its dataset). */
static gs_status store_loop(worker *w)
{
    ring *p = w->p;
    uint64_t n = p->n_groups, c = 0, mine;
    int ok = 1;
    pthread_mutex_lock(&p->mu);
    while (ok && c < n) {
        slot *s = &p->slots[c % (uint64_t)p->n_slots];
        if (s->state == S_READY) {
            pthread_mutex_unlock(&p->mu);
            double t0 = cpu();
            hsize_t off = c * p->d[0].chunk_rows;
            for (int k = 0; ok && k < p->n_dsets; k++) {
                ok = H5Dwrite_chunk(p->d[k].dset, H5P_DEFAULT, 0, &off, s->len[k], s->out[k]) >= 0;
                p->failed_in = k;
                w->stored += s->len[k];
            }
            w->store += cpu() - t0;
            pthread_mutex_lock(&p->mu);
            s->state = S_FREE;
            p->written = ++c;
            pthread_cond_broadcast(&p->freed);
        } else if (s->state == S_FAILED) {
            p->failed_in = 0;
            ok = 0;
        } else if (claim(p, &mine)) {
            pthread_mutex_unlock(&p->mu);
            compress_claimed(w, mine);
        } else {
            double t0 = now();
            pthread_cond_wait(&p->ready, &p->mu);
            w->wait += now() - t0;
        }
    }
    p->stop = 1;
    pthread_cond_broadcast(&p->freed);
    pthread_mutex_unlock(&p->mu);
    return ok ? GS_OK : GS_ESYS;
}

static void *thread_main(void *arg)
{
    worker *w = arg;
    if (w == w->p->workers)
        w->st = store_loop(w);
    else
        compress_loop(w);
    return NULL;
}

int gs_h5_threads(int most)
{
    /* the cores this process may run on (a Slurm allocation), not the host's */
    cpu_set_t set;
    long cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                            : sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1 : cores > most ? most : (int)cores;
}

/* Debug time: where the call's time went (the write phase's steps of
 * docs/performance.md), seconds summed over the threads. */
static void report(const ring *p, int nt, double wall)
{
    char name[256] = "?";
    double sum[5] = {0};
    uint64_t raw = 0;
    for (int t = 0; t < nt; t++) {
        const worker *w = &p->workers[t];
        double v[5] = {w->fill, w->shuffle, w->deflate, w->store, w->wait};
        for (int i = 0; i < 5; i++)
            sum[i] += v[i];
    }
    for (int k = 0; k < p->n_dsets; k++)
        raw += p->d[k].n_rows * p->d[k].elem;
    if (H5Iget_name(p->d[0].dset, name, sizeof name) < 0)
        strcpy(name, "?");
    fprintf(stderr,
            "gscan: h5 direct %s (+%d): %" PRIu64 " chunks, %.1f -> %.1f MB in %.3f s on %d threads,"
            " %d slots; CPU seconds: fill %.3f, shuffle %.3f, deflate %.3f, store %.3f"
            " (writer); the writer waited %.3f s\n",
            name, p->n_dsets - 1, p->n_groups * (uint64_t)p->n_dsets, (double)raw / 1e6,
            (double)p->workers[0].stored / 1e6, wall, nt, p->n_slots, sum[0], sum[1], sum[2],
            sum[3], sum[4]);
}

/* Tune io.h5.threads and io.h5.slots override both (tests: one slot, many
 * threads is the tightest ring; the file must not change). */
static void knobs(const gs_tune *tune, int *nt, int *slots)
{
    if (tune && tune->io_h5_threads > 0 && tune->io_h5_slots > 0) {
        *nt = tune->io_h5_threads < MAX_THREADS ? tune->io_h5_threads : MAX_THREADS;
        *slots = tune->io_h5_slots;
    }
}

/* The ring over d[0..n): the index of the dataset where writing stopped,
 * or n when every chunk was written. */
static int write_ring(const gs_h5_direct *d, int n, const gs_tune *tune)
{
    ring p = {.d = d, .n_dsets = n, .mu = PTHREAD_MUTEX_INITIALIZER,
              .ready = PTHREAD_COND_INITIALIZER, .freed = PTHREAD_COND_INITIALIZER};
    worker ws[MAX_THREADS] = {{0}};
    int nt = gs_h5_threads(MAX_THREADS), ok = 0, done = 0;
    double t0 = now();
    size_t most = 0;
    if (n < 1 || n > GS_H5_DIRECT_MAX || d[0].chunk_rows == 0)
        return 0;
    for (int k = 0; k < n; k++) {
        if (d[k].n_rows != d[0].n_rows || d[k].chunk_rows != d[0].chunk_rows)
            return k;
        size_t bytes = d[k].chunk_rows * d[k].elem;
        most = bytes > most ? bytes : most;
    }
    p.n_groups = (d[0].n_rows + d[0].chunk_rows - 1) / d[0].chunk_rows;
    p.n_slots = SLOTS_PER_THREAD * nt;
    knobs(tune, &nt, &p.n_slots);
    if ((uint64_t)nt > p.n_groups)
        nt = p.n_groups > 0 ? (int)p.n_groups : 1;
    p.workers = ws;
    struct libdeflate_compressor *probe = libdeflate_alloc_compressor(d[0].level);
    for (int k = 0; k < n; k++)
        p.cap[k] = probe ? libdeflate_zlib_compress_bound(probe, d[k].chunk_rows * d[k].elem) : 0;
    libdeflate_free_compressor(probe);
    if (p.cap[0] == 0 || (p.slots = calloc((size_t)p.n_slots, sizeof *p.slots)) == NULL)
        goto fail;
    for (int s = 0; s < p.n_slots; s++)
        for (int k = 0; k < n; k++)
            if ((p.slots[s].out[k] = malloc(p.cap[k])) == NULL)
                goto fail;
    for (int t = 0; t < nt; t++) {
        ws[t].p = &p;
        for (int k = 0; k < n; k++)
            if ((ws[t].raw[k] = malloc(d[k].chunk_rows * d[k].elem)) == NULL)
                goto fail;
        if ((ws[t].packed = malloc(most)) == NULL
            || (ws[t].level_buf = malloc(ISAL_DEF_LVL1_DEFAULT)) == NULL
            || (ws[t].c = libdeflate_alloc_compressor(d[0].level)) == NULL)
            goto fail;
    }
    gs_run_parallel(thread_main, ws, sizeof *ws, nt);
    ok = ws[0].st == GS_OK;
    done = ok ? n : p.failed_in;
    if (p.n_groups * (uint64_t)n > 1 && tune && tune->debug & GS_DEBUG_TIME)
        report(&p, nt, now() - t0);
fail:
    for (int t = 0; t < nt; t++) {
        for (int k = 0; k < n; k++)
            free(ws[t].raw[k]);
        free(ws[t].packed);
        free(ws[t].level_buf);
        libdeflate_free_compressor(ws[t].c);
    }
    for (int s = 0; p.slots && s < p.n_slots; s++)
        for (int k = 0; k < n; k++)
            free(p.slots[s].out[k]);
    free(p.slots);
    return done;
}

gs_status gs_h5_write_direct(const gs_h5_direct *d, int n, const gs_tune *tune, const char *path,
                             gs_error *err)
{
    int done = write_ring(d, n, tune);
    if (done >= n)
        return GS_OK;
    char why[256];
    gs_h5_reason(why, sizeof why);
    return gs_fail(err, GS_ESYS, "cannot write dataset %s: %s (%s)", d[done].name, why, path);
}
