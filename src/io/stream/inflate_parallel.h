/* inflate_parallel.h - one gzip file (a single stream or many members)
 * decompressed on several threads, handed out in order.
 *
 * The file, in memory (mapped), is cut into regions of compressed bytes;
 * each region is decoded by a thread from the first deflate block found in
 * it (deflate_chunk.h), the pieces are checked to join exactly, end to end,
 * and their markers resolved as the windows become known; any piece that
 * does not join is decoded again from where the one before stopped. The
 * output is the bytes zlib gives, every member's CRC32 and ISIZE checked.
 */
#ifndef GS_INFLATE_PARALLEL_H
#define GS_INFLATE_PARALLEL_H

#include "core/gs_error.h"
#include "core/gs_types.h"

typedef struct gs_pinflate gs_pinflate;

/* Decompress in[0, n) (a gzip file: it starts with a member header) on
 * threads threads, region bytes of input a piece (0: a default). in must
 * stay valid until gs_pinflate_close; name is for messages. */
gs_status gs_pinflate_open(const uint8_t *in, size_t n, int threads, size_t region,
                           const char *name, gs_pinflate **p, gs_error *err);
/* The next decompressed bytes: *n of them at *out (valid until the next
 * call), *n == 0 at the end of the data. Corrupt or truncated gzip is
 * GS_EINPUT naming the file, the decompressed and the compressed offset;
 * out of memory GS_ESYS. */
gs_status gs_pinflate_next(gs_pinflate *p, const uint8_t **out, size_t *n, gs_error *err);
/* Compressed bytes decoded and handed out so far (all of them at the end). */
uint64_t gs_pinflate_bytes_in(const gs_pinflate *p);
void gs_pinflate_close(gs_pinflate *p);

#endif
