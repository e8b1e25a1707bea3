/* inflate.h - gzip streams (one member or many) inflated with ISA-L, and a
 * sequential file reader on top that reads gzip and plain files alike.
 *
 * Two layers. gs_inflate is the codec alone: feed compressed bytes, pull
 * decompressed ones, told where each gzip member ends, errors with their
 * compressed offset. gs_zfile reads a file (or an open descriptor, e.g. a
 * pipe) with it: gzip when the first two bytes are the gzip magic, else the
 * bytes unchanged, as zlib's gzread does.
 */
#ifndef GS_INFLATE_H
#define GS_INFLATE_H

#include "core/gs_error.h"
#include "core/gs_types.h"

typedef struct gs_inflate gs_inflate;

/* A decoder positioned at the start of a gzip member. */
gs_status gs_inflate_init(gs_inflate **z, gs_error *err);
/* Hand it in[0, n): the bytes stay the caller's and must stay valid until
 * gs_inflate_avail_in says they are consumed (replaces what is unread). */
void gs_inflate_feed(gs_inflate *z, const uint8_t *in, size_t n);
/* Compressed bytes fed but not consumed yet, and where they start. */
size_t gs_inflate_avail_in(const gs_inflate *z);
const uint8_t *gs_inflate_next_in(const gs_inflate *z);

typedef enum gs_inflate_rc {
    GS_INFLATE_ERROR = -1, /* bad gzip data: *why says what */
    GS_INFLATE_MORE = 0,   /* wants more input (or more room: call again) */
    GS_INFLATE_MEMBER = 1  /* a member ended, its CRC32 and ISIZE checked */
} gs_inflate_rc;

/* Decompress into out[0, cap); *got bytes written (possibly 0). After
 * GS_INFLATE_MEMBER the unread input starts after that member: call
 * gs_inflate_reset to read another one. */
gs_inflate_rc gs_inflate_pull(gs_inflate *z, uint8_t *out, size_t cap, size_t *got,
                              const char **why);
/* Start a new member, keeping the unread input. */
void gs_inflate_reset(gs_inflate *z);
/* Compressed bytes consumed since init (all members). */
uint64_t gs_inflate_in_offset(const gs_inflate *z);
void gs_inflate_end(gs_inflate *z);

/* A file read sequentially, inflated when it is gzip (multi-member and BGZF
 * included: BGZF is multi-member gzip). Bytes after the last complete member
 * that do not start another member are ignored, as gzip -d and zlib do. */
typedef struct gs_zfile gs_zfile;

/* Open path for reading (GS_EINPUT naming it when it cannot be opened). */
gs_status gs_zfile_open(const char *path, gs_zfile **f, gs_error *err);
/* Read from fd (taken over: closed by gs_zfile_close); name is for messages
 * and is copied. */
gs_status gs_zfile_fdopen(int fd, const char *name, gs_zfile **f, gs_error *err);
/* Decompress a gzip regular file on threads threads (inflate_parallel.h)
 * instead of one: called after open, before the first read. A file that is
 * not gzip, a pipe, a file of less than two regions (GS_GZIP_REGION bytes,
 * default 4 MiB) or fewer than 4 threads stays on one thread: below 4 the
 * parallel decoder, which does more work a byte, is slower than ISA-L. */
gs_status gs_zfile_parallel(gs_zfile *f, int threads, gs_error *err);
/* The next decompressed bytes without a copy: their count (> 0) with *out
 * pointing at them, valid until the next call; 0 at the end, -1 as
 * gs_zfile_read. Not to be mixed with gs_zfile_read. */
int64_t gs_zfile_view(gs_zfile *f, const uint8_t **out, gs_error *err);
/* Read up to cap decompressed bytes into out: the count (> 0), 0 at the end,
 * or -1 with err set: corrupt or truncated gzip is GS_EINPUT naming the file,
 * the decompressed and the compressed offset; a read error GS_ESYS. */
int64_t gs_zfile_read(gs_zfile *f, uint8_t *out, size_t cap, gs_error *err);
/* Bytes read from the file so far (compressed bytes for gzip). */
uint64_t gs_zfile_bytes_in(const gs_zfile *f);
/* Whether the file is gzip (known after open). */
int gs_zfile_is_gzip(const gs_zfile *f);
void gs_zfile_close(gs_zfile *f);

#endif
