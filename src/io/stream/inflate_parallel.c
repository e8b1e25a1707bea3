/* inflate_parallel.c - one gzip file decompressed on several threads and
 * handed out in order (inflate_parallel.h).
 *
 * A single gzip stream is one chain of deflate blocks, each free to copy
 * from the 32 KiB before it, so no library can split it: ISA-L, the fastest
 * inflate Debian packages, does ~0.6 GB/s of DNA on one core, and a 1 GiB
 * corpus then takes ~2 s to read whatever the rest of the job does. This
 * file decodes it the way pugz and rapidgzip do (neither is packaged):
 *
 *  1. The compressed bytes are cut into regions (4 MiB). A worker thread
 *     decodes region j from the first dynamic block it can find in it
 *     (gs_dchunk_find, by trial decoding) to the first block header at or
 *     after the region's end, with markers for the unknown window. Region 0
 *     starts at the member header with an empty window.
 *  2. The calling thread chains the pieces in order: piece j is used only
 *     when it starts at exactly the bit where piece j-1 stopped; else (a
 *     false start, a block type the search does not find, an error) region
 *     j is decoded again from there with the window known. The first piece
 *     starts at the file's start, so by induction every piece used is the
 *     real stream. The chain also carries the window: the last 32 KiB of
 *     each piece, resolved from the window before it (cheap: 32 KiB a
 *     piece, however long the piece).
 *  3. A worker then replaces the piece's markers and computes its CRC32s
 *     (one per stretch between member ends), and the calling thread hands
 *     the bytes out in order, checking each member's CRC32 (crc32_combine)
 *     and ISIZE as its end passes.
 * Markers must be resolved on every byte of a piece of DNA: matches keep
 * copying older matches, so window references do not die out within a
 * region (measured: whole 12 MB pieces of gzip -1 DNA carry markers), which
 * is why resolving is parallel work and only the window is on the chain.
 *
 * Memory: at most 2 x threads + 2 regions in flight, each holding its
 * decompressed piece (twice that while it has markers). A region's piece
 * ends at a block boundary, so one holding a highly compressible block is
 * as large as that block decompresses.
 */
#define _POSIX_C_SOURCE 200809L
#include "inflate_parallel.h"

#include <isa-l/crc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h> /* crc32_combine */

#include "core/gs_mapguard.h"
#include "core/gs_parallel.h"

#include "deflate_chunk.h"

enum { W = GS_DEFLATE_WINDOW };
enum { S_FREE, S_DECODING, S_DECODED, S_RESOLVING, S_READY };

typedef struct slot {
    gs_dchunk c;
    size_t region;
    int state;          /* S_*, under the lock */
    int usable;         /* the worker's piece decoded without error */
    int oom;
    int empty;          /* nothing to hand out: the piece before covered the region */
    uint8_t window[W];  /* the window before the piece, for resolving */
    size_t win_len;     /* how much of it belongs to the piece's member */
    const uint8_t *bytes; /* the head resolved (n_head bytes) */
    int bad;            /* a marker points before its member's start */
    uint32_t *crc;      /* [n_ends + 1]: CRC32 of each stretch between member ends */
    size_t crc_cap;
} slot;

struct gs_pinflate {
    const uint8_t *in;
    size_t n, region, n_regions;
    char *name;
    gs_task task;       /* runs the workers (gs_run_parallel) beside the caller */
    struct gs_pinflate **workers; /* n_threads pointers to this, one a worker */
    int n_threads;
    pthread_t opener;   /* the calling thread, which must not run the workers */
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    slot *slots;
    size_t n_slots;
    size_t next_region; /* the next region a worker decodes */
    size_t chain;       /* the next region the calling thread chains */
    size_t emit;        /* regions handed out and released */
    size_t *queue;      /* regions to resolve, FIFO of n_slots */
    size_t q_head, q_n;
    int stop;
    /* the chain (calling thread) */
    uint64_t want;      /* bit where the next piece must start */
    int eos;
    uint8_t window[W];
    size_t win_len;
    uint64_t out_chained;
    /* handing out (calling thread) */
    const uint8_t *view[2];
    size_t view_n[2];
    int n_views, next_view;
    int holding;        /* region emit is being handed out: release it next call */
    uint32_t mcrc;      /* the current member's CRC32 and length so far */
    uint64_t mlen;
    uint64_t out;       /* bytes handed out */
};

static uint64_t region_start(const gs_pinflate *p, size_t j)
{
    return (uint64_t)j * p->region * 8;
}

static uint64_t region_end(const gs_pinflate *p, size_t j)
{
    uint64_t e = (uint64_t)(j + 1) * p->region;
    return (e < p->n ? e : p->n) * 8;
}

/* A worker's piece of region j. The compressed bytes are a mapped file: a
 * page that faults because the file was cut leaves the piece unusable, and
 * the chain decoding the region again reports it. */
static void decode_region(gs_pinflate *p, slot *s)
{
    size_t j = s->region;
    gs_status st;
    gs_mapguard g;
    gs_mapguard_arm(&g, p->in, p->n);
    if (sigsetjmp(g.env, 0)) {
        gs_mapguard_disarm(&g);
        s->usable = s->oom = 0;
        return;
    }
    if (j == 0)
        st = gs_dchunk_decode(&s->c, p->in, p->n, 0, 1, (const uint8_t *)"", 0, region_end(p, 0),
                              SIZE_MAX);
    else {
        int found = 0;
        st = gs_dchunk_find(&s->c, p->in, p->n, region_start(p, j), region_end(p, j),
                            region_end(p, j), SIZE_MAX, &found);
        if (st == GS_OK && (!found || s->c.why))
            st = GS_EINPUT;
    }
    gs_mapguard_disarm(&g);
    s->usable = st == GS_OK;
    s->oom = st == GS_ESYS;
}

/* Replace the markers and compute the CRC32 of each stretch of the piece. */
static void resolve_region(slot *s)
{
    gs_dchunk *c = &s->c;
    s->bad = 0;
    s->bytes = NULL;
    if (c->n_head && (s->bytes = gs_dchunk_resolve(c, s->window, s->win_len)) == NULL) {
        s->bad = 1;
        return;
    }
    uint64_t at = 0, total = c->n_head + c->n_tail;
    for (size_t k = 0; k <= c->n_ends; k++) {
        uint64_t end = k < c->n_ends ? c->ends[k].at : total, crc = 0;
        if (at < c->n_head) {
            uint64_t e = end < c->n_head ? end : c->n_head;
            crc = crc32_gzip_refl((uint32_t)crc, (uint8_t *)s->bytes + at, e - at);
        }
        if (end > c->n_head) {
            uint64_t b = at > c->n_head ? at : c->n_head;
            crc = crc32_gzip_refl((uint32_t)crc, c->tail + W + (b - c->n_head), end - b);
        }
        s->crc[k] = (uint32_t)crc;
        at = end;
    }
}

static void *worker(void *arg)
{
    gs_pinflate *p = *(gs_pinflate **)arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        if (p->q_n > 0) {
            slot *s = &p->slots[p->queue[p->q_head] % p->n_slots];
            p->q_head = (p->q_head + 1) % p->n_slots;
            p->q_n--;
            pthread_mutex_unlock(&p->mu);
            resolve_region(s);
            pthread_mutex_lock(&p->mu);
            s->state = S_READY;
            pthread_cond_broadcast(&p->done);
        } else if (p->next_region < p->n_regions && p->next_region < p->emit + p->n_slots) {
            slot *s = &p->slots[p->next_region % p->n_slots];
            s->region = p->next_region++;
            s->state = S_DECODING;
            pthread_mutex_unlock(&p->mu);
            decode_region(p, s);
            pthread_mutex_lock(&p->mu);
            s->state = S_DECODED;
            pthread_cond_broadcast(&p->done);
        } else {
            pthread_cond_wait(&p->work, &p->mu);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* The workers, on the task's thread and threads of their own until close
 * stops them. Run on the opener (no thread could be started) they would
 * wait for work that only the opener makes: they return at once then. */
static void *run_workers(void *arg)
{
    gs_pinflate *p = arg;
    if (!pthread_equal(pthread_self(), p->opener))
        gs_run_parallel(worker, p->workers, sizeof *p->workers, p->n_threads);
    return NULL;
}

static gs_status corrupt(gs_pinflate *p, const char *why, uint64_t out, uint64_t in_byte,
                         gs_error *err)
{
    return gs_fail(err, GS_EINPUT,
                   "corrupt or truncated gzip: %s after %llu decompressed bytes (compressed byte "
                   "%llu) (%s)",
                   why, (unsigned long long)out, (unsigned long long)in_byte, p->name);
}

/* The window after a piece: the last W bytes of window ++ piece. */
static void next_window(gs_pinflate *p, const gs_dchunk *c)
{
    uint8_t w[W];
    size_t k = W; /* fill w from the end */
    size_t t = c->n_tail < k ? c->n_tail : k;
    memcpy(w + k - t, c->tail + W + c->n_tail - t, t);
    k -= t;
    for (size_t i = c->n_head; k > 0 && i > 0; i--) {
        uint16_t v = c->head[W + i - 1];
        w[--k] = v < 256 ? (uint8_t)v : p->window[v - 256];
    }
    if (k > 0)
        memcpy(w, p->window + W - k, k);
    memcpy(p->window, w, W);
    uint64_t out = c->n_head + c->n_tail;
    uint64_t since = c->n_ends ? out - c->ends[c->n_ends - 1].at : p->win_len + out;
    p->win_len = since < W ? (size_t)since : W;
}

/* Chain region j (its slot decoded): use the worker's piece or decode the
 * region again from where the chain stands; hand it on to be resolved. */
static gs_status chain_step(gs_pinflate *p, slot *s, gs_error *err)
{
    size_t j = s->region;
    s->empty = p->eos || p->want >= region_end(p, j);
    if (s->empty) {
        pthread_mutex_lock(&p->mu);
        s->state = S_READY;
        pthread_mutex_unlock(&p->mu);
        return GS_OK;
    }
    gs_dchunk *c = &s->c;
    if (!s->usable || c->start_bit != p->want) {
        gs_mapguard g;
        gs_mapguard_arm(&g, p->in, p->n);
        if (sigsetjmp(g.env, 0)) {
            gs_mapguard_disarm(&g);
            return gs_mapguard_fail(err, p->name);
        }
        gs_status st = gs_dchunk_decode(c, p->in, p->n, p->want, p->want == 0, p->window,
                                        p->win_len, region_end(p, j), SIZE_MAX);
        gs_mapguard_disarm(&g);
        if (st == GS_ESYS)
            return gs_fail(err, GS_ESYS, "out of memory (decompressing %s)", p->name);
        if (st != GS_OK)
            return corrupt(p, c->why, p->out_chained + c->n_tail, c->err_byte, err);
    }
    if (s->crc_cap < c->n_ends + 1) {
        uint32_t *v = realloc(s->crc, (c->n_ends + 1) * sizeof *v);
        if (v == NULL)
            return gs_fail(err, GS_ESYS, "out of memory (decompressing %s)", p->name);
        s->crc = v;
        s->crc_cap = c->n_ends + 1;
    }
    memcpy(s->window, p->window, W);
    s->win_len = p->win_len;
    next_window(p, c);
    p->want = c->stop_bit;
    p->eos = c->eos;
    p->out_chained += c->n_head + c->n_tail;
    pthread_mutex_lock(&p->mu);
    s->state = S_RESOLVING;
    p->queue[(p->q_head + p->q_n++) % p->n_slots] = j;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
    return GS_OK;
}

/* Chain every region already decoded, without waiting; then, if region
 * emit is not chained yet, wait for it and chain it. */
static gs_status advance(gs_pinflate *p, gs_error *err)
{
    for (;;) {
        pthread_mutex_lock(&p->mu);
        int must = p->chain == p->emit;
        if (p->chain >= p->n_regions || p->chain >= p->emit + p->n_slots) {
            pthread_mutex_unlock(&p->mu);
            return GS_OK;
        }
        slot *s = &p->slots[p->chain % p->n_slots];
        while (must && !(s->state == S_DECODED && s->region == p->chain))
            pthread_cond_wait(&p->done, &p->mu);
        int ready = s->state == S_DECODED && s->region == p->chain;
        pthread_mutex_unlock(&p->mu);
        if (!ready)
            return GS_OK;
        if (chain_step(p, s, err) != GS_OK)
            return err->code;
        p->chain++;
    }
}

/* Region emit resolved: check its member ends and set up its views. */
static gs_status take_region(gs_pinflate *p, slot *s, gs_error *err)
{
    gs_dchunk *c = &s->c;
    p->n_views = p->next_view = 0;
    if (s->empty)
        return GS_OK;
    if (s->bad)
        return corrupt(p, "invalid distance too far back", p->out, c->start_bit / 8, err);
    uint64_t at = 0, total = c->n_head + c->n_tail;
    for (size_t k = 0; k <= c->n_ends; k++) {
        uint64_t end = k < c->n_ends ? c->ends[k].at : total;
        p->mcrc = (uint32_t)crc32_combine(p->mcrc, s->crc[k], (z_off_t)(end - at));
        p->mlen += end - at;
        if (k < c->n_ends) {
            if (p->mcrc != c->ends[k].crc)
                return corrupt(p, "incorrect data check", p->out + end, c->stop_bit / 8, err);
            if ((uint32_t)p->mlen != c->ends[k].isize)
                return corrupt(p, "incorrect length check", p->out + end, c->stop_bit / 8, err);
            p->mcrc = 0;
            p->mlen = 0;
        }
        at = end;
    }
    if (c->n_head) {
        p->view[p->n_views] = s->bytes;
        p->view_n[p->n_views++] = c->n_head;
    }
    if (c->n_tail) {
        p->view[p->n_views] = c->tail + W;
        p->view_n[p->n_views++] = c->n_tail;
    }
    return GS_OK;
}

gs_status gs_pinflate_next(gs_pinflate *p, const uint8_t **out, size_t *n, gs_error *err)
{
    *n = 0;
    for (;;) {
        if (p->next_view < p->n_views) {
            *out = p->view[p->next_view];
            *n = p->view_n[p->next_view++];
            p->out += *n;
            return GS_OK;
        }
        if (p->holding) { /* the caller is done with the last region's bytes */
            pthread_mutex_lock(&p->mu);
            p->slots[p->emit % p->n_slots].state = S_FREE;
            p->emit++;
            p->holding = 0;
            pthread_cond_broadcast(&p->work);
            pthread_mutex_unlock(&p->mu);
        }
        if (p->emit == p->n_regions) {
            if (!p->eos)
                return corrupt(p, "unexpected end of file", p->out, p->n, err);
            return GS_OK;
        }
        if (advance(p, err) != GS_OK)
            return err->code;
        slot *s = &p->slots[p->emit % p->n_slots];
        pthread_mutex_lock(&p->mu);
        while (s->state != S_READY)
            pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
        p->holding = 1;
        if (take_region(p, s, err) != GS_OK)
            return err->code;
    }
}

uint64_t gs_pinflate_bytes_in(const gs_pinflate *p)
{
    return p->eos && p->emit == p->n_regions ? p->n : p->want / 8;
}

gs_status gs_pinflate_open(const uint8_t *in, size_t n, int threads, size_t region,
                           const char *name, gs_pinflate **out, gs_error *err)
{
    *out = NULL;
    gs_pinflate *p = gs_calloc(1, sizeof *p, err, "gzip decoder");
    if (p == NULL)
        return GS_ESYS;
    p->in = in;
    p->n = n;
    p->region = region ? region : (size_t)4 << 20;
    p->n_regions = n ? (n + p->region - 1) / p->region : 1;
    int n_threads = threads > 0 ? threads : 1;
    p->n_slots = 2 * (size_t)n_threads + 2;
    p->win_len = 0;
    size_t l = strlen(name) + 1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    if ((p->name = gs_malloc(l, err, "file name")) == NULL ||
        (p->slots = gs_calloc(p->n_slots, sizeof *p->slots, err, "gzip decoder")) == NULL ||
        (p->queue = gs_calloc(p->n_slots, sizeof *p->queue, err, "gzip decoder")) == NULL ||
        (p->workers = gs_calloc((size_t)n_threads, sizeof *p->workers, err, "gzip decoder")) ==
            NULL)
        goto fail;
    memcpy(p->name, name, l);
    for (size_t i = 0; i < p->n_slots; i++)
        p->slots[i].region = SIZE_MAX;
    for (int t = 0; t < n_threads; t++)
        p->workers[t] = p;
    p->n_threads = n_threads;
    p->opener = pthread_self();
    if (!gs_task_start(&p->task, run_workers, p)) {
        gs_fail_spawn(err, "a decompression thread", name);
        goto fail;
    }
    *out = p;
    return GS_OK;
fail:
    gs_pinflate_close(p);
    return err->code;
}

void gs_pinflate_close(gs_pinflate *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    gs_task_join(&p->task);
    for (size_t i = 0; p->slots && i < p->n_slots; i++) {
        gs_dchunk_free(&p->slots[i].c);
        free(p->slots[i].crc);
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    free(p->slots);
    free(p->queue);
    free(p->workers);
    free(p->name);
    free(p);
}
