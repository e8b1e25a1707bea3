/* progress.c - every rank's residues on rank 0's progress line (see progress.h). */
#include "progress.h"

#include <stdlib.h>
#include <string.h>

#include "comm/mpi_check.h"

enum { TAG_PROGRESS = 73 };

gs_status gs_progress_start(gs_progress *p, MPI_Comm comm, gs_error *err)
{
    memset(p, 0, sizeof *p);
    p->comm = comm;
    GS_MPI_CHECK(MPI_Comm_rank(comm, &p->rank));
    GS_MPI_CHECK(MPI_Comm_size(comm, &p->size));
    p->rq = calloc((size_t)p->size, sizeof *p->rq);
    if (p->rank == 0) {
        p->seen = calloc((size_t)p->size, sizeof *p->seen);
        p->inbox = calloc((size_t)p->size, sizeof *p->inbox);
        p->done = calloc((size_t)p->size, sizeof *p->done);
    }
    int ok = p->rq && (p->rank != 0 || (p->seen && p->inbox && p->done)), all = 0;
    /* all or none: a rank without its buffers must not leave rank 0 waiting */
    GS_MPI_CHECK(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm));
    if (!all) {
        free(p->rq);
        free(p->seen);
        free(p->inbox);
        free(p->done);
        memset(p, 0, sizeof *p);
        return gs_fail(err, GS_ESYS, "out of memory (progress)");
    }
    for (int r = 0; r < p->size; r++)
        p->rq[r] = MPI_REQUEST_NULL;
    if (p->rank == 0)
        for (int r = 1; r < p->size; r++)
            GS_MPI_CHECK(MPI_Irecv(p->inbox[r], 2, MPI_UINT64_T, r, TAG_PROGRESS, comm, &p->rq[r]));
    return GS_OK;
}

/* Rank 0: take in whatever arrived, re-posting the receive of a rank until
 * its final count came. wait: block until every final count is in. */
static void collect(gs_progress *p, int wait)
{
    for (int r = 1; r < p->size; r++) {
        while (!p->done[r]) {
            int got = 0;
            if (wait) {
                GS_MPI_CHECK(MPI_Wait(&p->rq[r], MPI_STATUS_IGNORE));
                got = 1;
            } else {
                GS_MPI_CHECK(MPI_Test(&p->rq[r], &got, MPI_STATUS_IGNORE));
            }
            if (!got)
                break;
            p->seen[r] = p->inbox[r][0];
            p->done[r] = p->inbox[r][1] != 0;
            if (!p->done[r])
                GS_MPI_CHECK(MPI_Irecv(p->inbox[r], 2, MPI_UINT64_T, r, TAG_PROGRESS, p->comm,
                                       &p->rq[r]));
        }
    }
}

static uint64_t total(const gs_progress *p)
{
    uint64_t t = 0;
    for (int r = 0; r < p->size; r++)
        t += p->seen[r];
    return t;
}

uint64_t gs_progress_update(gs_progress *p, uint64_t mine)
{
    if (p->rq == NULL)
        return mine;
    if (p->rank == 0) {
        p->seen[0] = mine;
        collect(p, 0);
        return total(p);
    }
    int idle = 1;
    GS_MPI_CHECK(MPI_Test(&p->rq[0], &idle, MPI_STATUS_IGNORE));
    if (idle) {
        p->out[0] = mine;
        p->out[1] = 0;
        GS_MPI_CHECK(MPI_Isend(p->out, 2, MPI_UINT64_T, 0, TAG_PROGRESS, p->comm, &p->rq[0]));
    }
    return 0;
}

uint64_t gs_progress_finish(gs_progress *p, uint64_t mine)
{
    uint64_t t = mine;
    if (p->rq == NULL)
        return t;
    if (p->rank == 0) {
        p->seen[0] = mine;
        collect(p, 1);
        t = total(p);
    } else {
        GS_MPI_CHECK(MPI_Wait(&p->rq[0], MPI_STATUS_IGNORE));
        p->out[0] = mine;
        p->out[1] = 1;
        GS_MPI_CHECK(MPI_Send(p->out, 2, MPI_UINT64_T, 0, TAG_PROGRESS, p->comm));
        t = 0;
    }
    free(p->rq);
    free(p->seen);
    free(p->inbox);
    free(p->done);
    memset(p, 0, sizeof *p);
    return t;
}
