/* fai_range.c - read residue ranges of a FASTA file through its .fai.
 *
 * One code path reads "FASTA text bytes [at, at + n)" from a plain file
 * (pread, short reads served from a read-ahead buffer) or a BGZF one
 * (bgzf.c, through the .gzi), so the checks are the same for both. A read
 * walks the text with a byte cursor and checks every byte it passes (see
 * gs_fai_read_range), so an index that no longer fits its file is caught
 * before a wrong residue is scanned.
 */
#define _POSIX_C_SOURCE 200809L
#include "fai.h"
#include "fai_lines.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { FAI_CHUNK = 1 << 20, AHEAD = 1 << 20, AHEAD_READ_MAX = 1 << 16 };

gs_status gs_seqfile_open(const char *path, gs_seqfile *f, gs_error *err)
{
    *f = (gs_seqfile){.path = path, .fd = -1};
    gs_compression comp;
    /* one open for the sniff and the reads of a plain file (100,000 small
     * genomes: a second open each was a tenth of their scan) */
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return gs_fail_open(err, "FASTA file", path);
    gs_status st = gs_bgzf_detect_fd(fd, path, &comp, err);
    if (st != GS_OK || comp != GS_COMP_NONE) {
        close(fd);
        if (st != GS_OK)
            return st;
        if (comp == GS_COMP_GZIP)
            return gs_fail(err, GS_EINPUT,
                           "cannot be indexed: gzip, not BGZF; recompress with bgzip (%s)", path);
        return gs_bgzf_open(path, &f->bgzf, err);
    }
    f->fd = fd;
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

uint64_t gs_seqfile_text_size(const gs_seqfile *f)
{
    struct stat st;
    if (f->bgzf)
        return gs_bgzf_size(f->bgzf);
    return fstat(f->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Fill f's read-ahead buffer with the text from at: up to AHEAD bytes, fewer
 * at the end of the file. The buffer is no larger than the file, so a
 * reader of many small files holds no more than them. */
static gs_status read_ahead(gs_seqfile *f, uint64_t at, gs_error *err)
{
    if (f->ahead == NULL) {
        struct stat st;
        size_t cap = AHEAD;
        if (fstat(f->fd, &st) == 0 && (uint64_t)st.st_size < cap)
            cap = st.st_size > 0 ? (size_t)st.st_size : 1;
        if ((f->ahead = gs_malloc(cap, err, "read-ahead buffer")) == NULL)
            return GS_ESYS;
        f->ahead_cap = cap;
    }
    f->ahead_at = at;
    f->ahead_len = 0;
    while (f->ahead_len < f->ahead_cap) {
        ssize_t got = pread(f->fd, f->ahead + f->ahead_len, f->ahead_cap - f->ahead_len,
                            (off_t)(at + f->ahead_len));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return gs_fail(err, GS_ESYS, "read error: %s (%s)", strerror(errno), f->path);
        if (got == 0)
            break;
        f->ahead_len += (size_t)got;
    }
    return GS_OK;
}

/* *out: text bytes [at, at + n) of a plain f (n <= AHEAD_READ_MAX) where
 * they lie in its read-ahead buffer (valid until the next read of f); NULL
 * when the text ends first. */
static gs_status ahead_view(gs_seqfile *f, size_t n, uint64_t at, uint64_t *bytes,
                            const uint8_t **out, gs_error *err)
{
    *out = NULL;
    if (f->ahead == NULL || at < f->ahead_at || at + n > f->ahead_at + f->ahead_len) {
        if (read_ahead(f, at, err) != GS_OK)
            return err->code;
        if (n > f->ahead_len)
            return GS_OK;
    }
    *bytes += n;
    *out = f->ahead + (at - f->ahead_at);
    return GS_OK;
}

gs_status gs_seqfile_pread_direct(gs_seqfile *f, uint8_t *out, size_t n, uint64_t at,
                                  uint64_t *bytes, int *ended, gs_error *err)
{
    *ended = 0;
    if (f->bgzf) {
        size_t got;
        if (gs_bgzf_read(f->bgzf, at, out, n, &got, bytes, err) != GS_OK)
            return err->code;
        *ended = got < n;
        return GS_OK;
    }
    if (gs_pread_full(f->fd, out, n, at, f->path, ended, err) != GS_OK)
        return err->code;
    if (!*ended)
        *bytes += n;
    return GS_OK;
}

gs_status gs_seqfile_pread(gs_seqfile *f, uint8_t *out, size_t n, uint64_t at, uint64_t *bytes,
                           int *ended, gs_error *err)
{
    if (f->bgzf || n > AHEAD_READ_MAX)
        return gs_seqfile_pread_direct(f, out, n, at, bytes, ended, err);
    const uint8_t *s;
    if (ahead_view(f, n, at, bytes, &s, err) != GS_OK)
        return err->code;
    *ended = s == NULL;
    if (s)
        memcpy(out, s, n);
    return GS_OK;
}

/* A byte the reader drops or ends a line at: inside a sequence line it means
 * the line is not what the index says (the streaming reader would yield other
 * residues than the offset arithmetic). */
static int not_residue(uint8_t c)
{
    return c == '\n' || c == '\r' || c == ' ' || c == '\t';
}

static gs_status stale_end(const gs_fai_entry *e, const char *path, gs_error *err)
{
    return gs_fail(err, GS_EINPUT, "stale index: record %s ends past the end of the file (%s.fai)",
                   e->name, path);
}

/* The file bytes of residues [begin, end) of e (begin < end <= length):
 * from the first residue's byte to the last one's, and the line end after
 * it where the range ends a line inside the record (*tail). */
static uint64_t range_bytes(const gs_fai_entry *e, uint64_t begin, uint64_t end, int *tail,
                            uint64_t *first)
{
    *tail = end < e->length && end % e->linebases == 0;
    *first = gs_fai_residue_byte(e, begin);
    return gs_fai_residue_byte(e, end - 1) + 1 + (*tail ? e->linewidth - e->linebases : 0);
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
    int tail_gap;
    uint64_t at, pos = begin, col = begin % lb;
    const uint64_t stop = range_bytes(e, begin, end, &tail_gap, &at);
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
        int ended = 0;
        const uint8_t *text = tmp;
        gs_status st = in_place ? ahead_view(f, want, at, bytes_read, &text, err)
                                : gs_seqfile_pread(f, tmp, want, at, bytes_read, &ended, err);
        if (st != GS_OK)
            goto fail;
        if (ended || text == NULL) {
            stale_end(e, path, err);
            goto fail;
        }
        size_t i = 0;
        while (i < want) {
            if (gap_left) { /* the line end: '\n', after '\r' or blanks when LINEWIDTH says so */
                uint8_t c = text[i++];
                int ok = gap_left == 1 ? c == '\n' : (c == '\r' || c == ' ' || c == '\t');
                if (!ok) {
                    gs_raw_stale(err, e->name, path, pos - 1, 1);
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
                gs_raw_stale(err, e->name, path, pos + j, 0);
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

gs_status gs_fai_read_circular(gs_seqfile *f, const gs_fai_entry *e, uint64_t begin,
                               uint64_t end, uint8_t *out, uint64_t *bytes_read, gs_error *err)
{
    if (end <= e->length)
        return gs_fai_read_range(f, e, begin, end, out, bytes_read, err);
    if (begin >= e->length || end - e->length >= e->length)
        return gs_fail(err, GS_EINPUT,
                       "range %" PRIu64 "-%" PRIu64 " wraps circular record %s of length %" PRIu64
                       " more than once (%s)", begin, end, e->name, e->length, f->path);
    gs_status st = gs_fai_read_range(f, e, begin, e->length, out, bytes_read, err);
    if (st != GS_OK)
        return st;
    return gs_fai_read_range(f, e, 0, end - e->length, out + (e->length - begin), bytes_read, err);
}

gs_status gs_fai_read_raw(gs_seqfile *f, const gs_fai_entry *e, uint64_t begin, uint64_t end,
                          uint8_t *out, size_t room, gs_raw_text *raw, uint64_t *bytes_read,
                          gs_error *err)
{
    const uint32_t lb = e->linebases;
    uint64_t first = 0, stop = 0;
    *raw = (gs_raw_text){.record = e->name, .path = f->path};
    if (begin < end && end <= e->length && lb > 0 && e->linewidth > lb)
        stop = range_bytes(e, begin, end, &raw->tail, &first);
    if (stop == first || stop - first > room) {
        raw->bytes = end > begin ? (size_t)(end - begin) : 0;
        raw->tail = 0;
        return gs_fai_read_circular(f, e, begin, end, out, bytes_read, err);
    }
    int ended = 0;
    if (gs_seqfile_pread(f, out, (size_t)(stop - first), first, bytes_read, &ended, err) != GS_OK)
        return err->code;
    if (ended)
        return stale_end(e, f->path, err);
    raw->bytes = (size_t)(stop - first);
    raw->lb = lb;
    raw->lw = e->linewidth;
    raw->col = (uint32_t)(begin % lb);
    return GS_OK;
}
