/* fai_parallel.c - index a plain FASTA file in memory on several threads.
 *
 * An unindexed plain file would otherwise be streamed by one parsing thread
 * (fasta.c). Indexing it first lets the ranges path read it with every reader
 * of every rank; the price is a second pass over the bytes, which the page
 * cache makes cheap (the index pass pulls the file in, the scan pass reads it
 * from memory). So the file is mapped (no copy, no second buffer) and cut into
 * byte ranges, one task per range; a task owns the lines that START in its
 * range: it resynchronises at the first line start at or after its first byte
 * and finishes its last line past its end (a header may straddle the edge).
 * Each task summarises its lines per record as runs of equal lines (bytes and
 * residues): a record that .fai can describe has at most three runs (full
 * lines, one shorter last line, blank lines), so a longer list proves an
 * irregular record without stitching. Stitching then replays, run by run,
 * the per-line rules of gs_fai_build (fai_lines.h) in file order, so the
 * index is the one gs_fai_build would write: same records, offsets, line lengths and
 * residue counts, and the same refusals (GS_EINPUT) where .fai cannot describe
 * a record (mixed line lengths, blank or shorter line inside a record,
 * spaces, tabs or a stray '\r' in a line, a last header with no line end).
 * The caller streams such a file instead, so no record is ever read through
 * arithmetic that does not fit it.
 *
 * One difference from gs_fai_build, to match the streaming reader (fasta.h):
 * a UTF-8 BOM and blank lines before the first header are skipped, within
 * the first 1 MiB; a file that does not then start with '>' (raw text, empty
 * or blank) is GS_EINPUT, for the reader to decide.
 */
#define _POSIX_C_SOURCE 200809L
#include "fai.h"
#include "fai_lines.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_RUNS = 3, SNIFF = 1 << 20 };

/* count equal lines: width in bytes with the '\n', lres residues (0: blank,
 * whatever its width) */
typedef struct run {
    uint64_t count, width, lres;
} run;

typedef struct runs {
    run v[MAX_RUNS];
    int n;
} runs;

typedef struct part_rec {
    char *name;
    uint64_t offset; /* byte after the header's '\n' */
    runs lines;
} part_rec;

typedef struct part {
    uint64_t a, b;   /* lines starting in [a, b) */
    int at_line;     /* a begins a line (the first part: the first header) */
    runs lead;       /* lines before the part's first header: the open record's */
    part_rec *rec;
    size_t n_rec, cap;
    int irregular;   /* a line or run list .fai cannot describe */
    gs_status st;    /* GS_ESYS: out of memory */
} part;

typedef struct task_ctx {
    const uint8_t *m;
    uint64_t size;
    part *parts;
    size_t n_parts;
    size_t next; /* next part to take, under lock */
    pthread_mutex_t lock;
} task_ctx;

/* Add a line to a run list; 0, or -1 when it would need a fourth run. */
static int runs_add(runs *r, uint64_t width, uint64_t lres)
{
    run *last = r->n ? &r->v[r->n - 1] : NULL;
    if (last && last->lres == lres && (lres == 0 || last->width == width)) {
        last->count++;
        return 0;
    }
    if (r->n == MAX_RUNS)
        return -1;
    r->v[r->n++] = (run){1, width, lres};
    return 0;
}

static int is_blank(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* A header line s[0..len) (s[0] == '>') opens a record in p. */
static int part_header(part *p, const uint8_t *s, size_t len, uint64_t offset)
{
    size_t i = 1, j;
    while (i < len && is_blank(s[i]))
        i++;
    for (j = i; j < len && !is_blank(s[j]);)
        j++;
    if (gs_grow(&p->rec, &p->cap, p->n_rec, sizeof *p->rec, 64))
        return -1;
    char *name = malloc(j - i + 1);
    if (name == NULL)
        return -1;
    memcpy(name, s + i, j - i);
    name[j - i] = 0;
    p->rec[p->n_rec++] = (part_rec){.name = name, .offset = offset};
    return 0;
}

/* Index the lines that start in [p->a, p->b) of m[0..size). */
static void part_scan(part *p, const uint8_t *m, uint64_t size)
{
    uint64_t x = p->a, end = p->b < size ? p->b : size;
    if (x >= end)
        return;
    if (!p->at_line && m[x - 1] != '\n') {
        const uint8_t *nl = memchr(m + x, '\n', size - x);
        x = nl ? (uint64_t)(nl - m) + 1 : size;
    }
    size_t L = 0; /* length of the last sequence line: the next is likely the same */
    while (x < end) {
        const uint8_t *s = m + x;
        uint64_t avail = size - x;
        runs *r = p->n_rec ? &p->rec[p->n_rec - 1].lines : &p->lead;
        if (s[0] != '>' && L > 0 && L < avail && s[L] == '\n' && gs_min_byte(s, L - 1) > ' ' &&
            (s[L - 1] > ' ' || s[L - 1] == '\r')) {
            /* fast path: a clean line as long as the last one */
            if (runs_add(r, L + 1, L - (s[L - 1] == '\r')) != 0)
                goto irregular;
            x += L + 1;
            continue;
        }
        const uint8_t *nl = memchr(s, '\n', avail);
        size_t len = nl ? (size_t)(nl - s) : (size_t)avail;
        if (s[0] == '>') {
            if (nl == NULL) /* a last record with no sequence line: gs_fai_build refuses it */
                goto irregular;
            if (part_header(p, s, len, x + len + 1) != 0) {
                p->st = GS_ESYS;
                return;
            }
            x += len + 1;
            continue;
        }
        uint64_t lres = 0;
        int lcr = 0;
        for (size_t i = 0; i < len; i++) {
            uint8_t c = s[i];
            if (lcr || c == ' ' || c == '\t')
                goto irregular; /* '\r' not at the end, or a blank inside */
            lcr = c == '\r';
            lres += !lcr;
        }
        if (runs_add(r, (uint64_t)len + 1, lres) != 0)
            goto irregular;
        L = len;
        x += len + 1;
    }
    return;
irregular:
    p->irregular = 1;
}

static void *task_main(void *arg)
{
    task_ctx *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->lock);
        size_t i = c->next < c->n_parts ? c->next++ : c->n_parts;
        pthread_mutex_unlock(&c->lock);
        if (i == c->n_parts)
            return NULL;
        part_scan(&c->parts[i], c->m, c->size);
    }
}

/* A run of equal lines: after two steps without error the state no longer
 * changes (full lines stay full, blank lines stay ended), so the rest adds
 * its residues. */
static int apply_runs(gs_fai_entry *e, int *state, const runs *r)
{
    for (int k = 0; k < r->n; k++) {
        const run *u = &r->v[k];
        if (gs_fai_line_step(e, state, u->width, u->lres) != GS_LINE_OK ||
            (u->count > 1 && gs_fai_line_step(e, state, u->width, u->lres) != GS_LINE_OK))
            return -1;
        if (u->count > 2)
            e->length += u->lres * (u->count - 2);
    }
    return 0;
}

/* The first header after an optional UTF-8 BOM and blank lines, as the
 * streaming reader finds it; size when there is none in the first 1 MiB. */
static uint64_t first_header(const uint8_t *m, uint64_t size)
{
    uint64_t p = size >= 3 && !memcmp(m, "\xef\xbb\xbf", 3) ? 3 : 0;
    uint64_t lim = size < SNIFF ? size : SNIFF;
    while (p < lim && (m[p] == ' ' || m[p] == '\t' || m[p] == '\r' || m[p] == '\n'))
        p++;
    return p < lim && m[p] == '>' ? p : size;
}

gs_status gs_fai_build_parallel(const char *fasta, int threads, uint64_t split, gs_fai *fai,
                                gs_error *err)
{
    int fd = -1;
    uint8_t *m = MAP_FAILED;
    part *parts = NULL;
    size_t n_parts = 0;
    pthread_t *tid = NULL;
    int started = 0;
    struct stat st;
    uint64_t size = 0;
    gs_status rc = GS_OK;
    memset(fai, 0, sizeof *fai);
    if (threads < 1)
        threads = 1;
    if ((fd = open(fasta, O_RDONLY)) < 0 || fstat(fd, &st) != 0) {
        gs_fail(err, GS_EINPUT, "cannot open FASTA file: %s (%s)", strerror(errno), fasta);
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        gs_fail(err, GS_EINPUT, "cannot be indexed: not a regular file (%s)", fasta);
        goto fail;
    }
    size = (uint64_t)st.st_size;
    if (size > 0 && (m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
        gs_fail(err, GS_ESYS, "cannot map the file: %s (%s)", strerror(errno), fasta);
        goto fail;
    }
    uint64_t p0 = size > 0 ? first_header(m, size) : 0;
    if (p0 == size) {
        gs_fail(err, GS_EINPUT, "not a FASTA file: does not start with '>' (%s)", fasta);
        goto fail;
    }
    posix_madvise(m, size, POSIX_MADV_SEQUENTIAL);
    /* by default one range per thread; split (tests) forces smaller ones */
    uint64_t span = size - p0, each = split ? split : (span + (uint64_t)threads - 1) / threads;
    if (each == 0)
        each = 1;
    n_parts = (size_t)((span + each - 1) / each);
    if ((parts = gs_calloc(n_parts, sizeof *parts, err, "index parts")) == NULL)
        goto fail;
    for (size_t i = 0; i < n_parts; i++) {
        parts[i].a = p0 + i * each;
        parts[i].b = i + 1 == n_parts ? size : p0 + (i + 1) * each;
        parts[i].at_line = i == 0;
    }
    task_ctx ctx = {.m = m, .size = size, .parts = parts, .n_parts = n_parts};
    pthread_mutex_init(&ctx.lock, NULL);
    if ((size_t)threads > n_parts)
        threads = (int)n_parts;
    if ((tid = gs_calloc((size_t)threads, sizeof *tid, err, "index threads")) == NULL) {
        pthread_mutex_destroy(&ctx.lock);
        goto fail;
    }
    for (started = 1; started < threads; started++)
        if (pthread_create(&tid[started], NULL, task_main, &ctx) != 0)
            break;
    task_main(&ctx);
    for (int t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&ctx.lock);

    /* stitch, in file order */
    size_t n_rec = 0;
    for (size_t i = 0; i < n_parts; i++) {
        if (parts[i].st != GS_OK) {
            gs_fail(err, GS_ESYS, "out of memory (indexing %s)", fasta);
            goto fail;
        }
        if (parts[i].irregular)
            goto irregular;
        n_rec += parts[i].n_rec;
    }
    if ((fai->v = gs_calloc(n_rec ? n_rec : 1, sizeof *fai->v, err, "index")) == NULL)
        goto fail;
    gs_fai_entry *e = NULL;
    int state = GS_SEQ_FIRST;
    for (size_t i = 0; i < n_parts; i++) {
        part *p = &parts[i];
        if (p->lead.n && (e == NULL || apply_runs(e, &state, &p->lead) != 0))
            goto irregular;
        for (size_t k = 0; k < p->n_rec; k++) {
            e = &fai->v[fai->n++];
            *e = (gs_fai_entry){.name = p->rec[k].name, .offset = p->rec[k].offset};
            p->rec[k].name = NULL; /* moved into the index */
            state = GS_SEQ_FIRST;
            if (apply_runs(e, &state, &p->rec[k].lines) != 0)
                goto irregular;
        }
    }
    goto done;
irregular:
    gs_fail(err, GS_EINPUT,
            "cannot be indexed: a record's lines differ in length, or hold spaces, tabs or a "
            "stray '\\r' (%s)",
            fasta);
fail:
    rc = err->code;
    gs_fai_free(fai);
done:
    for (size_t i = 0; i < n_parts; i++) {
        for (size_t k = 0; k < parts[i].n_rec; k++)
            free(parts[i].rec[k].name);
        free(parts[i].rec);
    }
    free(parts);
    free(tid);
    if (m != MAP_FAILED)
        munmap(m, size);
    if (fd >= 0)
        close(fd);
    return rc;
}
