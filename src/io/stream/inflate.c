/* inflate.c - gzip streams inflated with ISA-L (igzip), and a sequential
 * file reader for gzip and plain files.
 *
 * Read on one thread, one thread's inflate speed is the read speed of a gzip
 * corpus: ISA-L's isal_inflate is the fastest inflate Debian packages (about
 * 1.7x zlib on this project's genomes, docs/performance.md). With crc_flag ISAL_GZIP it parses the gzip
 * header, inflates, and checks the trailer's CRC32 and ISIZE itself, stopping
 * at the member's end (ISAL_BLOCK_FINISH) with the rest of the input unread,
 * so members are read one after another by resetting the state.
 *
 * The file reader reads 1 MiB of compressed input at a time. A plain file is
 * read straight into the caller's buffer (after the bytes read to sniff it).
 * At a member's end it looks at the next bytes: the gzip magic starts another
 * member; anything else, or nothing, ends the data (zlib's gzread rule).
 *
 * A regular gzip file read with 4 threads or more is mapped and handed to
 * inflate_parallel.c instead, which decodes it on all of them; callers see
 * the same bytes through the same calls.
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "inflate.h"

#include <errno.h>
#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inflate_parallel.h"

struct gs_inflate {
    struct inflate_state st;
    uint64_t consumed; /* input consumed by members before the current one */
    size_t fed;        /* bytes of the current member's feeds, consumed or not */
};

gs_status gs_inflate_init(gs_inflate **out, gs_error *err)
{
    gs_inflate *z = gs_malloc(sizeof *z, err, "gzip decoder");
    *out = z;
    if (z == NULL)
        return GS_ESYS;
    isal_inflate_init(&z->st);
    z->st.crc_flag = ISAL_GZIP;
    z->consumed = 0;
    z->fed = 0;
    return GS_OK;
}

void gs_inflate_feed(gs_inflate *z, const uint8_t *in, size_t n)
{
    /* unread bytes are dropped: count them as never fed */
    z->fed -= z->st.avail_in;
    z->st.next_in = (uint8_t *)in;
    z->st.avail_in = (uint32_t)n;
    z->fed += n;
}

size_t gs_inflate_avail_in(const gs_inflate *z)
{
    return z->st.avail_in;
}

const uint8_t *gs_inflate_next_in(const gs_inflate *z)
{
    return z->st.next_in;
}

uint64_t gs_inflate_in_offset(const gs_inflate *z)
{
    return z->consumed + z->fed - z->st.avail_in;
}

static const char *isal_why(int rc)
{
    switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    default: return "invalid gzip data";
    }
}

gs_inflate_rc gs_inflate_pull(gs_inflate *z, uint8_t *out, size_t cap, size_t *got,
                              const char **why)
{
    *got = 0;
    if (z->st.block_state == ISAL_BLOCK_FINISH)
        return GS_INFLATE_MEMBER;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    z->st.next_out = out;
    z->st.avail_out = (uint32_t)cap;
    int rc = isal_inflate(&z->st);
    *got = cap - z->st.avail_out;
    if (rc < 0) {
        *why = isal_why(rc);
        return GS_INFLATE_ERROR;
    }
    return z->st.block_state == ISAL_BLOCK_FINISH ? GS_INFLATE_MEMBER : GS_INFLATE_MORE;
}

void gs_inflate_reset(gs_inflate *z)
{
    const uint8_t *in = z->st.next_in;
    uint32_t n = z->st.avail_in;
    z->consumed += z->fed - n;
    isal_inflate_reset(&z->st);
    z->st.crc_flag = ISAL_GZIP;
    z->st.next_in = (uint8_t *)in;
    z->st.avail_in = n;
    z->fed = n;
}

void gs_inflate_end(gs_inflate *z)
{
    free(z);
}

enum { ZCHUNK = 1 << 20 };

struct gs_zfile {
    char *name;
    int fd;
    int gzip;          /* inflating; else plain */
    int eof;           /* read() returned 0 */
    int done;          /* no more data */
    gs_inflate *z;
    uint8_t *buf;      /* compressed input (plain: the sniffed bytes) */
    size_t pos, end;   /* plain: unread part of buf */
    uint64_t file_in;  /* bytes read from the file */
    uint64_t out;      /* decompressed bytes returned */
    uint8_t *obuf;     /* gs_zfile_view's buffer when decoding here */
    gs_pinflate *pz;   /* decoding on threads: the file mapped at map */
    void *map;
    size_t map_len;
    const uint8_t *vp; /* gs_zfile_read on threads: the view's unread bytes */
    size_t vn;
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

static gs_status read_fail(gs_zfile *f, gs_error *err)
{
    return gs_fail(err, GS_ESYS, "read error: %s at byte %llu (%s)", strerror(errno),
                   (unsigned long long)f->file_in, f->name);
}

/* Top the compressed buffer up: keep the unread bytes, read behind them.
 * Returns 0, or -1 on a read error. */
static int refill_in(gs_zfile *f, gs_error *err)
{
    size_t left = gs_inflate_avail_in(f->z);
    if (left && gs_inflate_next_in(f->z) != f->buf)
        memmove(f->buf, gs_inflate_next_in(f->z), left);
    while (!f->eof && left < ZCHUNK) {
        ssize_t got = read_some(f->fd, f->buf + left, ZCHUNK - left);
        if (got < 0) {
            read_fail(f, err);
            return -1;
        }
        if (got == 0)
            f->eof = 1;
        left += (size_t)got;
        f->file_in += (uint64_t)got;
        if (got > 0)
            break; /* pipes deliver in pieces: use what is there */
    }
    gs_inflate_feed(f->z, f->buf, left);
    return 0;
}

gs_status gs_zfile_fdopen(int fd, const char *name, gs_zfile **out, gs_error *err)
{
    gs_zfile *f = gs_calloc(1, sizeof *f, err, "file reader");
    *out = NULL;
    if (f == NULL) {
        close(fd);
        return GS_ESYS;
    }
    f->fd = fd;
    size_t l = strlen(name) + 1;
    if ((f->name = gs_malloc(l, err, "file name")) == NULL ||
        (f->buf = gs_malloc(ZCHUNK, err, "input buffer")) == NULL)
        goto fail;
    memcpy(f->name, name, l);
    /* sniff: the magic needs two bytes, a pipe may give them one at a time */
    while (f->end < 2 && !f->eof) {
        ssize_t got = read_some(fd, f->buf + f->end, ZCHUNK - f->end);
        if (got < 0) {
            read_fail(f, err);
            goto fail;
        }
        f->eof = got == 0;
        f->end += (size_t)got;
        f->file_in += (uint64_t)got;
    }
    f->gzip = f->end >= 2 && f->buf[0] == 0x1f && f->buf[1] == 0x8b;
    /* A pipe holds 64 KiB by default: each read then returns 64 KiB and the
     * writer and this reader take turns on it, a switch a piece. For text,
     * ask for one of ZCHUNK bytes (Linux; at most fs/pipe-max-size, 1 MiB by
     * default; where it is refused the default stays). Not for gzip: there
     * inflating bounds the reader, and on 2 cores the larger buffer let the
     * writer crowd out the scan (0.25 s slower on 1 GiB). */
    struct stat st;
    if (!f->gzip && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
        (void)fcntl(fd, F_SETPIPE_SZ, ZCHUNK);
    if (f->gzip) {
        if (gs_inflate_init(&f->z, err) != GS_OK)
            goto fail;
        gs_inflate_feed(f->z, f->buf, f->end);
    }
    *out = f;
    return GS_OK;
fail:
    gs_zfile_close(f);
    return err->code;
}

gs_status gs_zfile_open(const char *path, gs_zfile **f, gs_error *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return gs_fail(err, GS_EINPUT, "cannot open corpus file: %s (%s)", strerror(errno), path);
    return gs_zfile_fdopen(fd, path, f, err);
}

static int64_t read_plain(gs_zfile *f, uint8_t *out, size_t cap, gs_error *err)
{
    if (f->pos < f->end) {
        size_t n = f->end - f->pos < cap ? f->end - f->pos : cap;
        memcpy(out, f->buf + f->pos, n);
        f->pos += n;
        return (int64_t)n;
    }
    if (f->eof)
        return 0;
    ssize_t got = read_some(f->fd, out, cap);
    if (got < 0) {
        read_fail(f, err);
        return -1;
    }
    f->eof = got == 0;
    f->file_in += (uint64_t)got;
    return got;
}

static int64_t corrupt(gs_zfile *f, const char *why, gs_error *err)
{
    gs_fail(err, GS_EINPUT,
            "corrupt or truncated gzip: %s after %llu decompressed bytes (compressed byte %llu) (%s)",
            why, (unsigned long long)f->out, (unsigned long long)gs_inflate_in_offset(f->z),
            f->name);
    return -1;
}

gs_status gs_zfile_parallel(gs_zfile *f, int threads, gs_error *err)
{
    enum { MIN_THREADS = 4 };
    struct stat st;
    const char *env = getenv("GS_GZIP_REGION"); /* tests: compressed bytes a region */
    size_t region = env ? (size_t)strtoull(env, NULL, 10) : (size_t)4 << 20;
    if (!f->gzip || threads < MIN_THREADS || f->out > 0 || fstat(f->fd, &st) != 0 ||
        !S_ISREG(st.st_mode) || (uint64_t)st.st_size < 2 * (uint64_t)region ||
        (uint64_t)st.st_size > SIZE_MAX)
        return GS_OK;
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, f->fd, 0);
    if (m == MAP_FAILED)
        return GS_OK; /* read it on one thread */
    f->map = m;
    f->map_len = (size_t)st.st_size;
    return gs_pinflate_open(m, f->map_len, threads, region, f->name, &f->pz, err);
}

int64_t gs_zfile_view(gs_zfile *f, const uint8_t **out, gs_error *err)
{
    if (f->pz) {
        int64_t n = gs_pinflate_next(f->pz, out, err);
        f->out += n > 0 ? (uint64_t)n : 0;
        return n;
    }
    if (f->obuf == NULL && (f->obuf = gs_malloc(ZCHUNK, err, "input buffer")) == NULL)
        return -1;
    *out = f->obuf;
    return gs_zfile_read(f, f->obuf, ZCHUNK, err);
}

int64_t gs_zfile_read(gs_zfile *f, uint8_t *out, size_t cap, gs_error *err)
{
    if (cap > INT32_MAX)
        cap = INT32_MAX;
    if (f->pz) {
        if (f->vn == 0) {
            int64_t n = gs_zfile_view(f, &f->vp, err);
            if (n <= 0)
                return n;
            f->vn = (size_t)n;
        }
        size_t k = f->vn < cap ? f->vn : cap;
        memcpy(out, f->vp, k);
        f->vp += k;
        f->vn -= k;
        return (int64_t)k;
    }
    if (!f->gzip)
        return read_plain(f, out, cap, err);
    while (!f->done) {
        size_t got, before = gs_inflate_avail_in(f->z);
        const char *why = NULL;
        gs_inflate_rc rc = gs_inflate_pull(f->z, out, cap, &got, &why);
        f->out += got;
        if (rc == GS_INFLATE_ERROR)
            return corrupt(f, why, err);
        if (rc == GS_INFLATE_MEMBER) {
            /* another member follows only if its magic does */
            if (gs_inflate_avail_in(f->z) < 2 && !f->eof && refill_in(f, err) != 0)
                return -1;
            const uint8_t *p = gs_inflate_next_in(f->z);
            if (gs_inflate_avail_in(f->z) >= 2 && p[0] == 0x1f && p[1] == 0x8b)
                gs_inflate_reset(f->z);
            else
                f->done = 1;
        } else if (got == 0 && gs_inflate_avail_in(f->z) == before) {
            /* no progress: the decoder needs more input than it has */
            if (f->eof)
                return corrupt(f, "unexpected end of file", err);
            if (before == ZCHUNK)
                return corrupt(f, "invalid gzip data", err);
            if (refill_in(f, err) != 0)
                return -1;
        }
        if (got > 0)
            return (int64_t)got;
    }
    return 0;
}

uint64_t gs_zfile_bytes_in(const gs_zfile *f)
{
    if (f->pz)
        return gs_pinflate_bytes_in(f->pz);
    if (f->gzip)
        return f->done ? f->file_in : gs_inflate_in_offset(f->z);
    return f->file_in - (f->end - f->pos);
}

int gs_zfile_is_gzip(const gs_zfile *f)
{
    return f->gzip;
}

void gs_zfile_close(gs_zfile *f)
{
    if (f == NULL)
        return;
    if (f->fd >= 0)
        close(f->fd);
    if (f->z)
        gs_inflate_end(f->z);
    gs_pinflate_close(f->pz);
    if (f->map)
        munmap(f->map, f->map_len);
    free(f->obuf);
    free(f->buf);
    free(f->name);
    free(f);
}
