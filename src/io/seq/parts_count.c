/* parts_count.c - where each part of a file starts and its counts, for the
 * parts reader (parts.c, parts_internal.h).
 *
 * Cutting. A file's text is cut every part_bytes; a part starts at the
 * first record at or after its cut and ends where the next part starts, so
 * every record lies in one part. A record starts at
 *   - FASTA: a line opening with '>';
 *   - FASTQ: a line opening with '@' whose next-but-one line opens with
 *     '+', and whose next line (the sequence) is as long as the one after
 *     the '+' line (the quality), '\r' before the '\n' not counted. In a
 *     well-formed file no other line passes: a quality line opening with
 *     '@' is followed by a header and a sequence, not a '+' line; a '+'
 *     line does not open with '@'. In a file that is not (a sequence line
 *     opening with '@'), a part would start inside a record, and the part
 *     before it would end inside one: that part's reader reports the
 *     record cut short, so the run fails rather than reads wrong records.
 *
 * Counting. A part's records and line ends in one pass over its bytes as
 * they are read, a piece at a time while the core's cache holds it: FASTA's
 * records are its lines opening with '>'; FASTQ's are a quarter of its
 * lines, or, where a blank line shows (between records, which the reader
 * skips), the records of a walk over the lines by the reader's rule. On
 * the loose road the walk that finds the records (parts_loose.h) counts
 * them.
 */
#define _POSIX_C_SOURCE 200809L
#include "parts_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "core/gs_clock.h"

gs_status gs_parts_read_at(lane *ln, uint8_t *out, size_t n, uint64_t at, gs_error *err)
{
    const double t0 = gs_now();
    if (gs_seq_pread_exact(ln->range.fd, ln->range.path, out, n, at, err) != GS_OK)
        return err->code;
    ln->bytes += n;
    ln->t[GS_PT_READ] += gs_now() - t0;
    return GS_OK;
}

gs_status gs_parts_feed(lane *ln, const uint8_t *b, size_t have, size_t n, gs_error *err)
{
    const double t0 = gs_now();
    gs_status st = gs_loose_feed(&ln->lz, b, have, n, err);
    ln->t[GS_PT_WALK] += gs_now() - t0;
    return st;
}

gs_status gs_parts_lane_file(lane *ln, uint32_t f, gs_error *err)
{
    if (ln->range.fd >= 0 && ln->fd_file == f)
        return GS_OK;
    if (ln->range.fd >= 0)
        close(ln->range.fd);
    ln->pk_n = 0;
    ln->fd_file = f;
    ln->range.path = ln->ps->files[f].path;
    ln->range.fd = open(ln->range.path, O_RDONLY);
    if (ln->range.fd < 0)
        return gs_fail_open(err, "corpus file", ln->range.path);
    return GS_OK;
}

/* *p: the bytes of the lane's file from at on, *got of them (at least n, or
 * all to the end of the file), in the window. */
static gs_status peek(lane *ln, uint64_t at, size_t n, const uint8_t **p, size_t *got,
                      gs_error *err)
{
    const uint64_t size = ln->ps->files[ln->fd_file].size;
    if (at >= size) {
        *p = ln->pk;
        *got = 0;
        return GS_OK;
    }
    const size_t want = size - at < n ? (size_t)(size - at) : n;
    if (at < ln->pk_at || at + want > ln->pk_at + ln->pk_n) {
        size_t cap = want > ln->ps->peek ? want : ln->ps->peek;
        if (cap > ln->pk_cap) {
            uint8_t *b = gs_realloc(ln->pk, cap, err, "part start buffer");
            if (b == NULL)
                return GS_ESYS;
            ln->pk = b;
            ln->pk_cap = cap;
        }
        size_t fill = size - at < ln->pk_cap ? (size_t)(size - at) : ln->pk_cap;
        ln->pk_at = at;
        ln->pk_n = 0;
        if (gs_parts_read_at(ln, ln->pk, fill, at, err) != GS_OK)
            return err->code;
        ln->pk_n = fill;
    }
    *p = ln->pk + (at - ln->pk_at);
    *got = (size_t)(ln->pk_at + ln->pk_n - at);
    return GS_OK;
}

/* *eol: the first '\n' at or after at, or the file's size. */
static gs_status line_end(lane *ln, uint64_t at, uint64_t *eol, gs_error *err)
{
    for (;;) {
        const uint8_t *p;
        size_t got;
        /* what the window holds from at on (a byte at least): asking for a
         * whole window would reload it at every line */
        if (peek(ln, at, 1, &p, &got, err) != GS_OK)
            return err->code;
        const uint8_t *nl = got ? memchr(p, '\n', got) : NULL;
        if (nl || got == 0) {
            *eol = nl ? at + (uint64_t)(nl - p) : at;
            return GS_OK;
        }
        at += got;
    }
}

static gs_status byte_at(lane *ln, uint64_t at, int *c, gs_error *err)
{
    const uint8_t *p;
    size_t got;
    if (peek(ln, at, 1, &p, &got, err) != GS_OK)
        return err->code;
    *c = got ? p[0] : -1;
    return GS_OK;
}

/* The length of line [at, eol) without a '\r' before its '\n'. */
static gs_status line_len(lane *ln, uint64_t at, uint64_t eol, uint64_t *len, gs_error *err)
{
    int c = 0;
    if (eol > at && byte_at(ln, eol - 1, &c, err) != GS_OK)
        return err->code;
    *len = eol - at - (eol > at && c == '\r');
    return GS_OK;
}

/* *yes: the line at `at` (a line start) opens a FASTQ record (the rule above). */
static gs_status fastq_start(lane *ln, uint64_t at, int *yes, gs_error *err)
{
    uint64_t e[4], p[4] = {at}, seq = 0, qual = 0;
    int c = 0;
    *yes = 0;
    if (byte_at(ln, at, &c, err) != GS_OK || c != '@')
        return err->code;
    for (int i = 0; i < 4; i++) {
        if (i > 0)
            p[i] = e[i - 1] + 1;
        if (line_end(ln, p[i], &e[i], err) != GS_OK)
            return err->code;
        if (i == 2 && (byte_at(ln, p[2], &c, err) != GS_OK || c != '+'))
            return err->code;
    }
    if (line_len(ln, p[1], e[1], &seq, err) != GS_OK || line_len(ln, p[3], e[3], &qual, err) != GS_OK)
        return err->code;
    *yes = seq == qual;
    return GS_OK;
}

/* *start: the first record at or after at in the lane's file (its size if none). */
static gs_status part_start(lane *ln, const pfile *f, uint64_t at, uint64_t *start, gs_error *err)
{
    int c = '\n';
    if (at > f->start && byte_at(ln, at - 1, &c, err) != GS_OK)
        return err->code;
    if (c != '\n' && line_end(ln, at, &at, err) == GS_OK)
        at++;
    while (err->code == GS_OK && at < f->size) {
        int yes;
        if (f->fastq ? fastq_start(ln, at, &yes, err) : byte_at(ln, at, &yes, err))
            return err->code;
        if (f->fastq ? yes : yes == '>') {
            *start = at;
            return GS_OK;
        }
        if (line_end(ln, at, &at, err) != GS_OK)
            return err->code;
        at++;
    }
    *start = f->size;
    return err->code;
}

/* Counts over a part's bytes, a piece at a time. */
typedef struct counter {
    uint64_t lines, headers; /* line ends; lines opening with '>' */
    int blank;               /* a line opens with a blank byte (or is empty) */
    uint8_t last;            /* the byte before the piece */
} counter;

static void count_piece(counter *k, const uint8_t *b, size_t n)
{
    if (n == 0)
        return;
    uint64_t lines = 0, headers = k->last == '\n' && b[0] == '>';
    int blank = k->last == '\n' && b[0] <= ' ';
    for (size_t i = 0; i + 1 < n;) {
        /* runs of 240 bytes counted in byte lanes, a loop the compiler
         * vectorises without widening the sums */
        const size_t m = n - 1 - i < 240 ? n - 1 - i : 240;
        uint8_t nl = 0, hd = 0, bl = 0;
        for (size_t j = i; j < i + m; j++) {
            uint8_t e = b[j] == '\n';
            nl += e;
            hd += e & (b[j + 1] == '>');
            bl |= e & (b[j + 1] <= ' ');
        }
        lines += nl;
        headers += hd;
        blank |= bl;
        i += m;
    }
    k->lines += lines + (b[n - 1] == '\n');
    k->headers += headers;
    k->blank |= blank;
    k->last = b[n - 1];
}

/* The FASTQ records of [begin, end) by the reader's rule: blank lines
 * between records skipped, four lines a record. */
static gs_status walk_fastq(lane *ln, uint64_t begin, uint64_t end, uint64_t *recs, gs_error *err)
{
    *recs = 0;
    for (uint64_t at = begin, eol; at < end;) {
        if (line_end(ln, at, &eol, err) != GS_OK)
            return err->code;
        int blank = 1;
        for (uint64_t i = at; blank && i < eol; i++) {
            int c = 0;
            if (byte_at(ln, i, &c, err) != GS_OK)
                return err->code;
            blank = c == ' ' || c == '\t' || c == '\r';
        }
        at = eol + 1;
        if (blank)
            continue;
        ++*recs;
        for (int l = 1; l < 4 && at < end; l++) {
            if (line_end(ln, at, &eol, err) != GS_OK)
                return err->code;
            at = eol + 1;
        }
    }
    return GS_OK;
}

/* Without hold, or where they do not fit, the part's bytes pass through a
 * piece of scratch, leaving what the buffer holds. */
gs_status gs_parts_count_part(lane *ln, size_t k, int hold, gs_error *err)
{
    gs_parts *ps = ln->ps;
    part *pt = &ps->parts[k];
    const pfile *f = &ps->files[pt->file];
    const size_t last = f->part0 + f->n_parts - 1;
    uint64_t begin = f->start, end = f->size;
    if (hold)
        ln->held_part = SIZE_MAX;
    const size_t cap = hold ? ln->hold_cap : ln->range.cap;
    if (gs_parts_lane_file(ln, pt->file, err) != GS_OK ||
        (k > f->part0 && part_start(ln, f, pt->cut, &begin, err) != GS_OK) ||
        (k < last && part_start(ln, f, ps->parts[k + 1].cut, &end, err) != GS_OK))
        return err->code;
    end = end < begin ? begin : end;
    pt->begin = begin;
    pt->end = end;
    counter c = {.last = '\n'};
    uint8_t last_byte = '\n';
    if (hold && ln->hold != ln->range.buf && end - begin <= cap) {
        /* the loose road (open_loose): the part counted by finding its
         * records, each piece as it is read (FASTQ: from its mapped pages,
         * its sequences packed into hold, parts_map.c), and the records
         * kept; where the walk gives up, the rest is read too and the whole
         * counted where it lies (its streaming reader reads it again) */
        const size_t n = (size_t)(end - begin);
        size_t o = 0;
        int mapped = 0;
        ln->lz_part = k;
        if (f->fastq && gs_parts_walk_mapped(ln, begin, n, ln->hold, &mapped, err) != GS_OK)
            return err->code;
        if (mapped) {
            ln->held_part = k;
            ln->held_at = ln->hold;
            pt->recs = ln->lz.n;
            pt->lines = ln->lz.lines;
            return GS_OK;
        }
        gs_parts_unpack(ln); /* the last part's, where it is still packed */
        gs_loose_begin(&ln->lz, f->fastq, ps->o.block);
        for (; o < n && ln->lz.state != GS_LOOSE_GAVE_UP; o += COUNT) {
            const size_t m = n - o < COUNT ? n - o : COUNT;
            if (gs_parts_read_at(ln, ln->hold + o, m, begin + o, err) != GS_OK ||
                gs_parts_feed(ln, ln->hold, o + m, n, err) != GS_OK)
                return err->code;
        }
        if (gs_parts_feed(ln, ln->hold, n, n, err) != GS_OK)
            return err->code;
        ln->held_part = k;
        ln->held_at = ln->hold;
        if (ln->lz.state == GS_LOOSE_DONE) {
            pt->recs = ln->lz.n;
            pt->lines = ln->lz.lines;
            return GS_OK;
        }
        for (; o < n; o += COUNT)
            if (gs_parts_read_at(ln, ln->hold + o, n - o < COUNT ? n - o : COUNT, begin + o,
                                 err) != GS_OK)
                return err->code;
        count_piece(&c, ln->hold, n);
        last_byte = n ? ln->hold[n - 1] : '\n';
    } else {
        for (uint64_t at = begin; at < end;) {
            size_t n = end - at < cap ? (size_t)(end - at) : cap;
            for (size_t o = 0; o < n; o += COUNT) {
                size_t m = n - o < COUNT ? n - o : COUNT;
                uint8_t *to = hold ? ln->hold + o : ln->scratch;
                if (gs_parts_read_at(ln, to, m, at + o, err) != GS_OK)
                    return err->code;
                count_piece(&c, to, m);
                last_byte = to[m - 1];
            }
            at += n;
            if (hold && at == end && n == end - begin) {
                ln->held_part = k;
                ln->held_at = ln->hold;
            }
        }
    }
    pt->lines = c.lines;
    if (!f->fastq) {
        pt->recs = c.headers;
        return GS_OK;
    }
    uint64_t lines = c.lines + (end > begin && last_byte != '\n');
    pt->recs = lines / 4;
    if (c.blank || lines % 4)
        return walk_fastq(ln, begin, end, &pt->recs, err);
    return GS_OK;
}
