/* seq_range.c - a byte range of a plain file read with pread, a piece at
 * a time, for the streaming reader's cursor (seq_cursor.h; parts.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "seq_cursor.h"

#include <inttypes.h>

#include "io/stream/bgzf.h"

gs_status gs_seq_pread_exact(int fd, const char *path, uint8_t *out, size_t n, uint64_t at,
                             gs_error *err)
{
    int ended = 0;
    if (gs_pread_full(fd, out, n, at, path, &ended, err) != GS_OK)
        return err->code;
    if (ended)
        return gs_fail(err, GS_EINPUT,
                       "the file changed while it was read: it ends before byte %" PRIu64 " (%s)",
                       at + n, path);
    return GS_OK;
}

gs_status gs_seq_range_piece(gs_seq_range *g, const uint8_t **in, size_t *n, gs_error *err)
{
    *in = g->buf;
    *n = 0;
    if (g->held) { /* counted in this buffer: the whole part */
        *n = g->held;
        g->at += g->held;
        g->held = 0;
        return GS_OK;
    }
    if (g->at >= g->stop)
        return GS_OK;
    size_t want = g->stop - g->at < g->cap ? (size_t)(g->stop - g->at) : g->cap;
    if (gs_seq_pread_exact(g->fd, g->path, g->buf, want, g->at, err) != GS_OK)
        return err->code;
    g->bytes += want;
    g->at += want;
    *n = want;
    return GS_OK;
}
