/* stream.c - the one byte-stream reader (stream.h): plain, gzip, BGZF,
 * standard input and pipes behind one handle.
 *
 * Compressed input is read 1 MiB at a time and inflated with ISA-L
 * (inflate.h), one member after another: at a member's end the next bytes
 * are looked at, and the gzip magic starts another member; nothing ends the
 * data, and anything else is an error naming its offset (zlib's gzread
 * stops there silently, gzip says "trailing garbage ignored" and exits 2: a
 * scan must not pass over bytes it did not read). A BGZF file must end with
 * the EOF marker (bgzf.h): a regular file's last 28 bytes are looked at when
 * it is opened, a pipe's last member must be empty. A plain file is read
 * straight into the caller's buffer, after the bytes read at open.
 *
 * Decompressed bytes that peek has shown but nobody has consumed yet are
 * the "window" (vp, vn): view and read hand them out before decoding more.
 * peek gathers its bytes in the hold buffer; view decodes into it too, so a
 * caller that views never copies.
 *
 * A regular gzip file read with 4 threads or more is mapped and handed to
 * inflate_parallel.c, which decodes it on all of them; its pieces come out
 * through the same window.
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inflate.h"
#include "inflate_parallel.h"

/* ZCHUNK: compressed bytes read at a time, and a view's bytes. HEAD: the
 * first read, enough to tell BGZF (18 bytes) and cheap for a caller that
 * only sniffs. */
enum { ZCHUNK = 1 << 20, HEAD = 1 << 16, SNIFF_MIN = 18, MIN_THREADS = 4 };

struct gs_stream {
    char *name;
    int fd;
    gs_compression comp;
    int eof;           /* read() returned 0 */
    int done;          /* gzip: no more members */
    int end;           /* every decompressed byte has been decoded */
    int eof_unchecked; /* BGZF not checked at open (a pipe): its last member must be empty */
    uint64_t member_out; /* decompressed bytes of the members before the current one */
    gs_inflate *z;
    uint8_t *buf;      /* compressed input (plain: the bytes read at open) */
    size_t pos, n_buf; /* plain: unread part of buf */
    uint64_t file_in;  /* bytes read from the file */
    uint64_t out;      /* decompressed bytes decoded */
    uint8_t *hold;     /* decoded bytes of peek and view */
    size_t hold_cap;
    const uint8_t *vp; /* the window: decoded, not handed out */
    size_t vn;
    gs_pinflate *pz;   /* decoding on threads: the file mapped at map */
    void *map;
    size_t map_len;
};

/* read() up to n bytes, retrying on EINTR: the count, 0 at the end, -1. */
static ssize_t read_some(int fd, uint8_t *p, size_t n)
{
    for (;;) {
        ssize_t got = read(fd, p, n);
        if (got >= 0 || errno != EINTR)
            return got;
    }
}

static gs_status read_fail(gs_stream *s, gs_error *err)
{
    return gs_fail(err, GS_ESYS, "read error: %s at byte %llu (%s)", strerror(errno),
                   (unsigned long long)s->file_in, s->name);
}

static gs_status corrupt(gs_stream *s, const char *why, gs_error *err)
{
    return gs_fail(err, GS_EINPUT,
                   "corrupt or truncated gzip: %s after %llu decompressed bytes (compressed byte "
                   "%llu) (%s)",
                   why, (unsigned long long)s->out,
                   (unsigned long long)gs_inflate_in_offset(s->z), s->name);
}

/* Top the compressed buffer up: keep the unread bytes, read behind them. */
static gs_status refill_in(gs_stream *s, gs_error *err)
{
    size_t left = gs_inflate_avail_in(s->z);
    if (left && gs_inflate_next_in(s->z) != s->buf)
        memmove(s->buf, gs_inflate_next_in(s->z), left);
    while (!s->eof && left < ZCHUNK) {
        ssize_t got = read_some(s->fd, s->buf + left, ZCHUNK - left);
        if (got < 0)
            return read_fail(s, err);
        if (got == 0)
            s->eof = 1;
        left += (size_t)got;
        s->file_in += (uint64_t)got;
        if (got > 0)
            break; /* pipes deliver in pieces: use what is there */
    }
    gs_inflate_feed(s->z, s->buf, left);
    return GS_OK;
}

static gs_status decode_plain(gs_stream *s, uint8_t *out, size_t cap, size_t *n, gs_error *err)
{
    *n = 0;
    if (s->pos < s->n_buf) {
        *n = s->n_buf - s->pos < cap ? s->n_buf - s->pos : cap;
        memcpy(out, s->buf + s->pos, *n);
        s->pos += *n;
        return GS_OK;
    }
    if (s->eof)
        return GS_OK;
    ssize_t got = read_some(s->fd, out, cap);
    if (got < 0)
        return read_fail(s, err);
    s->eof = got == 0;
    s->file_in += (uint64_t)got;
    *n = (size_t)got;
    return GS_OK;
}

static gs_status no_bgzf_eof(gs_stream *s, gs_error *err)
{
    return gs_fail(err, GS_EINPUT,
                   "BGZF file without its EOF marker: cut short at a block boundary (a bgzip "
                   "that did not finish?); if it is whole, recompress it with bgzip (%s)",
                   s->name);
}

/* A member ended: another follows if its magic does; nothing more ends the
 * data; other bytes are an error. */
static gs_status member_end(gs_stream *s, gs_error *err)
{
    while (gs_inflate_avail_in(s->z) < 2 && !s->eof)
        if (refill_in(s, err) != GS_OK)
            return err->code;
    const uint8_t *p = gs_inflate_next_in(s->z);
    size_t left = gs_inflate_avail_in(s->z);
    uint64_t last = s->out - s->member_out;
    s->member_out = s->out;
    if (left >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
        gs_inflate_reset(s->z);
        return GS_OK;
    }
    if (left > 0)
        return corrupt(s, "trailing garbage after the last member", err);
    if (s->eof_unchecked && last != 0)
        return no_bgzf_eof(s, err);
    s->done = 1;
    return GS_OK;
}

/* A regular BGZF file ends with the EOF marker; a pipe is checked at its
 * end (member_end). */
static gs_status check_bgzf_eof(gs_stream *s, gs_error *err)
{
    struct stat st;
    uint8_t tail[GS_BGZF_EOF_LEN];
    int ended = 0;
    if (s->comp != GS_COMP_BGZF)
        return GS_OK;
    if (fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        s->eof_unchecked = 1;
        return GS_OK;
    }
    if (st.st_size < GS_BGZF_EOF_LEN)
        return no_bgzf_eof(s, err);
    if (gs_pread_full(s->fd, tail, sizeof tail, (uint64_t)st.st_size - sizeof tail, s->name,
                      &ended, err) != GS_OK)
        return err->code;
    if (ended || memcmp(tail, gs_bgzf_eof, sizeof tail))
        return no_bgzf_eof(s, err);
    return GS_OK;
}

/* Decode up to cap bytes on this thread: *n > 0, or 0 at the end. */
static gs_status decode(gs_stream *s, uint8_t *out, size_t cap, size_t *n, gs_error *err)
{
    if (cap > INT32_MAX)
        cap = INT32_MAX;
    if (s->comp == GS_COMP_NONE)
        return decode_plain(s, out, cap, n, err);
    *n = 0;
    while (!s->done) {
        size_t got, before = gs_inflate_avail_in(s->z);
        const char *why = NULL;
        gs_inflate_rc rc = gs_inflate_pull(s->z, out, cap, &got, &why);
        s->out += got;
        if (rc == GS_INFLATE_ERROR)
            return corrupt(s, why, err);
        if (rc == GS_INFLATE_MEMBER) {
            if (member_end(s, err) != GS_OK)
                return err->code;
        } else if (got == 0 && gs_inflate_avail_in(s->z) == before) {
            /* no progress: the decoder needs more input than it has */
            if (s->eof)
                return corrupt(s, "unexpected end of file", err);
            if (before == ZCHUNK)
                return corrupt(s, "invalid gzip data", err);
            if (refill_in(s, err) != GS_OK)
                return err->code;
        }
        if (got > 0) {
            *n = got;
            return GS_OK;
        }
    }
    return GS_OK;
}

/* The next piece of the parallel decoder: *n bytes at *out, 0 at the end. */
static gs_status next_piece(gs_stream *s, const uint8_t **out, size_t *n, gs_error *err)
{
    if (gs_pinflate_next(s->pz, out, n, err) != GS_OK)
        return err->code;
    s->out += *n;
    return GS_OK;
}

/* Move the window to the start of the hold buffer, which holds cap bytes
 * or more afterwards. */
static gs_status keep(gs_stream *s, size_t cap, gs_error *err)
{
    uintptr_t h = (uintptr_t)s->hold, v = (uintptr_t)s->vp;
    int inside = s->hold && v >= h && v < h + s->hold_cap;
    if (inside && v == h && s->hold_cap >= cap)
        return GS_OK;
    if (inside)
        memmove(s->hold, s->vp, s->vn);
    if (s->hold_cap < cap) {
        uint8_t *p = gs_realloc(s->hold, cap, err, "input buffer");
        if (p == NULL)
            return GS_ESYS;
        s->hold = p;
        s->hold_cap = cap;
    }
    if (!inside && s->vn) /* a piece of the parallel decoder, still valid */
        memcpy(s->hold, s->vp, s->vn);
    s->vp = s->hold;
    return GS_OK;
}

gs_status gs_stream_peek(gs_stream *s, size_t want, const uint8_t **out, size_t *n,
                         gs_error *err)
{
    while (s->vn < want && !s->end) {
        const uint8_t *q = NULL;
        size_t k = 0;
        if (keep(s, want > s->vn ? want : s->vn, err) != GS_OK)
            return err->code;
        if (s->pz) {
            if (next_piece(s, &q, &k, err) != GS_OK)
                return err->code;
            if (k > 0 && keep(s, s->vn + k, err) != GS_OK)
                return err->code;
            if (k > 0)
                memcpy(s->hold + s->vn, q, k);
        } else if (decode(s, s->hold + s->vn, want - s->vn, &k, err) != GS_OK) {
            return err->code;
        }
        s->end = k == 0;
        s->vn += k;
    }
    *out = s->vp ? s->vp : s->hold;
    *n = s->vn;
    return GS_OK;
}

gs_status gs_stream_view(gs_stream *s, const uint8_t **out, size_t *n, gs_error *err)
{
    static const uint8_t none[1];
    *out = none; /* never NULL, even for no bytes */
    *n = 0;
    if (s->vn > 0) {
        *out = s->vp;
        *n = s->vn;
        s->vp += s->vn;
        s->vn = 0;
        return GS_OK;
    }
    if (s->end)
        return GS_OK;
    if (s->pz) {
        if (next_piece(s, out, n, err) != GS_OK)
            return err->code;
    } else {
        if (s->hold_cap < ZCHUNK && keep(s, ZCHUNK, err) != GS_OK)
            return err->code;
        if (decode(s, s->hold, ZCHUNK, n, err) != GS_OK)
            return err->code;
        *out = s->hold;
    }
    s->end = *n == 0;
    return GS_OK;
}

gs_status gs_stream_read(gs_stream *s, uint8_t *out, size_t cap, size_t *n, gs_error *err)
{
    *n = 0;
    if (s->vn == 0 && s->pz && !s->end) {
        if (next_piece(s, &s->vp, &s->vn, err) != GS_OK)
            return err->code;
        s->end = s->vn == 0;
    }
    if (s->vn > 0) {
        *n = s->vn < cap ? s->vn : cap;
        memcpy(out, s->vp, *n);
        s->vp += *n;
        s->vn -= *n;
        return GS_OK;
    }
    if (s->end)
        return GS_OK;
    if (decode(s, out, cap, n, err) != GS_OK)
        return err->code;
    s->end = *n == 0;
    return GS_OK;
}

/* Decode a large regular gzip file on threads (see gs_stream_opts). */
static gs_status go_parallel(gs_stream *s, const gs_stream_opts *o, gs_error *err)
{
    struct stat st;
    uint64_t region = o && o->tune && o->tune->io_gzip_region ? o->tune->io_gzip_region
                                                              : (uint64_t)4 << 20;
    if (s->comp == GS_COMP_NONE || o == NULL || o->threads < MIN_THREADS ||
        fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size < 2 * region || (uint64_t)st.st_size > SIZE_MAX)
        return GS_OK;
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, s->fd, 0);
    if (m == MAP_FAILED)
        return GS_OK; /* read it on one thread */
    s->map = m;
    s->map_len = (size_t)st.st_size;
    return gs_pinflate_open(m, s->map_len, o->threads, (size_t)region, s->name, &s->pz, err);
}

/* Read the first bytes (a pipe may give them a few at a time) and decide. */
static gs_status sniff(gs_stream *s, gs_error *err)
{
    while (s->n_buf < SNIFF_MIN && !s->eof) {
        ssize_t got = read_some(s->fd, s->buf + s->n_buf, HEAD - s->n_buf);
        if (got < 0)
            return read_fail(s, err);
        s->eof = got == 0;
        s->n_buf += (size_t)got;
        s->file_in += (uint64_t)got;
    }
    s->comp = gs_bgzf_sniff(s->buf, s->n_buf);
    /* A pipe holds 64 KiB by default: each read then returns 64 KiB and the
     * writer and this reader take turns on it, a switch a piece. For text,
     * ask for one of ZCHUNK bytes (Linux; at most fs/pipe-max-size, 1 MiB by
     * default; where it is refused the default stays). Not for gzip: there
     * inflating bounds the reader, and on 2 cores the larger buffer let the
     * writer crowd out the scan (0.25 s slower on 1 GiB). */
    struct stat st;
    if (s->comp == GS_COMP_NONE && fstat(s->fd, &st) == 0 && S_ISFIFO(st.st_mode))
        (void)fcntl(s->fd, F_SETPIPE_SZ, ZCHUNK);
    if (s->comp != GS_COMP_NONE) {
        if (gs_inflate_init(&s->z, err) != GS_OK)
            return err->code;
        gs_inflate_feed(s->z, s->buf, s->n_buf);
    }
    return GS_OK;
}

gs_status gs_stream_open(const char *path, const gs_stream_opts *o, gs_stream **out,
                         gs_error *err)
{
    *out = NULL;
    int fd = strcmp(path, "-") ? open(path, O_RDONLY) : dup(STDIN_FILENO);
    if (fd < 0)
        return gs_fail_open(err, o && o->what ? o->what : "corpus file", path);
    gs_stream *s = gs_calloc(1, sizeof *s, err, "file reader");
    if (s == NULL) {
        close(fd);
        return GS_ESYS;
    }
    s->fd = fd;
    size_t l = strlen(path) + 1;
    if ((s->name = gs_malloc(l, err, "file name")) == NULL ||
        (s->buf = gs_malloc(ZCHUNK, err, "input buffer")) == NULL)
        goto fail;
    memcpy(s->name, path, l);
    if (sniff(s, err) != GS_OK || check_bgzf_eof(s, err) != GS_OK ||
        go_parallel(s, o, err) != GS_OK)
        goto fail;
    *out = s;
    return GS_OK;
fail:
    gs_stream_close(s);
    return err->code;
}

gs_compression gs_stream_compression(const gs_stream *s)
{
    return s->comp;
}

uint64_t gs_stream_bytes_in(const gs_stream *s)
{
    if (s->pz)
        return gs_pinflate_bytes_in(s->pz);
    if (s->comp != GS_COMP_NONE)
        return s->done ? s->file_in : gs_inflate_in_offset(s->z);
    return s->file_in - (s->n_buf - s->pos);
}

void gs_stream_close(gs_stream *s)
{
    if (s == NULL)
        return;
    if (s->fd >= 0)
        close(s->fd);
    if (s->z)
        gs_inflate_end(s->z);
    gs_pinflate_close(s->pz);
    if (s->map)
        munmap(s->map, s->map_len);
    free(s->hold);
    free(s->buf);
    free(s->name);
    free(s);
}
