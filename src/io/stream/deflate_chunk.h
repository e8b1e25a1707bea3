/* deflate_chunk.h - decode a piece of a gzip file from any deflate block,
 * with or without knowing the 32 KiB that came before it.
 *
 * The building block of parallel gzip decompression (inflate_parallel.h):
 * a piece starting at a block boundary in the middle of a stream is decoded
 * before its window (the previous 32 KiB of output) is known. Its
 * back-references into that unknown window are written as markers, 16-bit
 * symbols 256 + i standing for byte i of the window, until the last 32 KiB
 * written holds no marker; from there on no later symbol can need the
 * window, and decoding goes on in plain bytes. Once the window is known the
 * markers are replaced (gs_dchunk_resolve).
 *
 * Gzip framing is decoded too: a member's trailer is recorded (its CRC32
 * and ISIZE are checked by whoever puts the pieces in order), and a member
 * that follows starts with an empty window. Nothing here is trusted to be a
 * real block start but the start of the file: the caller checks that each
 * piece starts exactly where the one before it stopped.
 */
#ifndef GS_DEFLATE_CHUNK_H
#define GS_DEFLATE_CHUNK_H

#include "core/gs_error.h"

#include <stddef.h>
#include <stdint.h>

enum { GS_DEFLATE_WINDOW = 32768 };

/* A member's end inside a piece. */
typedef struct gs_member_end {
    uint64_t at;          /* the piece's decompressed bytes before the end */
    uint32_t crc, isize;  /* the member's trailer: CRC32 and length mod 2^32 */
} gs_member_end;

/* One decoded piece. Its output is head (n_head symbols, markers possible)
 * followed by tail (n_tail bytes). Buffers are kept for the next decode. */
typedef struct gs_dchunk {
    uint64_t start_bit;  /* where decoding started (a block header, or a member header) */
    uint64_t stop_bit;   /* the block header where it stopped, or the end of the data */
    int eos;             /* the gzip data ended at stop_bit (no member follows) */
    const char *why;     /* NULL, or why the data is not valid deflate/gzip */
    uint64_t err_byte;   /* compressed byte where that was found */
    uint16_t *head;      /* [GS_DEFLATE_WINDOW + n_head]: markers, then the symbols */
    size_t n_head, head_cap;
    uint8_t *tail;       /* [GS_DEFLATE_WINDOW + n_tail]: window, then the bytes */
    size_t n_tail, tail_cap;
    gs_member_end *ends; /* members that ended in this piece, in order */
    size_t n_ends, ends_cap;
    void *tables;        /* the decoder's Huffman tables, kept between decodes */
} gs_dchunk;

/* Decode in[0, n) from start_bit. at_member: a gzip member header starts
 * there (start_bit is a multiple of 8); else a deflate block header.
 * window: the win_len bytes of the current member before start_bit (up to
 * GS_DEFLATE_WINDOW), or NULL when unknown (markers). Stops at the first
 * block header at or after stop_bit, at one after the output has reached
 * max_out bytes, or at the end of the data; always decodes at least one
 * block. GS_OK; GS_EINPUT with c->why and c->err_byte set (output before
 * the error kept); GS_ESYS when out of memory. No gs_error: a trial decode
 * (gs_dchunk_find) fails by design, and only the caller knows the file and
 * the output offset a message names. */
gs_status gs_dchunk_decode(gs_dchunk *c, const uint8_t *in, size_t n, uint64_t start_bit,
                           int at_member, const uint8_t *window, size_t win_len, uint64_t stop_bit,
                           size_t max_out);

/* Find the first bit in [from_bit, to_bit) where a non-final dynamic block
 * starts whose header is valid and whose whole block decodes, with an
 * unknown window, and decode from there as gs_dchunk_decode does. GS_OK
 * with *found = 1 when found (c->why may still be set by a later block),
 * *found = 0 when none was; GS_ESYS when out of memory. */
gs_status gs_dchunk_find(gs_dchunk *c, const uint8_t *in, size_t n, uint64_t from_bit,
                         uint64_t to_bit, uint64_t stop_bit, size_t max_out, int *found);

/* Replace the markers of c->head by the window bytes (window: the
 * GS_DEFLATE_WINDOW bytes before the piece; only the last win_len of them
 * belong to the piece's member) and return the head as bytes (in place:
 * n_head bytes at the returned pointer). NULL when a marker points before
 * the member's start: the data is invalid, decode it again with the window
 * known to report where. */
const uint8_t *gs_dchunk_resolve(gs_dchunk *c, const uint8_t *window, size_t win_len);

void gs_dchunk_free(gs_dchunk *c);

#endif
