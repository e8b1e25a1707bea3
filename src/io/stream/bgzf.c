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
 * Blocks are inflated whole (a BGZF block is one deflate stream) by
 * libdeflate or ISA-L's stateless inflate, both several times zlib's speed,
 * neither the faster on every file: libdeflate on blocks deflated at level
 * 1 on one core, ISA-L 1.7-1.9x libdeflate at bgzip's default level and
 * above. ISA-L inflates by default: on 16 busy cores it was the faster at
 * both levels (docs/performance.md, Decompression); libdeflate on request
 * (gs_bgzf_set_inflate). The bytes and every check are the same either
 * way. libdeflate's CRC32 checks the trailer.
 * Inflating is the whole cost of reading BGZF (a plain FASTA parses several
 * times faster than one core inflates), so a long read can inflate its
 * blocks on several threads (gs_bgzf_set_threads): the walk above fetches
 * them, the threads inflate rounds of up to 128 blocks straight into the
 * caller's buffer.
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
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <pthread.h>
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

gs_status gs_pread_full(int fd, uint8_t *out, size_t n, uint64_t at, const char *path, int *ended,
                        gs_error *err)
{
    *ended = 0;
    while (n > 0) {
        ssize_t got = pread(fd, out, n, (off_t)at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return gs_fail(err, GS_ESYS, "read error: %s (%s)", strerror(errno), path);
        if (got == 0) {
            *ended = 1;
            return GS_OK;
        }
        out += got;
        n -= (size_t)got;
        at += (uint64_t)got;
    }
    return GS_OK;
}

gs_status gs_bgzf_detect_fd(int fd, const char *path, gs_compression *c, gs_error *err)
{
    uint8_t h[HDR];
    size_t n = 0;
    while (n < HDR) {
        ssize_t got = pread(fd, h + n, HDR - n, (off_t)n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return gs_fail(err, GS_ESYS, "read error: %s (%s)", strerror(errno), path);
        if (got == 0)
            break;
        n += (size_t)got;
    }
    *c = gs_bgzf_sniff(h, n);
    return GS_OK;
}

gs_status gs_bgzf_detect(const char *path, gs_compression *c, gs_error *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return gs_fail_open(err, "corpus file", path);
    gs_status st = gs_bgzf_detect_fd(fd, path, c, err);
    close(fd);
    return st;
}

void gs_gzi_free(gs_gzi *gzi)
{
    free(gzi->v);
    gzi->v = NULL;
    gzi->n = 0;
}

/* Header and trailer of the block at off of fd (path): its BSIZE and ISIZE,
 * *why NULL; or *why says why there is no valid block there. GS_ESYS on a
 * read error. */
static gs_status block_at(int fd, const char *path, uint64_t off, uint64_t size, uint32_t *bsize,
                          uint32_t *isize, const char **why, gs_error *err)
{
    uint8_t h[HDR], t[4];
    int ended = 1;
    gs_status st = GS_OK;
    *why = NULL;
    if (size - off < HDR || (st = gs_pread_full(fd, h, HDR, off, path, &ended, err)) != GS_OK ||
        ended) {
        *why = "truncated block header";
        return st;
    }
    if ((*bsize = block_size(h)) == 0) {
        *why = "not a BGZF block header";
        return GS_OK;
    }
    ended = 1;
    if (*bsize > size - off ||
        (st = gs_pread_full(fd, t, 4, off + *bsize - 4, path, &ended, err)) != GS_OK || ended) {
        *why = "truncated block";
        return st;
    }
    *isize = le32(t);
    if (*isize > BLOCK_MAX)
        *why = "block larger than 64 KiB";
    return GS_OK;
}

static gs_status gzi_push(gs_gzi *gzi, size_t *cap, uint64_t coff, uint64_t uoff, gs_error *err)
{
    if (gzi->n == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        gs_gzi_entry *v = gs_realloc(gzi->v, c * sizeof *v, err, "BGZF index");
        if (v == NULL)
            return GS_ESYS;
        gzi->v = v;
        *cap = c;
    }
    gzi->v[gzi->n++] = (gs_gzi_entry){coff, uoff};
    return GS_OK;
}

gs_status gs_gzi_build(const char *path, gs_gzi *gzi, gs_error *err)
{
    memset(gzi, 0, sizeof *gzi);
    size_t cap = 0;
    struct stat st;
    int fd = open(path, O_RDONLY);
    if (fd < 0 || fstat(fd, &st) != 0) {
        gs_fail_open(err, "BGZF file", path);
        goto fail;
    }
    uint64_t size = (uint64_t)st.st_size, off = 0, u = 0;
    int seen_data = 0;
    while (off < size) {
        uint32_t bsize, isize;
        const char *why = NULL;
        if (block_at(fd, path, off, size, &bsize, &isize, &why, err) != GS_OK)
            goto fail;
        if (why) {
            gs_fail(err, GS_EINPUT, "cannot index BGZF: %s at byte %" PRIu64 " (%s)", why, off,
                    path);
            goto fail;
        }
        if (isize > 0) {
            if (seen_data && gzi_push(gzi, &cap, off, u, err) != GS_OK)
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
        if (errno == ENOENT)
            gs_fail(err, GS_EINPUT, "cannot open BGZF index: %s; create it with gscan index (%s)",
                    strerror(errno), gzi_path);
        else
            gs_fail_open(err, "BGZF index", gzi_path);
        goto fail;
    }
    uint64_t size = (uint64_t)st.st_size;
    uint8_t h[8];
    int ended = 1;
    gs_error ignored = {0};
    if (size < 8 || gs_pread_full(fd, h, 8, 0, gzi_path, &ended, &ignored) != GS_OK || ended ||
        size - 8 != le64(h) * 16 || le64(h) > size / 16) {
        gs_fail(err, GS_EINPUT, "malformed BGZF index: size does not match its count (%s)",
                gzi_path);
        goto fail;
    }
    gzi->n = (size_t)le64(h);
    if (gzi->n > 0) {
        if ((buf = gs_malloc((size_t)(size - 8), err, "BGZF index")) == NULL ||
            (gzi->v = gs_malloc(gzi->n * sizeof *gzi->v, err, "BGZF index")) == NULL)
            goto fail;
        gs_status rc = gs_pread_full(fd, buf, (size_t)(size - 8), 8, gzi_path, &ended, &ignored);
        if (rc != GS_OK || ended) {
            gs_fail(err, rc != GS_OK ? GS_ESYS : GS_EINPUT, "cannot read BGZF index: %s (%s)",
                    rc != GS_OK ? strerror(errno) : "file shrank", gzi_path);
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

/* One thread's inflater. */
typedef struct inflater {
    struct libdeflate_decompressor *ld;
    struct inflate_state *isal; /* 85 KiB: made at ISA-L's first block */
    int use;                    /* GS_BGZF_INFLATE_ISAL or _LIBDEFLATE */
} inflater;

struct gs_bgzf {
    char *path, *gzi_path;
    int fd;
    uint64_t csize, usize; /* compressed and uncompressed sizes */
    gs_gzi_entry *e;       /* (0, 0), then the .gzi entries */
    size_t n;
    inflater dec[GS_BGZF_MAX_THREADS]; /* [threads] */
    int inflate;     /* gs_bgzf_set_inflate */
    int threads;     /* inflating threads of a long read (gs_bgzf_set_threads) */
    uint8_t *span;   /* parallel reads: JOBS compressed blocks */
    uint8_t *first;  /* parallel reads: a partial first block */
    struct job *jobs;
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
    for (int t = 0; t < b->threads; t++) {
        libdeflate_free_decompressor(b->dec[t].ld);
        free(b->dec[t].isal);
    }
    free(b->span);
    free(b->first);
    free(b->jobs);
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
        gs_fail_open(err, "corpus file", path);
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
        if (block_at(b->fd, path, off, b->csize, &bsize, &isize, &why, err) != GS_OK)
            goto fail;
        if (why) {
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
    if ((b->dec[0].ld = libdeflate_alloc_decompressor()) == NULL) {
        gs_fail(err, GS_ESYS, "out of memory starting libdeflate (%s)", path);
        goto fail;
    }
    b->threads = 1;
    *out = b;
    return GS_OK;
fail:
    gs_gzi_free(&gzi);
    gs_bgzf_close(b);
    return err->code;
}

/* Read the compressed block at off into dst (BLOCK_MAX bytes): its BSIZE.
 * listed: off is an index entry (a missing header there means the index is
 * stale rather than the file corrupt). */
static gs_status fetch_block(gs_bgzf *b, uint64_t off, int listed, uint8_t *dst, uint32_t *bsize_out,
                             uint64_t *bytes_read, gs_error *err)
{
    if (b->csize - off < HDR)
        return listed ? stale(b, "no block header where the index lists one", off, err)
                      : gs_fail(err, GS_EINPUT, "corrupt BGZF: truncated block at byte %" PRIu64
                                " (%s)", off, b->path);
    int ended = 0;
    if (gs_pread_full(b->fd, dst, HDR, off, b->path, &ended, err) != GS_OK)
        return err->code;
    uint32_t bsize = ended ? 0 : block_size(dst);
    if (bsize == 0)
        return listed ? stale(b, "no block header where the index lists one", off, err)
                      : gs_fail(err, GS_EINPUT, "corrupt BGZF: bad block header at byte %" PRIu64
                                " (%s)", off, b->path);
    if (bsize <= b->csize - off &&
        gs_pread_full(b->fd, dst + HDR, bsize - HDR, off + HDR, b->path, &ended, err) != GS_OK)
        return err->code;
    if (bsize > b->csize - off || ended)
        return gs_fail(err, GS_EINPUT, "corrupt BGZF: truncated block at byte %" PRIu64 " (%s)",
                       off, b->path);
    *bytes_read += bsize;
    *bsize_out = bsize;
    return GS_OK;
}

/* Inflate the deflate data def[0, n) into dst (BLOCK_MAX bytes) with d's
 * library: 0 where it is not one whole deflate stream that fits, else 1
 * with *used its bytes and *len the bytes out. */
static int inflate_with(inflater *d, const uint8_t *def, size_t n, uint8_t *dst, size_t *used,
                        size_t *len)
{
    if (d->use == GS_BGZF_INFLATE_ISAL && d->isal == NULL &&
        (d->isal = malloc(sizeof *d->isal)) == NULL)
        d->use = GS_BGZF_INFLATE_LIBDEFLATE; /* no memory for ISA-L: libdeflate from now */
    if (d->use == GS_BGZF_INFLATE_LIBDEFLATE)
        return libdeflate_deflate_decompress_ex(d->ld, def, n, dst, BLOCK_MAX, used, len) ==
               LIBDEFLATE_SUCCESS;
    struct inflate_state *z = d->isal;
    isal_inflate_init(z); /* raw deflate; every field a stateless inflate reads */
    z->next_in = (uint8_t *)def;
    z->avail_in = (uint32_t)n;
    z->next_out = dst;
    z->avail_out = BLOCK_MAX;
    if (isal_inflate_stateless(z) != ISAL_DECOMP_OK)
        return 0;
    *used = n - z->avail_in;
    *len = BLOCK_MAX - z->avail_out;
    return 1;
}

/* Inflate the compressed block c (BSIZE bsize) into dst (BLOCK_MAX bytes)
 * and check it: NULL, or what is wrong with it. */
static const char *inflate_block(inflater *d, const uint8_t *c, uint32_t bsize, uint8_t *dst,
                                 uint32_t *len_out)
{
    uint32_t crc = le32(c + bsize - 8), isize = le32(c + bsize - 4);
    const size_t n = bsize - HDR - TRAILER;
    size_t used = 0, len = 0;
    const int ok = inflate_with(d, c + HDR, n, dst, &used, &len);
    *len_out = (uint32_t)len;
    return !ok                                      ? "bad deflate data"
           : used != n                               ? "bytes after the deflate data"
           : len != isize                            ? "ISIZE does not match the data"
           : libdeflate_crc32(0, dst, len) != crc    ? "CRC32 mismatch"
                                                     : NULL;
}

static gs_status corrupt_block(gs_bgzf *b, const char *why, uint64_t off, gs_error *err)
{
    return gs_fail(err, GS_EINPUT, "corrupt BGZF: %s in the block at byte %" PRIu64 " (%s)", why,
                   off, b->path);
}

/* Read and inflate the block at off into b->ubuf (unless it is the cached
 * one), which becomes the cached block. */
static gs_status load_block(gs_bgzf *b, uint64_t off, int listed, uint64_t *bytes_read,
                            gs_error *err)
{
    if (off == b->cache_coff)
        return GS_OK;
    b->cache_coff = UINT64_MAX;
    uint32_t bsize, len;
    if (fetch_block(b, off, listed, b->cbuf, &bsize, bytes_read, err) != GS_OK)
        return err->code;
    const char *why = inflate_block(&b->dec[0], b->cbuf, bsize, b->ubuf, &len);
    if (why)
        return corrupt_block(b, why, off, err);
    b->cache_coff = off;
    b->cache_bsize = bsize;
    b->cache_len = len;
    return GS_OK;
}

/* ---- parallel inflation ------------------------------------------------
 * A long read (a segment: hundreds of blocks) walks the blocks as the
 * serial read does, but only fetches them, taking each block's length from
 * its ISIZE; up to JOBS fetched blocks are then inflated by b->threads
 * threads at once, whole blocks straight into the caller's buffer. Every
 * block is still checked (deflate data, ISIZE against the data, CRC32), and
 * the first bad one in file order is reported, as the serial read would. */

enum { JOBS = 128 };

typedef struct job {
    uint64_t coff;
    uint32_t span;     /* offset of the compressed block in b->span */
    uint32_t bsize, len, from, k;
    uint8_t *dst;      /* where its bytes [from, from + k) go */
    const char *why;   /* set by the inflating thread when the block is bad */
} job;

typedef struct pool_arg {
    gs_bgzf *b;
    job *jobs;
    size_t n_jobs;
    int final;         /* the read's last round: its last block is cached */
    int id, threads;
} pool_arg;

static void *inflate_jobs(void *arg)
{
    pool_arg *a = arg;
    gs_bgzf *b = a->b;
    for (size_t j = (size_t)a->id; j < a->n_jobs; j += (size_t)a->threads) {
        job *x = &a->jobs[j];
        /* a whole block goes straight to its place; a partial one (only the
         * read's first or last can be) or the block to cache through a
         * buffer of its own */
        int last = j == a->n_jobs - 1;
        int direct = x->from == 0 && x->k == x->len && !(last && a->final);
        uint8_t *to = direct ? x->dst : last ? b->ubuf : b->first;
        uint32_t len;
        x->why = inflate_block(&b->dec[a->id], b->span + x->span, x->bsize, to, &len);
        if (!x->why && !direct)
            memcpy(x->dst, to + x->from, x->k);
    }
    return NULL;
}

/* Inflate jobs[0, n) on up to b->threads threads. */
static gs_status run_jobs(gs_bgzf *b, job *jobs, size_t n, int final, gs_error *err)
{
    if (n == 0)
        return GS_OK;
    pool_arg a[GS_BGZF_MAX_THREADS];
    int threads = (size_t)b->threads < n ? b->threads : (int)n;
    b->cache_coff = UINT64_MAX; /* b->ubuf is about to change */
    for (int t = 0; t < threads; t++)
        a[t] = (pool_arg){b, jobs, n, final, t, threads};
    gs_run_parallel(inflate_jobs, a, sizeof *a, threads);
    for (size_t j = 0; j < n; j++)
        if (jobs[j].why)
            return corrupt_block(b, jobs[j].why, jobs[j].coff, err);
    if (final) {
        b->cache_coff = jobs[n - 1].coff;
        b->cache_bsize = jobs[n - 1].bsize;
        b->cache_len = jobs[n - 1].len;
    }
    return GS_OK;
}

void gs_bgzf_set_inflate(gs_bgzf *b, int how)
{
    b->inflate = how;
    for (int t = 0; t < b->threads; t++)
        b->dec[t].use = how;
}

gs_status gs_bgzf_set_threads(gs_bgzf *b, int threads, gs_error *err)
{
    if (threads > GS_BGZF_MAX_THREADS)
        threads = GS_BGZF_MAX_THREADS;
    if (threads <= b->threads)
        return GS_OK;
    if (b->span == NULL &&
        ((b->span = gs_malloc((size_t)JOBS * BLOCK_MAX, err, "BGZF blocks")) == NULL ||
         (b->first = gs_malloc(BLOCK_MAX, err, "BGZF block")) == NULL ||
         (b->jobs = gs_malloc(JOBS * sizeof *b->jobs, err, "BGZF blocks")) == NULL))
        return GS_ESYS;
    for (int t = b->threads; t < threads; t++) {
        if ((b->dec[t].ld = libdeflate_alloc_decompressor()) == NULL)
            return gs_fail(err, GS_ESYS, "out of memory starting libdeflate (%s)", b->path);
        b->dec[t].use = b->inflate;
        b->threads = t + 1;
    }
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
    /* many blocks and helpers: fetch now, inflate in parallel rounds */
    int par = b->threads > 1 && n >= 2 * (size_t)BLOCK_MAX;
    size_t n_jobs = 0;
    while (*got < n && off < b->csize) {
        uint32_t len, bsize;
        job *x = NULL;
        if (!par || off == b->cache_coff) {
            if (load_block(b, off, listed, bytes_read, err) != GS_OK)
                goto fail;
            len = b->cache_len;
            bsize = b->cache_bsize;
        } else {
            if (n_jobs == JOBS) {
                if (run_jobs(b, b->jobs, n_jobs, 0, err) != GS_OK)
                    return err->code;
                n_jobs = 0;
            }
            x = &b->jobs[n_jobs];
            uint32_t span = (uint32_t)(n_jobs * BLOCK_MAX);
            if (fetch_block(b, off, listed, b->span + span, &bsize, bytes_read, err) != GS_OK)
                goto fail;
            len = le32(b->span + span + bsize - 4);
            *x = (job){.coff = off, .span = span, .bsize = bsize, .len = len};
            if (len > BLOCK_MAX) {
                n_jobs++;
                goto fail; /* ISIZE cannot be right: inflating says why */
            }
        }
        if (len > 0 && !at_entry) {
            /* a data block after entry i's: it must be entry i + 1 */
            if (i + 1 >= b->n || b->e[i + 1].coff != off || b->e[i + 1].uoff != u) {
                n_jobs += x != NULL;
                stale(b, "a block that does not match the index", off, err);
                goto fail;
            }
            i++;
        }
        if (len > 0) {
            /* entry i's block: it must hold what the next entry says */
            if (i + 1 < b->n && b->e[i + 1].uoff - b->e[i].uoff != len) {
                n_jobs += x != NULL;
                stale(b, "a block whose size does not match the index", off, err);
                goto fail;
            }
            at_entry = 0;
        }
        if (at < u + len) {
            size_t from = (size_t)(at - u), k = len - from;
            if (k > n - *got)
                k = n - *got;
            if (x) {
                x->from = (uint32_t)from;
                x->k = (uint32_t)k;
                x->dst = out + *got;
                n_jobs++;
            } else
                memcpy(out + *got, b->ubuf + from, k);
            *got += k;
            at += k;
        }
        off += bsize;
        u += len;
        listed = i + 1 < b->n && off == b->e[i + 1].coff;
    }
    return run_jobs(b, b->jobs, n_jobs, 1, err);
fail:
    /* A block fetched but not yet inflated may be corrupt, which the serial
     * read would have reported first (its ISIZE is what the index was
     * checked against). */
    for (size_t j = 0; par && j < n_jobs; j++) {
        job *y = &b->jobs[j];
        uint32_t l;
        const char *why = inflate_block(&b->dec[0], b->span + y->span, y->bsize, b->first, &l);
        if (why)
            return corrupt_block(b, why, y->coff, err);
    }
    return err->code;
}
