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
 * The reference's records are joined with a separator byte it never uses,
 * and a target byte equal to it matches nothing, so no match (hence no
 * phrase and no source) crosses a record. The collection is never held
 * whole: the reference is read first, then the other records a batch at a
 * time (read, parsed on the threads, their phrases and kernel pieces kept,
 * their text let go), so memory is the reference, its suffix array, one
 * batch, the phrases and the kernel.
 */
#define _POSIX_C_SOURCE 200809L
#include "lz.h"

#include "core/gs_parallel.h"

#include <divsufsort.h>
#include <divsufsort64.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The reference with separators: reference record r occupies
 * [rec_off[r] + r, + its length) and is followed by sep, a byte the
 * reference never uses. */
typedef struct text {
    uint8_t *t;
    uint64_t n, cap;
    uint8_t sep;
} text;

/* Room for need bytes in *p (capacity *cap, doubled from 1 MiB; a buffer
 * even when need is 0). Out of memory: "out of memory (what)". */
static gs_status reserve(uint8_t **p, uint64_t *cap, uint64_t need, const char *what, gs_error *err)
{
    if (need <= *cap && *p)
        return GS_OK;
    uint64_t c = *cap ? *cap : (uint64_t)1 << 20;
    while (c < need)
        c *= 2;
    uint8_t *q = realloc(*p, c);
    if (q == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (%s)", what);
    *p = q;
    *cap = c;
    return GS_OK;
}

/* The collection, a record at a time: the build holds the reference and
 * one batch of records, never the whole collection. */
typedef struct feed {
    gs_reader *r;
    const gs_layout *layout;
    uint8_t *buf;      /* the reader's block */
    gs_segment seg;    /* read and not yet taken (have) */
    int have, eof;
    size_t next;       /* the record to yield next */
    uint8_t *t;        /* its residues */
    uint64_t n, cap;
} feed;

/* The next record, empty ones included: *got = 1 with *r its index and
 * f->t[0 .. f->n) its residues (until the next call), *got = 0 at the
 * end. */
static gs_status next_record(feed *f, size_t *r, int *got, gs_error *err)
{
    f->n = 0;
    *got = 0;
    for (;;) {
        if (!f->have && !f->eof) {
            gs_status st = gs_reader_next(f->r, f->buf, &f->seg, &f->have, err);
            if (st != GS_OK)
                return st;
            f->eof = !f->have;
        }
        if (f->have && f->seg.record == f->next) {
            gs_status st = reserve(&f->t, &f->cap, f->n + f->seg.own, "index build text", err);
            if (st != GS_OK)
                return st;
            memcpy(f->t + f->n, f->seg.text, f->seg.own);
            f->n += f->seg.own;
            f->have = 0;
            continue;
        }
        if (f->have && f->seg.record < f->next)
            return gs_fail(err, GS_ESYS, "records out of order (index build)");
        if (!f->have && f->next >= f->layout->n_rec)
            return GS_OK;
        *r = f->next++;
        *got = 1;
        return GS_OK;
    }
}

/* Which records are the reference: ref_records when given, else those of
 * the first file when there are several files (one strain a file), else
 * the first record; empty records before the first non-empty one count
 * with it. Asked for record after record, in order. */
typedef struct ref_rule {
    size_t ref_records;
    int several_files, closed;
    int have_first;
    uint32_t file; /* of the first non-empty record */
} ref_rule;

static int in_reference(ref_rule *q, const gs_layout *l, size_t r, uint64_t len)
{
    if (!q->closed && q->ref_records)
        q->closed = r >= q->ref_records;
    else if (!q->closed && !q->have_first) {
        q->have_first = len > 0;
        q->file = l->rec[r].file;
    } else if (!q->closed)
        q->closed = !q->several_files || l->rec[r].file != q->file;
    return !q->closed;
}

/* After the reference's records were read back to back: the separator (a
 * byte the reference never uses; a target byte equal to it matches
 * nothing) inserted after each record, in place from the back. */
static gs_status add_separators(const gs_lz_index *ix, size_t n_ref, text *tx, gs_error *err)
{
    uint8_t seen[256] = {0};
    for (uint64_t i = 0; i < tx->n; i++)
        seen[tx->t[i]] = 1;
    int sep = -1;
    for (int c = 0; c < 256 && sep < 0; c++)
        if (!seen[c])
            sep = c;
    if (sep < 0)
        return gs_fail(err, GS_EINPUT,
                       "the reference uses all 256 byte values, none is left to separate records "
                       "(gscan index --lz)");
    tx->sep = (uint8_t)sep;
    if (reserve(&tx->t, &tx->cap, tx->n + n_ref + 1, "index build text", err) != GS_OK)
        return GS_ESYS;
    for (size_t r = n_ref; r-- > 0;) {
        uint64_t len = ix->rec_off[r + 1] - ix->rec_off[r];
        memmove(tx->t + ix->rec_off[r] + r, tx->t + ix->rec_off[r], len);
        tx->t[ix->rec_off[r] + r + len] = tx->sep;
    }
    tx->n += n_ref;
    return GS_OK;
}

/* Phrases under construction, in global coordinates. */
typedef struct phrases {
    uint64_t *start, *src;
    uint8_t *lit;
    uint64_t n, cap;
} phrases;

/* One phrase appended; out of memory: "out of memory (phrases)". */
static gs_status ph_push(phrases *p, uint64_t start, uint64_t src, uint8_t lit, gs_error *err)
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
            return gs_fail(err, GS_ESYS, "out of memory (phrases)");
        p->cap = cap;
    }
    p->start[p->n] = start;
    p->src[p->n] = src;
    p->lit[p->n] = lit;
    p->n++;
    return GS_OK;
}

static uint64_t match_len(const uint8_t *t, uint64_t i, uint64_t j, uint64_t limit)
{
    uint64_t l = 0;
    while (l < limit && t[i + l] == t[j + l])
        l++;
    return l;
}

/* The reference record holding separator-text position x: the last r <
 * n_ref with rec_off[r] + r <= x. */
static size_t rec_of_text(const gs_lz_index *ix, size_t n_ref, uint64_t x)
{
    size_t lo = 0, hi = n_ref;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (ix->rec_off[mid] + mid <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The kernel pieces of some records, under construction. */
typedef struct pieces {
    struct piece {
        uint64_t pos, len;
    } *v;
    uint8_t *bytes;
    size_t n, cap;
    uint64_t nb, capb;
} pieces;

static gs_status piece_push(pieces *k, uint64_t pos, const uint8_t *bytes, uint64_t len,
                            const char *what, gs_error *err)
{
    gs_status st = gs_grow(&k->v, &k->cap, k->n, sizeof *k->v, 64) != GS_OK
                       ? gs_fail(err, GS_ESYS, "out of memory (%s)", what)
                       : reserve(&k->bytes, &k->capb, k->nb + len, what, err);
    if (st != GS_OK)
        return st;
    memcpy(k->bytes + k->nb, bytes, len);
    k->v[k->n++] = (struct piece){pos, len};
    k->nb += len;
    return GS_OK;
}

static void pieces_free(pieces *k)
{
    free(k->v);
    free(k->bytes);
    *k = (pieces){0};
}

/* Windows of w residues either side of each phrase start of one record
 * (global start g0, residues x[0 .. len)), merged where they overlap, as
 * pieces; a literal's window holds at least its residue. start/src: the
 * record's phrases. Out of memory: "out of memory (what)". */
static gs_status cut_record(pieces *k, const uint8_t *x, uint64_t g0, uint64_t len,
                            const uint64_t *start, const uint64_t *src, uint64_t n_ph, uint64_t w,
                            const char *what, gs_error *err)
{
    uint64_t lo = 0, hi = 0; /* the open piece, empty when lo == hi */
    for (uint64_t j = 0; j <= n_ph; j++) {
        uint64_t a = 0, b = 0;
        if (j < n_ph) {
            if (!gs_lz_window(start[j], g0, g0 + len, w, &src[j], &a, &b))
                continue;
            if (lo < hi && a < hi) {
                if (b > hi)
                    hi = b;
                continue;
            }
        }
        gs_status st = lo < hi ? piece_push(k, lo, x + (lo - g0), hi - lo, what, err) : GS_OK;
        if (st != GS_OK)
            return st;
        lo = a;
        hi = b;
    }
    return GS_OK;
}

/* One target record's phrases and kernel pieces, made by a thread. */
typedef struct rec_job {
    size_t r;
    uint64_t at, len;  /* its residues: the batch's [at, at + len) */
    phrases ph;
    pieces k;
    gs_status st; /* GS_ESYS: out of memory (a thread has no gs_error: parse_batch says it) */
} rec_job;

typedef struct parse_ctx {
    const gs_lz_index *ix;
    const text *tx;   /* the reference, with separators */
    const void *sa;   /* its suffix array, saidx_t or saidx64_t */
    int wide;         /* sa is 64-bit */
    uint64_t m;       /* reference length, separators included */
    size_t n_ref;     /* reference records */
    const uint8_t *batch; /* this batch's residues */
    rec_job *jobs;    /* and records */
    size_t n_jobs;
    atomic_size_t next;
} parse_ctx;

/* The suffix array entry k of the reference. */
static inline uint64_t sa_at(const parse_ctx *c, uint64_t k)
{
    return c->wide ? (uint64_t)((const saidx64_t *)c->sa)[k] : (uint64_t)((const saidx_t *)c->sa)[k];
}

/* The longest prefix of x[0 .. n) that occurs in the reference, by
 * narrowing the suffix array interval one residue at a time until one
 * suffix is left, then comparing directly. Every suffix of the reference
 * ends in a separator, and a target byte equal to it matches nothing, so
 * no match runs off the reference or across its records. */
static uint64_t longest_match(const parse_ctx *c, const uint8_t *x, uint64_t n, uint64_t *src)
{
    const uint8_t *t = c->tx->t, sep = c->tx->sep;
    uint64_t lo = 0, hi = c->m, l = 0;
    while (l < n && x[l] != sep && hi - lo > 1) {
        uint8_t ch = x[l];
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
    while (l < n && x[l] != sep && t[s + l] == x[l])
        l++;
    *src = s;
    return l;
}

static void *parse_records(void *arg)
{
    parse_ctx *c = *(parse_ctx **)arg;
    const gs_lz_index *ix = c->ix;
    const uint64_t w = ix->max_pat - 1;
    for (;;) {
        size_t q = atomic_fetch_add(&c->next, 1);
        if (q >= c->n_jobs)
            return NULL;
        rec_job *jb = &c->jobs[q];
        const uint8_t *x = c->batch + jb->at;
        const uint64_t g0 = ix->rec_off[jb->r];
        for (uint64_t i = 0; i < jb->len && jb->st == GS_OK;) {
            uint64_t src = 0, len = longest_match(c, x + i, jb->len - i, &src);
            if (len == 0)
                jb->st = ph_push(&jb->ph, g0 + i, GS_LZ_LITERAL, x[i], NULL);
            else
                jb->st = ph_push(&jb->ph, g0 + i, src - rec_of_text(ix, c->n_ref, src), 0, NULL);
            i += len ? len : 1;
        }
        if (jb->st == GS_OK)
            jb->st = cut_record(&jb->k, x, g0, jb->len, jb->ph.start, jb->ph.src, jb->ph.n, w,
                                "phrases", NULL);
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
            uint64_t i = ix->rec_off[r] + r, end = ix->rec_off[r + 1] + r;                      \
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
                st = best == 0 ? ph_push(ph, i - r, GS_LZ_LITERAL, t[i], err)                    \
                               : ph_push(ph, i - r, src - rec_of_text(ix, first, src), 0, err);  \
                if (st != GS_OK)                                                                 \
                    goto fail;                                                                   \
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

/* The kernel as it grows: pieces appended record after record. */
typedef struct kernel_out {
    size_t cap;    /* pc_* capacity */
    uint64_t kcap; /* kernel capacity */
} kernel_out;

/* Record rec's pieces k appended to the index's kernel. */
static gs_status kernel_add(gs_lz_index *ix, kernel_out *o, uint32_t rec, const pieces *k,
                            gs_error *err)
{
    if (ix->pc_koff == NULL || ix->n_pieces + k->n > o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 1024;
        while (cap < ix->n_pieces + k->n)
            cap *= 2;
        uint32_t *pr = realloc(ix->pc_rec, cap * sizeof *pr);
        if (pr)
            ix->pc_rec = pr;
        uint64_t *pp = realloc(ix->pc_pos, cap * sizeof *pp);
        if (pp)
            ix->pc_pos = pp;
        uint64_t *pk = realloc(ix->pc_koff, (cap + 1) * sizeof *pk);
        if (pk && ix->pc_koff == NULL)
            pk[0] = 0;
        if (pk)
            ix->pc_koff = pk;
        if (!pr || !pp || !pk)
            return gs_fail(err, GS_ESYS, "out of memory (kernel)");
        o->cap = cap;
    }
    gs_status st = reserve(&ix->kernel, &o->kcap, ix->kernel_len + k->nb, "kernel", err);
    if (st != GS_OK)
        return st;
    if (k->nb)
        memcpy(ix->kernel + ix->kernel_len, k->bytes, k->nb);
    ix->kernel_len += k->nb;
    for (size_t i = 0; i < k->n; i++, ix->n_pieces++) {
        ix->pc_rec[ix->n_pieces] = rec;
        ix->pc_pos[ix->n_pieces] = k->v[i].pos;
        ix->pc_koff[ix->n_pieces + 1] = ix->pc_koff[ix->n_pieces] + k->v[i].len;
    }
    return GS_OK;
}

/* A build in progress: the records read so far, the reference's text, the
 * batch being gathered, and the phrases and kernel made. */
typedef struct build {
    gs_lz_index *ix;
    const gs_lz_build_opts *o;
    feed f;
    text tx;        /* the reference, back to back */
    phrases ph;
    kernel_out ko;
    parse_ctx c;
    ref_rule q;
    uint8_t *bt;    /* the batch's residues */
    uint64_t bn, bcap, total, batch;
    rec_job *jobs;  /* the batch's records */
    size_t n_jobs, cap_jobs, cap_off, n_ref;
    int ref_done;
} build;

/* The reference (records [0, n_ref), read back to back into tx): its
 * separators, its suffix array (kept in c for the other records), its
 * LZ77 parse (KKP) into ph and its pieces into the kernel. */
static gs_status parse_reference(build *b, gs_error *err)
{
    gs_lz_index *ix = b->ix;
    parse_ctx *c = &b->c;
    text *tx = &b->tx;
    const size_t n_ref = b->n_ref;
    phrases *ph = &b->ph;
    kernel_out *ko = &b->ko;
    gs_status st = add_separators(ix, n_ref, tx, err);
    if (st != GS_OK)
        return st;
    const uint64_t m = tx->n;
    const int wide = m >= (uint64_t)INT32_MAX;
    void *sa = gs_malloc((m ? m : 1) * (wide ? sizeof(saidx64_t) : sizeof(saidx_t)), err,
                         "suffix array");
    if (sa == NULL)
        return GS_ESYS;
    *c = (parse_ctx){.ix = ix, .tx = tx, .sa = sa, .wide = wide, .m = m, .n_ref = n_ref};
    if ((wide ? divsufsort64(tx->t, sa, (saidx64_t)m) : divsufsort(tx->t, sa, (saidx_t)m)) != 0)
        return gs_fail(err, GS_ESYS, "suffix array construction failed (libdivsufsort)");
    st = wide ? kkp64(ix, tx, sa, m, n_ref, ph, err) : kkp32(ix, tx, sa, m, n_ref, ph, err);
    pieces k = {0};
    for (size_t r = 0, j = 0; st == GS_OK && r < n_ref; r++) { /* j: record r's first phrase */
        uint64_t g0 = ix->rec_off[r], len = ix->rec_off[r + 1] - g0, j1 = j;
        while (j1 < ph->n && ph->start[j1] < g0 + len)
            j1++;
        k.n = 0;
        k.nb = 0;
        st = cut_record(&k, tx->t + g0 + r, g0, len, ph->start + j, ph->src + j, j1 - j,
                        ix->max_pat - 1, "kernel", err);
        if (st == GS_OK)
            st = kernel_add(ix, ko, (uint32_t)r, &k, err);
        j = j1;
    }
    pieces_free(&k);
    return st;
}

/* One batch of records after the reference, parsed against it on
 * `threads` threads; their phrases and pieces appended in record order. */
static gs_status parse_batch(build *b, gs_error *err)
{
    gs_lz_index *ix = b->ix;
    parse_ctx *c = &b->c;
    rec_job *jobs = b->jobs;
    const size_t n_jobs = b->n_jobs;
    int threads = b->o->threads;
    phrases *ph = &b->ph;
    kernel_out *ko = &b->ko;
    gs_status st = GS_OK;
    c->batch = b->bt;
    c->jobs = jobs;
    c->n_jobs = n_jobs;
    atomic_init(&c->next, 0);
    parse_ctx *share[GS_PARALLEL_MAX]; /* every thread takes records from c */
    threads = gs_parallel_threads(threads, n_jobs);
    for (int t = 0; t < threads; t++)
        share[t] = c;
    gs_run_parallel(parse_records, share, sizeof *share, threads);
    for (size_t q = 0; q < n_jobs; q++) {
        rec_job *jb = &jobs[q];
        if (st == GS_OK && jb->st != GS_OK)
            st = gs_fail(err, jb->st, "out of memory (phrases)");
        for (uint64_t j = 0; st == GS_OK && j < jb->ph.n; j++)
            st = ph_push(ph, jb->ph.start[j], jb->ph.src[j], jb->ph.lit[j], err);
        if (st == GS_OK)
            st = kernel_add(ix, ko, (uint32_t)jb->r, &jb->k, err);
        free(jb->ph.start);
        free(jb->ph.src);
        free(jb->ph.lit);
        pieces_free(&jb->k);
    }
    return st;
}

/* Records after the reference are parsed a batch at a time: at least
 * BATCH residues (or the rest), so that the threads share many records
 * and the build holds the reference, its suffix array and one batch, not
 * the collection. Tune lz.batch (residues) lets the tests cut batches of a
 * record or a few. */
enum { READ_BLOCK = 1 << 22, BATCH = 1 << 29 };

/* Record r (f.n residues) placed in global coordinates. */
static gs_status place_record(build *b, size_t r, gs_error *err)
{
    gs_lz_index *ix = b->ix;
    if (gs_grow(&ix->rec_off, &b->cap_off, r + 1, sizeof *ix->rec_off, 1024) != GS_OK)
        return gs_fail(err, GS_ESYS, "out of memory (records)");
    ix->rec_off[r] = b->total;
    ix->rec_off[r + 1] = b->total += b->f.n;
    if (b->f.n != ix->layout.rec[r].length)
        return gs_fail(err, GS_ESYS, "read %llu residues of record %zu, the layout says "
                       "%llu (index build)", (unsigned long long)b->f.n, r,
                       (unsigned long long)ix->layout.rec[r].length);
    return GS_OK;
}

/* Record r joins the reference's text. */
static gs_status take_reference(build *b, size_t r, gs_error *err)
{
    if (reserve(&b->tx.t, &b->tx.cap, b->tx.n + b->f.n, "index build text", err) != GS_OK)
        return GS_ESYS;
    if (b->f.n) /* an empty record has no text at all */
        memcpy(b->tx.t + b->tx.n, b->f.t, b->f.n);
    b->tx.n += b->f.n;
    b->n_ref = r + 1;
    return GS_OK;
}

/* Record r joins the batch. */
static gs_status take_batch(build *b, size_t r, gs_error *err)
{
    gs_status st = gs_grow(&b->jobs, &b->cap_jobs, b->n_jobs, sizeof *b->jobs, 64) != GS_OK
                       ? gs_fail(err, GS_ESYS, "out of memory (index build text)")
                       : reserve(&b->bt, &b->bcap, b->bn + b->f.n, "index build text", err);
    if (st != GS_OK)
        return st;
    if (b->f.n)
        memcpy(b->bt + b->bn, b->f.t, b->f.n);
    b->jobs[b->n_jobs++] = (rec_job){.r = r, .at = b->bn, .len = b->f.n};
    b->bn += b->f.n;
    return GS_OK;
}

/* One step: the next record (*more = 0 after the last) into the
 * reference, or, the reference parsed, into the batch, parsed when full. */
static gs_status build_step(build *b, int *more, gs_error *err)
{
    gs_lz_index *ix = b->ix;
    size_t r = 0;
    int got = 0;
    gs_status st = next_record(&b->f, &r, &got, err);
    if (st == GS_OK && got)
        st = place_record(b, r, err);
    *more = got;
    if (st != GS_OK)
        return st;
    if (got > 0 && !b->ref_done && in_reference(&b->q, &ix->layout, r, b->f.n))
        return take_reference(b, r, err);
    if (!b->ref_done) { /* the reference is complete */
        b->ref_done = 1;
        if (ix->layout.n_rec == 0)
            return gs_fail(err, GS_EINPUT, "the collection has no record (gscan index --lz)");
        if ((st = parse_reference(b, err)) != GS_OK)
            return st;
    }
    if (got > 0 && (st = take_batch(b, r, err)) != GS_OK)
        return st;
    if (got == 0 || b->bn >= b->batch) {
        st = parse_batch(b, err);
        b->n_jobs = 0;
        b->bn = 0;
    }
    return st;
}

/* The phrases handed to the index (with the end sentinel), and locate's
 * order, made once here and stored. */
static gs_status build_finish(build *b, gs_error *err)
{
    gs_lz_index *ix = b->ix;
    if (ph_push(&b->ph, ix->n_residues, 0, 0, err) != GS_OK) /* room for the end sentinel */
        return GS_ESYS;
    ix->n_phrases = b->ph.n - 1;
    ix->ph_start = b->ph.start;
    ix->ph_src = b->ph.src;
    ix->lit = b->ph.lit;
    b->ph = (phrases){0};
    return gs_lz_sources_sort(ix, b->o->threads, err);
}

gs_status gs_lz_build(const char *const *files, size_t n_files, const gs_lz_build_opts *o,
                      gs_lz_index *ix, gs_error *err)
{
    memset(ix, 0, sizeof *ix);
    ix->max_pat = o->max_pat;
    gs_lz_build_opts own = *o;
    own.threads = o->threads < 1 ? 1 : o->threads;
    build b = {.ix = ix, .o = &own, .f = {.layout = &ix->layout},
               .q = {.ref_records = o->ref_records},
               .batch = o->tune && o->tune->lz_batch ? o->tune->lz_batch : BATCH};
    gs_reader_opts ro = {.format = o->format, .block = READ_BLOCK, .overlap = 0, .tune = o->tune};
    gs_status st = (b.f.buf = gs_malloc(READ_BLOCK, err, "index build")) == NULL
                       ? GS_ESYS
                       : gs_reader_open(files, n_files, &ro, &ix->layout, &b.f.r, err);
    b.q.several_files = ix->layout.n_files > 1;
    if (st == GS_OK) /* its arrays, pc_koff[0] = 0 */
        st = kernel_add(ix, &b.ko, 0, &(pieces){0}, err);
    for (int more = 1; st == GS_OK && more;)
        st = build_step(&b, &more, err);
    gs_reader_close(b.f.r);
    free(b.f.buf);
    free(b.f.t);
    free(b.bt);
    free(b.jobs);
    free(b.tx.t);
    free((void *)b.c.sa);
    ix->n_residues = b.total;
    if (st == GS_OK)
        st = build_finish(&b, err);
    free(b.ph.start);
    free(b.ph.src);
    free(b.ph.lit);
    if (st != GS_OK)
        gs_lz_free(ix);
    return st;
}
