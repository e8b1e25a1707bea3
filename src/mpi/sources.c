/* sources.c - the segment sources of a rank (see sources.h). */
#include "sources.h"
#include "comm/comm.h"
#include "io/stream/bgzf.h"

#include <stdlib.h>

static gs_status reader_next(void *ctx, uint8_t *buf, gs_segment *seg, int *more, gs_error *err)
{
    return gs_reader_next(ctx, buf, seg, more, err);
}

gs_source gs_source_reader(gs_reader *r)
{
    return (gs_source){.next = reader_next, .ctx = r};
}

void gs_range_src_init(gs_range_src *s, const gs_plan *plan, int rank, const gs_layout *layout,
                       const gs_fai_entry *rec_fai, gs_seqfile *files, size_t block)
{
    *s = (gs_range_src){.layout = layout, .rec_fai = rec_fai, .files = files, .block = block};
    gs_plan_walk_init(&s->walk, plan, rank);
    s->have = gs_plan_next(&s->walk, &s->piece);
    s->cur = s->piece.begin;
}

/* The next segment of the rank's pieces: its record, owned starts and where
 * its text stops, the file opened at its first piece. */
static gs_status ranges_peek(gs_range_src *s, uint64_t *own, uint64_t *stop, gs_seqfile **file,
                             gs_error *err)
{
    const gs_piece *p = &s->piece;
    gs_status st;
    *own = p->end - s->cur < s->block ? p->end - s->cur : s->block;
    *stop = s->cur + *own + s->walk.plan->overlap;
    if (*stop > p->read_end)
        *stop = p->read_end;
    gs_seqfile *f = &s->files[s->layout->rec[p->record].file];
    *file = f;
    if (f->fd < 0 && f->bgzf == NULL) {
        if ((st = gs_seqfile_open(f->path, f, err)) != GS_OK ||
            (f->bgzf && (st = gs_bgzf_set_threads(f->bgzf, s->bgzf_threads, err)) != GS_OK))
            return st;
        if (f->bgzf)
            gs_bgzf_set_inflate(f->bgzf, s->bgzf_inflate);
    }
    return GS_OK;
}

/* The segment read into buf, described; then on to the next piece. */
static void ranges_took(gs_range_src *s, uint8_t *buf, uint64_t own, uint64_t stop,
                        gs_segment *seg, int *more)
{
    const uint32_t record = s->piece.record, file = s->layout->rec[record].file;
    const uint64_t length = s->layout->rec[record].length;
    *seg = (gs_segment){.record = record, .base = s->cur, .text = buf,
                        .len = (size_t)(stop - s->cur), .own = (size_t)own,
                        .turn = stop > length ? length : 0, .file = file};
    s->cur += own;
    *more = 1;
    if (s->cur < s->piece.end)
        return;
    if ((s->have = gs_plan_next(&s->walk, &s->piece)))
        s->cur = s->piece.begin;
    /* done with a file: it is closed, so a reader of many files holds one
     * open (and one read-ahead buffer) at a time */
    if (!s->have || s->layout->rec[s->piece.record].file != file)
        gs_seqfile_close(&s->files[file]);
}

/* The next segment into buf: its residues (raw NULL), or its file bytes
 * where they fit in room (gs_fai_read_raw). */
static gs_status ranges_read(gs_range_src *s, uint8_t *buf, size_t room, gs_segment *seg,
                             gs_raw_text *raw, int *more, gs_error *err)
{
    gs_seqfile *f;
    uint64_t own, stop;
    *more = 0;
    if (!s->have)
        return GS_OK;
    if (ranges_peek(s, &own, &stop, &f, err) != GS_OK)
        return err->code;
    const gs_fai_entry *e = &s->rec_fai[s->piece.record];
    if ((raw ? gs_fai_read_raw(f, e, s->cur, stop, buf, room, raw, &s->bytes_read, err)
             : gs_fai_read_circular(f, e, s->cur, stop, buf, &s->bytes_read, err)) != GS_OK)
        return err->code;
    ranges_took(s, buf, own, stop, seg, more);
    return GS_OK;
}

static gs_status ranges_next(void *ctx, uint8_t *buf, gs_segment *seg, int *more, gs_error *err)
{
    return ranges_read(ctx, buf, 0, seg, NULL, more, err);
}

static gs_status ranges_next_raw(void *ctx, uint8_t *buf, size_t room, gs_segment *seg,
                                 gs_raw_text *raw, int *more, gs_error *err)
{
    return ranges_read(ctx, buf, room, seg, raw, more, err);
}

gs_source gs_source_ranges(gs_range_src *s)
{
    return (gs_source){.next = ranges_next, .next_raw = ranges_next_raw, .ctx = s};
}

/* Streamed segments travel as a header of five uint64 (record, base, len, own,
 * turn) then the residues (gs_mpi_send_bytes). A header with len == END ends
 * the stream; own then says whether rank 0 failed. */
enum { TAG_HDR = 71, TAG_DATA = 72, HDR = 6 };
#define END UINT64_MAX

void gs_stream_src_init(gs_stream_src *s, MPI_Comm comm, gs_source inner)
{
    *s = (gs_stream_src){.comm = comm, .inner = inner};
    GS_MPI_CHECK(MPI_Comm_rank(comm, &s->rank));
    GS_MPI_CHECK(MPI_Comm_size(comm, &s->size));
}

static void send_segment(gs_stream_src *s, int to, const gs_segment *seg)
{
    uint64_t hdr[HDR] = {seg->record, seg->base, seg->len, seg->own, seg->turn, seg->file};
    GS_MPI_CHECK(MPI_Send(hdr, HDR, MPI_UINT64_T, to, TAG_HDR, s->comm));
    gs_mpi_send_bytes(seg->text, seg->len, to, TAG_DATA, s->comm);
}

static void send_end(gs_stream_src *s, int failed)
{
    uint64_t hdr[HDR] = {0, 0, END, (uint64_t)failed, 0, 0};
    for (int to = 1; to < s->size; to++)
        GS_MPI_CHECK(MPI_Send(hdr, HDR, MPI_UINT64_T, to, TAG_HDR, s->comm));
}

static gs_status streamed_next(void *ctx, uint8_t *buf, gs_segment *seg, int *more, gs_error *err)
{
    gs_stream_src *s = ctx;
    *more = 0;
    if (s->finished)
        return GS_OK;
    if (s->rank == 0) {
        for (;;) {
            gs_status st = s->inner.next(s->inner.ctx, buf, seg, more, err);
            if (st != GS_OK || !*more) {
                send_end(s, st != GS_OK);
                s->finished = 1;
                *more = 0;
                return st;
            }
            int to = (int)(s->seq++ % (uint64_t)s->size);
            if (to == 0)
                return GS_OK;
            double t0 = gs_now();
            send_segment(s, to, seg);
            s->t_send += gs_now() - t0;
        }
    }
    uint64_t hdr[HDR];
    GS_MPI_CHECK(MPI_Recv(hdr, HDR, MPI_UINT64_T, 0, TAG_HDR, s->comm, MPI_STATUS_IGNORE));
    if (hdr[2] == END) {
        s->finished = 1;
        if (hdr[3])
            return gs_fail(err, GS_ESYS, "rank 0 stopped streaming the corpus (rank %d)", s->rank);
        return GS_OK;
    }
    gs_mpi_recv_bytes(buf, hdr[2], 0, TAG_DATA, s->comm);
    *seg = (gs_segment){.record = (uint32_t)hdr[0], .base = hdr[1], .text = buf,
                        .len = (size_t)hdr[2], .own = (size_t)hdr[3], .turn = hdr[4],
                        .file = (uint32_t)hdr[5]};
    *more = 1;
    return GS_OK;
}

gs_source gs_source_streamed(gs_stream_src *s)
{
    return (gs_source){.next = streamed_next, .ctx = s};
}

void gs_stream_src_stop(gs_stream_src *s, size_t cap)
{
    if (s->finished)
        return;
    if (s->rank == 0) {
        send_end(s, 1);
        s->finished = 1;
        return;
    }
    uint8_t *buf = malloc(cap ? cap : 1);
    gs_error ignored = {0};
    gs_segment seg;
    int more = 1;
    if (buf == NULL)
        return; /* cannot drain: MPI_Abort by the caller is the way out */
    while (streamed_next(s, buf, &seg, &more, &ignored) == GS_OK && more)
        ;
    free(buf);
}
