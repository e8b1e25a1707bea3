/* fasta.c - stream a corpus (FASTA or raw; plain, gzip, multi-member gzip or
 * BGZF) as bounded segments of residues.
 *
 * Every file goes through the byte-stream reader (io/stream/stream.h): it
 * reads plain files directly and decodes gzip, concatenated gzip members and
 * BGZF (which is multi-member gzip) alike with ISA-L, so there is one code
 * path. A file ("-": stdin) is opened once, and its reading (FASTA or raw,
 * fasta.h) is decided on its first 1 MiB, peeked at (seqformat.h), which
 * parsing then goes on from: a pipe or FIFO is never sniffed and reopened, so
 * none of its bytes is lost. Input arrives in pieces of gs_stream_view's
 * (1 MiB, or a region's piece
 * when a gzip file is decompressed on threads) and is parsed
 * with memchr/memcpy over whole lines; per residue the work is a copy plus one
 * vectorisable test for the rare bytes that must be dropped (' ', '\t', '\r'),
 * never a function call. Nearly every FASTA line has the length of the one
 * before, so the reader looks for the '\n' where it should be instead of
 * calling memchr per line. Measured on hs37chrXtrunc (71 MB plain, 70-column
 * lines, page cache warm, one core of a 16-core host, gcc -O3): 2.9-3.4 GB/s
 * of residues for blocks of 64 KiB to 4 MiB; the same file gzipped reads at
 * 0.29 GB/s with zlib, bound by inflate (ISA-L: ~1.7x that). Forced raw reading is a plain copy.
 *
 * Segments: each record is cut into segments that own at most opts->block
 * residues; a segment also carries up to opts->overlap residues of the same
 * record past its owned part (fewer at the record's end). Those trailing
 * residues are kept in a carry buffer and copied to the front of the next
 * segment, which starts at base + own. Records never share a segment.
 * With opts->circular the record's first overlap residues are kept too, and
 * a segment that reaches the record's end is followed by as many of them as
 * its owned starts need (gs_read_end), so hits run across the origin.
 *
 * Empty files: with --input-format auto or raw an empty file is one empty raw
 * record named after the file (it does not start with '>', contract §1), so every
 * corpus file is visible in /records; with --input-format fasta it is a FASTA
 * file of no records. Empty records are in the layout but yield no segment.
 *
 * Corrupt or truncated gzip (a bad deflate stream, CRC32 or ISIZE, or the
 * file ending inside a member: "unexpected end of file") is bad input
 * (GS_EINPUT) naming the file and the decompressed offset. Bytes after the
 * last complete gzip member that are not another member are ignored, as
 * zlib and gzip -d do.
 */
#define _POSIX_C_SOURCE 200809L
#include "fasta.h"
#include "fastq.h"
#include "reader_part.h"
#include "seqformat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { CHUNK = GS_SEQ_SNIFF };

struct gs_reader {
    gs_reader_opts o;
    gs_layout *layout;
    size_t fi;         /* index of the current file */
    const char *path;  /* its path, for messages */
    int part_done;     /* a part (gs_reader_open_part): its range is read */
    uint64_t rec_id0;  /* a part: the id of its first record, else 0 */
    uint64_t file_rec_before; /* a part: the file's records before it */
    gs_seq_cursor c;   /* its text */
    int raw;           /* the current file is read raw */
    int raw_started;   /* its one record was opened */
    int fastq;         /* the current file is FASTQ (fastq.h) */
    gs_fastq q;        /* and where its reading is */
    int line_start;    /* in[pos] begins a line */
    size_t line_len;   /* bytes of the last whole line read in one piece */
    size_t width;      /* the length of the last run of equal lines: a record's
                        * first line is guessed to be as long */
    uint64_t line;     /* FASTA: the 1-based line number of in[pos] */
    char warning[512]; /* the first '>' inside a sequence line, or "" */
    int in_rec;        /* a record is open */
    int rec_done;      /* its last residue has been read (only carry is left) */
    uint32_t rec;      /* its index in the layout */
    size_t file_rec0;  /* layout index of the current file's first record */
    uint64_t rec_pos;  /* record position of the next segment's first residue */
    uint8_t *carry;    /* residues read past the last owned part, <= overlap */
    size_t n_carry;
    uint8_t *head;     /* circular: the record's first residues, <= overlap */
    size_t n_head;
    uint64_t bytes_done; /* compressed bytes of the files already closed */
    char *name;          /* header being read */
    size_t name_len, name_cap;
    size_t names_cap;    /* of layout->names, which grows as records come */
    int named;           /* layout->rec[].name point into layout->names */
};

const char *gs_path_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Names go into one block (layout->names), not an allocation each: a
 * 100 M-read FASTQ costs its names' bytes, and a read with no kept name
 * (drop_read_names) one byte. The block moves as it grows, so the records
 * point into it once the corpus is read (gs_reader_next). */
static gs_status append_record(gs_reader *r, const char *name, size_t name_len, gs_error *err)
{
    gs_layout *l = r->layout;
    if (r->rec_id0 + l->n_rec >= UINT32_MAX)
        return gs_fail(err, GS_EINPUT, "more than %u records (%s)", UINT32_MAX, r->path);
    if (r->fastq && r->o.drop_read_names)
        name_len = 0;
    if (gs_grow(&l->rec, &l->cap_rec, l->n_rec, sizeof *l->rec, 64) != GS_OK ||
        gs_grow(&l->names, &r->names_cap, l->names_len + name_len, 1, 4096) != GS_OK)
        return gs_fail(err, GS_ESYS, "out of memory (the record table, %zu records)", l->n_rec);
    memcpy(l->names + l->names_len, name, name_len);
    l->names[l->names_len + name_len] = 0;
    l->names_len += name_len + 1;
    l->rec[l->n_rec] = (gs_record){NULL, 0, (uint32_t)r->fi};
    r->rec = (uint32_t)l->n_rec++;
    r->rec_pos = 0;
    r->n_carry = 0;
    r->in_rec = 1;
    r->rec_done = 0;
    return GS_OK;
}

/* Read the next chunk of the current file; at its end r->c.eof is set. */
static gs_status refill(gs_reader *r, gs_error *err)
{
    return gs_seq_cursor_refill(&r->c, err);
}

static void close_file(gs_reader *r)
{
    if (r->c.range) { /* a part ends at its range's end */
        r->part_done = 1;
        return;
    }
    if (r->c.gz) {
        r->bytes_done += gs_stream_bytes_in(r->c.gz);
        gs_stream_close(r->c.gz);
        r->c.gz = NULL;
    }
    r->fi++;
}

/* The known compressed formats gscan cannot read: named so the message says
 * what to do instead of scanning their bytes as text. */
static const char *foreign_compression(const uint8_t *b, size_t n)
{
    if (n >= 6 && !memcmp(b, "\xfd" "7zXZ\0", 6))
        return "xz";
    if (n >= 10 && !memcmp(b, "BZh", 3) && b[3] >= '1' && b[3] <= '9' && !memcmp(b + 4, "1AY&SY", 6))
        return "bzip2";
    if (n >= 4 && !memcmp(b, "\x28\xb5\x2f\xfd", 4))
        return "zstd";
    return NULL;
}

/* Open file r->fi ("-" is stdin) once, peek at its first 1 MiB and decide
 * from those bytes how it is read (the decision rule is in fasta.h and
 * seqformat.h). Nothing is opened or read a second time, so pipes and FIFOs
 * stream like files. */
static gs_status open_file(gs_reader *r, gs_error *err)
{
    const char *path = r->path = r->layout->files[r->fi];
    gs_stream_opts so = {.threads = r->o.threads, .tune = r->o.tune};
    gs_seq_head h;
    if (gs_stream_open(path, &so, &r->c.gz, err) != GS_OK ||
        gs_seq_detect(r->c.gz, CHUNK, &h, err) != GS_OK)
        return err->code;
    r->c.eof = 0;
    r->c.pos = r->c.end = 0;
    r->c.file_off = 0;
    r->file_rec0 = r->layout->n_rec;
    r->raw_started = 0;
    r->line_start = 1;
    if (refill(r, err) != GS_OK) /* the bytes peeked at */
        return err->code;
    r->raw = r->fastq = 0;
    if (r->o.format == GS_INPUT_RAW) {
        r->raw = 1;
        return GS_OK;
    }
    gs_seq_format forced = r->o.format == GS_INPUT_FASTA   ? GS_SEQ_FASTA
                           : r->o.format == GS_INPUT_FASTQ ? GS_SEQ_FASTQ
                                                           : GS_SEQ_EMPTY;
    if (h.format == GS_SEQ_FASTA || h.format == GS_SEQ_FASTQ ||
        (forced != GS_SEQ_EMPTY && h.format == GS_SEQ_EMPTY)) {
        if (forced != GS_SEQ_EMPTY && h.format != GS_SEQ_EMPTY && h.format != forced)
            goto not_forced;
        r->fastq = h.format == GS_SEQ_FASTQ || forced == GS_SEQ_FASTQ;
        r->c.pos = h.start; /* the BOM and blank lines before the first header are not text */
        r->line = 1;
        for (size_t i = 0; i < h.start; i++)
            r->line += r->c.in[i] == '\n';
        if (r->fastq)
            gs_fastq_begin(&r->q, path, r->c.in, h.start);
        return GS_OK;
    }
not_forced:
    if (forced == GS_SEQ_FASTA)
        return gs_fail(err, GS_EINPUT, "not a FASTA file: does not start with '>' (%s)", path);
    if (forced == GS_SEQ_FASTQ)
        return gs_fail(err, GS_EINPUT, "not a FASTQ file: does not start with '@' (%s)", path);
    const char *z = foreign_compression(r->c.in, r->c.end);
    if (z)
        return gs_fail(err, GS_EINPUT,
                       "%s-compressed: gscan reads plain, gzip and BGZF; decompress it or pipe "
                       "it in (%s)",
                       z, path);
    const uint8_t *nul = r->o.any_bytes ? NULL : memchr(r->c.in, 0, r->c.end < CHUNK ? r->c.end : CHUNK);
    if (nul)
        return gs_fail(err, GS_EINPUT,
                       "neither FASTA nor text: a NUL byte at offset %zu; --input-format raw "
                       "scans its bytes (%s)",
                       (size_t)(nul - r->c.in), path);
    r->raw = 1;
    return GS_OK;
}

/* A header that breaks the header rule (seqformat.h): the record's number
 * in its file names it (this reader counts no lines). */
static gs_status bad_header(const gs_reader *r, const char *why, gs_error *err)
{
    if (r->fastq) /* a FASTQ reader counts lines */
        return gs_fail(err, GS_EINPUT, "%s (%s:%" PRIu64 ")", why, r->path, r->q.line);
    return gs_fail(err, GS_EINPUT, "%s (%s, record %" PRIu64 ")", why, r->path,
                   r->file_rec_before + (r->layout->n_rec - r->file_rec0) + 1);
}

/* Read a header line (in[pos] == '>'), which may span chunks, and open its record. */
static gs_status read_header(gs_reader *r, gs_error *err)
{
    int in_word = 0, word_done = 0, cr_last = 0;
    const char *why;
    r->name_len = 0;
    r->c.pos++; /* '>' */
    for (;;) {
        if (r->c.pos == r->c.end) {
            if (refill(r, err) != GS_OK)
                return err->code;
            if (r->c.eof)
                break;
        }
        const uint8_t *s = r->c.in + r->c.pos;
        size_t avail = r->c.end - r->c.pos;
        const uint8_t *nl = memchr(s, '\n', avail);
        size_t n = nl ? (size_t)(nl - s) : avail;
        if ((why = gs_header_fault(s, n, cr_last)) != NULL)
            return bad_header(r, why, err);
        cr_last = n > 0 ? s[n - 1] == '\r' : cr_last;
        if (!word_done) { /* the name: the first run of non-blanks, copied at once */
            size_t i = 0, j;
            while (!in_word && i < n && gs_name_blank(s[i]))
                i++;
            for (j = i; j < n && !gs_name_blank(s[j]);)
                j++;
            if (r->name_len + (j - i) + 1 > r->name_cap) {
                size_t cap = r->name_cap ? r->name_cap : 256;
                while (cap < r->name_len + (j - i) + 1)
                    cap *= 2;
                char *p = gs_realloc(r->name, cap, err, "record name");
                if (p == NULL)
                    return GS_ESYS;
                r->name = p;
                r->name_cap = cap;
            }
            memcpy(r->name + r->name_len, s + i, j - i);
            r->name_len += j - i;
            in_word |= j > i;
            word_done = in_word && j < n;
        }
        r->c.pos += n;
        if (nl) {
            r->c.pos++;
            r->line++;
            break;
        }
    }
    r->line_start = 1;
    r->line_len = r->width; /* not the last record's last, shorter line */
    if (r->name)
        r->name[r->name_len] = 0; /* for the FASTQ reader's messages */
    if (r->fastq)
        gs_fastq_header_read(&r->q);
    return append_record(r, r->name ? r->name : "", r->name_len, err);
}

/* Move to the next record, opening files as needed: *open is 0 at the end
 * of the corpus. */
static gs_status next_record(gs_reader *r, int *open, gs_error *err)
{
    *open = 0;
    for (;;) {
        if (r->part_done)
            return GS_OK;
        if (r->c.gz == NULL && r->c.range == NULL) {
            if (r->fi == r->layout->n_files)
                return GS_OK;
            if (open_file(r, err) != GS_OK)
                return err->code;
        }
        if (r->raw) {
            if (r->raw_started) {
                close_file(r);
                continue;
            }
            r->raw_started = 1;
            const char *base = gs_path_base(r->layout->files[r->fi]);
            *open = 1;
            return append_record(r, base, strlen(base), err);
        }
        if (r->fastq) {
            if (gs_fastq_start(&r->c, &r->q, open, err) != GS_OK)
                return err->code;
            if (!*open) {
                close_file(r);
                continue;
            }
            return read_header(r, err);
        }
        /* FASTA: we stand at a line starting with '>' or at the end of the file. */
        if (r->c.pos == r->c.end) {
            if (refill(r, err) != GS_OK)
                return err->code;
            if (r->c.eof) {
                close_file(r);
                continue;
            }
        }
        *open = 1;
        return read_header(r, err);
    }
}

/* A '>' inside a sequence line: most often two FASTA files joined without
 * a final newline, whose second header is then read as residues of the
 * record before it. The first is kept for a warning (gs_reader_warning). A
 * line of the same length as the one before it takes the fast path and is
 * not looked at: a joined line is rarely that. */
static void note_joined(gs_reader *r)
{
    snprintf(r->warning, sizeof r->warning,
             "a '>' inside a sequence line of record %s (%s:%" PRIu64 "): two FASTA files "
             "joined without a final newline? What follows it is read as residues",
             r->name && r->name_len ? r->name : "(no name)", r->path, r->line);
}

const char *gs_reader_warning(const gs_reader *r)
{
    return r->warning[0] ? r->warning : NULL;
}

/* The fast path: whole lines of the same length as the last one, which is
 * nearly every line of a FASTA file, from a line's start in the chunk at
 * hand to out[*k .. cap). The '\n' is found by looking where it should be
 * rather than by memchr, and gs_seq_copy_clean proves there is none earlier;
 * the cursor is kept in locals for the run. Stops at anything else (a
 * header, another length, a blank inside a line, the chunk's end), which
 * fill's general step then reads. Returns the lines taken. */
static uint64_t fill_lines(gs_reader *r, uint8_t *out, size_t *k, size_t cap)
{
    const uint8_t *in = r->c.in;
    const size_t L = r->line_len, end = r->c.end;
    size_t pos = r->c.pos, at = *k;
    uint64_t lines = 0;
    while (pos + L < end && L <= cap - at && in[pos + L] == '\n' && in[pos] != '>') {
        uint8_t last = in[pos + L - 1];
        if (!gs_seq_copy_clean(out + at, in + pos, L - 1) || (last <= ' ' && last != '\r'))
            break;
        out[at + L - 1] = last;
        at += L - (last == '\r');
        pos += L + 1;
        lines++;
    }
    r->c.pos = pos;
    r->line += lines;
    r->width = lines ? L : r->width;
    *k = at;
    return lines;
}

/* Append residues of the open record to out[*n .. cap). Stops when full, or
 * sets rec_done at the record's end (next header or end of file). */
static gs_status fill(gs_reader *r, uint8_t *out, size_t *n, size_t cap, gs_error *err)
{
    size_t k = *n;
    if (r->fastq)
        return gs_fastq_fill(&r->c, &r->q, r->name ? r->name : "", out, n, cap, &r->rec_done,
                             err);
    while (k < cap) {
        if (r->c.pos == r->c.end) {
            if (refill(r, err) != GS_OK)
                return err->code;
            if (r->c.eof) {
                r->rec_done = 1;
                break;
            }
        }
        const uint8_t *s = r->c.in + r->c.pos;
        size_t avail = r->c.end - r->c.pos;
        if (r->raw) {
            size_t take = avail < cap - k ? avail : cap - k;
            memcpy(out + k, s, take);
            k += take;
            r->c.pos += take;
            continue;
        }
        if (r->line_start && s[0] == '>') {
            r->rec_done = 1;
            break;
        }
        if (r->line_start && r->line_len > 0 && fill_lines(r, out, &k, cap) > 0)
            continue; /* (a line of "\r" alone adds no residue) */
        const uint8_t *nl = memchr(s, '\n', avail);
        size_t line = nl ? (size_t)(nl - s) : avail;
        size_t take = line < cap - k ? line : cap - k;
        if (!r->warning[0] && memchr(s, '>', take))
            note_joined(r);
        k += gs_seq_copy_residues(out + k, s, take);
        r->c.pos += take;
        r->line_start = 0;
        if (take == line && nl) {
            r->c.pos++;
            r->line_start = 1;
            r->line_len = line;
            r->line++;
        }
    }
    *n = k;
    return GS_OK;
}

int gs_input_seekable(const char *path)
{
    struct stat st;
    return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* stat, never open: opening a FIFO to test it could take the writer's data
 * or leave it writing to no reader. */
gs_status gs_corpus_check(const char *const *files, size_t n_files, gs_error *err)
{
    struct stat *st = gs_calloc(n_files + 1, sizeof *st, err, "file list");
    if (st == NULL)
        return GS_ESYS;
    for (size_t i = 0; i < n_files; i++) {
        int in = !strcmp(files[i], "-");
        if (in ? fstat(STDIN_FILENO, &st[i]) != 0 : stat(files[i], &st[i]) != 0) {
            gs_fail_open(err, "corpus file", files[i]);
            goto fail;
        }
        if (S_ISDIR(st[i].st_mode)) {
            gs_fail(err, GS_EINPUT, "corpus file is a directory (%s)", files[i]);
            goto fail;
        }
        if (!in && access(files[i], R_OK) != 0) {
            gs_fail_open(err, "corpus file", files[i]);
            goto fail;
        }
        /* a regular file may be given again on purpose (weak-scaling
         * studies replicate a corpus; its records then repeat, and the job
         * warns about their names); a stream cannot be read twice */
        for (size_t k = 0; k < i && !S_ISREG(st[i].st_mode); k++)
            if (st[k].st_dev == st[i].st_dev && st[k].st_ino == st[i].st_ino) {
                gs_fail(err, GS_EUSAGE,
                        "the same input stream given twice, which can be read only once: argument "
                        "%zu (%s) and argument %zu (%s)",
                        k + 1, files[k], i + 1, files[i]);
                goto fail;
            }
    }
    free(st);
    return GS_OK;
fail:
    free(st);
    return err->code;
}

gs_status gs_layout_set_files(gs_layout *layout, const char *const *files, size_t n_files,
                              gs_error *err)
{
    layout->files = gs_calloc(n_files, sizeof *layout->files, err, "file list");
    if (layout->files == NULL)
        return GS_ESYS;
    for (size_t i = 0; i < n_files; i++) {
        if ((layout->files[i] = strdup(files[i])) == NULL)
            return gs_fail(err, GS_ESYS, "out of memory (%s)", files[i]);
        layout->n_files++;
    }
    return gs_corpus_check(files, n_files, err);
}

/* A reader of o's kind appending to layout, at no file yet. */
static gs_status new_reader(const gs_reader_opts *o, gs_layout *layout, gs_reader **out,
                            gs_error *err)
{
    *out = NULL;
    if (o->block == 0 || o->block > SIZE_MAX / 2 || o->overlap > SIZE_MAX / 2)
        return gs_fail(err, GS_EUSAGE, "block size must be positive (reader options)");
    gs_reader *r = gs_calloc(1, sizeof *r, err, "reader");
    if (r == NULL)
        return GS_ESYS;
    r->o = *o;
    r->layout = layout;
    r->carry = gs_malloc(o->overlap, err, "overlap buffer");
    if (r->carry == NULL ||
        (o->circular && (r->head = gs_malloc(o->overlap, err, "record start buffer")) == NULL)) {
        gs_reader_close(r);
        return GS_ESYS;
    }
    *out = r;
    return GS_OK;
}

gs_status gs_reader_open(const char *const *files, size_t n_files, const gs_reader_opts *o,
                         gs_layout *layout, gs_reader **out, gs_error *err)
{
    *out = NULL;
    if (gs_layout_set_files(layout, files, n_files, err) != GS_OK)
        return err->code;
    return new_reader(o, layout, out, err);
}

gs_status gs_reader_open_part(const gs_reader_opts *o, const gs_reader_part *pt,
                              gs_layout *layout, gs_reader **out, gs_error *err)
{
    if (new_reader(o, layout, out, err) != GS_OK)
        return err->code;
    gs_reader *r = *out;
    r->fi = pt->file;
    r->path = pt->range->path;
    r->c.range = pt->range;
    r->rec_id0 = pt->rec_id0;
    r->file_rec_before = pt->rec_in_file;
    r->line_start = 1;
    r->line = pt->line0;
    r->fastq = pt->fastq;
    if (r->fastq) {
        gs_fastq_begin(&r->q, r->path, NULL, 0);
        r->q.line = pt->line0;
    }
    return GS_OK;
}

/* Circular records: keep the record's first residues, and once its end is
 * read carry a segment that reaches it on into them. buf has room: a
 * segment's text never passes its owned starts by more than the overlap. */
static void wrap(gs_reader *r, uint8_t *buf, gs_segment *seg)
{
    if (seg->base == 0) {
        r->n_head = seg->len < r->o.overlap ? seg->len : r->o.overlap;
        memcpy(r->head, buf, r->n_head);
    }
    if (!r->rec_done)
        return;
    uint64_t length = seg->base + seg->len;
    uint64_t stop = gs_read_end(seg->base + seg->own, r->o.overlap, length, 1);
    if (stop <= length)
        return;
    memcpy(buf + seg->len, r->head, (size_t)(stop - length));
    seg->len = (size_t)(stop - seg->base);
    seg->turn = length;
}

gs_status gs_reader_next(gs_reader *r, uint8_t *buf, gs_segment *seg, int *more, gs_error *err)
{
    size_t cap = r->o.block + r->o.overlap;
    gs_status st;
    *more = 0;
    for (;;) {
        if (!r->in_rec) {
            int open;
            if ((st = next_record(r, &open, err)) != GS_OK)
                return st;
            if (!open) {
                if (!r->named && r->layout->names)
                    gs_layout_point_names(r->layout); /* the block moves no more */
                r->named = 1;
                return GS_OK;
            }
        }
        size_t n = r->n_carry;
        memcpy(buf, r->carry, n);
        if (!r->rec_done && (st = fill(r, buf, &n, cap, err)) != GS_OK)
            return st;
        gs_record *rec = &r->layout->rec[r->rec];
        rec->length = r->rec_pos + n;
        if (n == 0) {
            r->in_rec = 0;
            continue;
        }
        /* Not done means buf is full, so the overlap past own is complete. */
        size_t own = n < r->o.block ? n : r->o.block;
        *seg = (gs_segment){(uint32_t)(r->rec_id0 + r->rec), r->rec_pos, buf, n, own, 0,
                            (uint32_t)r->fi};
        if (r->o.circular)
            wrap(r, buf, seg);
        r->n_carry = n - own;
        memcpy(r->carry, buf + own, r->n_carry);
        r->rec_pos += own;
        if (r->rec_done && r->n_carry == 0)
            r->in_rec = 0;
        *more = 1;
        return GS_OK;
    }
}

uint64_t gs_reader_bytes_in(const gs_reader *r)
{
    uint64_t n = r->bytes_done;
    if (r->c.gz)
        n += gs_stream_bytes_in(r->c.gz);
    return n;
}

void gs_reader_close(gs_reader *r)
{
    if (r == NULL)
        return;
    gs_stream_close(r->c.gz);
    free(r->carry);
    free(r->head);
    free(r->name);
    free(r);
}
