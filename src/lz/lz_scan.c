/* lz_scan.c - scan through the hybrid index: the kernel as a segment
 * source, then primary occurrences into all occurrences (see lz.h).
 *
 * Locate: copy phrases sorted by source start, with a max-tree over their
 * source ends. An occurrence [g, g + m) lies inside the sources of exactly
 * the phrases among the first k (sources starting at or before g) whose
 * source ends at or after g + m; the tree visits only subtrees whose
 * maximum end reaches g + m, so a query costs O((1 + found) log phrases).
 * Each primary occurrence's tree of descendants is walked by one thread
 * with an explicit stack; threads take primaries in chunks from an atomic
 * counter and keep their own counts and hits, merged at the end.
 */
#define _POSIX_C_SOURCE 200809L
#include "lz.h"

#include "../core/gs_clock.h"
#include "../io/bgzf.h"

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- the kernel as a source --------------------------------------------- */

int gs_lz_separator(const gs_patset *ps, gs_alphabet alphabet)
{
    if (alphabet == GS_ALPHA_DNA)
        return 'N'; /* contract §2: no pattern position matches a non-base */
    uint8_t used[256] = {0};
    for (uint32_t p = 0; p < ps->n; p++)
        for (uint32_t i = 0; i < ps->v[p].len; i++)
            used[ps->v[p].bytes[i]] = 1;
    for (int c = 0; c < 256; c++)
        if (!used[c])
            return c;
    return -1;
}

void gs_lz_src_init(gs_lz_src *s, const gs_lz_index *ix, int part, int n_parts, size_t block,
                    size_t overlap, int sep)
{
    uint64_t k = ix->kernel_len;
    /* 128-bit free split: k * part overflows only past 2^64 / n_parts residues */
    uint64_t a = (uint64_t)((unsigned __int128)k * (unsigned)part / (unsigned)n_parts);
    uint64_t b = (uint64_t)((unsigned __int128)k * (unsigned)(part + 1) / (unsigned)n_parts);
    *s = (gs_lz_src){.ix = ix, .cur = a, .end = b, .block = block, .overlap = overlap, .sep = sep};
    s->piece = a < b ? gs_lz_last_le(ix->pc_koff, ix->n_pieces, a) : 0;
}

/* Owned residues from cur on, then the next pieces after a separator while
 * the block has room; the overlap only inside the last piece (a hit never
 * crosses a separator). */
static int lz_next(void *ctx, uint8_t *buf, gs_segment *seg, gs_error *err)
{
    (void)err;
    gs_lz_src *s = ctx;
    if (s->cur >= s->end)
        return 0;
    const gs_lz_index *ix = s->ix;
    while (ix->pc_koff[s->piece + 1] <= s->cur)
        s->piece++;
    *seg = (gs_segment){.record = 0, .base = s->cur + s->piece, .text = buf};
    size_t n = 0;
    for (;;) {
        uint64_t p_end = ix->pc_koff[s->piece + 1];
        uint64_t own_end = p_end < s->end ? p_end : s->end;
        uint64_t own = own_end - s->cur < s->block - n ? own_end - s->cur : s->block - n;
        memcpy(buf + n, ix->kernel + s->cur, own);
        n += own;
        s->cur += own;
        if (s->cur < p_end) { /* the block is full or the range ends inside the piece */
            uint64_t stop = s->cur + s->overlap < p_end ? s->cur + s->overlap : p_end;
            memcpy(buf + n, ix->kernel + s->cur, stop - s->cur);
            seg->own = n;
            seg->len = n + (size_t)(stop - s->cur);
            return 1;
        }
        /* the piece is done: join the next one while it is owned and fits */
        if (s->sep < 0 || s->cur >= s->end || n + 2 > s->block)
            break;
        buf[n++] = (uint8_t)s->sep;
        s->piece++;
    }
    seg->own = seg->len = n;
    return 1;
}

gs_source gs_source_lz(gs_lz_src *s)
{
    return (gs_source){.next = lz_next, .ctx = s};
}

/* ---- locate ------------------------------------------------------------- */

typedef struct srcs {
    uint64_t n, leaves;  /* copy phrases; leaves: power of two >= n */
    uint64_t *start;     /* [n] source starts, ascending */
    uint64_t *target;    /* [n] the phrase's start */
    uint64_t *tree;      /* [2 * leaves] max source end (exclusive); leaf i at leaves + i */
} srcs;

typedef struct occ {
    uint64_t g;
    uint32_t pattern;
    int8_t strand;
} occ;

typedef struct locate_ctx {
    const gs_lz_index *ix;
    const gs_patset *ps;
    const srcs *sr;
    const occ *prim;
    uint64_t n_prim;
    int n_strands, want_hits;
    atomic_ullong next;
} locate_ctx;

typedef struct locate_thread {
    locate_ctx *c;
    pthread_t tid;
    uint64_t *counts;
    gs_hits hits;
    uint64_t *stack;
    size_t n_stack, cap_stack;
    int oom;
} locate_thread;

/* Building the source list in parallel: with 1000 strains it holds ~14 M
 * copy phrases, and a one-thread build took longer than locating every
 * occurrence on 16 threads. Each step splits its range evenly over the
 * threads and runs through gs_run_parallel; the sort is an LSD radix sort,
 * 11 bits a pass over the bits keys use (3 passes for collections under 8 G
 * residues), each pass a per-thread histogram, one prefix sum over
 * (bucket, thread), and a stable scatter. */
enum { RADIX_BITS = 11, RADIX_BUCKETS = 1 << RADIX_BITS };

typedef struct srcs_job {
    const gs_lz_index *ix;
    srcs *sr;
    uint64_t *pairs, *tmp; /* (source start, phrase) pairs; scatter target */
    uint64_t lo, hi;       /* this thread's share of the step's range */
    uint64_t first;        /* fill: the thread's first pair */
    int step, shift;
    uint64_t count[RADIX_BUCKETS]; /* histogram, then scatter offsets */
} srcs_job;

enum { STEP_COUNT, STEP_FILL, STEP_HIST, STEP_SCATTER, STEP_LEAVES, STEP_TREE };

static void *srcs_step(void *arg)
{
    srcs_job *t = arg;
    const gs_lz_index *ix = t->ix;
    srcs *sr = t->sr;
    uint64_t mask = RADIX_BUCKETS - 1;
    switch (t->step) {
    case STEP_COUNT:
        t->first = 0;
        for (uint64_t j = t->lo; j < t->hi; j++)
            t->first += ix->ph_src[j] != GS_LZ_LITERAL;
        break;
    case STEP_FILL:
        for (uint64_t j = t->lo, i = t->first; j < t->hi; j++)
            if (ix->ph_src[j] != GS_LZ_LITERAL) {
                t->pairs[2 * i] = ix->ph_src[j];
                t->pairs[2 * i + 1] = j;
                i++;
            }
        break;
    case STEP_HIST:
        memset(t->count, 0, sizeof t->count);
        for (uint64_t i = t->lo; i < t->hi; i++)
            t->count[(t->pairs[2 * i] >> t->shift) & mask]++;
        break;
    case STEP_SCATTER:
        for (uint64_t i = t->lo; i < t->hi; i++) {
            uint64_t d = t->count[(t->pairs[2 * i] >> t->shift) & mask]++;
            t->tmp[2 * d] = t->pairs[2 * i];
            t->tmp[2 * d + 1] = t->pairs[2 * i + 1];
        }
        break;
    case STEP_LEAVES:
        for (uint64_t i = t->lo; i < t->hi; i++) {
            uint64_t j = t->pairs[2 * i + 1];
            sr->start[i] = t->pairs[2 * i];
            sr->target[i] = ix->ph_start[j];
            sr->tree[sr->leaves + i] = t->pairs[2 * i] + ix->ph_start[j + 1] - ix->ph_start[j];
        }
        break;
    case STEP_TREE: /* nodes [lo, hi) of one level */
        for (uint64_t v = t->lo; v < t->hi; v++)
            sr->tree[v] = sr->tree[2 * v] > sr->tree[2 * v + 1] ? sr->tree[2 * v] : sr->tree[2 * v + 1];
        break;
    }
    return NULL;
}

/* Run one step over [lo, hi), split evenly over the threads. */
static void srcs_run(srcs_job *job, int threads, int step, uint64_t lo, uint64_t hi)
{
    for (int t = 0; t < threads; t++) {
        job[t].step = step;
        job[t].lo = lo + (hi - lo) * (uint64_t)t / (uint64_t)threads;
        job[t].hi = lo + (hi - lo) * (uint64_t)(t + 1) / (uint64_t)threads;
    }
    gs_run_parallel(srcs_step, job, sizeof *job, threads);
}

static gs_status build_srcs(const gs_lz_index *ix, srcs *sr, int threads, gs_error *err)
{
    if (threads > GS_BGZF_MAX_THREADS)
        threads = GS_BGZF_MAX_THREADS;
    if (ix->n_phrases < 65536)
        threads = 1; /* thread start-up would cost more than the work */
    srcs_job *job = gs_calloc((size_t)threads, sizeof *job, err, "locate");
    if (job == NULL)
        return GS_ESYS;
    for (int t = 0; t < threads; t++)
        job[t] = (srcs_job){.ix = ix, .sr = sr};
    srcs_run(job, threads, STEP_COUNT, 0, ix->n_phrases);
    uint64_t n = 0;
    for (int t = 0; t < threads; t++) {
        uint64_t c = job[t].first;
        job[t].first = n;
        n += c;
    }
    sr->n = n;
    sr->leaves = 1;
    while (sr->leaves < n)
        sr->leaves *= 2;
    uint64_t *pairs = gs_malloc((n ? n : 1) * 2 * sizeof *pairs, err, "locate");
    uint64_t *tmp = gs_malloc((n ? n : 1) * 2 * sizeof *tmp, err, "locate");
    sr->start = gs_malloc((n ? n : 1) * sizeof *sr->start, err, "locate");
    sr->target = gs_malloc((n ? n : 1) * sizeof *sr->target, err, "locate");
    sr->tree = gs_calloc(2 * sr->leaves, sizeof *sr->tree, err, "locate");
    if (!pairs || !tmp || !sr->start || !sr->target || !sr->tree) {
        free(pairs);
        free(tmp);
        free(job);
        return GS_ESYS;
    }
    for (int t = 0; t < threads; t++)
        job[t].pairs = pairs, job[t].tmp = tmp;
    /* the count step split the phrases as the fill step does */
    srcs_run(job, threads, STEP_FILL, 0, ix->n_phrases);
    for (int shift = 0; shift < 64 && (ix->n_residues >> shift) != 0; shift += RADIX_BITS) {
        for (int t = 0; t < threads; t++)
            job[t].shift = shift;
        srcs_run(job, threads, STEP_HIST, 0, n);
        uint64_t at = 0; /* bucket-major, thread-minor: a stable scatter */
        for (int b = 0; b < RADIX_BUCKETS; b++)
            for (int t = 0; t < threads; t++) {
                uint64_t c = job[t].count[b];
                job[t].count[b] = at;
                at += c;
            }
        srcs_run(job, threads, STEP_SCATTER, 0, n);
        for (int t = 0; t < threads; t++)
            job[t].pairs = tmp, job[t].tmp = pairs;
        uint64_t *sw = pairs;
        pairs = tmp;
        tmp = sw;
    }
    srcs_run(job, threads, STEP_LEAVES, 0, n);
    /* levels of the tree, bottom up; the small ones on this thread */
    for (uint64_t w = sr->leaves / 2; w >= 1; w /= 2)
        srcs_run(job, w >= 65536 ? threads : 1, STEP_TREE, w, 2 * w);
    free(pairs);
    free(tmp);
    free(job);
    return GS_OK;
}

static void srcs_free(srcs *sr)
{
    free(sr->start);
    free(sr->target);
    free(sr->tree);
}

/* The source list built on a thread of its own while the kernel is
 * scanned: on the GPU the host is idle then, and on 1000 strains the list
 * (14 M copy phrases) is most of locate. */
struct gs_lz_ahead {
    const gs_lz_index *ix;
    int threads;
    pthread_t tid;
    srcs sr;
    gs_status st;
    gs_error err; /* the thread's own: the caller's may be in use meanwhile */
    double secs;
};

static void *ahead_main(void *arg)
{
    struct gs_lz_ahead *a = arg;
    double t0 = gs_now();
    a->st = build_srcs(a->ix, &a->sr, a->threads, &a->err);
    a->secs = gs_now() - t0;
    return NULL;
}

void gs_lz_locate_ahead(gs_lz_index *ix, int threads)
{
    struct gs_lz_ahead *a = calloc(1, sizeof *a);
    if (a == NULL || ix->ahead != NULL)
        goto fail;
    *a = (struct gs_lz_ahead){.ix = ix, .threads = threads < 1 ? 1 : threads};
    if (pthread_create(&a->tid, NULL, ahead_main, a) != 0)
        goto fail;
    ix->ahead = a;
    return;
fail:
    free(a);
}

/* Wait for the list built ahead; its status, its time in *secs. */
static gs_status ahead_join(gs_lz_index *ix, srcs *sr, double *secs, gs_error *err)
{
    struct gs_lz_ahead *a = ix->ahead;
    pthread_join(a->tid, NULL);
    *sr = a->sr;
    *secs = a->secs;
    gs_status st = a->st;
    if (st != GS_OK)
        *err = a->err;
    free(a);
    ix->ahead = NULL;
    return st;
}

void gs_lz_ahead_free(gs_lz_index *ix)
{
    if (ix->ahead == NULL)
        return;
    srcs sr;
    double secs;
    gs_error scratch = {0};
    ahead_join(ix, &sr, &secs, &scratch);
    srcs_free(&sr);
}

static int push(locate_thread *t, uint64_t g)
{
    if (gs_grow(&t->stack, &t->cap_stack, t->n_stack, sizeof *t->stack, 256))
        return -1;
    t->stack[t->n_stack++] = g;
    return 0;
}

/* Push the copies of [g, g + m) made by phrases whose source holds it:
 * leaves [0, k) of the tree with end >= g + m. */
static int push_copies(locate_thread *t, uint64_t g, uint64_t m)
{
    const srcs *sr = t->c->sr;
    uint64_t k = sr->n ? gs_lz_last_le(sr->start, sr->n, g) : sr->n;
    if (k == sr->n)
        return 0;
    k++; /* leaves [0, k) */
    uint64_t need = g + m;
    /* depth-first, left child first: at most one pending sibling per level */
    struct node {
        uint64_t v, lo, width; /* tree node, its first leaf, its leaf count */
    } nodes[130];
    int top = 0;
    nodes[top++] = (struct node){1, 0, sr->leaves};
    while (top > 0) {
        struct node x = nodes[--top];
        if (x.lo >= k || sr->tree[x.v] < need)
            continue;
        if (x.width == 1) {
            if (push(t, sr->target[x.lo] + (g - sr->start[x.lo])))
                return -1;
            continue;
        }
        uint64_t h = x.width / 2;
        nodes[top++] = (struct node){2 * x.v + 1, x.lo + h, h};
        nodes[top++] = (struct node){2 * x.v, x.lo, h};
    }
    return 0;
}

static gs_hit to_hit(const gs_lz_index *ix, uint64_t g, uint32_t pattern, int8_t strand)
{
    uint64_t r = gs_lz_last_le(ix->rec_off, ix->layout.n_rec, g);
    return (gs_hit){.start = g - ix->rec_off[r], .record = (uint32_t)r, .pattern = pattern,
                    .strand = strand};
}

static void *locate_main(void *arg)
{
    enum { CHUNK = 64 };
    locate_thread *t = arg;
    locate_ctx *c = t->c;
    for (;;) {
        uint64_t a = atomic_fetch_add(&c->next, CHUNK);
        if (a >= c->n_prim || t->oom)
            break;
        uint64_t b = a + CHUNK < c->n_prim ? a + CHUNK : c->n_prim;
        for (uint64_t i = a; i < b && !t->oom; i++) {
            const occ *o = &c->prim[i];
            uint64_t m = c->ps->v[o->pattern].len;
            size_t slot = (size_t)o->pattern * (size_t)c->n_strands + (o->strand < 0);
            t->n_stack = 0;
            if (push(t, o->g)) {
                t->oom = 1;
                break;
            }
            while (t->n_stack > 0) {
                uint64_t g = t->stack[--t->n_stack];
                t->counts[slot]++;
                if (c->want_hits) {
                    gs_hit h = to_hit(c->ix, g, o->pattern, o->strand);
                    if (gs_hits_push(&t->hits, &h)) {
                        t->oom = 1;
                        break;
                    }
                }
                if (push_copies(t, g, m)) {
                    t->oom = 1;
                    break;
                }
            }
        }
    }
    return NULL;
}

/* Primary: not inside one copy phrase (lz.h). */
static int is_primary(const gs_lz_index *ix, uint64_t g, uint64_t m)
{
    uint64_t j = gs_lz_last_le(ix->ph_start, ix->n_phrases, g);
    return ix->ph_src[j] == GS_LZ_LITERAL || g + m > ix->ph_start[j + 1];
}

gs_status gs_lz_locate(gs_lz_index *ix, const gs_patset *ps, int n_strands,
                       gs_hits *kernel_hits, int want_hits, int threads, uint64_t *counts,
                       gs_hits *out, gs_error *err)
{
    srcs sr = {0};
    locate_thread *th = NULL;
    occ *prim = NULL;
    uint64_t n_prim = 0;
    memset(out, 0, sizeof *out);
    double t0 = gs_now(), built_ahead = 0;
    gs_status st = ix->ahead ? ahead_join(ix, &sr, &built_ahead, err)
                             : build_srcs(ix, &sr, threads < 1 ? 1 : threads, err);
    double t_srcs = gs_now() - t0; /* with a list built ahead: the wait for it */
    if (st != GS_OK)
        goto fail;
    prim = gs_malloc((kernel_hits->n ? kernel_hits->n : 1) * sizeof *prim, err, "primaries");
    if (prim == NULL) {
        st = GS_ESYS;
        goto fail;
    }
    for (size_t i = 0; i < kernel_hits->n; i++) {
        const gs_hit *h = &kernel_hits->v[i];
        /* joined position j: piece p is the last with pc_koff[p] + p <= j */
        uint64_t lo = 0, hi = ix->n_pieces;
        while (hi - lo > 1) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (ix->pc_koff[mid] + mid <= h->start)
                lo = mid;
            else
                hi = mid;
        }
        uint64_t g = ix->pc_pos[lo] + (h->start - lo - ix->pc_koff[lo]);
        if (is_primary(ix, g, ps->v[h->pattern].len))
            prim[n_prim++] = (occ){.g = g, .pattern = h->pattern, .strand = h->strand};
    }
    gs_hits_free(kernel_hits);

    if (threads < 1)
        threads = 1;
    size_t n_counts = (size_t)ps->n * (size_t)n_strands;
    locate_ctx c = {.ix = ix, .ps = ps, .sr = &sr, .prim = prim, .n_prim = n_prim,
                    .n_strands = n_strands, .want_hits = want_hits};
    atomic_init(&c.next, 0);
    th = gs_calloc((size_t)threads, sizeof *th, err, "locate threads");
    if (th == NULL) {
        st = GS_ESYS;
        goto fail;
    }
    int started = 0;
    for (int i = 0; i < threads; i++) {
        th[i].c = &c;
        if ((th[i].counts = gs_calloc(n_counts ? n_counts : 1, sizeof *th[i].counts, err,
                                      "counts")) == NULL) {
            st = GS_ESYS;
            break;
        }
    }
    for (int i = 1; st == GS_OK && i < threads; i++) {
        if (pthread_create(&th[i].tid, NULL, locate_main, &th[i]) != 0)
            break; /* fewer threads do the same work */
        started = i;
    }
    if (st == GS_OK)
        locate_main(&th[0]);
    for (int i = 1; i <= started; i++)
        pthread_join(th[i].tid, NULL);
    if (st != GS_OK)
        goto fail;

    if (getenv("GS_DEBUG_TIME")) /* the locate figures of docs/performance.md */
        fprintf(stderr, "gscan: locate: sources %.3f s (%llu copy phrases%s), occurrences "
                "%.3f s (%llu primary, %d threads)\n", built_ahead > 0 ? built_ahead : t_srcs,
                (unsigned long long)sr.n, built_ahead > 0 ? ", built during the scan" : "",
                gs_now() - t0 - t_srcs, (unsigned long long)n_prim, threads);
    size_t total = 0;
    for (int i = 0; i < threads; i++) {
        if (th[i].oom) {
            st = gs_fail(err, GS_ESYS, "out of memory (locating occurrences)");
            goto fail;
        }
        for (size_t k = 0; k < n_counts; k++)
            counts[k] += th[i].counts[k];
        total += th[i].hits.n;
    }
    if (want_hits) {
        out->v = gs_malloc((total ? total : 1) * sizeof *out->v, err, "hits");
        if (out->v == NULL) {
            st = GS_ESYS;
            goto fail;
        }
        out->cap = total ? total : 1;
        for (int i = 0; i < threads; i++) {
            if (th[i].hits.n)
                memcpy(out->v + out->n, th[i].hits.v, th[i].hits.n * sizeof *out->v);
            out->n += th[i].hits.n;
        }
        if (out->n > 1)
            qsort(out->v, out->n, sizeof *out->v, gs_hit_cmp);
    }
fail:
    for (int i = 0; th && i < threads; i++) {
        free(th[i].counts);
        free(th[i].stack);
        gs_hits_free(&th[i].hits);
    }
    free(th);
    free(prim);
    srcs_free(&sr);
    gs_hits_free(kernel_hits);
    return st;
}
