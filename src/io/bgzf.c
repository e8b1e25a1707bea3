/* bgzf.c - BGZF detection, the samtools .gzi index, and random access.
 *
 * A block is an 18-byte gzip header (FLG.FEXTRA with one "BC" subfield of 2
 * bytes holding BSIZE - 1), a raw deflate stream, then CRC32 and ISIZE.
 * Like htslib we accept exactly that header layout (XLEN 6, "BC" first), so
 * a block's deflate data always starts at byte 18.
 *
 * The index is built from headers and trailers alone (BSIZE says where the
 * next block starts, ISIZE how much it holds), so indexing costs two small
 * preads per 64 KiB block and no inflation. Which blocks it lists follows
 * samtools byte for byte: every block holding data but the first; empty
 * blocks (the EOF marker, the ends of concatenated files) are skipped.
 *
 * Random access keeps the index with an implicit (0, 0) in front, finds the
 * last entry at or before the wanted offset by binary search and walks blocks
 * from there. The walk checks the index as it goes: a listed block must
 * hold what the next entry says (ISIZE = the step in uncompressed offsets),
 * and the next block holding data must be the next entry, at both offsets,
 * or the .gzi is stale. A
 * segment's overlap makes the next read start inside the block the previous
 * read ended in, so the last inflated block is kept and not read again.
 *
 * Blocks are inflated with libdeflate, which decompresses a whole buffer in
 * one call (a BGZF block is exactly that) and is faster than zlib's streaming
 * inflate on them; its CRC32 checks the trailer (docs/performance.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "bgzf.h"
#include "replace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <libdeflate.h>
#include <unistd.h>

enum { HDR = 18, TRAILER = 8, BLOCK_MAX = 65536 };

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* BSIZE of a block header, or 0 when h is not a BGZF block header. */
static uint32_t block_size(const uint8_t *h)
{
    if (h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || !(h[3] & 4) || h[10] != 6 || h[11] != 0 ||
        h[12] != 'B' || h[13] != 'C' || h[14] != 2 || h[15] != 0)
        return 0;
    uint32_t bsize = ((uint32_t)h[16] | (uint32_t)h[17] << 8) + 1;
    return bsize >= HDR + TRAILER + 2 ? bsize : 0; /* an empty deflate stream is 2 bytes */
}

gs_compression gs_bgzf_sniff(const uint8_t *head, size_t n)
{
    if (n < 2 || head[0] != 0x1f || head[1] != 0x8b)
        return GS_COMP_NONE;
    return n >= HDR && block_size(head) ? GS_COMP_BGZF : GS_COMP_GZIP;
}

int gs_pread_full(int fd, uint8_t *out, size_t n, uint64_t at)
{
    while (n > 0) {
        ssize_t got = pread(fd, out, n, (off_t)at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got == 0 ? 1 : -1;
        out += got;
        n -= (size_t)got;
        at += (uint64_t)got;
    }
    return 0;
}

gs_status gs_bgzf_detect(const char *path, gs_compression *c, gs_error *err)
{
    uint8_t h[HDR];
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return gs_fail(err, GS_EINPUT, "cannot open corpus file: %s (%s)", strerror(errno), path);
    size_t n = 0;
    while (n < HDR) {
        ssize_t got = read(fd, h + n, HDR - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            close(fd);
            return gs_fail(err, GS_ESYS, "read error: %s (%s)", strerror(errno), path);
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    *c = gs_bgzf_sniff(h, n);
    return GS_OK;
}

void gs_gzi_free(gs_gzi *gzi)
{
    free(gzi->v);
    gzi->v = NULL;
    gzi->n = 0;
}

/* Header and trailer of the block at off: its BSIZE and ISIZE. Returns 0, or
 * 1 when there is no valid block there (*why says what), -1 on a read error. */
static int block_at(int fd, uint64_t off, uint64_t size, uint32_t *bsize, uint32_t *isize,
                    const char **why)
{
    uint8_t h[HDR], t[4];
    if (size - off < HDR) {
        *why = "truncated block header";
        return 1;
    }
    int rc = gs_pread_full(fd, h, HDR, off);
    if (rc)
        return rc < 0 ? -1 : (*why = "truncated block header", 1);
    if ((*bsize = block_size(h)) == 0) {
        *why = "not a BGZF block header";
        return 1;
    }
    if (*bsize > size - off) {
        *why = "truncated block";
        return 1;
    }
    rc = gs_pread_full(fd, t, 4, off + *bsize - 4);
    if (rc)
        return rc < 0 ? -1 : (*why = "truncated block", 1);
    *isize = le32(t);
    if (*isize > BLOCK_MAX) {
        *why = "block larger than 64 KiB";
        return 1;
    }
    return 0;
}

static int gzi_push(gs_gzi *gzi, size_t *cap, uint64_t coff, uint64_t uoff, gs_error *err)
{
    if (gzi->n == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        gs_gzi_entry *v = gs_realloc(gzi->v, c * sizeof *v, err, "BGZF index");
        if (v == NULL)
            return -1;
        gzi->v = v;
        *cap = c;
    }
    gzi->v[gzi->n++] = (gs_gzi_entry){coff, uoff};
    return 0;
}

gs_status gs_gzi_build(const char *path, gs_gzi *gzi, gs_error *err)
{
    memset(gzi, 0, sizeof *gzi);
    size_t cap = 0;
    struct stat st;
    int fd = open(path, O_RDONLY);
    if (fd < 0 || fstat(fd, &st) != 0) {
        gs_fail(err, GS_EINPUT, "cannot open BGZF file: %s (%s)", strerror(errno), path);
        goto fail;
    }
    uint64_t size = (uint64_t)st.st_size, off = 0, u = 0;
    int seen_data = 0;
    while (off < size) {
        uint32_t bsize, isize;
        const char *why = NULL;
        int rc = block_at(fd, off, size, &bsize, &isize, &why);
        if (rc < 0) {
            gs_fail(err, GS_ESYS, "read error: %s (%s)", strerror(errno), path);
            goto fail;
        }
        if (rc > 0) {
            gs_fail(err, GS_EINPUT, "cannot index BGZF: %s at byte %" PRIu64 " (%s)", why, off,
                    path);
            goto fail;
        }
        if (isize > 0) {
            if (seen_data && gzi_push(gzi, &cap, off, u, err) != 0)
                goto fail;
            seen_data = 1;
        }
        off += bsize;
        u += isize;
    }
    if (size == 0) {
        gs_fail(err, GS_EINPUT, "cannot index BGZF: empty file (%s)", path);
        goto fail;
    }
    close(fd);
    return GS_OK;
fail:
    if (fd >= 0)
        close(fd);
    gs_gzi_free(gzi);
    return err->code;
}

gs_status gs_gzi_write(const char *gzi_path, const gs_gzi *gzi, gs_error *err)
{
    gs_replace_file r;
    if (gs_replace_open(&r, gzi_path, "index", err) != GS_OK)
        return err->code;
    uint8_t b[16];
    put_le64(b, gzi->n);
    fwrite(b, 1, 8, r.f);
    for (size_t i = 0; i < gzi->n; i++) {
        put_le64(b, gzi->v[i].coff);
        put_le64(b + 8, gzi->v[i].uoff);
        fwrite(b, 1, 16, r.f);
    }
    return gs_replace_commit(&r, "index", err);
}

gs_status gs_gzi_load(const char *gzi_path, gs_gzi *gzi, gs_error *err)
{
    memset(gzi, 0, sizeof *gzi);
    uint8_t *buf = NULL;
    struct stat st;
    int fd = open(gzi_path, O_RDONLY);
    if (fd < 0 || fstat(fd, &st) != 0) {
        gs_fail(err, GS_EINPUT, "cannot open BGZF index: %s; create it with gscan index (%s)",
                strerror(errno), gzi_path);
        goto fail;
    }
    uint64_t size = (uint64_t)st.st_size;
    uint8_t h[8];
    if (size < 8 || gs_pread_full(fd, h, 8, 0) != 0 || size - 8 != le64(h) * 16 ||
        le64(h) > size / 16) {
        gs_fail(err, GS_EINPUT, "malformed BGZF index: size does not match its count (%s)",
                gzi_path);
        goto fail;
    }
    gzi->n = (size_t)le64(h);
    if (gzi->n > 0) {
        if ((buf = gs_malloc((size_t)(size - 8), err, "BGZF index")) == NULL ||
            (gzi->v = gs_malloc(gzi->n * sizeof *gzi->v, err, "BGZF index")) == NULL)
            goto fail;
        int rc = gs_pread_full(fd, buf, (size_t)(size - 8), 8);
        if (rc) {
            gs_fail(err, rc < 0 ? GS_ESYS : GS_EINPUT, "cannot read BGZF index: %s (%s)",
                    rc < 0 ? strerror(errno) : "file shrank", gzi_path);
            goto fail;
        }
        for (size_t i = 0; i < gzi->n; i++)
            gzi->v[i] = (gs_gzi_entry){le64(buf + 16 * i), le64(buf + 16 * i + 8)};
    }
    close(fd);
    free(buf);
    return GS_OK;
fail:
    if (fd >= 0)
        close(fd);
    free(buf);
    gs_gzi_free(gzi);
    return err->code;
}

struct gs_bgzf {
    char *path, *gzi_path;
    int fd;
    uint64_t csize, usize; /* compressed and uncompressed sizes */
    gs_gzi_entry *e;       /* (0, 0), then the .gzi entries */
    size_t n;
    struct libdeflate_decompressor *dec;
    uint8_t *cbuf;   /* one compressed block */
    uint8_t *ubuf;   /* the block last inflated */
    uint64_t cache_coff; /* its offset (UINT64_MAX: none) */
    uint32_t cache_bsize, cache_len;
};

void gs_bgzf_close(gs_bgzf *b)
{
    if (b == NULL)
        return;
    if (b->fd >= 0)
        close(b->fd);
    if (b->dec)
        libdeflate_free_decompressor(b->dec);
    free(b->path);
    free(b->gzi_path);
    free(b->e);
    free(b->cbuf);
    free(b->ubuf);
    free(b);
}

uint64_t gs_bgzf_size(const gs_bgzf *b)
{
    return b->usize;
}

static gs_status stale(gs_bgzf *b, const char *why, uint64_t off, gs_error *err)
{
    return gs_fail(err, GS_EINPUT,
                   "stale BGZF index: %s at byte %" PRIu64 " of %s; rebuild it with gscan index (%s)",
                   why, off, b->path, b->gzi_path);
}

static char *dup_str(const char *s, gs_error *err)
{
    size_t l = strlen(s) + 1;
    char *d = gs_malloc(l, err, "path");
    if (d)
        memcpy(d, s, l);
    return d;
}

gs_status gs_bgzf_open(const char *path, gs_bgzf **out, gs_error *err)
{
    gs_gzi gzi = {0};
    gs_bgzf *b = gs_calloc(1, sizeof *b, err, "BGZF reader");
    *out = NULL;
    if (b == NULL)
        return GS_ESYS;
    b->fd = -1;
    b->cache_coff = UINT64_MAX;
    size_t gl = strlen(path) + 5;
    if ((b->path = dup_str(path, err)) == NULL ||
        (b->gzi_path = gs_malloc(gl, err, "index path")) == NULL)
        goto fail;
    snprintf(b->gzi_path, gl, "%s.gzi", path);
    struct stat st;
    if ((b->fd = open(path, O_RDONLY)) < 0 || fstat(b->fd, &st) != 0) {
        gs_fail(err, GS_EINPUT, "cannot open corpus file: %s (%s)", strerror(errno), path);
        goto fail;
    }
    b->csize = (uint64_t)st.st_size;
    if (gs_gzi_load(b->gzi_path, &gzi, err) != GS_OK)
        goto fail;
    if ((b->e = gs_malloc((gzi.n + 1) * sizeof *b->e, err, "BGZF index")) == NULL)
        goto fail;
    b->e[0] = (gs_gzi_entry){0, 0};
    if (gzi.n)
        memcpy(b->e + 1, gzi.v, gzi.n * sizeof *gzi.v);
    b->n = gzi.n + 1;
    gs_gzi_free(&gzi);
    for (size_t i = 1; i < b->n; i++)
        if (b->e[i].coff <= b->e[i - 1].coff || b->e[i].uoff <= b->e[i - 1].uoff ||
            b->e[i].uoff - b->e[i - 1].uoff > BLOCK_MAX) {
            stale(b, "entries out of order", b->e[i].coff, err);
            goto fail;
        }
    if (b->e[b->n - 1].coff >= b->csize) {
        stale(b, "a block listed past the end of the file", b->e[b->n - 1].coff, err);
        goto fail;
    }
    /* Walk from the last listed block to the end: it must hold data, no
     * later block may (it would be missing from the index), and the sizes
     * give the uncompressed length. */
    uint64_t off = b->e[b->n - 1].coff, u = b->e[b->n - 1].uoff;
    int data_blocks = 0;
    while (off < b->csize) {
        uint32_t bsize, isize;
        const char *why = NULL;
        int rc = block_at(b->fd, off, b->csize, &bsize, &isize, &why);
        if (rc < 0) {
            gs_fail(err, GS_ESYS, "read error: %s (%s)", strerror(errno), path);
            goto fail;
        }
        if (rc > 0) {
            if (off == b->e[b->n - 1].coff && b->n > 1)
                stale(b, "no block header where the index lists one", off, err);
            else
                gs_fail(err, GS_EINPUT, "corrupt BGZF: %s at byte %" PRIu64 " (%s)", why, off, path);
            goto fail;
        }
        if (isize > 0 && ++data_blocks > 1 && b->n > 1) {
            stale(b, "a block missing from the index", off, err);
            goto fail;
        }
        if (isize == 0 && off == b->e[b->n - 1].coff && b->n > 1) {
            stale(b, "an empty block listed", off, err);
            goto fail;
        }
        off += bsize;
        u += isize;
    }
    if (b->n == 1 && data_blocks > 1) {
        stale(b, "a block missing from the index", 0, err);
        goto fail;
    }
    b->usize = u;
    if ((b->cbuf = gs_malloc(BLOCK_MAX, err, "BGZF block")) == NULL ||
        (b->ubuf = gs_malloc(BLOCK_MAX, err, "BGZF block")) == NULL)
        goto fail;
    if ((b->dec = libdeflate_alloc_decompressor()) == NULL) {
        gs_fail(err, GS_ESYS, "out of memory starting libdeflate (%s)", path);
        goto fail;
    }
    *out = b;
    return GS_OK;
fail:
    gs_gzi_free(&gzi);
    gs_bgzf_close(b);
    return err->code;
}

/* Read and inflate the block at off into b->ubuf (unless it is the cached
 * one): its BSIZE and ISIZE. listed: off is an index entry (a missing header
 * there means the index is stale rather than the file corrupt). */
static gs_status load_block(gs_bgzf *b, uint64_t off, int listed, uint64_t *bytes_read,
                            gs_error *err)
{
    if (off == b->cache_coff)
        return GS_OK;
    b->cache_coff = UINT64_MAX;
    if (b->csize - off < HDR)
        return listed ? stale(b, "no block header where the index lists one", off, err)
                      : gs_fail(err, GS_EINPUT, "corrupt BGZF: truncated block at byte %" PRIu64
                                " (%s)", off, b->path);
    int rc = gs_pread_full(b->fd, b->cbuf, HDR, off);
    uint32_t bsize = rc == 0 ? block_size(b->cbuf) : 0;
    if (rc < 0)
        return gs_fail(err, GS_ESYS, "read error: %s (%s)", strerror(errno), b->path);
    if (bsize == 0)
        return listed ? stale(b, "no block header where the index lists one", off, err)
                      : gs_fail(err, GS_EINPUT, "corrupt BGZF: bad block header at byte %" PRIu64
                                " (%s)", off, b->path);
    if (bsize > b->csize - off || (rc = gs_pread_full(b->fd, b->cbuf + HDR, bsize - HDR, off + HDR)))
        return rc < 0 ? gs_fail(err, GS_ESYS, "read error: %s (%s)", strerror(errno), b->path)
                      : gs_fail(err, GS_EINPUT, "corrupt BGZF: truncated block at byte %" PRIu64
                                " (%s)", off, b->path);
    *bytes_read += bsize;
    uint32_t crc = le32(b->cbuf + bsize - 8), isize = le32(b->cbuf + bsize - 4);
    size_t used = 0, len = 0;
    enum libdeflate_result dr = libdeflate_deflate_decompress_ex(
        b->dec, b->cbuf + HDR, bsize - HDR - TRAILER, b->ubuf, BLOCK_MAX, &used, &len);
    const char *why = dr != LIBDEFLATE_SUCCESS                 ? "bad deflate data"
                      : used != bsize - HDR - TRAILER           ? "bytes after the deflate data"
                      : len != isize                            ? "ISIZE does not match the data"
                      : libdeflate_crc32(0, b->ubuf, len) != crc ? "CRC32 mismatch"
                                                                 : NULL;
    if (why)
        return gs_fail(err, GS_EINPUT, "corrupt BGZF: %s in the block at byte %" PRIu64 " (%s)",
                       why, off, b->path);
    b->cache_coff = off;
    b->cache_bsize = bsize;
    b->cache_len = (uint32_t)len;
    return GS_OK;
}

gs_status gs_bgzf_read(gs_bgzf *b, uint64_t at, uint8_t *out, size_t n, size_t *got,
                       uint64_t *bytes_read, gs_error *err)
{
    *got = 0;
    if (n == 0 || at >= b->usize)
        return GS_OK;
    /* the last entry at or before at */
    size_t lo = 0, hi = b->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->e[mid].uoff <= at)
            lo = mid;
        else
            hi = mid;
    }
    size_t i = lo;         /* entry of the block being read */
    uint64_t off = b->e[i].coff, u = b->e[i].uoff;
    int listed = i > 0;
    int at_entry = 1;      /* off is entry i (no data block seen since) */
    while (*got < n && off < b->csize) {
        if (load_block(b, off, listed, bytes_read, err) != GS_OK)
            return err->code;
        uint32_t len = b->cache_len;
        if (len > 0 && !at_entry) {
            /* a data block after entry i's: it must be entry i + 1 */
            if (i + 1 >= b->n || b->e[i + 1].coff != off || b->e[i + 1].uoff != u)
                return stale(b, "a block that does not match the index", off, err);
            i++;
        }
        if (len > 0) {
            /* entry i's block: it must hold what the next entry says */
            if (i + 1 < b->n && b->e[i + 1].uoff - b->e[i].uoff != len)
                return stale(b, "a block whose size does not match the index", off, err);
            at_entry = 0;
        }
        if (at < u + len) {
            size_t from = (size_t)(at - u), k = len - from;
            if (k > n - *got)
                k = n - *got;
            memcpy(out + *got, b->ubuf + from, k);
            *got += k;
            at += k;
        }
        off += b->cache_bsize;
        u += len;
        listed = i + 1 < b->n && off == b->e[i + 1].coff;
    }
    return GS_OK;
}
