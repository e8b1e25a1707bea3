/* lz_build.c - build the hybrid index: read the collection, LZ77-parse it,
 * cut the kernel string (see lz.h).
 *
 * The parse has two parts. The reference (the first strain) is parsed by
 * LZ77 over itself, KKP-style (Kärkkäinen, Kempa, Puglisi 2013):
 * libdivsufsort builds its suffix array, one stack pass gives every
 * position its nearest lexicographic neighbours among earlier positions
 * (PSV, NSV), and the longest earlier match is with one of those two, so
 * the parse is linear. Every later record is parsed greedily against the
 * reference alone (relative LZ, Kuruppu, Puglisi, Zobel 2010), by narrowing
 * the reference's suffix array interval, records on threads of their own.
 * Why not LZ77 over the whole collection: libdivsufsort slows down badly on
 * long repeats (10 copies of E. coli, 46 M residues: 80 s, most of it in the
 * suffix sort; 100 copies did not finish), and the suffix array of the
 * whole collection takes 4-8 bytes a residue. Against one strain, the other
 * strains parse into about as many phrases as their mutations, which is
 * where LZ77 lands too, and the memory is bounded by the reference.
 * Records are joined with a separator byte that occurs nowhere else, so no
 * match (hence no phrase and no source) crosses a record.
 */
#define _POSIX_C_SOURCE 200809L
#include "lz.h"

#include <divsufsort.h>
#include <divsufsort64.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The text with separators: record r occupies [toff[r], toff[r] + len) and
 * is followed by sep. */
typedef struct text {
    uint8_t *t;
    uint64_t n, cap;
    uint8_t sep;
} text;

static gs_status read_text(const char *const *files, size_t n_files, gs_input_format fmt,
                           gs_lz_index *ix, text *tx, gs_error *err)
{
    enum { BLOCK = 1 << 22 };
    gs_reader_opts ro = {.format = fmt, .block = BLOCK, .overlap = 0};
    gs_reader *r = NULL;
    uint8_t *buf = gs_malloc(BLOCK, err, "index build");
    gs_status st = buf ? gs_reader_open(files, n_files, &ro, &ix->layout, &r, err) : GS_ESYS;
    gs_segment seg;
    int k;
    while (st == GS_OK && (k = gs_reader_next(r, buf, &seg, err)) > 0) {
        if (tx->n + seg.own > tx->cap) {
            uint64_t cap = tx->cap ? tx->cap * 2 : (uint64_t)1 << 24;
            while (cap < tx->n + seg.own)
                cap *= 2;
            uint8_t *t = gs_realloc(tx->t, cap + 1, err, "index build text");
            if (t == NULL) {
                st = GS_ESYS;
                break;
            }
            tx->t = t;
            tx->cap = cap;
        }
        memcpy(tx->t + tx->n, seg.text, seg.own);
        tx->n += seg.own;
    }
    if (st == GS_OK && k < 0)
        st = err->code;
    gs_reader_close(r);
    free(buf);
    return st;
}

/* Insert one separator after each record (in place, from the back), after
 * choosing a byte the text never uses. */
static gs_status add_separators(gs_lz_index *ix, text *tx, gs_error *err)
{
    size_t n_rec = ix->layout.n_rec;
    uint8_t seen[256] = {0};
    for (uint64_t i = 0; i < tx->n; i++)
        seen[tx->t[i]] = 1;
    int sep = -1;
    for (int c = 0; c < 256 && sep < 0; c++)
        if (!seen[c])
            sep = c;
    if (sep < 0)
        return gs_fail(err, GS_EINPUT,
                       "the collection uses all 256 byte values, none is left to separate records "
                       "(gscan index --lz)");
    tx->sep = (uint8_t)sep;
    uint8_t *t = gs_realloc(tx->t, tx->n + n_rec + 1, err, "index build text");
    if (t == NULL)
        return GS_ESYS;
    tx->t = t;
    ix->rec_off = gs_malloc((n_rec + 1) * sizeof *ix->rec_off, err, "records");
    if (ix->rec_off == NULL)
        return GS_ESYS;
    ix->rec_off[0] = 0;
    for (size_t r = 0; r < n_rec; r++)
        ix->rec_off[r + 1] = ix->rec_off[r] + ix->layout.rec[r].length;
    ix->n_residues = ix->rec_off[n_rec];
    if (ix->n_residues != tx->n)
        return gs_fail(err, GS_ESYS, "read %llu residues, the layout says %llu (index build)",
                       (unsigned long long)tx->n, (unsigned long long)ix->n_residues);
    for (size_t r = n_rec; r-- > 0;) {
        uint64_t len = ix->layout.rec[r].length;
        memmove(t + ix->rec_off[r] + r, t + ix->rec_off[r], len);
        t[ix->rec_off[r] + r + len] = tx->sep;
    }
    tx->n += n_rec;
    return GS_OK;
}

/* Phrases under construction, in global coordinates. */
typedef struct phrases {
    uint64_t *start, *src;
    uint8_t *lit;
    uint64_t n, cap;
} phrases;

static int ph_push(phrases *p, uint64_t start, uint64_t src, uint8_t lit)
{
    if (p->n == p->cap) {
        uint64_t cap = p->cap ? p->cap * 2 : 1024;
        uint64_t *a = realloc(p->start, (cap + 1) * sizeof *a);
        if (a)
            p->start = a;
        uint64_t *b = realloc(p->src, cap * sizeof *b);
        if (b)
            p->src = b;
        uint8_t *c = realloc(p->lit, cap);
        if (c)
            p->lit = c;
        if (!a || !b || !c)
            return -1;
        p->cap = cap;
    }
    p->start[p->n] = start;
    p->src[p->n] = src;
    p->lit[p->n] = lit;
    p->n++;
    return 0;
}

static uint64_t match_len(const uint8_t *t, uint64_t i, uint64_t j, uint64_t limit)
{
    uint64_t l = 0;
    while (l < limit && t[i + l] == t[j + l])
        l++;
    return l;
}

/* The record holding separator-text position x: the last r with
 * toff(r) = rec_off[r] + r <= x. */
static size_t rec_of_text(const gs_lz_index *ix, uint64_t x)
{
    size_t lo = 0, hi = ix->layout.n_rec;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (ix->rec_off[mid] + mid <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* One record's phrases, parsed by a thread of its own. */
typedef struct rec_job {
    phrases ph;
    int oom;
} rec_job;

typedef struct parse_ctx {
    const gs_lz_index *ix;
    const text *tx;
    const void *sa;   /* suffix array of the reference, saidx_t or saidx64_t */
    int wide;         /* sa is 64-bit */
    uint64_t m;       /* reference length, separators included */
    size_t first;     /* first record parsed against the reference */
    rec_job *jobs;    /* [n_rec - first] */
    atomic_size_t next;
} parse_ctx;

/* The suffix array entry k of the reference. */
static inline uint64_t sa_at(const parse_ctx *c, uint64_t k)
{
    return c->wide ? (uint64_t)((const saidx64_t *)c->sa)[k] : (uint64_t)((const saidx_t *)c->sa)[k];
}

/* The longest prefix of t[i .. end) that occurs in the reference, by
 * narrowing the suffix array interval one residue at a time until one
 * suffix is left, then comparing directly. Every suffix of the reference
 * ends in a separator, which the target never holds, so no match runs off
 * the reference or across its records. */
static uint64_t longest_match(const parse_ctx *c, uint64_t i, uint64_t end, uint64_t *src)
{
    const uint8_t *t = c->tx->t;
    uint64_t lo = 0, hi = c->m, l = 0;
    while (i + l < end && hi - lo > 1) {
        uint8_t ch = t[i + l];
        uint64_t a = lo, b = hi; /* first k with t[sa[k] + l] >= ch */
        while (a < b) {
            uint64_t mid = a + (b - a) / 2;
            if (t[sa_at(c, mid) + l] < ch)
                a = mid + 1;
            else
                b = mid;
        }
        uint64_t e = a, f = hi; /* first k with t[sa[k] + l] > ch */
        while (e < f) {
            uint64_t mid = e + (f - e) / 2;
            if (t[sa_at(c, mid) + l] <= ch)
                e = mid + 1;
            else
                f = mid;
        }
        if (a == e)
            break;
        lo = a;
        hi = e;
        l++;
    }
    if (l == 0 && hi - lo > 1)
        return 0;
    uint64_t s = sa_at(c, lo);
    while (i + l < end && t[s + l] == t[i + l])
        l++;
    *src = s;
    return l;
}

static void *parse_records(void *arg)
{
    parse_ctx *c = arg;
    const gs_lz_index *ix = c->ix;
    for (;;) {
        size_t r = atomic_fetch_add(&c->next, 1);
        if (r >= ix->layout.n_rec)
            return NULL;
        rec_job *jb = &c->jobs[r - c->first];
        uint64_t i = ix->rec_off[r] + r, end = i + ix->layout.rec[r].length;
        while (i < end && !jb->oom) {
            uint64_t src = 0, len = longest_match(c, i, end, &src);
            if (len == 0)
                jb->oom = ph_push(&jb->ph, i - r, GS_LZ_LITERAL, c->tx->t[i]);
            else
                jb->oom = ph_push(&jb->ph, i - r, src - rec_of_text(ix, src), 0);
            i += len ? len : 1;
        }
    }
}

/* KKP: the reference records [0, first) by LZ77 over the reference alone,
 * from its suffix array and, per position, its nearest lexicographic
 * neighbours among earlier positions (PSV, NSV; -1 for none). The stack of
 * the neighbour pass lives in a copy of SA's prefix already read. */
#define GS_LZ_KKP(NAME, IDX)                                                                     \
    static gs_status NAME(const gs_lz_index *ix, const text *tx, const IDX *sa0, uint64_t n,     \
                          size_t first, phrases *ph, gs_error *err)                              \
    {                                                                                            \
        const uint8_t *t = tx->t;                                                                \
        IDX *sa = gs_malloc(n * sizeof *sa, err, "suffix array");                                \
        IDX *psv = gs_malloc(n * sizeof *psv, err, "suffix array");                              \
        IDX *nsv = gs_malloc(n * sizeof *nsv, err, "suffix array");                              \
        gs_status st = GS_OK;                                                                    \
        if (!sa || !psv || !nsv) {                                                               \
            st = GS_ESYS;                                                                        \
            goto fail;                                                                           \
        }                                                                                        \
        memcpy(sa, sa0, n * sizeof *sa);                                                         \
        int64_t top = -1;                                                                        \
        for (uint64_t k = 0; k < n; k++) {                                                       \
            IDX x = sa[k];                                                                       \
            while (top >= 0 && sa[top] > x)                                                      \
                nsv[sa[top--]] = x;                                                              \
            psv[x] = top >= 0 ? sa[top] : -1;                                                    \
            sa[++top] = x;                                                                       \
        }                                                                                        \
        while (top >= 0)                                                                         \
            nsv[sa[top--]] = -1;                                                                 \
        for (size_t r = 0; r < first; r++) {                                                     \
            uint64_t i = ix->rec_off[r] + r, end = i + ix->layout.rec[r].length;                 \
            while (i < end) {                                                                    \
                uint64_t best = 0, src = 0;                                                      \
                IDX cand[2] = {psv[i], nsv[i]};                                                  \
                for (int c = 0; c < 2; c++) {                                                    \
                    if (cand[c] < 0)                                                             \
                        continue;                                                                \
                    uint64_t l = match_len(t, i, (uint64_t)cand[c], end - i);                    \
                    if (l > best) {                                                              \
                        best = l;                                                                \
                        src = (uint64_t)cand[c];                                                 \
                    }                                                                            \
                }                                                                                \
                int bad = best == 0 ? ph_push(ph, i - r, GS_LZ_LITERAL, t[i])                    \
                                    : ph_push(ph, i - r, src - rec_of_text(ix, src), 0);         \
                if (bad) {                                                                       \
                    st = gs_fail(err, GS_ESYS, "out of memory (phrases)");                       \
                    goto fail;                                                                   \
                }                                                                                \
                i += best ? best : 1;                                                            \
            }                                                                                    \
        }                                                                                        \
    fail:                                                                                        \
        free(sa);                                                                                \
        free(psv);                                                                               \
        free(nsv);                                                                               \
        return st;                                                                               \
    }

GS_LZ_KKP(kkp32, saidx_t)
GS_LZ_KKP(kkp64, saidx64_t)

/* The whole parse: the reference (records [0, first)) by LZ77, then every
 * later record against the reference on `threads` threads. */
static gs_status parse(const gs_lz_index *ix, const text *tx, size_t first, int threads,
                       phrases *ph, gs_error *err)
{
    const uint64_t m = ix->rec_off[first] + first; /* reference with its separators */
    const int wide = m >= (uint64_t)INT32_MAX;
    const size_t n_rec = ix->layout.n_rec;
    void *sa = gs_malloc(m * (wide ? sizeof(saidx64_t) : sizeof(saidx_t)), err, "suffix array");
    rec_job *jobs = gs_calloc(n_rec - first + 1, sizeof *jobs, err, "phrases");
    pthread_t *tid = gs_calloc((size_t)threads, sizeof *tid, err, "threads");
    gs_status st = GS_OK;
    if (!sa || !jobs || !tid) {
        st = GS_ESYS;
        goto fail;
    }
    if ((wide ? divsufsort64(tx->t, sa, (saidx64_t)m) : divsufsort(tx->t, sa, (saidx_t)m)) != 0) {
        st = gs_fail(err, GS_ESYS, "suffix array construction failed (libdivsufsort)");
        goto fail;
    }
    st = wide ? kkp64(ix, tx, sa, m, first, ph, err) : kkp32(ix, tx, sa, m, first, ph, err);
    if (st != GS_OK)
        goto fail;
    parse_ctx c = {.ix = ix, .tx = tx, .sa = sa, .wide = wide, .m = m, .first = first,
                   .jobs = jobs};
    atomic_init(&c.next, first);
    int started = 0;
    for (int i = 1; i < threads; i++) {
        if (pthread_create(&tid[i], NULL, parse_records, &c) != 0)
            break; /* fewer threads do the same work */
        started = i;
    }
    parse_records(&c);
    for (int i = 1; i <= started; i++)
        pthread_join(tid[i], NULL);
    for (size_t r = 0; r < n_rec - first && st == GS_OK; r++) {
        const phrases *q = &jobs[r].ph;
        if (jobs[r].oom)
            st = gs_fail(err, GS_ESYS, "out of memory (phrases)");
        for (uint64_t j = 0; st == GS_OK && j < q->n; j++)
            if (ph_push(ph, q->start[j], q->src[j], q->lit[j]))
                st = gs_fail(err, GS_ESYS, "out of memory (phrases)");
    }
fail:
    for (size_t r = 0; jobs && r < n_rec - first; r++) {
        free(jobs[r].ph.start);
        free(jobs[r].ph.src);
        free(jobs[r].ph.lit);
    }
    free(jobs);
    free(tid);
    free(sa);
    return st;
}

/* The record holding global position g (the last one starting at or
 * before it: empty records before it start there too). */
static uint32_t rec_of(const gs_lz_index *ix, uint64_t g)
{
    return (uint32_t)gs_lz_last_le(ix->rec_off, ix->layout.n_rec, g);
}

/* Windows around phrase starts, merged where they overlap inside a record;
 * copied out of the separator text. */
static gs_status cut_kernel(gs_lz_index *ix, const text *tx, gs_error *err)
{
    const uint64_t w = ix->max_pat - 1;
    uint64_t cap = 1024, kcap = 1 << 20;
    ix->pc_rec = gs_malloc(cap * sizeof *ix->pc_rec, err, "kernel");
    ix->pc_pos = gs_malloc(cap * sizeof *ix->pc_pos, err, "kernel");
    ix->pc_koff = gs_malloc((cap + 1) * sizeof *ix->pc_koff, err, "kernel");
    ix->kernel = gs_malloc(kcap, err, "kernel");
    if (!ix->pc_rec || !ix->pc_pos || !ix->pc_koff || !ix->kernel)
        return GS_ESYS;
    ix->pc_koff[0] = 0;
    uint64_t lo = 0, hi = 0; /* the open piece, empty when lo == hi */
    uint32_t rec = 0;
    for (uint64_t j = 0; j <= ix->n_phrases; j++) {
        uint64_t a = 0, b = 0;
        uint32_t r = 0;
        if (j < ix->n_phrases) {
            uint64_t s = ix->ph_start[j];
            r = rec_of(ix, s);
            a = s - ix->rec_off[r] > w ? s - w : ix->rec_off[r];
            b = s + w;
            if (ix->ph_src[j] == GS_LZ_LITERAL && b < s + 1)
                b = s + 1;
            if (b > ix->rec_off[r + 1])
                b = ix->rec_off[r + 1];
            if (a >= b)
                continue;
            if (lo < hi && r == rec && a < hi) {
                if (b > hi)
                    hi = b;
                continue;
            }
        }
        if (lo < hi) { /* close the open piece */
            uint64_t len = hi - lo, k = ix->pc_koff[ix->n_pieces];
            if (ix->n_pieces == cap) {
                cap *= 2;
                uint32_t *pr = gs_realloc(ix->pc_rec, cap * sizeof *pr, err, "kernel");
                if (pr)
                    ix->pc_rec = pr;
                uint64_t *pp = gs_realloc(ix->pc_pos, cap * sizeof *pp, err, "kernel");
                if (pp)
                    ix->pc_pos = pp;
                uint64_t *pk = gs_realloc(ix->pc_koff, (cap + 1) * sizeof *pk, err, "kernel");
                if (pk)
                    ix->pc_koff = pk;
                if (!pr || !pp || !pk)
                    return GS_ESYS;
            }
            while (k + len > kcap) {
                kcap *= 2;
                uint8_t *kb = gs_realloc(ix->kernel, kcap, err, "kernel");
                if (kb == NULL)
                    return GS_ESYS;
                ix->kernel = kb;
            }
            memcpy(ix->kernel + k, tx->t + lo + rec, len);
            ix->pc_rec[ix->n_pieces] = rec;
            ix->pc_pos[ix->n_pieces] = lo;
            ix->pc_koff[++ix->n_pieces] = k + len;
        }
        lo = a;
        hi = b;
        rec = r;
    }
    ix->kernel_len = ix->pc_koff[ix->n_pieces];
    return GS_OK;
}

/* The reference: ref_records records when given, else those of the first
 * file when there are several files (one strain a file), else the first
 * record; empty records before it do not count. */
static size_t reference_records(const gs_lz_index *ix, size_t ref_records)
{
    size_t n = ix->layout.n_rec, k = 0;
    if (ref_records)
        return ref_records < n ? ref_records : n;
    while (k < n && ix->layout.rec[k].length == 0)
        k++;
    if (k < n && ix->layout.n_files > 1)
        for (uint32_t f = ix->layout.rec[k].file; k < n && ix->layout.rec[k].file == f;)
            k++;
    else
        k++;
    return k < n ? k : n;
}

gs_status gs_lz_build(const char *const *files, size_t n_files, gs_input_format fmt,
                      uint32_t max_pat, size_t ref_records, int threads, gs_lz_index *ix,
                      gs_error *err)
{
    text tx = {0};
    phrases ph = {0};
    memset(ix, 0, sizeof *ix);
    ix->max_pat = max_pat;
    gs_status st = read_text(files, n_files, fmt, ix, &tx, err);
    if (st == GS_OK && ix->layout.n_rec == 0)
        st = gs_fail(err, GS_EINPUT, "the collection has no record (gscan index --lz)");
    if (st == GS_OK)
        st = add_separators(ix, &tx, err);
    if (st == GS_OK)
        st = parse(ix, &tx, reference_records(ix, ref_records), threads, &ph, err);
    if (st == GS_OK && ph_push(&ph, ix->n_residues, 0, 0)) /* room for the end sentinel */
        st = gs_fail(err, GS_ESYS, "out of memory (phrases)");
    if (st == GS_OK) {
        ix->n_phrases = ph.n - 1;
        ix->ph_start = ph.start;
        ix->ph_src = ph.src;
        ix->lit = ph.lit;
        ph = (phrases){0};
        st = cut_kernel(ix, &tx, err);
    }
    free(tx.t);
    tx.t = NULL;
    if (st == GS_OK) /* locate's order, made once here (the text freed) and stored */
        st = gs_lz_sources_sort(ix, threads, err);
    free(ph.start);
    free(ph.src);
    free(ph.lit);
    if (st != GS_OK)
        gs_lz_free(ix);
    return st;
}

void gs_lz_free(gs_lz_index *ix)
{
    gs_layout_free(&ix->layout);
    free(ix->rec_off);
    free(ix->ph_start);
    free(ix->ph_src);
    free(ix->lit);
    free(ix->pc_rec);
    free(ix->pc_pos);
    free(ix->pc_koff);
    free(ix->kernel);
    for (size_t i = 0; ix->kchunks && i < ix->n_kchunks; i++) {
        free(ix->kchunks[i].own);
        free(ix->kchunks[i].runs);
    }
    free(ix->kchunks);
    if (ix->map && ix->map_is_mmap)
        munmap(ix->map, ix->map_len);
    else
        free(ix->map);
    free(ix->cp_start);
    free(ix->cp_target);
    free(ix->cp_tree);
    free(ix->sc_own);
    memset(ix, 0, sizeof *ix);
}
