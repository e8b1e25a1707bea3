/* progress.h - the whole job's residues scanned, for rank 0's progress line.
 *
 * Each rank reports its own count to rank 0 with small nonblocking messages
 * (at most one in flight per rank, sent only when the last has arrived), and
 * rank 0 polls for them without waiting; a collective per report would make
 * every rank stop at the same moments, which a scan that runs at different
 * speeds per rank must never do. At the end every rank sends a final count
 * and rank 0 receives all of them, so no message is left unmatched.
 */
#ifndef GS_PROGRESS_H
#define GS_PROGRESS_H

#include <mpi.h>
#include <stdint.h>

#include "core/gs_error.h"

typedef struct gs_progress {
    MPI_Comm comm;
    int rank, size;
    uint64_t *seen;      /* rank 0: the latest count of each rank */
    uint64_t (*inbox)[2]; /* rank 0: [size] messages (count, final) being received */
    MPI_Request *rq;     /* rank 0: one receive per rank; others: [0] the send */
    uint64_t out[2];     /* others: the message in flight */
    int *done;           /* rank 0: final count of rank r received */
} gs_progress;

/* Collective over comm. GS_ESYS when out of memory on some rank (progress
 * is then simply not shown: gs_progress_update and _finish do nothing). */
gs_status gs_progress_start(gs_progress *p, MPI_Comm comm, gs_error *err);
/* Any rank, from the thread that makes MPI calls: report this rank's count.
 * Rank 0 gets the sum over all ranks as last heard, others 0. Never waits. */
uint64_t gs_progress_update(gs_progress *p, uint64_t mine);
/* Every rank, once its scan ended: send (others) or collect (rank 0) the
 * final counts; rank 0 returns the job's total. Frees p. */
uint64_t gs_progress_finish(gs_progress *p, uint64_t mine);

#endif
