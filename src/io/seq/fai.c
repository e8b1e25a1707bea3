/* fai.c - write and load the samtools .fai index of a FASTA file.
 *
 * Plain FASTA is indexed in file bytes, BGZF in uncompressed bytes, as
 * `samtools faidx file.fa.gz` does; the index is built by fai_build.c and
 * ranges are read through it by fai_range.c. Plain gzip has no index of
 * block starts and is refused.
 *
 * gs_fai_load checks that the index still fits the FASTA before anyone seeks
 * with it (an index left over from an earlier version of the file would make
 * ranks scan the wrong bytes silently):
 *   - every line has 5 tab-separated fields, numbers parse, LINEWIDTH >
 *     LINEBASES > 0 for non-empty records;
 *   - offsets increase (record order is the reader's order);
 *   - each record's last residue lies inside the file;
 *   - the bytes between one record's last residue and the next record's
 *     OFFSET are: the end of that line, blank lines, and exactly one header
 *     line ">NAME..." of the next record ending in '\n' at OFFSET - 1 (for the
 *     first record, the file starts with that header);
 *   - after the last record only line ends and blank lines follow.
 * That reads only the headers, not the sequence, so loading stays cheap; a
 * changed line length inside a record that keeps every header in place is
 * caught later by gs_fai_read_range, which checks every byte it passes: each
 * line end between residues it reads, the one right after its last residue
 * too (so ranges that meet at a line end, and line ends cut by its read
 * chunk, are all checked), and that no sequence line holds a line end,
 * '\r', space or tab (the streaming reader drops those, the index cannot).
 */
#define _POSIX_C_SOURCE 200809L
#include "fai.h"
#include "core/gs_clock.h"
#include "core/gs_parallel.h"
#include "fai_lines.h"
#include "io/stream/replace_file.h"
#include "seqformat.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { GAP_MAX = 1 << 20 };
/* The index check reads a gap through the read-ahead when it lies at most
 * this far past the last one: a read call costs about what copying 16 KiB
 * does, so short records share one window, long ones are read one by one. */
enum { NEAR_GAP = 1 << 14 };

void gs_fai_free(gs_fai *fai)
{
    for (size_t i = 0; fai->names == NULL && i < fai->n; i++)
        free(fai->v[i].name);
    free(fai->names);
    free(fai->v);
    fai->v = NULL;
    fai->names = NULL;
    fai->n = fai->names_len = 0;
}

gs_status gs_fai_write(const char *fai_path, const gs_fai *fai, gs_error *err)
{
    gs_replace_file r;
    if (gs_replace_open(&r, fai_path, "index", err) != GS_OK)
        return err->code;
    for (size_t i = 0; i < fai->n; i++) {
        const gs_fai_entry *e = &fai->v[i];
        fprintf(r.f, "%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu32 "\t%" PRIu32 "\n", e->name, e->length,
                e->offset, e->linebases, e->linewidth);
    }
    return gs_replace_commit(&r, "index", err);
}

static int only_line_ends(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '\n' || s[i] == '\r' || s[i] == ' ' || s[i] == '\t'))
            return 0;
    return 1;
}

/* Check the bytes s[0..n) between two records: the end of the previous
 * record's last line and blank lines, then the header line of e, then empty
 * lines up to e's OFFSET. at_file_start: the header must be where the
 * readers find the first record (after a BOM and blank bytes, seqformat.h);
 * at_line_start: s[0] begins a line (the previous record is empty). With e
 * NULL (after the last record) only line ends and blanks may follow. */
static int gap_fits(const uint8_t *s, size_t n, const gs_fai_entry *e, int at_file_start,
                    int at_line_start)
{
    if (e == NULL)
        return only_line_ends(s, n);
    size_t h = 0;
    if (at_file_start) {
        gs_seq_head first;
        gs_seq_sniff(GS_COMP_NONE, s, n, 1, &first);
        h = first.start;
    } else {
        while (h < n && s[h] != '>') {
            if (!(s[h] == '\n' || s[h] == '\r' || s[h] == ' ' || s[h] == '\t'))
                return 0;
            h++;
        }
        if (h == n || (h == 0 ? !at_line_start : s[h - 1] != '\n'))
            return 0;
    }
    if (h >= n || s[h] != '>')
        return 0;
    const uint8_t *nl = memchr(s + h, '\n', n - h);
    if (nl == NULL)
        return 0;
    size_t end = (size_t)(nl - s), nlen;
    size_t name = h + 1 + gs_header_name(s + h + 1, end - h - 1, &nlen);
    if (nlen != strlen(e->name) || memcmp(s + name, e->name, nlen) != 0)
        return 0;
    /* after the header line only empty lines may come (htslib-style offset),
     * so OFFSET - 1 is a '\n' */
    for (size_t i = end + 1; i < n; i++)
        if (s[i] != '\n')
            return 0;
    return 1;
}

/* Does the text at from (after line ends) open with a header named like
 * one of the entries before e (*dup = 1)? That is a record samtools faidx
 * left out of its index ("Ignoring duplicate sequence"), not a stale index. */
static gs_status dropped_duplicate(gs_seqfile *f, uint64_t from, const gs_fai *fai, size_t e,
                                   uint8_t *buf, int *dup, gs_error *err)
{
    uint64_t size = gs_seqfile_text_size(f), ignored = 0;
    size_t n = size - from < 65536 ? (size_t)(size - from) : 65536, h = 0;
    int ended;
    gs_status st = GS_OK;
    *dup = 0;
    if (from >= size || (st = gs_seqfile_pread(f, buf, n, from, &ignored, &ended, err)) != GS_OK
        || ended)
        return st;
    while (h < n && (buf[h] == '\n' || buf[h] == '\r' || buf[h] == ' ' || buf[h] == '\t'))
        h++;
    if (h == n || buf[h] != '>')
        return GS_OK;
    const uint8_t *nl = memchr(buf + h, '\n', n - h);
    size_t len, a = h + 1 + gs_header_name(buf + h + 1, (nl ? (size_t)(nl - buf) : n) - h - 1, &len);
    for (size_t i = 0; i < e && !*dup; i++)
        *dup = strlen(fai->v[i].name) == len && memcmp(fai->v[i].name, buf + a, len) == 0;
    return GS_OK;
}

/* The decimal number s[0, end) (GS_EINPUT when it is not one; the caller
 * says where). */
static gs_status parse_u64(const char *s, const char *end, uint64_t *v)
{
    if (s == end)
        return GS_EINPUT;
    uint64_t x = 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9' || x > (UINT64_MAX - 9) / 10)
            return GS_EINPUT;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *v = x;
    return GS_OK;
}

/* gs_fai_load's work is cut into parts of whole lines (records), one thread
 * each: a 2 M-record EST index is 60 MB of text whose parsing and header
 * checks took a third of a second on one core. */
enum { LOAD_THREADS = 16, LOAD_BYTES_PER_THREAD = 1 << 20 };

/* Threads for len bytes of index: one a MiB, at most LOAD_THREADS and the
 * cores. */
static int load_threads(size_t len)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = gs_parallel_threads(LOAD_THREADS, 1 + len / LOAD_BYTES_PER_THREAD);
    return cores > 0 && n > cores ? (int)cores : n;
}

/* A share of the .fai read by one thread (the first st_size bytes of a
 * large index, in LOAD_THREADS parts: a 2 M-record EST index is 61 MB,
 * whose page faults and copy took 0.06 s on one thread). */
typedef struct index_share {
    int fd, ok;
    char *buf;
    size_t at, n;
    const char *path;
    gs_error err;
} index_share;

static void *read_share(void *arg)
{
    index_share *s = arg;
    int ended;
    s->ok = gs_pread_full(s->fd, (uint8_t *)s->buf + s->at, s->n, s->at, s->path, &ended,
                          &s->err) == GS_OK && !ended;
    return NULL;
}

/* All of the open index fd into *text (NUL-terminated), *len bytes. */
static gs_status read_index(int fd, const char *path, char **text, size_t *len, gs_error *err)
{
    struct stat st;
    size_t size = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
    size_t cap = size + 1, n = 0;
    char *buf = gs_malloc(cap, err, "index");
    const int k = load_threads(size);
    if (buf != NULL && k > 1) {
        index_share sh[LOAD_THREADS];
        int ok = 1;
        for (int i = 0; i < k; i++)
            sh[i] = (index_share){fd, 0, buf, size * (size_t)i / (size_t)k,
                                  size * (size_t)(i + 1) / (size_t)k - size * (size_t)i / (size_t)k,
                                  path, {0}};
        gs_run_parallel(read_share, sh, sizeof *sh, k);
        for (int i = 0; i < k; i++)
            ok &= sh[i].ok;
        /* a short read or an error: the loop below reads it all again */
        n = ok && lseek(fd, (off_t)size, SEEK_SET) == (off_t)size ? size : 0;
    }
    for (;;) { /* the rest: all of a small index, or what a growing file added */
        if (buf == NULL)
            return GS_ESYS;
        if (n + 1 == cap) { /* the file grew or its size was unknown */
            char *b = gs_realloc(buf, cap *= 2, err, "index");
            if (b == NULL)
                free(buf);
            buf = b;
            continue;
        }
        ssize_t got = read(fd, buf + n, cap - 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            free(buf);
            return gs_fail(err, GS_ESYS, "read error: %s (%s)", strerror(errno), path);
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    buf[n] = 0;
    *text = buf;
    *len = n;
    return GS_OK;
}

typedef struct load_part {
    gs_fai *fai;
    char *text;
    size_t from, to;     /* the part's lines: text[from, to) */
    size_t first, n;     /* its entries: fai->v[first, first + n) */
    uint64_t line0;      /* lines of the index before from */
    size_t names;        /* bytes of names packed at text + from (parse) */
    size_t names_at;     /* offset of the first in the final block (check) */
    const char *fasta, *path;
    int last;            /* the last part also checks the text after the last record */
    size_t bad;          /* check: the first entry that does not fit (fai->n: the tail) */
    const char *why;
    gs_status st;
    gs_error err;
} load_part;

static void *count_part(void *arg)
{
    load_part *p = arg;
    size_t lines = 0;
    for (size_t i = p->from; i < p->to; i++)
        lines += p->text[i] == '\n';
    p->n = lines + (p->to > p->from && p->text[p->to - 1] != '\n'); /* a last line with no '\n' */
    return NULL;
}

/* Parse the part's lines NAME LENGTH OFFSET LINEBASES LINEWIDTH into its
 * entries; each name is moved down to the end of the names before it (never
 * past its own line), so the part's text becomes its names. */
static void *parse_part(void *arg)
{
    load_part *p = arg;
    char *text = p->text;
    size_t at = p->from, names_end = p->from;
    uint64_t line_no = p->line0;
    gs_fai_entry *v = p->fai->v + p->first;
    for (size_t k = 0; at < p->to; k++) {
        line_no++;
        char *s = text + at, *nl = memchr(s, '\n', p->to - at);
        size_t n = nl ? (size_t)(nl - s) : p->to - at;
        at += n + (nl != NULL);
        const char *fld[6], *end = s + n;
        size_t nf = 0;
        fld[nf++] = s;
        for (const char *q = s; q < end && nf < 6; q++)
            if (*q == '\t')
                fld[nf++] = q + 1;
        if (nf != 5 || memchr(s, 0, n) != NULL) {
            p->st = gs_fail(&p->err, GS_EINPUT,
                            "malformed index: expected 5 tab-separated fields (%s:%" PRIu64 ")",
                            p->path, line_no);
            return NULL;
        }
        uint64_t num[4];
        for (int f = 0; f < 4; f++) {
            const char *b = fld[f + 1], *eo = f < 3 ? fld[f + 2] - 1 : end;
            if (parse_u64(b, eo, &num[f]) != GS_OK) {
                p->st = gs_fail(&p->err, GS_EINPUT,
                                "malformed index: bad number in field %d (%s:%" PRIu64 ")", f + 2,
                                p->path, line_no);
                return NULL;
            }
        }
        if (num[2] > UINT32_MAX || num[3] > UINT32_MAX ||
            (num[0] > 0 && (num[2] == 0 || num[3] <= num[2]))) {
            p->st = gs_fail(&p->err, GS_EINPUT,
                            "malformed index: bad LINEBASES/LINEWIDTH (%s:%" PRIu64 ")", p->path,
                            line_no);
            return NULL;
        }
        size_t nlen = (size_t)(fld[1] - 1 - fld[0]);
        memmove(text + names_end, s, nlen);
        text[names_end + nlen] = 0;
        /* the name's pointer is set once the block is final */
        v[k] = (gs_fai_entry){NULL, num[0], num[1], (uint32_t)num[2], (uint32_t)num[3]};
        names_end += nlen + 1;
    }
    p->names = names_end - p->from;
    return NULL;
}

/* Where the text before record i starts: after the last residue of the
 * record before it (after its header line when it is empty). */
static uint64_t gap_start(const gs_fai *fai, size_t i)
{
    const gs_fai_entry *prev = i ? &fai->v[i - 1] : NULL;
    return prev == NULL          ? 0
           : prev->length > 0 ? gs_fai_residue_byte(prev, prev->length - 1) + 1
                              : prev->offset;
}

/* Point the part's entries at their names, then check that each still fits
 * the FASTA (see the top of the file) up to the first that does not
 * (p->bad, p->why) or a read error (p->st). */
static void *check_part(void *arg)
{
    load_part *p = arg;
    gs_fai *fai = p->fai;
    gs_seqfile sf = {.fd = -1};
    uint8_t *gap = NULL;
    const size_t end = p->first + p->n;
    p->bad = SIZE_MAX;
    for (size_t i = p->first, o = p->names_at; i < end; o += strlen(fai->names + o) + 1, i++)
        fai->v[i].name = fai->names + o;
    if ((p->st = gs_seqfile_open(p->fasta, &sf, &p->err)) != GS_OK)
        return NULL;
    if ((gap = gs_malloc(GAP_MAX, &p->err, "index check")) == NULL) {
        p->st = GS_ESYS;
        goto done;
    }
    uint64_t size = gs_seqfile_text_size(&sf), ignored = 0, last = 0;
    for (size_t i = p->first; i < end + (size_t)p->last; i++) {
        const gs_fai_entry *e = i < fai->n ? &fai->v[i] : NULL, *prev = i ? &fai->v[i - 1] : NULL;
        uint64_t from = gap_start(fai, i), to = e ? e->offset : size;
        const char *why = NULL;
        if (e && e->length > 0 && gs_fai_residue_byte(e, e->length - 1) >= size)
            why = "its last residue lies past the end of the file";
        else if (to < from)
            why = "records overlap or are out of file order";
        else if (to - from > GAP_MAX)
            why = "unindexed bytes before it";
        else {
            /* gaps close together (short records) come from the read-ahead,
             * a read a window of them; far apart, each its own read */
            int ended;
            size_t k = (size_t)(to - from);
            p->st = to - last <= NEAR_GAP
                        ? gs_seqfile_pread(&sf, gap, k, from, &ignored, &ended, &p->err)
                        : gs_seqfile_pread_direct(&sf, gap, k, from, &ignored, &ended, &p->err);
            last = to;
            if (p->st != GS_OK)
                goto done;
            if (ended || !gap_fits(gap, (size_t)(to - from), e, i == 0, prev && prev->length == 0))
                why = e ? "its header is not where the index says"
                        : "unindexed text after the last record";
        }
        if (why) {
            p->bad = i;
            p->why = why;
            break;
        }
    }
done:
    gs_seqfile_close(&sf);
    free(gap);
    return NULL;
}


/* Parse text[0, len) on n parts into fai, which takes the text over as
 * its block of names (freed here on failure). */
static gs_status parse_index(gs_fai *fai, char *text, size_t len, load_part *part, int n,
                             const char *fasta, const char *path, gs_error *err)
{
    /* parts of whole lines, about len / n bytes each */
    for (int k = 0; k < n; k++) {
        size_t from = k ? part[k - 1].to : 0, to = len * (size_t)(k + 1) / (size_t)n;
        const char *nl = to > from && k < n - 1 ? memchr(text + to - 1, '\n', len - (to - 1)) : NULL;
        to = k == n - 1 ? len : nl ? (size_t)(nl - text) + 1 : to > from ? len : from;
        part[k] = (load_part){.fai = fai, .text = text, .from = from, .to = to, .fasta = fasta,
                              .path = path, .last = k == n - 1};
    }
    gs_run_parallel(count_part, part, sizeof *part, n);
    size_t lines = 0, names_end = 0;
    for (int k = 0; k < n; k++) {
        part[k].first = lines;
        part[k].line0 = lines;
        lines += part[k].n;
    }
    if ((fai->v = gs_malloc((lines + 1) * sizeof *fai->v, err, "index")) == NULL) {
        free(text);
        return GS_ESYS;
    }
    gs_run_parallel(parse_part, part, sizeof *part, n);
    for (int k = 0; k < n; k++) {
        if (part[k].st != GS_OK) {
            *err = part[k].err;
            free(text);
            return err->code;
        }
        memmove(text + names_end, text + part[k].from, part[k].names);
        part[k].names_at = names_end;
        names_end += part[k].names;
    }
    fai->n = lines;
    /* the block is fai's now (gs_fai_free frees it, and the names are not
     * per-entry allocations) */
    char *names = names_end ? realloc(text, names_end) : NULL;
    fai->names = names ? names : text;
    fai->names_len = names_end;
    return GS_OK;
}

/* Does the index still fit the FASTA? Each part checks its records; the
 * first that does not, in record order, is the one reported, unless it is a
 * record samtools left out (fai->omits_dups, the index emptied). */
static gs_status check_index(gs_fai *fai, load_part *part, int n, const char *fasta,
                             const char *path, gs_error *err)
{
    gs_run_parallel(check_part, part, sizeof *part, n);
    for (int k = 0; k < n; k++) {
        if (part[k].st != GS_OK) {
            *err = part[k].err;
            return err->code;
        }
        if (part[k].bad == SIZE_MAX)
            continue;
        size_t i = part[k].bad;
        gs_seqfile sf;
        if (gs_seqfile_open(fasta, &sf, err) != GS_OK)
            return err->code;
        uint8_t *gap = gs_malloc(GAP_MAX, err, "index check");
        int dup = 0;
        gs_status st = gap ? dropped_duplicate(&sf, gap_start(fai, i), fai, i, gap, &dup, err)
                           : GS_ESYS;
        gs_seqfile_close(&sf);
        free(gap);
        if (st != GS_OK)
            return st;
        if (dup) {
            gs_fai_free(fai);
            fai->omits_dups = 1;
            return GS_OK;
        }
        return gs_fail(err, GS_EINPUT,
                       "stale index: record %s: %s; rebuild it with gscan index (%s)",
                       i < fai->n ? fai->v[i].name : (fai->n ? fai->v[fai->n - 1].name : "-"),
                       part[k].why, path);
    }
    return GS_OK;
}

gs_status gs_fai_load(const char *fasta, const gs_tune *tune, gs_fai *fai, gs_error *err)
{
    char *text = NULL;
    size_t len = 0, pl = strlen(fasta) + 5;
    load_part part[LOAD_THREADS];
    memset(fai, 0, sizeof *fai);
    char *path = gs_malloc(pl, err, "index path");
    if (path == NULL)
        return GS_ESYS;
    snprintf(path, pl, "%s.fai", fasta);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        gs_status st = errno == ENOENT ? GS_OK : gs_fail_open(err, "index", path);
        free(path);
        return st;
    }
    double t0 = gs_now(), t1, t2; /* GS_DEBUG_TIME: read, parse, check */
    gs_status st = read_index(fd, path, &text, &len, err);
    close(fd);
    t1 = gs_now();
    const int n = load_threads(len);
    if (st == GS_OK)
        st = parse_index(fai, text, len, part, n, fasta, path, err);
    t2 = gs_now();
    if (st == GS_OK)
        st = check_index(fai, part, n, fasta, path, err);
    if (st == GS_OK && tune && (tune->debug & GS_DEBUG_TIME)) /* docs/performance.md */
        fprintf(stderr,
                "gscan: %s: read %.3f s, parsed %.3f s, checked %.3f s (%zu records, %d threads)\n",
                path, t1 - t0, t2 - t1, gs_now() - t2, fai->n, n);
    if (st != GS_OK)
        gs_fai_free(fai);
    free(path);
    return st;
}
