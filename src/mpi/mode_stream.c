/* mode_stream.c - the streamed mode: rank 0 reads a corpus that cannot be
 * read by ranges once, with the local mode's reader, and deals its segments
 * round-robin to every rank, itself included (sources.h: gs_stream_src);
 * see mode.h.
 *
 * The hits of dealt segments interleave across ranks, so they are gathered
 * to rank 0 and merged there (contract §4 allows either).
 */
#include "mode.h"

static gs_status stream_open(gs_job *j, gs_pass *p, gs_error *err)
{
    gs_reader_state *s = j->ms;
    gs_source inner;
    gs_status st = gs_reader_state_open(j, p, &inner, err);
    gs_stream_src_init(&s->ss, j->comm, inner);
    p->src[0] = gs_source_streamed(&s->ss);
    p->n_src = 1;
    return st;
}

/* After a failed scan (or a reader that did not open on rank 0), rank 0
 * ends the stream for everyone and the others drain it. */
static gs_status stream_close(gs_job *j, gs_pass *p, gs_status st, gs_error *err)
{
    gs_reader_state *s = j->ms;
    gs_stream_src_stop(&s->ss, j->block + j->overlap);
    p->t_send += s->ss.t_send;
    return gs_reader_state_close(j, p, st, err);
}

const gs_mode gs_mode_streamed = {.name = "streamed", .names = GS_NAMES_AFTER, .gathers_hits = 1,
                                  .plan = gs_reader_state_plan, .open = stream_open,
                                  .close = stream_close, .layout = gs_reader_state_layout,
                                  .free = gs_reader_state_free};
