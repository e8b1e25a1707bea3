/* seq_cursor.h - what the streaming readers of FASTA (fasta.c) and FASTQ
 * (fastq.c) share inside src/io/seq (private): the decompressed text of the
 * file being read, a piece at a time, and the copy of sequence bytes into a
 * segment.
 */
#ifndef GS_SEQ_CURSOR_H
#define GS_SEQ_CURSOR_H

#include "core/gs_error.h"
#include "io/stream/stream.h"

#include <stddef.h>
#include <stdint.h>

/* A byte range of a plain file, read with pread a piece at a time: a part
 * of a file that several threads read (parts.c). The first piece may be
 * held already (the bytes the part was counted in). */
typedef struct gs_seq_range {
    int fd;
    const char *path;
    uint64_t at, stop; /* the next byte to read, the range's end */
    uint8_t *buf;      /* cap bytes: the pieces */
    size_t cap;
    size_t held;       /* buf[0, held) holds the bytes from at on, unread */
    uint64_t bytes;    /* bytes read from the file */
} gs_seq_range;

/* The next piece of g into *in, *n bytes (0 at the range's end). */
gs_status gs_seq_range_piece(gs_seq_range *g, const uint8_t **in, size_t *n, gs_error *err);
/* Bytes [at, at + n) of a file that was as long when it was cut into parts:
 * a file that ends first changed while it was read (GS_EINPUT). */
gs_status gs_seq_pread_exact(int fd, const char *path, uint8_t *out, size_t n, uint64_t at,
                             gs_error *err);

/* The unread text of one open file: in[pos, end) of the piece
 * gs_stream_view (or, for a part, gs_seq_range_piece) gave last. */
typedef struct gs_seq_cursor {
    gs_stream *gz;     /* NULL between files */
    gs_seq_range *range; /* a part: read through it (gz is NULL) */
    const uint8_t *in; /* decompressed bytes (gs_stream_view's) */
    size_t pos, end;   /* unread part of in[] */
    int eof;           /* the file has returned all its bytes */
    uint64_t file_off; /* decompressed bytes of the file before in[end] */
} gs_seq_cursor;

/* The next piece of the file; at its end c->eof is set (pos == end). */
static inline gs_status gs_seq_cursor_refill(gs_seq_cursor *c, gs_error *err)
{
    if (c->eof)
        return GS_OK;
    size_t n;
    gs_status st = c->range ? gs_seq_range_piece(c->range, &c->in, &n, err)
                            : gs_stream_view(c->gz, &c->in, &n, err);
    if (st != GS_OK)
        return st;
    c->eof = n == 0;
    c->pos = 0;
    c->end = n;
    c->file_off += (uint64_t)n;
    return GS_OK;
}

/* Unread bytes at hand: afterwards c->pos == c->end only at the file's end. */
static inline gs_status gs_seq_cursor_ready(gs_seq_cursor *c, gs_error *err)
{
    return c->pos < c->end ? GS_OK : gs_seq_cursor_refill(c, err);
}

/* 1 when every byte of s[0 .. n) is above floor, copying them to out on
 * the way unless out is NULL (inlined with a constant out, the test folds
 * away). With SSE2 (every x86-64) in 16-byte loads, the last overlapping
 * the one before, so a 60-column line takes four loads and no byte-at-a-time
 * tail (where the compiler's own vectorised loop spent a third of the
 * parse); elsewhere one loop the compiler vectorises. */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
static inline int gs_seq_scan_above(uint8_t *restrict out, const uint8_t *restrict s, size_t n,
                                    uint8_t floor)
{
#if defined(__SSE2__)
    if (n >= 16) {
        __m128i m = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
        if (out)
            _mm_storeu_si128((__m128i *)(void *)(out + n - 16), m);
        for (size_t i = 0; i + 16 < n; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            if (out)
                _mm_storeu_si128((__m128i *)(void *)(out + i), v);
            m = _mm_min_epu8(m, v);
        }
        /* floor + 1 - byte, saturated: zero in every lane when all are above floor */
        __m128i low = _mm_subs_epu8(_mm_set1_epi8((char)(floor + 1)), m);
        return _mm_movemask_epi8(_mm_cmpeq_epi8(low, _mm_setzero_si128())) == 0xffff;
    }
#endif
    uint8_t m = 0xff;
    for (size_t i = 0; i < n; i++) {
        if (out)
            out[i] = s[i];
        m = s[i] < m ? s[i] : m;
    }
    return m > floor;
}

/* Copy n bytes; 1 when none is ' ' or below (so none is '\n', '\r', ' ' or
 * '\t'). */
static inline int gs_seq_copy_clean(uint8_t *restrict out, const uint8_t *restrict s, size_t n)
{
    return gs_seq_scan_above(out, s, n, ' ');
}

/* 1 when every byte of s[0 .. n) is above floor. */
static inline int gs_seq_all_above(const uint8_t *s, size_t n, uint8_t floor)
{
    return gs_seq_scan_above(NULL, s, n, floor);
}

/* Copy n sequence bytes (no '\n') to out, dropping '\r', ' ' and '\t';
 * returns the residues written. */
static inline size_t gs_seq_copy_residues(uint8_t *restrict out, const uint8_t *restrict s,
                                          size_t n)
{
    if (gs_seq_copy_clean(out, s, n))
        return n;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        out[k] = c;
        k += !(c == '\r' || c == ' ' || c == '\t');
    }
    return k;
}

#endif
