/* inflate.c - gzip streams inflated with ISA-L (igzip): the codec under the
 * byte-stream reader (stream.c).
 *
 * Read on one thread, one thread's inflate speed is the read speed of a gzip
 * corpus: ISA-L's isal_inflate is the fastest inflate Debian packages (about
 * 1.7x zlib on this project's genomes, docs/performance.md). With crc_flag ISAL_GZIP it parses the gzip
 * header, inflates, and checks the trailer's CRC32 and ISIZE itself, stopping
 * at the member's end (ISAL_BLOCK_FINISH) with the rest of the input unread,
 * so members are read one after another by resetting the state.
 */
#include "inflate.h"

#include <isa-l/igzip_lib.h>
#include <stdlib.h>

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
