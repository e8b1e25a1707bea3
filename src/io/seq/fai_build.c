/* fai_build.c - build the .fai index of a plain or BGZF FASTA file, on one
 * thread or several (the one builder: one thread is the serial case).
 *
 * The text is cut into windows (a plain file is mapped and is one window; a
 * BGZF file, or a plain one that cannot be mapped, is read through the
 * byte-stream reader a window at a time, cut after its last line end) and
 * each window into byte ranges, one task
 * per range; a task owns the lines that START in its range: it
 * resynchronises at the first line start at or after its first byte and
 * finishes its last line past its end (a header may straddle the edge).
 * Each task summarises its lines per record as runs of equal lines (bytes
 * and residues): a record that .fai can describe has at most three runs
 * (full lines, one shorter last line, blank lines), so a longer list proves
 * an irregular record without stitching, and the task stops at the line
 * that needed a fourth run (or held a byte that cannot be indexed). Then,
 * in file order, the runs are replayed through the per-line rules
 * (fai_lines.h); each run remembers its first line, so a refusal names the
 * line a one-pass reader would stop at.
 *
 * The index must describe exactly the residues the streaming reader
 * (fasta.c) yields, record for record, or ranks that seek with it would scan
 * other text than a rank that streams. So it follows htslib where the two
 * agree and is stricter where htslib's arithmetic would not match the reader:
 *   - the file must be FASTA as the reader decides it (seqformat.h): a UTF-8
 *     BOM and blank lines before the first header are skipped (htslib skips
 *     the blank lines but refuses a BOM);
 *   - lines of a record but its last must have one length (bytes and
 *     residues); a longer line after the first, or any line after a shorter
 *     or blank one, is an error at path:line, as in htslib ("different line
 *     length", "inlined empty line");
 *   - a line is residues then an optional '\r' before '\n': CRLF files give
 *     LINEWIDTH = LINEBASES + 2, as samtools does. Spaces, tabs or a '\r'
 *     inside a line cannot be indexed (the reader drops them, the offset
 *     arithmetic cannot), so they are an error here where htslib is silent;
 *   - empty records are kept (LENGTH, LINEBASES and LINEWIDTH 0) so record
 *     numbers match the reader; current htslib drops them;
 *   - duplicate names are kept for the same reason (htslib ignores repeats).
 * A caller that can stream instead (the job) does so on GS_EINPUT.
 */
#define _GNU_SOURCE /* memrchr */
#include "fai.h"
#include "fai_lines.h"
#include "fasta.h"
#include "seqformat.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/gs_mapguard.h"
#include "core/gs_parallel.h"
#include "io/stream/stream.h"

/* WINDOW: decompressed bytes of a BGZF file indexed at a time, per thread. */
/* PART_MIN: the least a thread indexes (a thread started per small file
 * costs more than indexing it: 100,000 genomes of 1 kb each took 0.3 ms a
 * file, mostly thread starts, before parts had a floor). */
enum { MAX_RUNS = 3, WINDOW = 8 << 20, PART_MIN = 1 << 20 };

/* count equal lines from the part's line `line` on: width in bytes with the
 * '\n', lres residues (0: blank, whatever its width) */
typedef struct run {
    uint64_t count, width, lres, line;
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

/* Why a part stopped before its end: a line that would need a fourth run,
 * a line with bytes that cannot be indexed, a last header with no line end,
 * a header that breaks the header rule (seqformat.h). */
enum { STOP_NONE, STOP_RUN, STOP_BYTES, STOP_NOSEQ, STOP_HEADER };

typedef struct part {
    const uint8_t *m;  /* the window's text, m[0] at file byte base */
    uint64_t size, base;
    uint64_t a, b;     /* lines starting in m[a, b) */
    int at_line;       /* a begins a line */
    runs lead;         /* lines before the part's first header: the open record's */
    part_rec *rec;
    size_t n_rec, cap;
    uint64_t lines;    /* lines read; at a stop, the stopping line's index */
    int stop;          /* STOP_* */
    uint64_t stop_width, stop_lres;
    const char *stop_why; /* STOP_HEADER: gs_header_fault's words */
    gs_status st;      /* GS_ESYS: out of memory */
    int changed;       /* a page of m faulted: the file was cut under the map */
} part;

/* Parts handed to the workers in order. */
typedef struct part_queue {
    part *v;
    size_t n, next;
} part_queue;

/* The index as stitched so far. */
typedef struct builder {
    const char *path;
    gs_fai *fai;
    size_t cap;
    int state;     /* of the last record (fai_lines.h) */
    uint64_t line; /* number of the next line of the file, from 1 */
    int threads;
    uint64_t split;
    gs_error *err;
} builder;

/* Add a line to a run list; GS_EINPUT when it would need a fourth run (the
 * record cannot be indexed). */
static gs_status runs_add(runs *r, uint64_t width, uint64_t lres, uint64_t line)
{
    run *last = r->n ? &r->v[r->n - 1] : NULL;
    if (last && last->lres == lres && (lres == 0 || last->width == width)) {
        last->count++;
        return GS_OK;
    }
    if (r->n == MAX_RUNS)
        return GS_EINPUT;
    r->v[r->n++] = (run){1, width, lres, line};
    return GS_OK;
}

/* A header line s[0..len) (s[0] == '>') opens a record in p. */
static gs_status part_header(part *p, const uint8_t *s, size_t len, uint64_t offset)
{
    size_t n, i = 1 + gs_header_name(s + 1, len - 1, &n);
    if (gs_grow(&p->rec, &p->cap, p->n_rec, sizeof *p->rec, 64) != GS_OK)
        return GS_ESYS;
    char *name = malloc(n + 1);
    if (name == NULL)
        return GS_ESYS;
    memcpy(name, s + i, n);
    name[n] = 0;
    p->rec[p->n_rec++] = (part_rec){.name = name, .offset = offset};
    return GS_OK;
}

static void part_stop(part *p, int why, uint64_t width, uint64_t lres)
{
    p->stop = why;
    p->stop_width = width;
    p->stop_lres = lres;
}

/* The residues of a sequence line s[0..len) (no '\n'); GS_EINPUT when it
 * holds a '\r' before its end, a space or a tab. */
static gs_status line_residues(const uint8_t *s, size_t len, uint64_t *lres)
{
    int lcr = 0;
    *lres = 0;
    for (size_t i = 0; i < len; i++) {
        uint8_t c = s[i];
        if (lcr || c == ' ' || c == '\t')
            return GS_EINPUT;
        lcr = c == '\r';
        *lres += !lcr;
    }
    return GS_OK;
}

/* Index the lines that start in [p->a, p->b) of p->m[0..size). */
static void part_scan(part *p)
{
    const uint8_t *m = p->m;
    uint64_t size = p->size, x = p->a, end = p->b < size ? p->b : size;
    if (x < end && !p->at_line && m[x - 1] != '\n') {
        const uint8_t *nl = memchr(m + x, '\n', size - x);
        x = nl ? (uint64_t)(nl - m) + 1 : size;
    }
    size_t L = 0; /* length of the last sequence line: the next is likely the same */
    for (; x < end; p->lines++) {
        const uint8_t *s = m + x;
        uint64_t avail = size - x;
        runs *r = p->n_rec ? &p->rec[p->n_rec - 1].lines : &p->lead;
        if (s[0] != '>' && L > 0 && L < avail && s[L] == '\n' && gs_min_byte(s, L - 1) > ' ' &&
            (s[L - 1] > ' ' || s[L - 1] == '\r')) {
            /* fast path: a clean line as long as the last one */
            uint64_t lres = L - (s[L - 1] == '\r');
            if (runs_add(r, L + 1, lres, p->lines) != GS_OK) {
                part_stop(p, STOP_RUN, L + 1, lres);
                return;
            }
            x += L + 1;
            continue;
        }
        const uint8_t *nl = memchr(s, '\n', avail);
        size_t len = nl ? (size_t)(nl - s) : (size_t)avail;
        x += len + 1;
        if (s[0] == '>') {
            if ((p->stop_why = gs_header_fault(s + 1, len - 1, 0)) != NULL) {
                part_stop(p, STOP_HEADER, 0, 0);
                return;
            }
            if ((p->st = part_header(p, s, len, p->base + x)) != GS_OK)
                return;
            if (nl == NULL) {
                part_stop(p, STOP_NOSEQ, 0, 0);
                return;
            }
            continue;
        }
        uint64_t lres;
        if (line_residues(s, len, &lres) != GS_OK) {
            part_stop(p, STOP_BYTES, 0, 0);
            return;
        }
        if (runs_add(r, (uint64_t)len + 1, lres, p->lines) != GS_OK) {
            part_stop(p, STOP_RUN, (uint64_t)len + 1, lres);
            return;
        }
        L = len;
    }
}

static void *scan_worker(void *arg)
{
    part_queue *q = *(part_queue **)arg;
    for (;;) {
        size_t i = __atomic_fetch_add(&q->next, 1, __ATOMIC_RELAXED);
        if (i >= q->n)
            return NULL;
        part *p = &q->v[i];
        gs_mapguard g;
        gs_mapguard_arm(&g, p->m, p->size);
        if (sigsetjmp(g.env, 0))
            p->changed = 1;
        else
            part_scan(p);
        gs_mapguard_disarm(&g);
    }
}

/* One line of `width` bytes and lres residues, line number `line`, added to
 * the last record: GS_EINPUT naming it where .fai cannot describe it. */
static gs_status step(builder *bd, uint64_t width, uint64_t lres, uint64_t line)
{
    const char *path = bd->path;
    if (bd->fai->n == 0) /* cannot happen: the text starts at a header */
        return gs_fail(bd->err, GS_EINPUT, "sequence line outside a record (%s:%" PRIu64 ")",
                       path, line);
    gs_fai_entry *e = &bd->fai->v[bd->fai->n - 1];
    switch (gs_fai_line_step(e, &bd->state, width, lres)) {
    case GS_LINE_OK:
        return GS_OK;
    case GS_LINE_AFTER_END:
        return gs_fail(bd->err, GS_EINPUT,
                       "blank or shorter line inside record %s: lines of a record must have one "
                       "length except the last (%s:%" PRIu64 ")",
                       e->name, path, line);
    case GS_LINE_TOO_LONG:
        return gs_fail(bd->err, GS_EINPUT, "line too long to index (%s:%" PRIu64 ")", path, line);
    default:
        return gs_fail(bd->err, GS_EINPUT,
                       "different line length in record %s: %" PRIu64 " bytes, expected %u "
                       "(%s:%" PRIu64 ")",
                       e->name, width, e->linewidth, path, line);
    }
}

/* Replay a run list; after two steps without error the state no longer
 * changes (full lines stay full, blank lines stay ended), so the rest of a
 * run adds its residues. line0: the number of the part's first line. */
static gs_status apply_runs(builder *bd, const runs *r, uint64_t line0)
{
    for (int k = 0; k < r->n; k++) {
        const run *u = &r->v[k];
        if (step(bd, u->width, u->lres, line0 + u->line) != GS_OK ||
            (u->count > 1 && step(bd, u->width, u->lres, line0 + u->line + 1) != GS_OK))
            return bd->err->code;
        if (u->count > 2)
            bd->fai->v[bd->fai->n - 1].length += u->lres * (u->count - 2);
    }
    return GS_OK;
}

/* The line a part stopped at, after everything before it was replayed. */
static gs_status report_stop(builder *bd, const part *p, uint64_t line)
{
    const char *name = bd->fai->n ? bd->fai->v[bd->fai->n - 1].name : "";
    if (p->stop == STOP_BYTES)
        return gs_fail(bd->err, GS_EINPUT,
                       "cannot index a line with spaces, tabs or a stray '\\r' in record %s "
                       "(%s:%" PRIu64 ")",
                       name, bd->path, line);
    if (p->stop == STOP_HEADER)
        return gs_fail(bd->err, GS_EINPUT, "%s (%s:%" PRIu64 ")", p->stop_why, bd->path, line);
    if (p->stop == STOP_NOSEQ)
        return gs_fail(bd->err, GS_EINPUT, "last record %s has no sequence line (%s:%" PRIu64 ")",
                       name, bd->path, line);
    if (step(bd, p->stop_width, p->stop_lres, line) != GS_OK)
        return bd->err->code;
    return gs_fail(bd->err, GS_EINPUT, "cannot be indexed: irregular lines in record %s (%s:%" PRIu64 ")",
                   name, bd->path, line);
}

/* Append the parts' records to the index in file order. */
static gs_status stitch(builder *bd, part *parts, size_t n_parts)
{
    gs_fai *fai = bd->fai;
    for (size_t i = 0; i < n_parts; i++) {
        part *p = &parts[i];
        if (p->changed) {
            bd->fai->changed = 1;
            return gs_mapguard_fail(bd->err, bd->path);
        }
        if (p->st != GS_OK)
            return gs_fail(bd->err, GS_ESYS, "out of memory (indexing %s)", bd->path);
        if (apply_runs(bd, &p->lead, bd->line) != GS_OK)
            return bd->err->code;
        for (size_t k = 0; k < p->n_rec; k++) {
            if (gs_grow(&fai->v, &bd->cap, fai->n, sizeof *fai->v, 64) != GS_OK)
                return gs_fail(bd->err, GS_ESYS, "out of memory (indexing %s)", bd->path);
            fai->v[fai->n++] = (gs_fai_entry){.name = p->rec[k].name, .offset = p->rec[k].offset};
            p->rec[k].name = NULL; /* moved into the index */
            bd->state = GS_SEQ_FIRST;
            if (apply_runs(bd, &p->rec[k].lines, bd->line) != GS_OK)
                return bd->err->code;
        }
        if (p->stop != STOP_NONE)
            return report_stop(bd, p, bd->line + p->lines);
        bd->line += p->lines;
    }
    return GS_OK;
}

/* Index the lines of m[from, size) (m[0] at file byte base; m[size - 1]
 * ends a line, or the file ends there) on the builder's threads. */
static gs_status index_window(builder *bd, const uint8_t *m, uint64_t size, uint64_t base,
                              uint64_t from)
{
    uint64_t span = size - from, t = (uint64_t)bd->threads;
    uint64_t each = bd->split ? bd->split : (span + t - 1) / t;
    if (!bd->split && each < PART_MIN)
        each = PART_MIN;
    if (span == 0)
        return GS_OK;
    if (each == 0)
        each = 1;
    size_t n_parts = (size_t)((span + each - 1) / each);
    part *parts = gs_calloc(n_parts, sizeof *parts, bd->err, "index parts");
    if (parts == NULL)
        return GS_ESYS;
    for (size_t i = 0; i < n_parts; i++)
        parts[i] = (part){.m = m, .size = size, .base = base, .a = from + i * each,
                          .b = i + 1 == n_parts ? size : from + (i + 1) * each, .at_line = i == 0};
    part_queue q = {parts, n_parts, 0};
    part_queue *qs[GS_PARALLEL_MAX];
    int n = gs_parallel_threads(bd->threads, n_parts);
    for (int k = 0; k < n; k++)
        qs[k] = &q;
    gs_run_parallel(scan_worker, qs, sizeof *qs, n);
    gs_status st = stitch(bd, parts, n_parts);
    for (size_t i = 0; i < n_parts; i++) {
        for (size_t k = 0; k < parts[i].n_rec; k++)
            free(parts[i].rec[k].name);
        free(parts[i].rec);
    }
    free(parts);
    return st;
}

/* The first header, after a BOM and blank lines (seqformat.h); the lines
 * before it are counted. */
static gs_status first_record(builder *bd, gs_compression comp, const uint8_t *m, uint64_t size,
                              int at_end, uint64_t *from)
{
    gs_seq_head h;
    gs_seq_sniff(comp, m, size < GS_SEQ_SNIFF ? (size_t)size : GS_SEQ_SNIFF,
                 at_end && size <= GS_SEQ_SNIFF, &h);
    if (h.format == GS_SEQ_FASTQ)
        return gs_fail(bd->err, GS_EINPUT,
                       "cannot index FASTQ: gscan reads FASTQ as a stream, with no index (%s)",
                       bd->path);
    if (h.format != GS_SEQ_FASTA)
        return gs_fail(bd->err, GS_EINPUT, "not a FASTA file: does not start with '>' (%s)",
                       bd->path);
    for (size_t i = 0; i < h.start; i++)
        bd->line += m[i] == '\n';
    *from = h.start;
    return GS_OK;
}

/* A plain file: mapped, one window. *mapped = 0 when it cannot be mapped
 * (an address-space limit below the file's size: ulimit -v under a batch
 * system), for the caller to read it a window at a time instead. A page
 * that faults because the file was cut after it was mapped is an error
 * naming the file (gs_mapguard.h), as a short read() would be. */
static gs_status build_plain(builder *bd, int *mapped, gs_error *err)
{
    int fd = open(bd->path, O_RDONLY);
    struct stat sb;
    *mapped = 1;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        gs_fail_open(err, "FASTA file", bd->path);
        if (fd >= 0)
            close(fd);
        return err->code;
    }
    uint64_t size = (uint64_t)sb.st_size, from = 0;
    uint8_t *m = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    if (m == MAP_FAILED) {
        *mapped = 0;
        return GS_OK;
    }
    gs_mapguard g;
    gs_mapguard_arm(&g, m, size);
    gs_status st;
    if (sigsetjmp(g.env, 0)) {
        bd->fai->changed = 1;
        st = gs_mapguard_fail(err, bd->path);
    } else {
        st = first_record(bd, GS_COMP_NONE, m, size, 1, &from);
    }
    gs_mapguard_disarm(&g);
    if (st == GS_OK) {
        posix_madvise(m, size, POSIX_MADV_SEQUENTIAL);
        st = index_window(bd, m, size, 0, from);
    }
    if (m)
        munmap(m, size);
    return st;
}

gs_status gs_fai_build_bytes(const char *fasta, const uint8_t *m, uint64_t size, gs_fai *fai,
                             gs_error *err)
{
    memset(fai, 0, sizeof *fai);
    builder bd = {.path = fasta, .fai = fai, .line = 1, .threads = 1, .err = err};
    uint64_t from = 0;
    gs_status st = first_record(&bd, GS_COMP_NONE, m, size, 1, &from);
    if (st == GS_OK)
        st = index_window(&bd, m, size, 0, from);
    if (st != GS_OK)
        gs_fai_free(fai);
    return st;
}

/* Fill w[*n, cap) from s: *eof when the data ended. */
static gs_status fill(gs_stream *s, uint8_t *w, size_t cap, size_t *n, int *eof, gs_error *err)
{
    while (*n < cap) {
        size_t got;
        if (gs_stream_read(s, w + *n, cap - *n, &got, err) != GS_OK)
            return err->code;
        if (got == 0) {
            *eof = 1;
            break;
        }
        *n += got;
    }
    return GS_OK;
}

/* A BGZF file, or a plain one that cannot be mapped: read (inflated) a
 * window at a time, each cut after its last line end (the rest moves to
 * the next window; a window with no line end grows). */
static gs_status build_stream(builder *bd, gs_stream *s, gs_error *err)
{
    size_t cap = (size_t)WINDOW * (size_t)(bd->threads < 8 ? bd->threads : 8), n = 0;
    uint8_t *w = gs_malloc(cap, err, "index window");
    uint64_t base = 0, from = 0;
    int eof = 0, first = 1;
    gs_status st = w ? GS_OK : GS_ESYS;
    while (st == GS_OK) {
        if ((st = fill(s, w, cap, &n, &eof, err)) != GS_OK)
            break;
        if (first && (st = first_record(bd, gs_stream_compression(s), w, n, eof, &from)) !=
                         GS_OK)
            break;
        first = 0;
        const uint8_t *nl = eof ? NULL : memrchr(w + from, '\n', n - from);
        size_t cut = eof ? n : nl ? (size_t)(nl - w) + 1 : 0;
        if (cut == 0) { /* one line longer than the window */
            uint8_t *g = gs_realloc(w, cap * 2, err, "index window");
            if (g == NULL)
                st = GS_ESYS;
            else
                w = g, cap *= 2;
            continue;
        }
        if ((st = index_window(bd, w, cut, base, from)) != GS_OK || eof)
            break;
        memmove(w, w + cut, n - cut);
        n -= cut;
        base += cut;
        from = 0;
    }
    free(w);
    return st;
}

gs_status gs_fai_build(const char *fasta, int threads, const gs_tune *tune, gs_fai *fai,
                       gs_error *err)
{
    gs_stream *s = NULL;
    memset(fai, 0, sizeof *fai);
    /* an index is offsets into a file read again later: a stream has none */
    if (!strcmp(fasta, "-") || (!gs_input_seekable(fasta) && access(fasta, F_OK) == 0))
        return gs_fail(err, GS_EINPUT,
                       "cannot be indexed: not a regular file (standard input, a pipe, a "
                       "device or a directory) (%s)",
                       fasta);
    builder bd = {.path = fasta, .fai = fai, .line = 1, .threads = threads < 1 ? 1 : threads,
                  .split = tune ? tune->io_fai_split : 0, .err = err};
    if (bd.threads > GS_PARALLEL_MAX)
        bd.threads = GS_PARALLEL_MAX;
    if (gs_stream_open(fasta, &(gs_stream_opts){.what = "FASTA file"}, &s, err) != GS_OK)
        return err->code;
    gs_compression comp = gs_stream_compression(s);
    gs_status st = GS_OK;
    int mapped = 1;
    if (comp == GS_COMP_GZIP)
        st = gs_fail(err, GS_EINPUT,
                     "cannot be indexed: gzip, not BGZF; recompress with bgzip (%s)", fasta);
    else if (comp == GS_COMP_BGZF)
        st = build_stream(&bd, s, err);
    else
        st = build_plain(&bd, &mapped, err);
    if (st == GS_OK && !mapped)
        st = build_stream(&bd, s, err);
    gs_stream_close(s);
    if (st != GS_OK)
        gs_fai_free(fai);
    return st;
}
