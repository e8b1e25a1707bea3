/* sources.h - where a rank's segments come from (gs_source implementations).
 *
 * - reader: a corpus streamed by gs_reader (one process; rank 0 of a streamed job).
 * - ranges: the rank's pieces of the plan, read through .fai indexes from
 *   the shared file system (plain FASTA with pread, BGZF through its .gzi).
 * - streamed: rank 0 streams a corpus that cannot be seeked (gzip) and deals
 *   its segments round-robin to all ranks, itself included, in bounded
 *   messages while they scan; the other ranks receive.
 */
#ifndef GS_SOURCES_H
#define GS_SOURCES_H

#include <mpi.h>

#include "io/seq/fai.h"
#include "io/seq/fasta.h"
#include "scan/pipeline.h"
#include "plan.h"

gs_source gs_source_reader(gs_reader *r);

typedef struct gs_range_src {
    const gs_plan *plan;
    const gs_layout *layout;
    const gs_fai_entry *rec_fai; /* [n_rec]: each record's index entry */
    gs_seqfile *files;           /* [n_files]: each opened at its first piece, closed after its last */
    int bgzf_threads;            /* threads inflating a BGZF file's blocks (0: 1) */
    int bgzf_inflate;            /* their library (gs_bgzf_set_inflate) */
    size_t block;
    gs_plan_walk walk;           /* this rank's pieces */
    gs_piece piece;              /* the one being read, if have */
    int have;
    uint64_t cur;                /* next owned start in that piece */
    uint64_t bytes_read;         /* file bytes read so far (compressed for BGZF) */
} gs_range_src;

void gs_range_src_init(gs_range_src *s, const gs_plan *plan, int rank, const gs_layout *layout,
                       const gs_fai_entry *rec_fai, gs_seqfile *files, size_t block);
gs_source gs_source_ranges(gs_range_src *s);

typedef struct gs_stream_src {
    MPI_Comm comm;
    int rank, size;
    gs_source inner;  /* rank 0 only */
    uint64_t seq;     /* segments dealt so far (rank 0) */
    int finished;
    double t_send;    /* seconds rank 0 spent sending */
} gs_stream_src;

void gs_stream_src_init(gs_stream_src *s, MPI_Comm comm, gs_source inner);
gs_source gs_source_streamed(gs_stream_src *s);

/* After a failed scan: rank 0 ends the stream for everyone; another rank
 * receives and discards the rest, so rank 0 never blocks sending to it. */
void gs_stream_src_stop(gs_stream_src *s, size_t cap);

#endif
