/* inflate.h - gzip streams (one member or many) inflated with ISA-L.
 *
 * The codec alone: feed compressed bytes, pull decompressed ones, told where
 * each gzip member ends, errors with their compressed offset. Files, pipes
 * and the choice between gzip and plain are the byte-stream reader's
 * (stream.h).
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

#endif
