/* bgzf_write.c - recompress a plain or gzip file as BGZF, blocks deflated in
 * parallel with libdeflate.
 *
 * A gzip stream can only be read on one thread; BGZF can be read by ranges
 * and by many threads. Converting once (gscan index --bgzf) pays for every
 * later run. The input is read in batches of 256 blocks through gs_stream
 * (ISA-L), each batch's blocks are deflated by the threads (each with its own
 * libdeflate compressor, blocks dealt round-robin), then written in order.
 *
 * The blocks are what htslib writes: at most 0xff00 input bytes (so that even
 * incompressible data fits a 64 KiB block), an 18-byte header with the "BC"
 * extra field holding BSIZE - 1, raw deflate, CRC32 and ISIZE, and the
 * 28-byte empty EOF block at the end, so samtools, bgzip -t and htslib read
 * the file as their own. A block that would not shrink below 64 KiB is
 * stored (deflate block type 0) instead.
 */
#define _POSIX_C_SOURCE 200809L
#include "bgzf.h"
#include "stream.h"
#include "replace_file.h"

#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { IN_MAX = 0xff00, OUT_MAX = 65536, HDR = 18, TRAILER = 8, BATCH = 256 };

const uint8_t gs_bgzf_eof[GS_BGZF_EOF_LEN] = {0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 'B', 'C',
                                              2, 0, 0x1b, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0};

typedef struct batch {
    const uint8_t *in;  /* n_in bytes, cut into blocks of IN_MAX */
    size_t n_in;
    uint8_t *out;       /* block i at out + i * OUT_MAX */
    uint32_t *out_len;  /* its BSIZE */
    int level, threads;
} batch;

typedef struct worker {
    batch *b;
    int id;
    struct libdeflate_compressor *c;
} worker;

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v);
    put16(p + 2, v >> 16);
}

/* One block: header, deflate data (or a stored block), trailer. */
static uint32_t make_block(struct libdeflate_compressor *c, const uint8_t *in, size_t n,
                           uint8_t *out)
{
    memcpy(out, gs_bgzf_eof, HDR);
    size_t d = libdeflate_deflate_compress(c, in, n, out + HDR, OUT_MAX - HDR - TRAILER);
    if (d == 0) { /* did not fit: store it (BFINAL, type 0, LEN, NLEN) */
        out[HDR] = 1;
        put16(out + HDR + 1, (uint32_t)n);
        put16(out + HDR + 3, (uint32_t)~n & 0xffff);
        memcpy(out + HDR + 5, in, n);
        d = n + 5;
    }
    uint32_t bsize = (uint32_t)(HDR + d + TRAILER);
    put16(out + 16, bsize - 1);
    put32(out + HDR + d, libdeflate_crc32(0, in, n));
    put32(out + HDR + d + 4, (uint32_t)n);
    return bsize;
}

static void *work(void *arg)
{
    worker *w = arg;
    batch *b = w->b;
    size_t blocks = (b->n_in + IN_MAX - 1) / IN_MAX;
    for (size_t i = (size_t)w->id; i < blocks; i += (size_t)b->threads) {
        size_t off = i * IN_MAX, n = b->n_in - off < IN_MAX ? b->n_in - off : IN_MAX;
        b->out_len[i] = make_block(w->c, b->in + off, n, b->out + i * OUT_MAX);
    }
    return NULL;
}

gs_status gs_bgzf_convert(const char *in_path, const char *out_path, int level, int threads,
                          const gs_tune *tune, gs_error *err)
{
    gs_stream *zf = NULL;
    gs_replace_file rf = {0};
    int rf_open = 0;
    uint8_t *in = NULL, *out = NULL;
    uint32_t *out_len = NULL;
    worker w[GS_BGZF_MAX_THREADS] = {{0}};
    if (threads < 1)
        threads = 1;
    if (threads > GS_BGZF_MAX_THREADS)
        threads = GS_BGZF_MAX_THREADS;
    if (level < 1 || level > 12)
        return gs_fail(err, GS_EUSAGE, "compression level must be 1 to 12 (--level %d)", level);
    batch b = {.level = level, .threads = threads};
    if (gs_stream_open(in_path, &(gs_stream_opts){.threads = threads, .tune = tune}, &zf, err) != GS_OK)
        goto fail;
    if ((in = gs_malloc((size_t)BATCH * IN_MAX, err, "BGZF input")) == NULL ||
        (out = gs_malloc((size_t)BATCH * OUT_MAX, err, "BGZF output")) == NULL ||
        (out_len = gs_malloc(BATCH * sizeof *out_len, err, "BGZF output")) == NULL)
        goto fail;
    for (int t = 0; t < threads; t++) {
        w[t] = (worker){.b = &b, .id = t, .c = libdeflate_alloc_compressor(level)};
        if (w[t].c == NULL) {
            gs_fail(err, GS_ESYS, "out of memory starting libdeflate (%s)", out_path);
            goto fail;
        }
    }
    if (gs_replace_open(&rf, out_path, "BGZF file", err) != GS_OK)
        goto fail;
    rf_open = 1;
    for (;;) {
        size_t n = 0;
        while (n < (size_t)BATCH * IN_MAX) {
            size_t got;
            if (gs_stream_read(zf, in + n, (size_t)BATCH * IN_MAX - n, &got, err) != GS_OK)
                goto fail;
            if (got == 0)
                break;
            n += got;
        }
        if (n == 0)
            break;
        b.in = in;
        b.n_in = n;
        b.out = out;
        b.out_len = out_len;
        size_t blocks = (n + IN_MAX - 1) / IN_MAX;
        int used = blocks < (size_t)threads ? (int)blocks : threads;
        b.threads = used;
        gs_run_parallel(work, w, sizeof *w, used);
        for (size_t i = 0; i < blocks; i++)
            fwrite(out + i * OUT_MAX, 1, out_len[i], rf.f);
        if (n < (size_t)BATCH * IN_MAX)
            break;
    }
    fwrite(gs_bgzf_eof, 1, sizeof gs_bgzf_eof, rf.f);
    rf_open = 0; /* commit releases it, failing or not */
    if (gs_replace_commit(&rf, "BGZF file", err) != GS_OK)
        goto fail;
    gs_stream_close(zf);
    for (int t = 0; t < threads; t++)
        libdeflate_free_compressor(w[t].c);
    free(in);
    free(out);
    free(out_len);
    return GS_OK;
fail:
    if (rf_open) {
        fclose(rf.f);
        unlink(rf.tmp);
        free(rf.tmp);
    }
    gs_stream_close(zf);
    for (int t = 0; t < threads; t++)
        if (w[t].c)
            libdeflate_free_compressor(w[t].c);
    free(in);
    free(out);
    free(out_len);
    return err->code;
}
