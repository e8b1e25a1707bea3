/* fastq.c - the FASTQ records of a streamed file (fastq.h).
 *
 * One parser for every way a FASTQ file is read: plain, gzip, BGZF, pipes
 * and standard input all come through the byte stream (io/stream) into the
 * streaming reader (fasta.c), which hands its cursor here at each record.
 * Per record the work is a memchr per line and the copy of the sequence
 * (the reader's vectorised copy); the quality line is only measured. The
 * four-line layout is fixed, so a quality line opening with '@' or '+' is
 * never taken for a header or a separator: it is read by its place.
 *
 * Reading is bound by bytes, and FASTQ has 2.27 a residue where EST-like
 * FASTA has 1.08: per byte both read at ~1 ns of CPU on the 2-core VM, per
 * residue FASTQ takes ~2x (half of it the kernel's read() copy). The fast
 * paths (a sequence as long as the last read's, a quality checked where it
 * must end) took a whole run from 1.34x EST's CPU to 1.07x; numbers in
 * docs/performance.md §3.
 */
#include "fastq.h"

#include <inttypes.h>
#include <string.h>

void gs_fastq_begin(gs_fastq *q, const char *path, const uint8_t *head, size_t start)
{
    *q = (gs_fastq){.path = path, .line = 1};
    for (size_t i = 0; i < start; i++)
        q->line += head[i] == '\n';
}

static int blank(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

gs_status gs_fastq_start(gs_seq_cursor *c, gs_fastq *q, int *open, gs_error *err)
{
    int mid = 0; /* blanks met on this line */
    *open = 0;
    for (;;) {
        if (gs_seq_cursor_ready(c, err) != GS_OK)
            return err->code;
        if (c->pos == c->end)
            return GS_OK;
        uint8_t b = c->in[c->pos];
        if (b == '@' && !mid) {
            *open = 1;
            return GS_OK;
        }
        if (b == '\n') {
            q->line++;
            mid = 0;
        } else if (blank(b)) {
            mid = 1;
        } else {
            return gs_fail(err, GS_EINPUT,
                           "malformed FASTQ: a record's header line must start with '@' "
                           "(%s:%" PRIu64 ")",
                           q->path, q->line);
        }
        c->pos++;
    }
}

void gs_fastq_header_read(gs_fastq *q)
{
    q->line++;
    q->in_seq = 1;
    q->seq_bytes = 0;
    q->seq_cr = 0;
}

/* Pass over the rest of a line: *bytes its length without the '\n', *cr
 * whether its last byte is '\r', *nl whether a '\n' ended it (else the
 * file did). */
static gs_status pass_line(gs_seq_cursor *c, uint64_t *bytes, int *cr, int *nl, gs_error *err)
{
    *bytes = 0;
    *cr = *nl = 0;
    for (;;) {
        if (gs_seq_cursor_ready(c, err) != GS_OK)
            return err->code;
        if (c->pos == c->end)
            return GS_OK;
        const uint8_t *s = c->in + c->pos, *e = memchr(s, '\n', c->end - c->pos);
        size_t k = e ? (size_t)(e - s) : c->end - c->pos;
        if (k)
            *cr = s[k - 1] == '\r';
        *bytes += k;
        c->pos += k + (e != NULL);
        if (e) {
            *nl = 1;
            return GS_OK;
        }
    }
}

static gs_status truncated(const gs_fastq *q, const char *name, gs_error *err)
{
    return gs_fail(err, GS_EINPUT, "malformed FASTQ: the file ends inside record %s (%s:%" PRIu64 ")",
                   name, q->path, q->line);
}

/* Fast path of a quality line at c->pos: seq bytes with no line end among
 * them (quality bytes are '!' to '~'), then '\n' or "\r\n" where a line of
 * the sequence's length ends, all in the piece at hand. Returns the bytes
 * passed, 0 when the slow path must decide. */
static size_t quality_in_place(const gs_seq_cursor *c, uint64_t seq)
{
    const uint8_t *s = c->in + c->pos;
    size_t avail = c->end - c->pos;
    if (seq + 2 > avail)
        return 0;
    size_t end = s[seq] == '\n' ? (size_t)seq + 1 : s[seq] == '\r' && s[seq + 1] == '\n' ? (size_t)seq + 2 : 0;
    return end && gs_seq_all_above(s, (size_t)seq, '\r') ? end : 0;
}

/* The '+' and quality lines after the sequence line. */
static gs_status tail(gs_seq_cursor *c, gs_fastq *q, const char *name, gs_error *err)
{
    uint64_t bytes, seq = q->seq_bytes - (uint64_t)q->seq_cr;
    int cr, nl;
    const uint8_t *p = c->in + c->pos;
    if (c->end - c->pos > 2 && p[0] == '+' && p[1] == '\n') { /* "+\n", then the quality */
        c->pos += 2;
        q->line++;
        size_t k = quality_in_place(c, seq);
        if (k) {
            c->pos += k;
            q->line++;
            return GS_OK;
        }
        c->pos -= 2;
        q->line--;
    }
    if (gs_seq_cursor_ready(c, err) != GS_OK)
        return err->code;
    if (c->pos == c->end)
        return truncated(q, name, err);
    if (c->in[c->pos] != '+')
        return gs_fail(err, GS_EINPUT,
                       "malformed FASTQ: record %s has no '+' line after its sequence "
                       "(%s:%" PRIu64 ")",
                       name, q->path, q->line);
    if (pass_line(c, &bytes, &cr, &nl, err) != GS_OK)
        return err->code;
    q->line++;
    if (!nl && seq > 0) /* no quality line at all */
        return truncated(q, name, err);
    if (pass_line(c, &bytes, &cr, &nl, err) != GS_OK)
        return err->code;
    if (!nl && bytes == 0 && seq > 0)
        return truncated(q, name, err);
    if (bytes - (uint64_t)cr != seq)
        return gs_fail(err, GS_EINPUT,
                       "malformed FASTQ: record %s has a quality of %" PRIu64 " bytes for a "
                       "sequence of %" PRIu64 " (%s:%" PRIu64 ")",
                       name, bytes - (uint64_t)cr, seq, q->path, q->line);
    q->line += nl;
    return GS_OK;
}

gs_status gs_fastq_fill(gs_seq_cursor *c, gs_fastq *q, const char *name, uint8_t *out, size_t *n,
                        size_t cap, int *done, gs_error *err)
{
    size_t k = *n;
    *done = 0;
    while (q->in_seq) {
        if (gs_seq_cursor_ready(c, err) != GS_OK)
            return err->code;
        if (c->pos == c->end)
            return truncated(q, name, err);
        if (k == cap) {
            *n = k;
            return GS_OK;
        }
        const uint8_t *s = c->in + c->pos;
        size_t L = q->last_len;
        /* fast path: a whole clean line as long as the last read's, its
         * '\n' looked for where it should be instead of by memchr */
        if (q->seq_bytes == 0 && L > 0 && L < c->end - c->pos && L <= cap - k && s[L] == '\n' &&
            gs_seq_copy_clean(out + k, s, L)) {
            k += L;
            q->seq_bytes = L;
            c->pos += L + 1;
            q->line++;
            q->in_seq = 0;
            break;
        }
        const uint8_t *e = memchr(s, '\n', c->end - c->pos);
        size_t line = e ? (size_t)(e - s) : c->end - c->pos;
        size_t take = line < cap - k ? line : cap - k;
        if (take) {
            q->seq_bytes += take;
            q->seq_cr = s[take - 1] == '\r';
        }
        k += gs_seq_copy_residues(out + k, s, take);
        c->pos += take;
        if (take == line && e) {
            c->pos++;
            q->line++;
            q->in_seq = 0;
            q->last_len = q->seq_bytes == line ? line : 0;
        }
    }
    *n = k;
    if (tail(c, q, name, err) != GS_OK)
        return err->code;
    *done = 1;
    return GS_OK;
}
