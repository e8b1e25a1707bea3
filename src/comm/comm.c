/* comm.c - agreed errors and small MPI helpers (see comm.h). */
#include "comm.h"

#include <string.h>

gs_status gs_mpi_agree(MPI_Comm comm, gs_error *err)
{
    int rank, size;
    GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    GS_MPI_CHECK(MPI_Comm_size(comm, &size));
    int mine = err->code != GS_OK ? rank : size, first = size;
    GS_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
    if (first == size)
        return GS_OK;
    int code = err->code;
    GS_MPI_CHECK(MPI_Bcast(&code, 1, MPI_INT, first, comm));
    GS_MPI_CHECK(MPI_Bcast(err->msg, (int)sizeof err->msg, MPI_CHAR, first, comm));
    err->code = (gs_status)code;
    return err->code;
}

void gs_mpi_node_rank(MPI_Comm comm, int *local_rank, int *local_size)
{
    MPI_Comm node;
    GS_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    GS_MPI_CHECK(MPI_Comm_rank(node, local_rank));
    GS_MPI_CHECK(MPI_Comm_size(node, local_size));
    GS_MPI_CHECK(MPI_Comm_free(&node));
}
