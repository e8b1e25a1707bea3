/* stream.h - one reader for every byte stream gscan reads: plain, gzip
 * (one member or many), BGZF, standard input and pipes.
 *
 * The htslib hFILE+BGZF way: a file is opened by path ("-": standard input),
 * its compression is decided once, at open, from its first bytes (so a pipe
 * is never read twice), and the caller sees the decompressed bytes through
 * one opaque handle whatever the container. peek shows the first bytes
 * without consuming them, so a format can be sniffed on bytes the reader
 * then goes on from. Corrupt or truncated gzip is GS_EINPUT naming the file
 * with the decompressed and the compressed offset; bytes after the last
 * complete member that do not start another one are ignored, as gzip -d and
 * zlib do. A regular gzip file may be inflated on several threads
 * (inflate_parallel.h); callers see the same bytes either way.
 */
#ifndef GS_STREAM_H
#define GS_STREAM_H

#include "bgzf.h"
#include "core/gs_error.h"
#include "core/gs_tune.h"
#include "core/gs_types.h"

typedef struct gs_stream gs_stream;

typedef struct gs_stream_opts {
    /* threads that may inflate one regular gzip file: 4 or more use the
     * parallel decoder when the file holds two regions (tune
     * io_gzip_region, 4 MiB by default); below 4 it, which does more work
     * a byte, is slower than ISA-L on one thread. 0 or 1: one. */
    int threads;
    const gs_tune *tune; /* NULL: defaults */
    const char *what;    /* what the file is, for the open error ("corpus file" if NULL) */
} gs_stream_opts;

/* Open path ("-": standard input) and read its first bytes to decide its
 * compression. o may be NULL (one thread, defaults). A file that cannot be
 * opened is "cannot open <what>: <why> (<path>)" (gs_fail_open: GS_EINPUT
 * or, out of descriptors or memory, GS_ESYS). */
gs_status gs_stream_open(const char *path, const gs_stream_opts *o, gs_stream **s,
                         gs_error *err);
/* What the first bytes said (gs_bgzf_sniff). */
gs_compression gs_stream_compression(const gs_stream *s);
/* The next decompressed bytes, not consumed: at least want of them (*n),
 * fewer only at the end of the data; *out is valid until the next call. */
gs_status gs_stream_peek(gs_stream *s, size_t want, const uint8_t **out, size_t *n,
                         gs_error *err);
/* The next decompressed bytes without a copy, consumed: *n > 0 of them at
 * *out (valid until the next call), *n == 0 at the end of the data. */
gs_status gs_stream_view(gs_stream *s, const uint8_t **out, size_t *n, gs_error *err);
/* Read up to cap decompressed bytes into out: *n > 0 of them, 0 at the end. */
gs_status gs_stream_read(gs_stream *s, uint8_t *out, size_t cap, size_t *n, gs_error *err);
/* Bytes read from the file so far (compressed bytes for gzip). */
uint64_t gs_stream_bytes_in(const gs_stream *s);
void gs_stream_close(gs_stream *s);

#endif
