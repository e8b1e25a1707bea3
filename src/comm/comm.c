/* comm.c - agreed errors, messages of any size and the node rank (see comm.h). */
#define _POSIX_C_SOURCE 200809L
#include "comm.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

gs_status gs_mpi_agree(MPI_Comm comm, gs_error *err)
{
    return gs_mpi_agree_within(comm, err, 0, NULL);
}

/* A failed rank: wait for the reduction at most `seconds`; 0 when it did not
 * complete in time. */
static int wait_within(MPI_Request *rq, double seconds)
{
    double until = MPI_Wtime() + seconds;
    struct timespec nap = {0, 1000000};
    for (;;) {
        int done = 0;
        GS_MPI_CHECK(MPI_Test(rq, &done, MPI_STATUS_IGNORE));
        if (done)
            return 1;
        if (MPI_Wtime() >= until)
            return 0;
        nanosleep(&nap, NULL);
    }
}

gs_status gs_mpi_agree_within(MPI_Comm comm, gs_error *err, double seconds, const char *stuck)
{
    int rank, size;
    GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    GS_MPI_CHECK(MPI_Comm_size(comm, &size));
    int mine = err->code != GS_OK ? rank : size, first = size;
    if (seconds <= 0) {
        /* blocking: MPICH notices a rank that died in a blocking
         * collective and fails the call (tests/mpi/failures.sh kills one
         * with the launcher's cleanup off); a waited-on request it may not */
        GS_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
    } else {
        MPI_Request rq;
        GS_MPI_CHECK(MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, &rq));
        if (err->code == GS_OK) {
            GS_MPI_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else if (!wait_within(&rq, seconds)) {
            /* no status can travel back through another collective: this is
             * the one place below the command layer that reports and ends
             * the job */
            fprintf(stderr, "gscan: error: %s; %s, ending the job\n", err->msg,
                    stuck ? stuck : "the other ranks do not answer");
            fflush(stderr);
            gs_mpi_abort(comm, GS_ESYS);
        }
    }
    if (first == size)
        return GS_OK;
    int code = err->code;
    GS_MPI_CHECK(MPI_Bcast(&code, 1, MPI_INT, first, comm));
    GS_MPI_CHECK(MPI_Bcast(err->msg, (int)sizeof err->msg, MPI_CHAR, first, comm));
    err->code = (gs_status)code;
    return err->code;
}

static int piece(uint64_t bytes, uint64_t off)
{
    return (int)(bytes - off < GS_MPI_PIECE ? bytes - off : GS_MPI_PIECE);
}

void gs_mpi_bcast_bytes(void *buf, uint64_t bytes, int root, MPI_Comm comm)
{
    for (uint64_t off = 0; off < bytes; off += GS_MPI_PIECE)
        GS_MPI_CHECK(MPI_Bcast((char *)buf + off, piece(bytes, off), MPI_BYTE, root, comm));
}

void gs_mpi_send_bytes(const void *buf, uint64_t bytes, int to, int tag, MPI_Comm comm)
{
    for (uint64_t off = 0; off < bytes; off += GS_MPI_PIECE)
        GS_MPI_CHECK(MPI_Send((const char *)buf + off, piece(bytes, off), MPI_BYTE, to, tag, comm));
}

void gs_mpi_recv_bytes(void *buf, uint64_t bytes, int from, int tag, MPI_Comm comm)
{
    for (uint64_t off = 0; off < bytes; off += GS_MPI_PIECE)
        GS_MPI_CHECK(MPI_Recv((char *)buf + off, piece(bytes, off), MPI_BYTE, from, tag, comm,
                              MPI_STATUS_IGNORE));
}

void gs_mpi_reduce_sum_u64(const uint64_t *in, uint64_t *out, uint64_t n, int root, MPI_Comm comm)
{
    const uint64_t per = GS_MPI_PIECE / sizeof *in;
    int rank;
    GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    for (uint64_t off = 0; off < n; off += per)
        GS_MPI_CHECK(MPI_Reduce(in + off, rank == root ? out + off : NULL,
                                (int)(n - off < per ? n - off : per), MPI_UINT64_T, MPI_SUM, root,
                                comm));
}

MPI_Comm gs_mpi_node_comm(MPI_Comm comm)
{
    MPI_Comm node;
    GS_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    return node;
}
