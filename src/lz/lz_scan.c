/* lz_scan.c - scan through the hybrid index: the part of the kernel the
 * patterns need, as a segment source, then primary occurrences into all
 * occurrences (see lz.h).
 *
 * Locate walks the copy phrases in source order with their max-tree
 * (lz_sources.c), read with the index. It runs in levels: level 0 takes the
 * kernel's hits, keeps the primary ones and finds the copies of each; each
 * later level takes the copies the level before found and finds theirs.
 * Within a level, threads take items in small chunks from an atomic
 * counter, so the work spreads over threads however it is spread over
 * primaries: a primary in the reference with 1000 copies hands them to the
 * next level, not to one thread. A copy that lies outside every source has
 * no copies; in counts mode it is counted where it is found and never
 * stored, so counts cost no memory per occurrence. Threads keep their own
 * counts and hits; hits are sorted once at the end, by a radix sort of
 * (global position, strand, pattern) keys.
 */
#define _POSIX_C_SOURCE 200809L
#include "lz.h"

#include "core/gs_clock.h"
#include "core/gs_hitsort.h"
#include "core/gs_mapguard.h"
#include "core/gs_parallel.h"

#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- the pieces a scan reads ---------------------------------------------
 *
 * Each stored piece is the union of the M-windows of the phrases starting
 * inside it (a phrase start lies in its own window when M >= 2), so the
 * s-windows of those phrases, merged by the build's rule (overlapping, not
 * touching), are the trimmed pieces inside it, and stored pieces split
 * among threads are derived alone: a pass that counts, then a pass that
 * writes at the offsets the counts give. Clipping to the stored piece is
 * clipping to the record, and the writes are bounded by the counts even in
 * an index whose pieces lie. */

typedef struct trim_job {
    const gs_lz_index *ix;
    uint64_t q0, q1;     /* stored pieces [q0, q1) */
    uint64_t w;          /* span - 1 */
    uint64_t n, len;     /* count pass: trimmed pieces and residues; fill pass: the
                          * first one's index and scanned offset */
    uint64_t *pos, *koff; /* fill pass: the output (NULL: count) */
} trim_job;

/* A trimmed piece [a, e) closed: counted, and written in the fill pass. */
static void trim_close(trim_job *t, uint64_t *n, uint64_t *len, uint64_t a, uint64_t e)
{
    if (t->pos) {
        t->pos[*n] = a;
        t->koff[*n + 1] = *len + (e - a);
    }
    ++*n;
    *len += e - a;
}

static void *trim_pieces(void *arg)
{
    trim_job *t = arg;
    const gs_lz_index *ix = t->ix;
    const uint64_t w = t->w;
    uint64_t n = t->n, len = t->len;
    uint64_t j = t->q0 < t->q1 ? gs_lz_last_le(ix->ph_start, ix->n_phrases, ix->pc_pos[t->q0]) : 0;
    if (j == ix->n_phrases)
        j = 0;
    for (uint64_t q = t->q0; q < t->q1; q++) {
        const uint64_t lo = ix->pc_pos[q], hi = lo + (ix->pc_koff[q + 1] - ix->pc_koff[q]);
        uint64_t a0 = 0, e0 = 0; /* the open trimmed piece, empty when a0 == e0 */
        for (; j < ix->n_phrases && ix->ph_start[j] < hi; j++) {
            uint64_t b = ix->ph_start[j];
            if (b < lo) /* before the piece: an empty window (M = 1) or a lying index */
                continue;
            uint64_t a, e;
            if (!gs_lz_window(b, lo, hi, w, &ix->ph_src[j], &a, &e))
                continue;
            if (a0 < e0 && a < e0) { /* overlaps the open piece */
                e0 = e > e0 ? e : e0;
                continue;
            }
            if (a0 < e0)
                trim_close(t, &n, &len, a0, e0);
            a0 = a;
            e0 = e;
        }
        if (a0 < e0)
            trim_close(t, &n, &len, a0, e0);
    }
    t->n = n - t->n;
    t->len = len - t->len;
    return NULL;
}

gs_status gs_lz_trim(gs_lz_index *ix, uint32_t span, int threads, const gs_tune *tune,
                     gs_error *err)
{
    free(ix->sc_own);
    ix->sc_own = NULL;
    ix->n_scan = ix->n_pieces;
    ix->sc_pos = ix->pc_pos;
    ix->sc_koff = ix->pc_koff;
    ix->sc_len = ix->kernel_len;
    if (span == 0 || span >= ix->max_pat || ix->n_pieces == 0)
        return GS_OK;
    double t0 = gs_now();
    threads = gs_parallel_threads(threads, ix->n_pieces);
    trim_job job[GS_PARALLEL_MAX];
    for (int i = 0; i < threads; i++)
        job[i] = (trim_job){.ix = ix, .q0 = ix->n_pieces * (uint64_t)i / (uint64_t)threads,
                            .q1 = ix->n_pieces * (uint64_t)(i + 1) / (uint64_t)threads,
                            .w = span - 1};
    gs_run_parallel(trim_pieces, job, sizeof *job, threads);
    uint64_t n = 0, len = 0;
    for (int i = 0; i < threads; i++) {
        uint64_t jn = job[i].n, jl = job[i].len;
        job[i].n = n;
        job[i].len = len;
        n += jn;
        len += jl;
    }
    uint64_t *own = gs_malloc((2 * n + 1) * sizeof *own, err, "scanned pieces");
    if (own == NULL)
        return GS_ESYS;
    own[n] = 0; /* koff[0] */
    for (int i = 0; i < threads; i++) {
        job[i].pos = own;
        job[i].koff = own + n;
    }
    gs_run_parallel(trim_pieces, job, sizeof *job, threads);
    ix->sc_own = own;
    ix->n_scan = n;
    ix->sc_pos = own;
    ix->sc_koff = own + n;
    ix->sc_len = len;
    if (tune && tune->debug & GS_DEBUG_TIME) /* the trim figures of docs/performance.md */
        fprintf(stderr, "gscan: trim: %.3f s: span %u of M %u, %llu of %llu kernel residues, "
                "%llu pieces (%d threads)\n", gs_now() - t0, span, ix->max_pat,
                (unsigned long long)len, (unsigned long long)ix->kernel_len,
                (unsigned long long)n, threads);
    return GS_OK;
}

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
    uint64_t k = ix->sc_len;
    /* 128-bit free split: k * part overflows only past 2^64 / n_parts residues */
    uint64_t a = (uint64_t)((unsigned __int128)k * (unsigned)part / (unsigned)n_parts);
    uint64_t b = (uint64_t)((unsigned __int128)k * (unsigned)(part + 1) / (unsigned)n_parts);
    *s = (gs_lz_src){.ix = ix, .cur = a, .end = b, .block = block, .overlap = overlap, .sep = sep};
    if (a < b) {
        s->piece = gs_lz_last_le(ix->sc_koff, ix->n_scan, a);
        s->stored = gs_lz_last_le(ix->pc_pos, ix->n_pieces, ix->sc_pos[s->piece]);
    }
}

/* Scanned residues [k, k + n) of the current piece, unpacked from the
 * stored piece that holds it (the stored pieces are in global order, as the
 * scanned ones are, so that one only moves forward). */
static void copy_scanned(gs_lz_src *s, uint64_t k, uint64_t n, uint8_t *dst)
{
    const gs_lz_index *ix = s->ix;
    uint64_t g = ix->sc_pos[s->piece] + (k - ix->sc_koff[s->piece]);
    while (ix->pc_pos[s->stored] + (ix->pc_koff[s->stored + 1] - ix->pc_koff[s->stored]) <= g)
        s->stored++;
    gs_lz_kernel_copy(ix, ix->pc_koff[s->stored] + (g - ix->pc_pos[s->stored]), n, dst);
}

/* Owned residues from cur on, then the next pieces after a separator while
 * the block has room; the overlap only inside the last piece (a hit never
 * crosses a separator). */
static void lz_fill(gs_lz_src *s, uint8_t *buf, gs_segment *seg)
{
    const gs_lz_index *ix = s->ix;
    while (ix->sc_koff[s->piece + 1] <= s->cur)
        s->piece++;
    *seg = (gs_segment){.record = 0, .base = s->cur + s->piece, .text = buf};
    size_t n = 0;
    for (;;) {
        uint64_t p_end = ix->sc_koff[s->piece + 1];
        uint64_t own_end = p_end < s->end ? p_end : s->end;
        uint64_t own = own_end - s->cur < s->block - n ? own_end - s->cur : s->block - n;
        copy_scanned(s, s->cur, own, buf + n);
        n += own;
        s->cur += own;
        if (s->cur < p_end) { /* the block is full or the range ends inside the piece */
            uint64_t stop = s->cur + s->overlap < p_end ? s->cur + s->overlap : p_end;
            copy_scanned(s, s->cur, stop - s->cur, buf + n);
            seg->own = n;
            seg->len = n + (size_t)(stop - s->cur);
            return;
        }
        /* the piece is done: join the next one while it is owned and fits */
        if (s->sep < 0 || s->cur >= s->end || n + 2 > s->block)
            break;
        buf[n++] = (uint8_t)s->sep;
        s->piece++;
    }
    seg->own = seg->len = n;
}

/* lz_fill, reading a read index's kernel from the mapped file: a page that
 * faults because the file was cut is an error naming it (gs_mapguard.h). */
static gs_status lz_next(void *ctx, uint8_t *buf, gs_segment *seg, int *more, gs_error *err)
{
    gs_lz_src *s = ctx;
    *more = s->cur < s->end;
    if (!*more)
        return GS_OK;
    gs_mapguard g;
    gs_mapguard_arm(&g, s->ix->map, s->ix->map_len);
    if (sigsetjmp(g.env, 0)) {
        gs_mapguard_disarm(&g);
        *more = 0;
        return gs_mapguard_fail(err, s->ix->path ? s->ix->path : "index");
    }
    lz_fill(s, buf, seg);
    gs_mapguard_disarm(&g);
    return GS_OK;
}

gs_source gs_source_lz(gs_lz_src *s)
{
    return (gs_source){.next = lz_next, .ctx = s};
}

/* ---- locate ------------------------------------------------------------- */

typedef struct occ {
    uint64_t g;
    uint32_t pattern;
    int8_t strand;
} occ;

struct locate_thread;

typedef struct locate_ctx {
    const gs_lz_index *ix;
    const gs_patset *ps;
    int n_strands, want_hits;
    const gs_hit *kernel; /* level 0: the kernel's hits (joined positions) */
    const struct locate_thread *th; /* later levels: item i is thread t's cur[i - off[t]], */
    const uint64_t *off;  /* off[t] <= i < off[t + 1]: the copies the level before found */
    int n_th;
    uint64_t n;           /* items in this level */
    atomic_ullong next;   /* the next item to take */
    uint64_t n_prim;      /* primaries found at level 0 */
    uint64_t src_lo, src_hi; /* sources lie in [src_lo, src_hi): outside, no copies */
} locate_ctx;

/* One a cache line or more: each thread bumps its counters on every
 * occurrence, which, sharing a line with its neighbour's, took locate on 2
 * threads longer than on 1. */
typedef struct locate_thread {
    _Alignas(64) locate_ctx *c;
    uint64_t *counts;
    occ *cur;             /* copies this thread found at the level before */
    size_t n_cur, cap_cur;
    occ *next;            /* copies for the next level */
    size_t n_next, cap_next;
    occ *hits;            /* every occurrence this thread took (want_hits) */
    size_t n_hits, cap_hits;
    uint64_t n_prim;
    int oom;
} locate_thread;

/* GS_ESYS when out of memory: locate runs on threads, run_levels says it. */
static gs_status push_occ(occ **v, size_t *n, size_t *cap, occ o)
{
    if (gs_grow(v, cap, *n, sizeof **v, 256) != GS_OK)
        return GS_ESYS;
    (*v)[(*n)++] = o;
    return GS_OK;
}

/* Take occurrence o: count it, keep it as a hit, and find its copies: the
 * phrases among the first k in source order (sources starting at or before
 * o->g) whose source ends at or after o->g + m, by a walk of the max-tree.
 * A copy that lies outside every source has no copies of its own: in
 * counts mode it is counted here and never stored. */
static gs_status take(locate_thread *t, const occ *o)
{
    const locate_ctx *c = t->c;
    const gs_lz_index *ix = c->ix;
    uint64_t g = o->g, m = c->ps->v[o->pattern].len;
    size_t slot = (size_t)o->pattern * (size_t)c->n_strands + (o->strand < 0);
    t->counts[slot]++;
    if (c->want_hits && push_occ(&t->hits, &t->n_hits, &t->cap_hits, *o) != GS_OK)
        return GS_ESYS;
    if (g < c->src_lo || g + m > c->src_hi)
        return GS_OK;
    uint64_t k = gs_lz_last_le(ix->cp_start, ix->n_copies, g) + 1; /* leaves [0, k) */
    uint64_t need = g + m;
    /* depth-first, left child first: at most one pending sibling per level */
    struct node {
        uint64_t i, lo; /* node i of its level, its first leaf */
        int level;
    } nodes[130];
    int top = 0, h = ix->tree_h;
    nodes[top++] = (struct node){0, 0, 0};
    while (top > 0) {
        struct node x = nodes[--top];
        if (x.lo >= k || ix->cp_tree[ix->tree_off[x.level] + x.i] < need)
            continue;
        if (x.level == h) {
            occ copy = {ix->cp_target[x.lo] + (g - ix->cp_start[x.lo]), o->pattern, o->strand};
            if (c->want_hits || (copy.g >= c->src_lo && copy.g + m <= c->src_hi)) {
                if (push_occ(&t->next, &t->n_next, &t->cap_next, copy) != GS_OK)
                    return GS_ESYS;
            } else {
                t->counts[slot]++;
            }
            continue;
        }
        uint64_t half = (uint64_t)1 << (h - x.level - 1); /* leaves under a child */
        if (2 * x.i + 1 < ix->tree_n[x.level + 1])
            nodes[top++] = (struct node){2 * x.i + 1, x.lo + half, x.level + 1};
        nodes[top++] = (struct node){2 * x.i, x.lo, x.level + 1};
    }
    return GS_OK;
}

/* Kernel hit h as an occurrence at its global position; 0 when it is not
 * primary (inside one copy phrase: found again as a copy of its source). */
static int primary(const gs_lz_index *ix, const gs_patset *ps, const gs_hit *h, occ *o)
{
    /* joined position j: scanned piece p is the last with sc_koff[p] + p <= j */
    uint64_t lo = 0, hi = ix->n_scan;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (ix->sc_koff[mid] + mid <= h->start)
            lo = mid;
        else
            hi = mid;
    }
    uint64_t g = ix->sc_pos[lo] + (h->start - lo - ix->sc_koff[lo]);
    uint64_t j = gs_lz_last_le(ix->ph_start, ix->n_phrases, g);
    if (ix->ph_src[j] != GS_LZ_LITERAL && g + ps->v[h->pattern].len <= ix->ph_start[j + 1])
        return 0;
    *o = (occ){.g = g, .pattern = h->pattern, .strand = h->strand};
    return 1;
}

/* One level, items taken in small chunks from a shared counter: a level's
 * items cost O(log copies + copies found) each, and copies found at one
 * level are spread over all threads at the next. */
static void *locate_level(void *arg)
{
    enum { CHUNK = 16 };
    locate_thread *t = arg;
    locate_ctx *c = t->c;
    uint64_t a;
    while (!t->oom && (a = atomic_fetch_add(&c->next, CHUNK)) < c->n) {
        uint64_t b = a + CHUNK < c->n ? a + CHUNK : c->n;
        int l = 0; /* later levels: the list item a lies in, the last with off[l] <= a */
        if (c->kernel == NULL)
            for (int hi = c->n_th; hi - l > 1;) {
                int mid = l + (hi - l) / 2;
                *(c->off[mid] <= a ? &l : &hi) = mid;
            }
        for (uint64_t i = a; i < b && !t->oom; i++) {
            occ o;
            if (c->kernel == NULL) {
                while (i >= c->off[l + 1])
                    l++;
                o = c->th[l].cur[i - c->off[l]];
            } else if (primary(c->ix, c->ps, &c->kernel[i], &o))
                t->n_prim++;
            else
                continue;
            t->oom = take(t, &o) != GS_OK;
        }
    }
    return NULL;
}

/* Run the levels: level 0 the kernel's hits, each later one the copies the
 * one before found, until none is found. A level's items stay in the lists
 * of the threads that found them (cur and next swap, no copy into one
 * array on one thread). off: threads + 1 entries. *levels: how many ran. */
static gs_status run_levels(locate_ctx *c, locate_thread *th, int threads, uint64_t *off,
                            int *levels, gs_error *err)
{
    *levels = 0;
    c->th = th;
    c->off = off;
    c->n_th = threads;
    while (c->n > 0) {
        int use = (uint64_t)threads < (c->n + 63) / 64 ? threads : (int)((c->n + 63) / 64);
        atomic_store(&c->next, 0);
        gs_run_parallel(locate_level, th, sizeof *th, use);
        ++*levels;
        uint64_t total = 0;
        for (int i = 0; i < threads; i++) {
            if (th[i].oom)
                return gs_fail(err, GS_ESYS, "out of memory (locating occurrences)");
            occ *v = th[i].cur;
            size_t cap = th[i].cap_cur;
            th[i].cur = th[i].next;
            th[i].n_cur = th[i].n_next;
            th[i].cap_cur = th[i].cap_next;
            th[i].next = v;
            th[i].cap_next = cap;
            th[i].n_next = 0;
            off[i] = total;
            total += th[i].n_cur;
        }
        off[threads] = total;
        c->kernel = NULL;
        c->n = total;
    }
    return GS_OK;
}

/* The occurrences as hits in contract §3 order. Global positions order
 * (record, start), so a key (position, reverse, pattern) orders them; it
 * fits 64 bits short of 2^40 residues with a million patterns (else the
 * hits are sorted by qsort). The keys are cut by their top bits into
 * buckets of position ranges (8 a thread or more, about 16 k keys each,
 * at most HB: each bucket's radix sort pays for its digit counts, 2048 a
 * pass, so tiny buckets cost more than they sort). Each thread counts its
 * occurrences per bucket, the counts give every (bucket, thread) its
 * place, each thread writes its keys there, and then threads take whole
 * buckets, sort each (radix) and make its hits. Nothing runs on one
 * thread but the prefix sum of the counts: merging per-thread sorted runs
 * pairwise ended in a merge of all keys on one thread, which bounded
 * locate on 16 threads. One thread: one bucket, no count pass. */
enum { HB_BITS = 11, HB = 1 << HB_BITS };

typedef struct hits_job {
    const gs_lz_index *ix;
    const locate_thread *t; /* count, place: the thread whose occurrences these are */
    uint64_t *key, *tmp;    /* all keys; sort scratch */
    uint64_t *count;        /* count: [nb] keys per bucket; place: the next slot per bucket */
    const uint64_t *bucket; /* sort: bucket b is key[bucket[b], bucket[b + 1]) */
    atomic_uint *next;      /* sort: the next bucket to take */
    unsigned nb;            /* buckets */
    int b_pat, bits, shift, step;
    gs_hit *out;
} hits_job;

enum { HITS_COUNT, HITS_PLACE, HITS_SORT };

static uint64_t occ_key(const occ *o, int b_pat)
{
    return o->g << (1 + b_pat) | (uint64_t)(o->strand < 0) << b_pat | o->pattern;
}

static void *hits_step(void *arg)
{
    hits_job *j = arg;
    int b_pat = j->b_pat;
    const occ *hits = j->t ? j->t->hits : NULL;
    const size_t n = j->t ? j->t->n_hits : 0;
    uint64_t *restrict count = j->count, *restrict key = j->key;
    const int shift = j->shift; /* < 64: nb > 1 */
    if (j->step == HITS_COUNT) {
        for (size_t k = 0; k < n; k++)
            count[occ_key(&hits[k], b_pat) >> shift]++;
    } else if (j->step == HITS_PLACE && j->nb == 1) {
        uint64_t *restrict dst = key + count[0];
        for (size_t k = 0; k < n; k++)
            dst[k] = occ_key(&hits[k], b_pat);
    } else if (j->step == HITS_PLACE) {
        for (size_t k = 0; k < n; k++) {
            uint64_t x = occ_key(&hits[k], b_pat);
            key[count[x >> shift]++] = x;
        }
    } else {
        const gs_lz_index *ix = j->ix;
        unsigned b;
        while ((b = atomic_fetch_add(j->next, 1)) < j->nb) {
            size_t lo = j->bucket[b], hi = j->bucket[b + 1];
            if (lo == hi)
                continue;
            gs_radix_sort_u64(j->key + lo, j->tmp + lo, hi - lo, j->bits);
            uint64_t r = gs_lz_last_le(ix->rec_off, ix->layout.n_rec, j->key[lo] >> (1 + b_pat));
            for (size_t i = lo; i < hi; i++) { /* sorted: the record only moves forward */
                uint64_t g = j->key[i] >> (1 + b_pat);
                while (r + 1 < ix->layout.n_rec && ix->rec_off[r + 1] <= g)
                    r++;
                j->out[i] = (gs_hit){.start = g - ix->rec_off[r], .record = (uint32_t)r,
                                     .pattern = (uint32_t)(j->key[i] & (((uint64_t)1 << b_pat) - 1)),
                                     .strand = (j->key[i] >> b_pat & 1) ? -1 : 1};
            }
        }
    }
    return NULL;
}

static gs_status to_hits(const gs_lz_index *ix, const gs_patset *ps, locate_thread *th,
                         int threads, gs_hits *out, gs_error *err)
{
    size_t n = 0;
    for (int i = 0; i < threads; i++)
        n += th[i].n_hits;
    int b_pat = 0, b_pos = 0;
    while (b_pat < 32 && ((uint64_t)(ps->n ? ps->n - 1 : 0) >> b_pat) != 0)
        b_pat++; /* pattern ids < ps->n */
    while (b_pos < 64 && (ix->n_residues >> b_pos) != 0)
        b_pos++;
    const int bits = b_pos + 1 + b_pat, fits = bits <= 64;
    int hb = 0; /* bucket bits (one thread: one bucket, no count pass) */
    while (threads > 1 && hb < HB_BITS && hb < bits &&
           (((size_t)1 << hb) < (size_t)threads * 8 || ((size_t)1 << hb) < n / 16384))
        hb++;
    const unsigned nb = 1u << hb;
    uint64_t *key = fits ? malloc((n ? n : 1) * sizeof *key) : NULL;
    uint64_t *tmp = fits ? malloc((n ? n : 1) * sizeof *tmp) : NULL;
    uint64_t *count = fits ? calloc((size_t)threads * nb, sizeof *count) : NULL;
    uint64_t *bucket = fits ? malloc((nb + 1) * sizeof *bucket) : NULL;
    hits_job *job = calloc((size_t)threads, sizeof *job);
    out->v = malloc((n ? n : 1) * sizeof *out->v);
    out->cap = n ? n : 1;
    gs_status st = GS_OK;
    if (out->v == NULL || job == NULL ||
        (fits && (key == NULL || tmp == NULL || count == NULL || bucket == NULL))) {
        st = gs_fail(err, GS_ESYS, "out of memory (%zu hits)", n);
        goto done;
    }
    if (!fits) {
        size_t at = 0;
        for (int i = 0; i < threads; i++)
            for (size_t k = 0; k < th[i].n_hits; k++, at++) {
                const occ *o = &th[i].hits[k];
                uint64_t r = gs_lz_last_le(ix->rec_off, ix->layout.n_rec, o->g);
                out->v[at] = (gs_hit){.start = o->g - ix->rec_off[r], .record = (uint32_t)r,
                                      .pattern = o->pattern, .strand = o->strand};
            }
        if (n > 1)
            qsort(out->v, n, sizeof *out->v, gs_hit_cmp);
        out->n = n;
        goto done;
    }
    atomic_uint next = 0;
    for (int i = 0; i < threads; i++)
        job[i] = (hits_job){.ix = ix, .t = &th[i], .key = key, .tmp = tmp,
                            .count = count + (size_t)i * nb, .bucket = bucket, .next = &next,
                            .nb = nb, .b_pat = b_pat, .bits = bits, .shift = bits - hb,
                            .step = HITS_COUNT, .out = out->v};
    if (nb > 1)
        gs_run_parallel(hits_step, job, sizeof *job, threads);
    else
        for (int i = 0; i < threads; i++)
            count[i] = th[i].n_hits;
    gs_bucket_starts(count, threads, nb, bucket); /* each thread's keys of a bucket in one run */
    for (int i = 0; i < threads; i++)
        job[i].step = HITS_PLACE;
    gs_run_parallel(hits_step, job, sizeof *job, threads);
    for (int i = 0; i < threads; i++)
        job[i].step = HITS_SORT;
    gs_run_parallel(hits_step, job, sizeof *job, threads);
    out->n = n;
done:
    free(key);
    free(tmp);
    free(count);
    free(bucket);
    free(job);
    return st;
}

gs_status gs_lz_locate(gs_lz_index *ix, const gs_lz_locate_opts *o, gs_hits *kernel_hits,
                       gs_hits *out, gs_error *err)
{
    const gs_patset *ps = o->ps;
    const int n_strands = o->n_strands, want_hits = o->want_hits;
    uint64_t *counts = o->counts;
    locate_thread *th = NULL;
    uint64_t *off = NULL;
    gs_status st = GS_OK;
    memset(out, 0, sizeof *out);
    double t0 = gs_now();
    int threads = gs_parallel_threads(o->threads, SIZE_MAX);
    size_t n_counts = (size_t)ps->n * (size_t)n_strands;
    locate_ctx c = {.ix = ix, .ps = ps, .n_strands = n_strands, .want_hits = want_hits,
                    .kernel = kernel_hits->v, .n = kernel_hits->n,
                    .src_lo = ix->n_copies ? ix->cp_start[0] : 1,
                    .src_hi = ix->n_copies ? ix->cp_tree[0] : 0};
    th = aligned_alloc(_Alignof(locate_thread), (size_t)threads * sizeof *th);
    if (th == NULL) {
        st = gs_fail(err, GS_ESYS, "out of memory (locate threads)");
        goto fail;
    }
    memset(th, 0, (size_t)threads * sizeof *th);
    for (int i = 0; i < threads; i++) {
        th[i].c = &c;
        if ((th[i].counts = gs_calloc(n_counts ? n_counts : 1, sizeof *th[i].counts, err,
                                      "counts")) == NULL) {
            st = GS_ESYS;
            goto fail;
        }
    }
    int levels = 0;
    if ((off = malloc(((size_t)threads + 1) * sizeof *off)) == NULL) {
        st = gs_fail(err, GS_ESYS, "out of memory (locate threads)");
        goto fail;
    }
    if ((st = run_levels(&c, th, threads, off, &levels, err)) != GS_OK)
        goto fail;
    uint64_t n_prim = 0;
    for (int i = 0; i < threads; i++) {
        for (size_t k = 0; k < n_counts; k++)
            counts[k] += th[i].counts[k];
        n_prim += th[i].n_prim;
    }
    double t1 = gs_now();
    if (want_hits && (st = to_hits(ix, ps, th, threads, out, err)) != GS_OK)
        goto fail;
    if (o->tune && o->tune->debug & GS_DEBUG_TIME) /* the locate figures of docs/performance.md */
        fprintf(stderr, "gscan: locate: %.3f s: occurrences %.3f s (%llu primary of %zu kernel "
                "hits, %d levels, %d threads), sorted hits %.3f s\n", gs_now() - t0, t1 - t0,
                (unsigned long long)n_prim, kernel_hits->n, levels, threads, gs_now() - t1);
fail:
    for (int i = 0; th && i < threads; i++) {
        free(th[i].counts);
        free(th[i].cur);
        free(th[i].next);
        free(th[i].hits);
    }
    free(th);
    free(off);
    gs_hits_free(kernel_hits);
    return st;
}
