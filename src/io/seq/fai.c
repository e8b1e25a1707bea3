/* fai.c - build, write, load and use the samtools .fai index of a FASTA file.
 *
 * Plain FASTA is indexed in file bytes. BGZF is indexed in uncompressed bytes
 * through zlib's gzread, exactly as `samtools faidx file.fa.gz` does, and
 * every later access goes through bgzf.c and the .gzi: one code path below
 * reads "FASTA text bytes [at, at + n)" from either (seq_pread), so the
 * checks are the same for both. Plain gzip has no index of block starts and
 * is refused.
 *
 * The index must describe exactly the residues the streaming reader (fasta.c)
 * yields, record for record, or ranks that seek with it would scan other text
 * than a rank that streams. So gs_fai_build follows htslib where the two agree
 * and is stricter where htslib's arithmetic would not match the reader:
 *   - a file must start with '>' (the reader reads anything else raw);
 *   - lines of a record but its last must have one length (bytes and residues),
 *     a longer line after the first, or any line after a shorter or blank one,
 *     is an error at path:line, as in htslib ("different line length",
 *     "inlined empty line");
 *   - a line is residues then an optional '\r' before '\n': CRLF files give
 *     LINEWIDTH = LINEBASES + 2, as samtools does. Spaces, tabs or a '\r'
 *     inside a line cannot be indexed (the reader drops them, the offset
 *     arithmetic cannot), so they are an error here where htslib is silent;
 *   - empty records are kept (LENGTH, LINEBASES and LINEWIDTH 0) so record
 *     numbers match the reader; current htslib drops them;
 *   - duplicate names are kept for the same reason (htslib ignores repeats).
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
#include "fasta.h"
#include "io/stream/replace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum { FAI_CHUNK = 1 << 20, GAP_MAX = 1 << 20, AHEAD = 1 << 20, AHEAD_READ_MAX = 1 << 16 };
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

static gs_fai_entry *fai_push(gs_fai *fai, size_t *cap, const char *name, size_t name_len,
                              gs_error *err)
{
    if (fai->n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        gs_fai_entry *v = gs_realloc(fai->v, c * sizeof *v, err, "index");
        if (v == NULL)
            return NULL;
        fai->v = v;
        *cap = c;
    }
    char *copy = gs_malloc(name_len + 1, err, "index name");
    if (copy == NULL)
        return NULL;
    memcpy(copy, name, name_len);
    copy[name_len] = 0;
    gs_fai_entry *e = &fai->v[fai->n++];
    memset(e, 0, sizeof *e);
    e->name = copy;
    return e;
}

/* Next bytes of the FASTA text (plain: read; BGZF: gzread). */
static ssize_t text_read(int fd, gzFile gz, uint8_t *buf, size_t n, const char *path,
                         gs_error *err)
{
    if (gz == NULL) {
        for (;;) {
            ssize_t got = read(fd, buf, n);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0)
                gs_fail(err, GS_ESYS, "read error: %s (%s)", strerror(errno), path);
            return got;
        }
    }
    int got = gzread(gz, buf, (unsigned)n), zerr = Z_OK;
    const char *msg = got <= 0 ? gzerror(gz, &zerr) : NULL;
    if (got < 0 || (got == 0 && zerr != Z_OK)) {
        gs_fail(err, zerr == Z_ERRNO ? GS_ESYS : GS_EINPUT, "corrupt or truncated BGZF: %s (%s)",
                zerr == Z_ERRNO ? strerror(errno) : msg, path);
        return -1;
    }
    return got;
}

gs_status gs_fai_build(const char *fasta, gs_fai *fai, gs_error *err)
{
    int fd = -1;
    gzFile gz = NULL;
    uint8_t *buf = NULL;
    char *name = NULL;
    size_t name_len = 0, name_cap = 0, cap = 0;
    memset(fai, 0, sizeof *fai);

    /* an index is offsets into a file read again later: a stream has none */
    if (!strcmp(fasta, "-") || (!gs_input_seekable(fasta) && access(fasta, F_OK) == 0))
        return gs_fail(err, GS_EINPUT,
                       "cannot be indexed: not a regular file (standard input, a pipe, a "
                       "device or a directory) (%s)",
                       fasta);
    gs_compression comp;
    if (gs_bgzf_detect(fasta, &comp, err) != GS_OK) {
        gs_fai_free(fai);
        return err->code;
    }
    if (comp == GS_COMP_GZIP)
        return gs_fail(err, GS_EINPUT,
                       "cannot be indexed: gzip, not BGZF; recompress with bgzip (%s)", fasta);
    fd = open(fasta, O_RDONLY);
    if (fd < 0) {
        gs_fail(err, GS_EINPUT, "cannot open FASTA file: %s (%s)", strerror(errno), fasta);
        goto fail;
    }
    if (comp == GS_COMP_BGZF) {
        /* gzdopen takes fd over: gzclose closes it */
        if ((gz = gzdopen(fd, "rb")) == NULL) {
            gs_fail(err, GS_ESYS, "cannot start zlib (%s)", fasta);
            goto fail;
        }
        fd = -1;
        gzbuffer(gz, FAI_CHUNK);
    }
    buf = gs_malloc(FAI_CHUNK, err, "index buffer");
    if (buf == NULL)
        goto fail;

    /* Line-level state. A line may span chunks: we keep its byte count, its
     * residue count and whether it held a byte that cannot be indexed. */
    uint64_t off = 0; /* file offset of buf[0] */
    uint64_t line_no = 1;
    int in_header = 0, word_done = 0, line_open = 0;
    uint64_t lbytes = 0, lres = 0;
    int lbad = 0, lcr = 0; /* a bad byte; the line's last byte so far is '\r' */
    int state = GS_SEQ_FIRST;
    gs_fai_entry *e = NULL;
    int first = 1;
    for (;;) {
        ssize_t got = text_read(fd, gz, buf, FAI_CHUNK, fasta, err);
        if (got < 0)
            goto fail;
        if (first && got > 0) {
            first = 0;
            if (buf[0] != '>') {
                gs_fail(err, GS_EINPUT, "not a FASTA file: does not start with '>' (%s)", fasta);
                goto fail;
            }
        }
        size_t n = (size_t)got, p = 0;
        int at_eof = got == 0;
        while (p < n || (at_eof && (line_open || in_header))) {
            const uint8_t *s = buf + p;
            const uint8_t *nl = at_eof ? NULL : memchr(s, '\n', n - p);
            size_t len = nl ? (size_t)(nl - s) : n - p;
            int line_ends = nl != NULL || at_eof;
            if (!line_open && !in_header && len > 0 && s[0] == '>') {
                /* a header line starts */
                in_header = 1;
                word_done = 0;
                name_len = 0;
                s++, len--, p++;
                state = GS_SEQ_FIRST;
                e = NULL;
            }
            if (in_header) {
                /* name: first word after optional blanks */
                for (size_t i = 0; i < len; i++) {
                    uint8_t c = s[i];
                    int space = c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
                    if (word_done)
                        break;
                    if (space) {
                        word_done = name_len > 0;
                        continue;
                    }
                    if (name_len + 1 >= name_cap) {
                        size_t c2 = name_cap ? name_cap * 2 : 256;
                        char *q = gs_realloc(name, c2, err, "index name");
                        if (q == NULL)
                            goto fail;
                        name = q;
                        name_cap = c2;
                    }
                    name[name_len++] = (char)c;
                }
                p += len;
                if (!line_ends)
                    continue;
                if (nl == NULL) {
                    gs_fail(err, GS_EINPUT,
                            "last record %.*s has no sequence line (%s:%" PRIu64 ")", (int)name_len,
                            name ? name : "", fasta, line_no);
                    goto fail;
                }
                p++;
                e = fai_push(fai, &cap, name ? name : "", name_len, err);
                if (e == NULL)
                    goto fail;
                e->offset = off + p;
                in_header = 0;
                line_no++;
                continue;
            }
            /* a sequence line or part of one; whole clean lines take the
             * vectorised path, the rest is checked byte by byte */
            if (!line_open && nl && len > 0 && gs_min_byte(s, len - 1) > ' ' &&
                (s[len - 1] > ' ' || s[len - 1] == '\r')) {
                lcr = s[len - 1] == '\r';
                lres = len - (size_t)lcr;
            } else {
                for (size_t i = 0; i < len; i++) {
                    uint8_t c = s[i];
                    if (lcr || c == ' ' || c == '\t')
                        lbad = 1; /* '\r' not at the end, or blank inside */
                    lcr = c == '\r';
                    lres += !lcr;
                }
            }
            lbytes += len;
            line_open = 1;
            p += len;
            if (!line_ends)
                continue;
            if (nl)
                p++;
            /* the line is complete: lbytes (without '\n'), lres residues */
            uint64_t width = lbytes + 1;
            if (lbad) {
                gs_fail(err, GS_EINPUT,
                        "cannot index a line with spaces, tabs or a stray '\\r' in record %s "
                        "(%s:%" PRIu64 ")",
                        e ? e->name : "", fasta, line_no);
                goto fail;
            }
            if (e == NULL) { /* sequence before any header cannot happen: file starts with '>' */
                gs_fail(err, GS_EINPUT, "sequence line outside a record (%s:%" PRIu64 ")", fasta,
                        line_no);
                goto fail;
            }
            switch (gs_fai_line_step(e, &state, width, lres)) {
            case GS_LINE_OK:
                break;
            case GS_LINE_AFTER_END:
                gs_fail(err, GS_EINPUT,
                        "blank or shorter line inside record %s: lines of a record must have "
                        "one length except the last (%s:%" PRIu64 ")",
                        e->name, fasta, line_no);
                goto fail;
            case GS_LINE_TOO_LONG:
                gs_fail(err, GS_EINPUT, "line too long to index (%s:%" PRIu64 ")", fasta, line_no);
                goto fail;
            case GS_LINE_LONGER:
                gs_fail(err, GS_EINPUT,
                        "different line length in record %s: %" PRIu64 " bytes, expected %u "
                        "(%s:%" PRIu64 ")",
                        e->name, width, e->linewidth, fasta, line_no);
                goto fail;
            }
            line_no++;
            line_open = 0;
            lbytes = lres = 0;
            lbad = lcr = 0;
        }
        if (at_eof)
            break;
        off += n;
    }
    if (fd >= 0)
        close(fd);
    if (gz)
        gzclose(gz);
    free(buf);
    free(name);
    return GS_OK;
fail:
    if (fd >= 0)
        close(fd);
    if (gz)
        gzclose(gz);
    free(buf);
    free(name);
    gs_fai_free(fai);
    return err->code;
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

/* Byte of residue i of e. */
static uint64_t residue_byte(const gs_fai_entry *e, uint64_t i)
{
    return e->offset + i / e->linebases * e->linewidth + i % e->linebases;
}

gs_status gs_seqfile_open(const char *path, gs_seqfile *f, gs_error *err)
{
    *f = (gs_seqfile){.path = path, .fd = -1};
    gs_compression comp;
    if (gs_bgzf_detect(path, &comp, err) != GS_OK)
        return err->code;
    if (comp == GS_COMP_GZIP)
        return gs_fail(err, GS_EINPUT,
                       "cannot be indexed: gzip, not BGZF; recompress with bgzip (%s)", path);
    if (comp == GS_COMP_BGZF)
        return gs_bgzf_open(path, &f->bgzf, err);
    if ((f->fd = open(path, O_RDONLY)) < 0)
        return gs_fail(err, GS_EINPUT, "cannot open FASTA file: %s (%s)", strerror(errno), path);
    return GS_OK;
}

void gs_seqfile_drop_ahead(gs_seqfile *f)
{
    free(f->ahead);
    f->ahead = NULL;
    f->ahead_at = f->ahead_len = f->ahead_cap = 0;
}

void gs_seqfile_close(gs_seqfile *f)
{
    if (f->fd >= 0)
        close(f->fd);
    gs_bgzf_close(f->bgzf);
    gs_seqfile_drop_ahead(f);
    f->fd = -1;
    f->bgzf = NULL;
}

/* Bytes of the FASTA text (uncompressed for BGZF). */
static uint64_t text_size(const gs_seqfile *f)
{
    struct stat st;
    if (f->bgzf)
        return gs_bgzf_size(f->bgzf);
    return fstat(f->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Fill f's read-ahead buffer with the text from at: up to AHEAD bytes, fewer
 * at the end of the file; 0, or -1 with err set. The buffer is no larger
 * than the file, so a reader of many small files holds no more than them. */
static int read_ahead(gs_seqfile *f, uint64_t at, gs_error *err)
{
    if (f->ahead == NULL) {
        struct stat st;
        size_t cap = AHEAD;
        if (fstat(f->fd, &st) == 0 && (uint64_t)st.st_size < cap)
            cap = st.st_size > 0 ? (size_t)st.st_size : 1;
        if ((f->ahead = gs_malloc(cap, err, "read-ahead buffer")) == NULL)
            return -1;
        f->ahead_cap = cap;
    }
    f->ahead_at = at;
    f->ahead_len = 0;
    while (f->ahead_len < f->ahead_cap) {
        ssize_t got = pread(f->fd, f->ahead + f->ahead_len, f->ahead_cap - f->ahead_len,
                            (off_t)(at + f->ahead_len));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            gs_fail(err, GS_ESYS, "read error: %s (%s)", strerror(errno), f->path);
            return -1;
        }
        if (got == 0)
            break;
        f->ahead_len += (size_t)got;
    }
    return 0;
}

/* Text bytes [at, at + n) of a plain f (n <= AHEAD_READ_MAX) where they lie
 * in its read-ahead buffer (valid until the next read of f), *rc 0; NULL
 * with *rc 1 when the text ends first, -1 with err set. */
static const uint8_t *ahead_view(gs_seqfile *f, size_t n, uint64_t at, uint64_t *bytes, int *rc,
                                 gs_error *err)
{
    if (f->ahead == NULL || at < f->ahead_at || at + n > f->ahead_at + f->ahead_len) {
        *rc = read_ahead(f, at, err);
        if (*rc < 0)
            return NULL;
        if (n > f->ahead_len) {
            *rc = 1;
            return NULL;
        }
    }
    *rc = 0;
    *bytes += n;
    return f->ahead + (at - f->ahead_at);
}

/* Text bytes [at, at + n) of f: 0, 1 when the text ends first, -1 with err
 * set. The bytes asked for are added to *bytes (compressed bytes for BGZF).
 * seq_pread serves small reads from the read-ahead buffer (a range's lines,
 * read in order); seq_pread_direct reads exactly the bytes asked for, for
 * reads far apart (an index check reads the gap before each record: for
 * records of 4 Mbp, through the read-ahead, 1 MiB a record, the whole file;
 * for records of 500 bp, direct, a read call a record: NEAR_GAP picks). */
static int seq_pread_direct(gs_seqfile *f, uint8_t *out, size_t n, uint64_t at, uint64_t *bytes,
                            gs_error *err)
{
    if (f->bgzf) {
        size_t got;
        if (gs_bgzf_read(f->bgzf, at, out, n, &got, bytes, err) != GS_OK)
            return -1;
        return got < n;
    }
    int rc = gs_pread_full(f->fd, out, n, at);
    if (rc < 0)
        gs_fail(err, GS_ESYS, "read error: %s (%s)", strerror(errno), f->path);
    if (rc == 0)
        *bytes += n;
    return rc;
}

static int seq_pread(gs_seqfile *f, uint8_t *out, size_t n, uint64_t at, uint64_t *bytes,
                     gs_error *err)
{
    if (f->bgzf || n > AHEAD_READ_MAX)
        return seq_pread_direct(f, out, n, at, bytes, err);
    int rc;
    const uint8_t *s = ahead_view(f, n, at, bytes, &rc, err);
    if (s)
        memcpy(out, s, n);
    return rc;
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
 * lines up to e's OFFSET. at_file_start: the header must be the first byte;
 * at_line_start: s[0] begins a line (the previous record is empty). With e
 * NULL (after the last record) only line ends and blanks may follow. */
static int gap_fits(const uint8_t *s, size_t n, const gs_fai_entry *e, int at_file_start,
                    int at_line_start)
{
    if (e == NULL)
        return only_line_ends(s, n);
    size_t h = 0;
    if (!at_file_start) {
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
    size_t i = h + 1, end = (size_t)(nl - s);
    while (i < end && (s[i] == ' ' || s[i] == '\t' || s[i] == '\v' || s[i] == '\f' || s[i] == '\r'))
        i++;
    size_t nlen = strlen(e->name);
    if (end - i < nlen || memcmp(s + i, e->name, nlen) != 0)
        return 0;
    i += nlen;
    if (i < end && !(s[i] == ' ' || s[i] == '\t' || s[i] == '\v' || s[i] == '\f' || s[i] == '\r'))
        return 0;
    /* after the header line only empty lines may come (htslib-style offset),
     * so OFFSET - 1 is a '\n' */
    for (i = end + 1; i < n; i++)
        if (s[i] != '\n')
            return 0;
    return 1;
}

/* Does the text at from (after line ends) open with a header named like
 * one of the entries before e? That is a record samtools faidx left out of
 * its index ("Ignoring duplicate sequence"), not a stale index. */
static int dropped_duplicate(gs_seqfile *f, uint64_t from, const gs_fai *fai, size_t e,
                             uint8_t *buf, gs_error *err)
{
    uint64_t size = text_size(f), ignored = 0;
    size_t n = size - from < 65536 ? (size_t)(size - from) : 65536, h = 0;
    if (from >= size || seq_pread(f, buf, n, from, &ignored, err) != 0)
        return 0;
    while (h < n && (buf[h] == '\n' || buf[h] == '\r' || buf[h] == ' ' || buf[h] == '\t'))
        h++;
    if (h == n || buf[h] != '>')
        return 0;
    size_t a = h + 1, b;
    while (a < n && (buf[a] == ' ' || buf[a] == '\t'))
        a++;
    for (b = a; b < n && !(buf[b] == ' ' || buf[b] == '\t' || buf[b] == '\r' || buf[b] == '\n');)
        b++;
    for (size_t i = 0; i < e; i++)
        if (strlen(fai->v[i].name) == b - a && memcmp(fai->v[i].name, buf + a, b - a) == 0)
            return 1;
    return 0;
}

static int parse_u64(const char *s, const char *end, uint64_t *v)
{
    if (s == end)
        return -1;
    uint64_t x = 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9' || x > (UINT64_MAX - 9) / 10)
            return -1;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *v = x;
    return 0;
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
    int fd, rc;
    char *buf;
    size_t at, n;
} index_share;

static void *read_share(void *arg)
{
    index_share *s = arg;
    s->rc = gs_pread_full(s->fd, (uint8_t *)s->buf + s->at, s->n, s->at);
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
                                  size * (size_t)(i + 1) / (size_t)k - size * (size_t)i / (size_t)k};
        gs_run_parallel(read_share, sh, sizeof *sh, k);
        for (int i = 0; i < k; i++)
            ok &= sh[i].rc == 0;
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
            if (parse_u64(b, eo, &num[f]) != 0) {
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
    uint64_t size = text_size(&sf), ignored = 0, last = 0;
    for (size_t i = p->first; i < end + (size_t)p->last; i++) {
        const gs_fai_entry *e = i < fai->n ? &fai->v[i] : NULL, *prev = i ? &fai->v[i - 1] : NULL;
        uint64_t from = prev == NULL         ? 0
                        : prev->length > 0 ? residue_byte(prev, prev->length - 1) + 1
                                           : prev->offset;
        uint64_t to = e ? e->offset : size;
        const char *why = NULL;
        if (e && e->length > 0 && residue_byte(e, e->length - 1) >= size)
            why = "its last residue lies past the end of the file";
        else if (to < from)
            why = "records overlap or are out of file order";
        else if (to - from > GAP_MAX)
            why = "unindexed bytes before it";
        else {
            /* gaps close together (short records) come from the read-ahead,
             * a read a window of them; far apart, each its own read */
            int rc = to - last <= NEAR_GAP
                         ? seq_pread(&sf, gap, (size_t)(to - from), from, &ignored, &p->err)
                         : seq_pread_direct(&sf, gap, (size_t)(to - from), from, &ignored, &p->err);
            last = to;
            if (rc < 0) {
                p->st = p->err.code;
                goto done;
            }
            if (rc > 0 || !gap_fits(gap, (size_t)(to - from), e, i == 0, prev && prev->length == 0))
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


gs_status gs_fai_load(const char *fasta, gs_fai *fai, gs_error *err)
{
    char *path = NULL, *text = NULL;
    uint8_t *gap = NULL;
    int fd = -1;
    gs_seqfile sf = {.fd = -1};
    size_t len = 0;
    load_part part[LOAD_THREADS];
    memset(fai, 0, sizeof *fai);
    size_t pl = strlen(fasta) + 5;
    path = gs_malloc(pl, err, "index path");
    if (path == NULL)
        goto fail;
    snprintf(path, pl, "%s.fai", fasta);
    fd = open(path, O_RDONLY);
    if (fd < 0) {
        if (errno == ENOENT) {
            free(path);
            return GS_OK;
        }
        gs_fail(err, GS_EINPUT, "cannot open index: %s (%s)", strerror(errno), path);
        goto fail;
    }
    double t0 = gs_now(), t1, t2; /* GS_DEBUG_TIME: read, parse, check */
    if (read_index(fd, path, &text, &len, err) != GS_OK)
        goto fail;
    t1 = gs_now();
    close(fd);
    fd = -1;

    /* parts of whole lines, about len / n bytes each */
    const int n = load_threads(len);
    for (int k = 0; k < n; k++) {
        size_t from = k ? part[k - 1].to : 0, to = len * (size_t)(k + 1) / (size_t)n;
        const char *nl = to > from && k < n - 1 ? memchr(text + to - 1, '\n', len - (to - 1)) : NULL;
        to = k == n - 1 ? len : nl ? (size_t)(nl - text) + 1 : to > from ? len : from;
        part[k] = (load_part){.fai = fai, .text = text, .from = from, .to = to, .fasta = fasta,
                              .path = path, .last = k == n - 1};
    }
    gs_run_parallel(count_part, part, sizeof *part, n);
    size_t lines = 0;
    for (int k = 0; k < n; k++) {
        part[k].first = lines;
        part[k].line0 = lines;
        lines += part[k].n;
    }
    if ((fai->v = gs_malloc((lines + 1) * sizeof *fai->v, err, "index")) == NULL)
        goto fail;
    gs_run_parallel(parse_part, part, sizeof *part, n);
    size_t names_end = 0;
    for (int k = 0; k < n; k++) {
        if (part[k].st != GS_OK) {
            *err = part[k].err;
            goto fail;
        }
        memmove(text + names_end, text + part[k].from, part[k].names);
        part[k].names_at = names_end;
        names_end += part[k].names;
    }
    fai->n = lines;
    /* hand the block over to fai before anything can fail (gs_fai_free frees
     * it, and the names are not per-entry allocations) */
    char *names = names_end ? realloc(text, names_end) : NULL;
    fai->names = names ? names : text;
    fai->names_len = names_end;
    text = NULL;

    /* Does it still fit the FASTA? Each part checks its records; the first
     * that does not, in record order, is the one reported. */
    t2 = gs_now();
    gs_run_parallel(check_part, part, sizeof *part, n);
    if (getenv("GS_DEBUG_TIME")) /* the plan's figures in docs/performance.md */
        fprintf(stderr,
                "gscan: %s: read %.3f s, parsed %.3f s, checked %.3f s (%zu records, %d threads)\n",
                path, t1 - t0, t2 - t1, gs_now() - t2, fai->n, n);
    for (int k = 0; k < n; k++) {
        if (part[k].st != GS_OK) {
            *err = part[k].err;
            goto fail;
        }
        if (part[k].bad == SIZE_MAX)
            continue;
        size_t i = part[k].bad;
        const gs_fai_entry *prev = i ? &fai->v[i - 1] : NULL;
        uint64_t from = prev == NULL         ? 0
                        : prev->length > 0 ? residue_byte(prev, prev->length - 1) + 1
                                           : prev->offset;
        if (gs_seqfile_open(fasta, &sf, err) != GS_OK ||
            (gap = gs_malloc(GAP_MAX, err, "index check")) == NULL)
            goto fail;
        if (dropped_duplicate(&sf, from, fai, i, gap, err)) {
            gs_seqfile_close(&sf);
            free(gap);
            free(path);
            gs_fai_free(fai);
            fai->omits_dups = 1;
            return GS_OK;
        }
        gs_fail(err, GS_EINPUT, "stale index: record %s: %s; rebuild it with gscan index (%s)",
                i < fai->n ? fai->v[i].name : (fai->n ? fai->v[fai->n - 1].name : "-"),
                part[k].why, path);
        goto fail;
    }
    free(path);
    return GS_OK;
fail:
    if (fd >= 0)
        close(fd);
    gs_seqfile_close(&sf);
    free(gap);
    free(text);
    free(path);
    gs_fai_free(fai);
    return err->code;
}

/* A byte the reader drops or ends a line at: inside a sequence line it means
 * the line is not what the index says (the streaming reader would yield other
 * residues than the offset arithmetic). */
static int not_residue(uint8_t c)
{
    return c == '\n' || c == '\r' || c == ' ' || c == '\t';
}

/* Reads walk the text with a byte cursor and check every byte they pass: the
 * residues (no line end, '\r', space or tab; no '>' opening a line) and every
 * line end between two residues of the record that the range touches, the
 * one after its last residue included, so that ranges which meet at a line
 * end (blocks, pieces of ranks) leave no line end unchecked. A line end cut
 * by the 1 MiB read chunk is finished at the start of the next chunk. */
gs_status gs_fai_read_range(gs_seqfile *f, const gs_fai_entry *e, uint64_t begin, uint64_t end,
                            uint8_t *out, uint64_t *bytes_read, gs_error *err)
{
    const char *path = f->path;
    uint8_t *tmp = NULL;
    if (begin > end || end > e->length)
        return gs_fail(err, GS_EINPUT,
                       "range %" PRIu64 "-%" PRIu64 " outside record %s of length %" PRIu64 " (%s)",
                       begin, end, e->name, e->length, path);
    if (begin == end)
        return GS_OK;
    const uint32_t lb = e->linebases, gapw = e->linewidth - e->linebases;
    const int tail_gap = end < e->length && end % lb == 0; /* the range ends a line */
    const uint64_t stop = residue_byte(e, end - 1) + 1 + (tail_gap ? gapw : 0);
    uint64_t at = residue_byte(e, begin), pos = begin, col = begin % lb;
    /* a short range of plain FASTA (an EST) is checked and copied where it
     * lies in the read-ahead buffer, with no buffer of its own */
    const int in_place = f->bgzf == NULL && stop - at <= AHEAD_READ_MAX;
    if (!in_place &&
        (tmp = gs_malloc(stop - at < FAI_CHUNK ? (size_t)(stop - at) : FAI_CHUNK, err,
                         "range buffer")) == NULL)
        return GS_ESYS;
    uint32_t gap_left = 0; /* bytes of a line end still to check */
    uint8_t *o = out;
    while (at < stop) {
        size_t want = stop - at < FAI_CHUNK ? (size_t)(stop - at) : FAI_CHUNK;
        int rc;
        const uint8_t *text = in_place ? ahead_view(f, want, at, bytes_read, &rc, err) : tmp;
        if (!in_place)
            rc = seq_pread(f, tmp, want, at, bytes_read, err);
        if (rc < 0)
            goto fail;
        if (rc > 0) {
            gs_fail(err, GS_EINPUT, "stale index: record %s ends past the end of the file (%s.fai)",
                    e->name, path);
            goto fail;
        }
        size_t i = 0;
        while (i < want) {
            if (gap_left) { /* the line end: '\n', after '\r' or blanks when LINEWIDTH says so */
                uint8_t c = text[i++];
                int ok = gap_left == 1 ? c == '\n' : (c == '\r' || c == ' ' || c == '\t');
                if (!ok) {
                    gs_fail(err, GS_EINPUT,
                            "stale index: record %s has no line end after "
                            "residue %" PRIu64 " (%s.fai)",
                            e->name, pos - 1, path);
                    goto fail;
                }
                if (--gap_left == 0)
                    col = 0;
                continue;
            }
            size_t k = (size_t)(lb - col);
            if (k > end - pos)
                k = (size_t)(end - pos);
            if (k > want - i)
                k = want - i;
            const uint8_t *s = text + i;
            memcpy(o, s, k);
            size_t j = k;
            if (gs_min_byte(s, k) <= ' ')
                for (j = 0; j < k && !not_residue(s[j]);)
                    j++;
            if (j < k || (col == 0 && s[0] == '>')) {
                if (j == k)
                    j = 0;
                gs_fail(err, GS_EINPUT,
                        "stale index: record %s has a line end, blank or header where "
                        "residue %" PRIu64 " should be (%s.fai)",
                        e->name, pos + j, path);
                goto fail;
            }
            o += k, i += k, pos += k, col += k;
            if (col == lb && pos < e->length)
                gap_left = gapw;
        }
        at += want;
    }
    free(tmp);
    return GS_OK;
fail:
    free(tmp);
    return err->code;
}
