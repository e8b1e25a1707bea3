/* gs_spill.c - sorted runs of hits on disk, merged back (see gs_spill.h).
 *
 * Runs are named "run.N" with N counting up from 0, so that a signal
 * handler can remove them knowing only the folder and the count (no
 * allocation, no formatting library in the handler). A run is written
 * through one buffer with write(2), so a full disk or a file-size limit
 * shows as the call that failed, not at a later flush. Runs are read back
 * through a buffer each and merged (gs_hitmerge.c); when there are more
 * runs than buffers fit the budget, the oldest are merged into one first
 * (an external merge sort's passes).
 */
#define _GNU_SOURCE
#include "gs_spill.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { IO_BYTES = 1 << 16, MAX_FANIN = 64, MIN_BUF_HITS = 1024 };

typedef struct run {
    unsigned id;
    uint64_t n;
} run;

typedef struct run_reader {
    int fd;
    uint8_t *raw; /* IO_BYTES or fewer whole records */
    size_t raw_cap;
    const char *dir;
} run_reader;

struct gs_spill {
    char *out;
    char dir[PATH_MAX];
    int made;
    int slot; /* its slot among the live spills (-1: none) */
    pthread_mutex_t mu;
    run *runs;
    size_t n_runs, cap;
    unsigned next_id;
    uint64_t hits, bytes, bytes_max;
    /* the stream */
    run_reader *rd;
    size_t n_rd;
    gs_hit_source *srcs;
    gs_hit_array_src tail;
    gs_hit_merge *merge;
};

/* The live spills, for the signal handler: a scan's, and --verify's
 * reference pass's beside it. A slot is 0 (free), -1 (being taken) or 1. */
enum { LIVE = 2 };
static char live_dir[LIVE][PATH_MAX];
static atomic_uint live_ids[LIVE];
static atomic_int live[LIVE];

static void run_path(char *buf, const char *dir, unsigned id)
{
    size_t n = strlen(dir);
    memcpy(buf, dir, n);
    memcpy(buf + n, "/run.", 5);
    n += 5;
    char tmp[12];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + id % 10);
        id /= 10;
    } while (id);
    while (k)
        buf[n++] = tmp[--k];
    buf[n] = 0;
}

void gs_spill_remove_all(void)
{
    char p[PATH_MAX + 16];
    for (int k = 0; k < LIVE; k++) {
        if (atomic_load(&live[k]) != 1)
            continue;
        /* a thread may be creating the next runs meanwhile: the ids it may
         * take next are removed too, and the folder tried again */
        for (int pass = 0; pass < 4; pass++) {
            unsigned n = atomic_load(&live_ids[k]) + 64;
            for (unsigned i = 0; i < n; i++) {
                run_path(p, live_dir[k], i);
                unlink(p);
            }
            if (rmdir(live_dir[k]) == 0)
                break;
        }
    }
}

gs_status gs_spill_new(const char *out, gs_spill **sp, gs_error *err)
{
    gs_spill *s = gs_calloc(1, sizeof *s, err, "the spill of hits");
    *sp = NULL;
    if (s == NULL)
        return GS_ESYS;
    if ((s->out = strdup(strcmp(out, "-") ? out : "./stdout")) == NULL) {
        free(s);
        return gs_fail(err, GS_ESYS, "out of memory (the spill of hits)");
    }
    s->slot = -1;
    pthread_mutex_init(&s->mu, NULL);
    *sp = s;
    return GS_OK;
}

/* The folder, at the first run (under s->mu). */
static gs_status make_dir(gs_spill *s, gs_error *err)
{
    const char *slash = strrchr(s->out, '/');
    int dlen = slash ? (int)(slash - s->out) : 1;
    const char *d = slash ? s->out : ".", *base = slash ? slash + 1 : s->out;
    if (slash && dlen == 0) {
        d = "/";
        dlen = 1;
    }
    int n = snprintf(s->dir, sizeof s->dir, "%.*s/.%s.gscan-spill.XXXXXX", dlen, d, base);
    if (n < 0 || (size_t)n >= sizeof s->dir)
        return gs_fail(err, GS_ESYS, "cannot make a folder for spilled hits: name too long (%s)",
                       s->out);
    if (mkdtemp(s->dir) == NULL)
        return gs_fail(err, GS_ESYS, "cannot make a folder for spilled hits: %s (%s)",
                       strerror(errno), s->dir);
    for (int k = 0; k < LIVE && s->slot < 0; k++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&live[k], &free_slot, -1)) {
            memcpy(live_dir[k], s->dir, (size_t)n + 1);
            atomic_store(&live_ids[k], 0);
            atomic_store(&live[k], 1);
            s->slot = k;
        }
    }
    s->made = 1;
    return GS_OK;
}

static void pack(uint8_t *p, const gs_hit *h)
{
    memcpy(p, &h->start, 8);
    memcpy(p + 8, &h->end, 8);
    memcpy(p + 16, &h->record, 4);
    memcpy(p + 20, &h->pattern, 4);
    memcpy(p + 24, &h->strand, 1);
    memcpy(p + 25, &h->distance, 1);
}

static void unpack(gs_hit *h, const uint8_t *p)
{
    *h = (gs_hit){0};
    memcpy(&h->start, p, 8);
    memcpy(&h->end, p + 8, 8);
    memcpy(&h->record, p + 16, 4);
    memcpy(&h->pattern, p + 20, 4);
    memcpy(&h->strand, p + 24, 1);
    memcpy(&h->distance, p + 25, 1);
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* A new run id (and the folder at the first), under the lock. */
static gs_status new_id(gs_spill *s, unsigned *id, gs_error *err)
{
    gs_status st = GS_OK;
    pthread_mutex_lock(&s->mu);
    if (!s->made)
        st = make_dir(s, err);
    *id = s->next_id++;
    if (st == GS_OK && s->slot >= 0)
        atomic_store(&live_ids[s->slot], s->next_id);
    pthread_mutex_unlock(&s->mu);
    return st;
}

static gs_status add_run(gs_spill *s, unsigned id, uint64_t n, gs_error *err)
{
    gs_status st = GS_OK;
    pthread_mutex_lock(&s->mu);
    if (gs_grow(&s->runs, &s->cap, s->n_runs, sizeof *s->runs, 16) != GS_OK)
        st = gs_fail(err, GS_ESYS, "out of memory (the runs of spilled hits)");
    else {
        s->runs[s->n_runs++] = (run){id, n};
        s->hits += n;
        s->bytes += n * GS_SPILL_HIT_BYTES;
        if (s->bytes > s->bytes_max)
            s->bytes_max = s->bytes;
    }
    pthread_mutex_unlock(&s->mu);
    return st;
}

/* Write the hits that src gives as run id; GS_ESYS naming the folder. */
static gs_status write_run(gs_spill *s, unsigned id, gs_hit_source src, uint64_t *n_out,
                           gs_error *err)
{
    char path[PATH_MAX + 16];
    run_path(path, s->dir, id);
    enum { CHUNK = IO_BYTES / GS_SPILL_HIT_BYTES };
    uint8_t *raw = gs_malloc(CHUNK * GS_SPILL_HIT_BYTES, err, "the spill of hits");
    gs_hit *h = gs_malloc(CHUNK * sizeof *h, err, "the spill of hits");
    int fd = raw && h ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
    gs_status st = err->code;
    *n_out = 0;
    if (st == GS_OK && fd < 0)
        st = gs_fail(err, GS_ESYS, "cannot write spilled hits: %s (%s)", strerror(errno), s->dir);
    for (size_t m = 1; st == GS_OK && m > 0;) {
        if ((st = src.next(src.ctx, h, CHUNK, &m, err)) != GS_OK)
            break;
        for (size_t i = 0; i < m; i++)
            pack(raw + i * GS_SPILL_HIT_BYTES, &h[i]);
        if (write_all(fd, raw, m * GS_SPILL_HIT_BYTES) != 0)
            st = gs_fail(err, GS_ESYS, "cannot write spilled hits: %s (%s)", strerror(errno),
                         s->dir);
        *n_out += m;
    }
    if (fd >= 0 && close(fd) != 0 && st == GS_OK)
        st = gs_fail(err, GS_ESYS, "cannot write spilled hits: %s (%s)", strerror(errno), s->dir);
    if (fd >= 0 && st != GS_OK)
        unlink(path);
    free(raw);
    free(h);
    return st;
}

gs_status gs_spill_run(gs_spill *s, const gs_hit *v, size_t n, gs_error *err)
{
    unsigned id;
    uint64_t done;
    gs_hit_array_src a;
    if (new_id(s, &id, err) != GS_OK || write_run(s, id, gs_hit_array_source(&a, v, n), &done, err) != GS_OK)
        return err->code;
    return add_run(s, id, done, err);
}

size_t gs_spill_runs(const gs_spill *s) { return s ? s->n_runs : 0; }
uint64_t gs_spill_hits(const gs_spill *s) { return s ? s->hits : 0; }
uint64_t gs_spill_bytes(const gs_spill *s) { return s ? s->bytes_max : 0; }

static gs_status reader_next(void *ctx, gs_hit *buf, size_t cap, size_t *n, gs_error *err)
{
    run_reader *r = ctx;
    size_t want = r->raw_cap / GS_SPILL_HIT_BYTES;
    if (want > cap)
        want = cap;
    size_t got = 0, bytes = want * GS_SPILL_HIT_BYTES;
    while (got < bytes) {
        ssize_t k = read(r->fd, r->raw + got, bytes - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return gs_fail(err, GS_ESYS, "cannot read spilled hits: %s (%s)", strerror(errno),
                           r->dir);
        if (k == 0)
            break;
        got += (size_t)k;
    }
    if (got % GS_SPILL_HIT_BYTES)
        return gs_fail(err, GS_ESYS, "cannot read spilled hits: a run was cut short (%s)", r->dir);
    *n = got / GS_SPILL_HIT_BYTES;
    for (size_t i = 0; i < *n; i++)
        unpack(&buf[i], r->raw + i * GS_SPILL_HIT_BYTES);
    return GS_OK;
}

/* Close the readers and the merge of the stream. */
static void stream_close(gs_spill *s)
{
    gs_hit_merge_close(s->merge);
    s->merge = NULL;
    for (size_t i = 0; s->rd && i < s->n_rd; i++) {
        if (s->rd[i].fd >= 0)
            close(s->rd[i].fd);
        free(s->rd[i].raw);
    }
    free(s->rd);
    free(s->srcs);
    s->rd = NULL;
    s->srcs = NULL;
    s->n_rd = 0;
}

/* Open runs[0..k) (and the tail when given) as the merge s->merge, each
 * read through buf hits. */
static gs_status open_merge(gs_spill *s, size_t k, int with_tail, const gs_hit *tail,
                            size_t n_tail, size_t buf, gs_error *err)
{
    s->rd = gs_calloc(k ? k : 1, sizeof *s->rd, err, "the merge of spilled hits");
    s->srcs = gs_calloc(k + 1, sizeof *s->srcs, err, "the merge of spilled hits");
    if (s->rd == NULL || s->srcs == NULL)
        return GS_ESYS;
    char path[PATH_MAX + 16];
    for (size_t i = 0; i < k; i++) {
        run_reader *r = &s->rd[i];
        r->dir = s->dir;
        r->raw_cap = buf * GS_SPILL_HIT_BYTES;
        run_path(path, s->dir, s->runs[i].id);
        r->fd = open(path, O_RDONLY | O_CLOEXEC);
        s->n_rd = i + 1;
        if (r->fd < 0)
            return gs_fail(err, GS_ESYS, "cannot read spilled hits: %s (%s)", strerror(errno),
                           s->dir);
        if ((r->raw = gs_malloc(r->raw_cap, err, "the merge of spilled hits")) == NULL)
            return GS_ESYS;
        s->srcs[i] = (gs_hit_source){reader_next, r};
    }
    size_t n_src = k;
    if (with_tail)
        s->srcs[n_src++] = gs_hit_array_source(&s->tail, tail, n_tail);
    return gs_hit_merge_open(s->srcs, n_src, buf, &s->merge, err);
}

/* Merge the oldest k runs into one new run. */
static gs_status merge_oldest(gs_spill *s, size_t k, size_t buf, gs_error *err)
{
    unsigned id;
    uint64_t n;
    if (open_merge(s, k, 0, NULL, 0, buf, err) != GS_OK || new_id(s, &id, err) != GS_OK ||
        write_run(s, id, gs_hit_merge_source(s->merge), &n, err) != GS_OK)
        return err->code;
    gs_spill_retire(s, k);
    return add_run(s, id, n, err);
}

gs_status gs_spill_source(gs_spill *sp, const gs_hit *tail, size_t n_tail, size_t mem,
                          gs_hit_array_src *held, gs_hit_source *src, gs_error *err)
{
    if (gs_spill_runs(sp) > 0)
        return gs_spill_stream(sp, tail, n_tail, mem, src, err);
    *src = gs_hit_array_source(held, tail, n_tail);
    return GS_OK;
}

gs_status gs_spill_stream(gs_spill *s, const gs_hit *tail, size_t n_tail, size_t mem,
                          gs_hit_source *src, gs_error *err)
{
    const size_t per_hit = sizeof(gs_hit) + GS_SPILL_HIT_BYTES;
    stream_close(s); /* a stream read before: read again from the start */
    size_t fanin = mem / (per_hit * MIN_BUF_HITS);
    fanin = fanin < 3 ? 3 : fanin > MAX_FANIN ? MAX_FANIN : fanin;
    while (s->n_runs + 1 > fanin) {
        size_t k = s->n_runs + 1 - fanin + 1; /* merging k runs leaves one */
        k = k > fanin ? fanin : k;
        if (merge_oldest(s, k, mem / (k * per_hit) + 1, err) != GS_OK) {
            stream_close(s);
            return err->code;
        }
    }
    size_t k = s->n_runs + 1;
    if (open_merge(s, s->n_runs, 1, tail, n_tail, mem / (k * per_hit) + 1, err) != GS_OK) {
        stream_close(s);
        return err->code;
    }
    *src = gs_hit_merge_source(s->merge);
    return GS_OK;
}

gs_status gs_spill_collapse(gs_spill *s, gs_hit_source src, gs_error *err)
{
    unsigned id;
    uint64_t n;
    if (new_id(s, &id, err) != GS_OK || write_run(s, id, src, &n, err) != GS_OK)
        return err->code;
    gs_spill_retire(s, s->n_runs);
    return add_run(s, id, n, err);
}

void gs_spill_retire(gs_spill *s, size_t k)
{
    char path[PATH_MAX + 16];
    stream_close(s);
    for (size_t i = 0; i < k; i++) {
        run_path(path, s->dir, s->runs[i].id);
        unlink(path);
        s->hits -= s->runs[i].n;
        s->bytes -= s->runs[i].n * GS_SPILL_HIT_BYTES;
    }
    if (k > 0)
        memmove(s->runs, s->runs + k, (s->n_runs - k) * sizeof *s->runs);
    s->n_runs -= k;
}

const char *gs_spill_dir(const gs_spill *s) { return s && s->made ? s->dir : ""; }

void gs_spill_free(gs_spill *s)
{
    if (s == NULL)
        return;
    stream_close(s);
    char path[PATH_MAX + 16];
    for (size_t i = 0; s->made && i < s->n_runs; i++) {
        run_path(path, s->dir, s->runs[i].id);
        unlink(path);
    }
    if (s->slot >= 0)
        atomic_store(&live[s->slot], 0);
    if (s->made)
        rmdir(s->dir);
    pthread_mutex_destroy(&s->mu);
    free(s->runs);
    free(s->out);
    free(s);
}
