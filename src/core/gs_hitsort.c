/* gs_hitsort.c - radix sort of packed keys, run merging of hits, and the
 * runs of packed keys both scan paths keep until the scan is over.
 *
 * Why: at 10^8 hits, qsort of gs_hit records through gs_hit_cmp was the
 * largest part of a hits run on the host (it moved every 32-byte record
 * log2(n) times and faulted in a second copy). Producers now hand over
 * sorted runs, so what is left here is linear or nearly so. And the GPU
 * path once made every 32-byte record on the one thread that feeds the
 * device, so its scan phase grew with the hits (11.5 of 15.4 s at 140 M
 * hits); now the CPU workers and the GPU batches hand over the same runs
 * of 8-byte keys, and one expansion makes the records on all threads.
 */
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE */
#include "gs_hitsort.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gs_copy.h"
#include "gs_parallel.h"

enum { DIGIT = 11, BUCKETS = 1 << DIGIT };

/* Below this many keys an insertion sort beats the radix passes, each of
 * which clears and sums BUCKETS counts: with the short runs of short
 * records (500-residue ESTs, a few hits each) those counts were a third of
 * a scan that kept its hits. */
enum { SMALL_SORT = 96 };

void gs_radix_sort_u64(uint64_t *a, uint64_t *tmp, size_t n, int bits)
{
    if (n <= SMALL_SORT) {
        for (size_t i = 1; i < n; i++) {
            uint64_t k = a[i];
            size_t j = i;
            for (; j > 0 && a[j - 1] > k; j--)
                a[j] = a[j - 1];
            a[j] = k;
        }
        return;
    }
    uint64_t *src = a, *dst = tmp;
    size_t cnt[BUCKETS];
    for (int shift = 0; shift < bits && n > 1; shift += DIGIT) {
        memset(cnt, 0, sizeof cnt);
        for (size_t i = 0; i < n; i++)
            cnt[(src[i] >> shift) & (BUCKETS - 1)]++;
        if (cnt[(src[0] >> shift) & (BUCKETS - 1)] == n)
            continue; /* one digit value: this pass would move nothing */
        size_t sum = 0;
        for (int d = 0; d < BUCKETS; d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[cnt[(src[i] >> shift) & (BUCKETS - 1)]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

/* gs_hit_cmp(x, y) > 0, inlined for the merge loop. */
static inline int after(const gs_hit *x, const gs_hit *y)
{
    if (x->record != y->record)
        return x->record > y->record;
    if (x->start != y->start)
        return x->start > y->start;
    if (x->strand != y->strand)
        return x->strand < y->strand;
    if (x->pattern != y->pattern)
        return x->pattern > y->pattern;
    return x->end > y->end;
}

/* Merge the sorted a[0..na) and b[0..nb) into out; stable (a first). */
static void merge(const gs_hit *a, size_t na, const gs_hit *b, size_t nb, gs_hit *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb)
        out[k++] = after(&a[i], &b[j]) ? b[j++] : a[i++];
    memcpy(out + k, a + i, (na - i) * sizeof *out);
    k += na - i;
    memcpy(out + k, b + j, (nb - j) * sizeof *out);
}

void gs_hits_order(gs_hits *h)
{
    if (gs_hits_sort(h) != GS_OK)
        qsort(h->v, h->n, sizeof *h->v, gs_hit_cmp);
}

gs_status gs_hits_sort(gs_hits *h)
{
    /* Run starts, with n at the end. Data with more runs than this is not
     * what producers hand over (they give sorted runs); qsort takes it. */
    enum { MAX_RUNS = 1 << 16 };
    size_t n = h->n, nr = 0, cap = 64;
    if (n < 2)
        return GS_OK;
    size_t *run = malloc((cap + 1) * sizeof *run);
    if (run == NULL)
        return GS_ESYS;
    run[nr++] = 0;
    for (size_t i = 1; i < n && nr <= MAX_RUNS; i++) {
        if (!after(&h->v[i - 1], &h->v[i]))
            continue;
        if (nr == cap) {
            size_t *r = realloc(run, (2 * cap + 1) * sizeof *run);
            if (r == NULL) {
                free(run);
                return GS_ESYS;
            }
            run = r;
            cap *= 2;
        }
        run[nr++] = i;
    }
    if (nr > MAX_RUNS) {
        free(run);
        qsort(h->v, n, sizeof *h->v, gs_hit_cmp);
        return GS_OK;
    }
    run[nr] = n;
    if (nr == 1) {
        free(run);
        return GS_OK;
    }
    gs_hit *buf = malloc(n * sizeof *buf), *src = h->v, *dst = buf;
    if (buf == NULL) {
        free(run);
        return GS_ESYS;
    }
    while (nr > 1) {
        size_t m = 0;
        for (size_t r = 0; r < nr; r += 2, m++) {
            size_t lo = run[r], mid = run[r + 1], hi = r + 2 <= nr ? run[r + 2] : mid;
            if (r + 1 == nr) /* odd run out: copied over as it is */
                memcpy(dst + lo, src + lo, (mid - lo) * sizeof *dst);
            else
                merge(src + lo, mid - lo, src + mid, hi - mid, dst + lo);
            run[m] = lo;
        }
        run[m] = n;
        nr = m;
        gs_hit *t = src;
        src = dst;
        dst = t;
    }
    free(run);
    if (src != h->v) { /* the sorted copy becomes the vector */
        free(h->v);
        h->v = src;
        h->cap = n;
    } else {
        free(buf);
    }
    return GS_OK;
}

/* ---- runs of packed keys ---------------------------------------------- */

gs_status gs_hit_runs_push(gs_hit_runs *rs, const gs_hit_run *r, gs_error *err)
{
    if (gs_grow(&rs->v, &rs->cap, rs->n, sizeof *rs->v, 64) != GS_OK)
        return gs_fail(err, GS_ESYS, "out of memory (hit runs)");
    rs->v[rs->n++] = *r;
    rs->n_hits += r->n;
    return GS_OK;
}

/* ---- chunks: the memory of GPU batches' runs -------------------------
 *
 * A GPU batch's run took its keys and segments from malloc, two blocks a
 * run, 32 bytes a hit of reads (one read, one segment kept, a hit), and
 * making the runs was mostly the first touch of that fresh memory (0.77 s
 * for 26 M hits of 7 Gi residues of reads, H100 host). Runs are now carved
 * one after the other from chunks of CHUNK bytes, asked for huge pages
 * (which helped little: 0.61-0.71 s; the touch costs what it costs), and
 * a chunk goes back once its carver let go of it and its last run is
 * freed (runs are freed on the expanding threads, hence the atomic count). */
enum { CHUNK = 64 << 20, CARVE_ALIGN = 64 };

struct gs_run_chunk {
    atomic_size_t refs; /* its runs, and 1 while it is a carver's */
    size_t size, used;  /* bytes mapped; carved, from the chunk's start */
};

static size_t carved(size_t bytes) /* the room a carve of bytes takes */
{
    return (bytes + CARVE_ALIGN - 1) & ~(size_t)(CARVE_ALIGN - 1);
}

static void chunk_let_go(gs_run_chunk *c)
{
    if (c && atomic_fetch_sub(&c->refs, 1) == 1)
        munmap(c, c->size);
}

/* Room for bytes at the end of rs's chunk (a fresh chunk where it lacks
 * room: the old one goes once its runs do), or NULL. */
static void *carve(gs_hit_runs *rs, size_t bytes)
{
    const size_t head = carved(sizeof(gs_run_chunk));
    gs_run_chunk *c = rs->carve;
    if (c == NULL || c->size - c->used < bytes) {
        size_t size = bytes + head > CHUNK ? bytes + head : CHUNK;
        void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return NULL;
#ifdef MADV_HUGEPAGE
        madvise(m, size, MADV_HUGEPAGE); /* a hint: 4 KiB pages serve as well */
#endif
        c = m;
        atomic_init(&c->refs, 1);
        c->size = size;
        c->used = head;
        chunk_let_go(rs->carve);
        rs->carve = c;
    }
    void *p = (char *)c + c->used;
    c->used += carved(bytes);
    return p;
}

/* The last carve of rs, at p, cut to bytes (0: given back whole). */
static void carve_cut(gs_hit_runs *rs, void *p, size_t bytes)
{
    rs->carve->used = (size_t)((char *)p - (char *)rs->carve) + carved(bytes);
}

static void run_free(gs_hit_run *r)
{
    if (r->chunk) {
        chunk_let_go(r->chunk);
    } else {
        free(r->keys);
        free(r->hits);
        free(r->segs);
    }
    r->chunk = NULL;
    r->keys = NULL;
    r->hits = NULL;
    r->segs = NULL;
}

void gs_hit_runs_free(gs_hit_runs *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        run_free(&rs->v[i]);
    free(rs->v);
    chunk_let_go(rs->carve);
    *rs = (gs_hit_runs){0};
}

gs_status gs_hit_runs_move(gs_hit_runs *dst, gs_hit_runs *src, gs_error *err)
{
    if (src->n == 0)
        return GS_OK;
    if (dst->n + src->n > dst->cap) {
        gs_hit_run *v = gs_realloc(dst->v, (dst->n + src->n) * sizeof *v, err, "hit runs");
        if (v == NULL)
            return GS_ESYS;
        dst->v = v;
        dst->cap = dst->n + src->n;
    }
    memcpy(dst->v + dst->n, src->v, src->n * sizeof *src->v);
    dst->n += src->n;
    dst->n_hits += src->n_hits;
    free(src->v);
    *src = (gs_hit_runs){.carve = src->carve};
    return GS_OK;
}

static int seg_before(const gs_run_seg *a, const gs_run_seg *b)
{
    return a->record != b->record ? a->record < b->record : a->base < b->base;
}

/* b is the corpus's next segment after a: nothing can lie between them. */
static int seg_next(const gs_run_seg *a, const gs_run_seg *b)
{
    return b->record == a->record ? b->base == a->base + a->own
                                  : b->record == a->record + 1 && b->base == 0;
}

/* First i in [lo, hi) with keys[i] >= x, or hi. */
static size_t lower_bound_u64(const uint64_t *keys, size_t lo, size_t hi, uint64_t x)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The segments of segs[0..n_seg) that hold one of the n sorted keys, into
 * out (room for min(n, n_seg)); how many. */
static size_t segs_hit(const uint64_t *keys, size_t n, const gs_run_seg *segs, size_t n_seg,
                       gs_key_layout lay, gs_run_seg *out)
{
    const gs_run_seg *b = segs, *last = segs + n_seg - 1, *prev = NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t pos = gs_hitkey_pos(lay, keys[i]);
        while (b < last && b[1].off <= pos)
            b++;
        if (b != prev)
            out[k++] = *(prev = b);
    }
    return k;
}

/* One run of keys[0..n) over segs[0..n_seg), both copied into one carve
 * of rs's chunk, the segments after the keys (of the segments only those
 * holding a hit: a batch of 10^5 reads may hold hits in a few, and its
 * whole table, copied a batch, was most of the feeding thread's time at
 * 10^8 reads); see add_batch for span and threads. */
static gs_status add_piece(gs_hit_runs *rs, const uint64_t *keys, size_t n, const gs_run_seg *segs,
                           size_t n_seg, gs_key_layout lay, uint32_t span, int threads,
                           gs_error *err)
{
    gs_hit_run r = {.first = segs[0], .n_seg = n_seg, .lay = lay};
    const size_t most = n_seg > 1 ? (n < n_seg ? n : n_seg) : 0; /* segments kept, at most */
    if ((r.keys = carve(rs, n * sizeof *r.keys + most * sizeof *segs)) == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (%zu hit keys)", n);
    if (span == 0) {
        gs_copy(r.keys, keys, n * sizeof *keys, threads);
        r.n = n;
    } else { /* only the first hits of a segment can end before its span */
        const gs_run_seg *b = segs, *last = segs + n_seg - 1;
        for (size_t i = 0; i < n; i++) {
            uint64_t k = keys[i], pos = gs_hitkey_pos(lay, k);
            while (b < last && b[1].off <= pos)
                b++;
            if ((b->base > 0 && pos - b->off + gs_hitkey_len(lay, k) < span) ||
                (b->turn && pos - b->off >= b->turn))
                continue;
            r.keys[r.n++] = k;
        }
    }
    if (r.n == 0) {
        carve_cut(rs, r.keys, 0);
        return GS_OK;
    }
    if (n_seg > 1) { /* right after the keys kept (r.n <= n) */
        r.segs = (gs_run_seg *)(r.keys + r.n);
        r.n_seg = segs_hit(r.keys, r.n, segs, n_seg, lay, r.segs);
        r.first = r.segs[0];
        if (r.n_seg == 1) /* one segment holds them all */
            r.segs = NULL;
    }
    /* what was not written goes back */
    carve_cut(rs, r.keys, r.n * sizeof *r.keys + (r.segs ? r.n_seg * sizeof *r.segs : 0));
    r.chunk = rs->carve;
    if (gs_hit_runs_push(rs, &r, err) != GS_OK) {
        carve_cut(rs, r.keys, 0);
        return GS_ESYS;
    }
    atomic_fetch_add(&r.chunk->refs, 1);
    return GS_OK;
}

gs_status gs_hit_runs_add_batch(gs_hit_runs *rs, const uint64_t *keys, size_t n,
                                const gs_run_seg *segs, size_t n_seg, gs_key_layout lay,
                                uint32_t span, int threads, gs_error *err)
{
    const int s_pos = gs_hitkey_s_pos(lay);
    size_t i = 0;
    for (size_t j0 = 0, j1; j0 < n_seg && i < n; j0 = j1) {
        for (j1 = j0 + 1; j1 < n_seg && seg_next(&segs[j1 - 1], &segs[j1]); j1++)
            ;
        size_t end = j1 < n_seg ? lower_bound_u64(keys, i, n, (uint64_t)segs[j1].off << s_pos) : n;
        if (end > i &&
            add_piece(rs, keys + i, end - i, segs + j0, j1 - j0, lay, span, threads, err))
            return err->code;
        i = end;
    }
    return GS_OK;
}

/* Rows [i0, i1) of run r, written at out[i0..i1). */
static void expand_part(const gs_hit_run *r, size_t i0, size_t i1, gs_hit *out)
{
    if (r->hits) {
        memcpy(out + i0, r->hits + i0, (i1 - i0) * sizeof *out);
        return;
    }
    const gs_key_layout lay = r->lay;
    const gs_run_seg *b = &r->first, *last = b;
    if (r->segs) { /* the segment of key i0: the last one starting at or before it */
        size_t lo = 1, hi = r->n_seg;
        uint64_t pos = gs_hitkey_pos(lay, r->keys[i0]);
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (r->segs[mid].off <= pos)
                lo = mid + 1;
            else
                hi = mid;
        }
        b = r->segs + lo - 1;
        last = r->segs + r->n_seg - 1;
    }
    for (size_t i = i0; i < i1; i++) {
        uint64_t k = r->keys[i], pos = gs_hitkey_pos(lay, k);
        while (b < last && b[1].off <= pos)
            b++;
        gs_hit h;
        memset(&h, 0, sizeof h); /* padding too: hit lists may be compared bytewise */
        h.start = b->base + (pos - b->off);
        h.end = h.start + gs_hitkey_len(lay, k);
        h.record = b->record;
        h.pattern = gs_hitkey_pattern(lay, k);
        h.strand = gs_hitkey_strand(lay, k) ? -1 : 1;
        h.distance = (uint8_t)gs_hitkey_dist(lay, k);
        out[i] = h;
    }
}

/* Runs are cut into parts of at most PART hits (8 MiB of records), so that
 * a few large runs (GPU batches of 16 M residues) still keep every thread
 * busy. */
enum { PART = 1 << 18, MAX_THREADS = 64 };

typedef struct part {
    size_t run, lo; /* rows [lo, lo + PART) of a run, cut at its end */
} part;

typedef struct expander {
    gs_hit_run *runs;
    size_t *run_out;     /* [n_runs] first row of each run */
    atomic_size_t *left; /* [n_runs] parts not yet expanded */
    part *parts;
    size_t n_parts;
    gs_hit *out;
    atomic_size_t next;
} expander;

static void *expand_main(void *arg)
{
    expander *e = *(expander **)arg;
    for (size_t p; (p = atomic_fetch_add(&e->next, 1)) < e->n_parts;) {
        gs_hit_run *r = &e->runs[e->parts[p].run];
        size_t lo = e->parts[p].lo, hi = lo + PART < r->n ? lo + PART : r->n;
        expand_part(r, lo, hi, e->out + e->run_out[e->parts[p].run]);
        if (atomic_fetch_sub(&e->left[e->parts[p].run], 1) == 1)
            run_free(r); /* the keys go as the records come (a chunk with its last
                          * run): about 40 bytes a hit at most */
    }
    return NULL;
}

static int run_cmp(const void *a, const void *b)
{
    const gs_hit_run *x = a, *y = b;
    return seg_before(&x->first, &y->first) ? -1 : seg_before(&y->first, &x->first);
}

/* A run's place in corpus order, and where it is. */
typedef struct run_place {
    uint32_t record, at;
    uint64_t base;
} run_place;

static int place_before(const run_place *a, const run_place *b)
{
    return a->record != b->record ? a->record < b->record : a->base < b->base;
}

/* The end of the ascending stretch of p[0, n) that starts at i. */
static size_t stretch_end(const run_place *p, size_t i, size_t n)
{
    while (++i < n && !place_before(&p[i], &p[i - 1]))
        ;
    return i;
}

/* p[0, n) sorted by merging its ascending stretches two by two, pass after
 * pass, through scratch q: the runs come as each worker made them, a few
 * ascending stretches, so a few passes. Returns p or q, whichever holds
 * the result. */
static run_place *merge_stretches(run_place *p, run_place *q, size_t n)
{
    for (;;) {
        size_t merged = 0;
        for (size_t i = 0; i < n; merged++) {
            const size_t m = stretch_end(p, i, n), e = m < n ? stretch_end(p, m, n) : n;
            size_t x = i, y = m, o = i;
            while (x < m && y < e)
                q[o++] = place_before(&p[y], &p[x]) ? p[y++] : p[x++];
            while (x < m)
                q[o++] = p[x++];
            while (y < e)
                q[o++] = p[y++];
            i = e;
        }
        run_place *t = p;
        p = q;
        q = t;
        if (merged <= 1)
            return p;
    }
}

/* Runs already in order are left as they are (a GPU's come so); else their
 * places, 16 bytes each, are merged into order and the runs moved once
 * (qsort of the runs themselves took 0.07 s for the 0.4 M runs of 5 M
 * reads' hits on one thread). */
void gs_hit_runs_order(gs_hit_runs *rs)
{
    size_t i = 1;
    while (i < rs->n && !seg_before(&rs->v[i].first, &rs->v[i - 1].first))
        i++;
    if (i >= rs->n)
        return;
    run_place *pl = rs->n <= UINT32_MAX ? malloc(2 * rs->n * sizeof *pl) : NULL;
    gs_hit_run *moved = pl ? malloc(rs->n * sizeof *moved) : NULL;
    if (moved == NULL) { /* short of memory: in place, slower */
        free(pl);
        qsort(rs->v, rs->n, sizeof *rs->v, run_cmp);
        return;
    }
    for (size_t k = 0; k < rs->n; k++)
        pl[k] = (run_place){rs->v[k].first.record, (uint32_t)k, rs->v[k].first.base};
    const run_place *in_order = merge_stretches(pl, pl + rs->n, rs->n);
    for (size_t k = 0; k < rs->n; k++)
        moved[k] = rs->v[in_order[k].at];
    memcpy(rs->v, moved, rs->n * sizeof *moved); /* rs->v stays where it is */
    free(moved);
    free(pl);
}

/* out[0..mid) and out[mid..hi) are each sorted; make out[0..hi) sorted by
 * merging only what overlaps: the rows of the first after out[mid] with
 * the rows of the second before out[mid - 1]. Returns the rows merged, or
 * (size_t)-1 when out of memory. */
static size_t merge_overlap(gs_hit *out, size_t mid, size_t hi, gs_hit **tmp, size_t *tmp_cap)
{
    if (mid == 0 || mid == hi || !after(&out[mid - 1], &out[mid]))
        return 0;
    size_t a = 0, b = mid + 1; /* out[mid] is before out[mid - 1]: b > mid */
    for (size_t h = mid; a < h;) {
        size_t m = a + (h - a) / 2;
        if (after(&out[m], &out[mid]))
            h = m;
        else
            a = m + 1;
    }
    for (size_t h = hi; b < h;) {
        size_t m = b + (h - b) / 2;
        if (after(&out[mid - 1], &out[m]))
            b = m + 1;
        else
            h = m;
    }
    if (b - a > *tmp_cap) {
        gs_hit *t = realloc(*tmp, (b - a) * sizeof *t);
        if (t == NULL)
            return (size_t)-1;
        *tmp = t;
        *tmp_cap = b - a;
    }
    merge(out + a, mid - a, out + mid, b - mid, *tmp);
    memcpy(out + a, *tmp, (b - a) * sizeof *out);
    return b - a;
}

gs_status gs_hit_runs_expand(gs_hit_runs *rs, int threads, gs_hits *hits, gs_error *err)
{
    gs_status st = GS_OK;
    const size_t n_runs = rs->n, total = rs->n_hits;
    expander e = {.runs = rs->v};
    gs_hit *tmp = NULL;
    size_t tmp_cap = 0, merged = 0;
    gs_hits_free(hits);
    if (n_runs == 0)
        goto done;
    gs_hit_runs_order(rs);
    for (size_t r = 0; r < n_runs; r++)
        e.n_parts += (rs->v[r].n + PART - 1) / PART;
    e.run_out = gs_malloc(n_runs * sizeof *e.run_out, err, "hit runs");
    e.left = gs_malloc(n_runs * sizeof *e.left, err, "hit runs");
    e.parts = gs_malloc(e.n_parts * sizeof *e.parts, err, "hit runs");
    if (e.run_out == NULL || e.left == NULL || e.parts == NULL) {
        st = GS_ESYS;
        goto done;
    }
    if ((e.out = malloc((total ? total : 1) * sizeof *e.out)) == NULL) {
        st = gs_fail(err, GS_ESYS, "out of memory (%zu hits)", total);
        goto done;
    }
    for (size_t r = 0, row = 0, p = 0; r < n_runs; r++) {
        e.run_out[r] = row;
        row += rs->v[r].n;
        atomic_init(&e.left[r], (rs->v[r].n + PART - 1) / PART);
        for (size_t lo = 0; lo < rs->v[r].n; lo += PART)
            e.parts[p++] = (part){r, lo};
    }
    atomic_init(&e.next, 0);
    expander *share[MAX_THREADS + 1]; /* every thread takes parts from e */
    int nt = gs_parallel_threads(threads, e.n_parts);
    nt = nt > MAX_THREADS + 1 ? MAX_THREADS + 1 : nt;
    for (int t = 0; t < nt; t++)
        share[t] = &e;
    gs_run_parallel(expand_main, share, sizeof *share, nt);
    *hits = (gs_hits){.v = e.out, .n = total, .cap = total};
    /* Neighbours that overlap: the prefix up to run r is sorted, so merging
     * its overlap with run r keeps it so. Approximate hits (owned by their
     * end) overlap their segment's neighbour by a few rows; should far more
     * need moving (runs that are not the disjoint pieces producers hand
     * over), one merge sort of the whole costs less. */
    for (size_t r = 1; r < n_runs; r++) {
        size_t m = merge_overlap(e.out, e.run_out[r], e.run_out[r] + rs->v[r].n, &tmp, &tmp_cap);
        if (m != (size_t)-1 && (merged += m) <= total / 4 + PART)
            continue;
        if (gs_hits_sort(hits) != GS_OK)
            st = gs_fail(err, GS_ESYS, "out of memory (sorting %zu hits)", total);
        break;
    }
done:
    free(tmp);
    free(e.run_out);
    free((void *)e.left);
    free(e.parts);
    gs_hit_runs_free(rs);
    return st;
}
