/* comm.c - agreed errors and small MPI helpers (see comm.h). */
#include "comm.h"

#include <string.h>

gs_status gs_mpi_agree(MPI_Comm comm, gs_error *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = err->code != GS_OK ? rank : size, first = size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size)
        return GS_OK;
    int code = err->code;
    MPI_Bcast(&code, 1, MPI_INT, first, comm);
    MPI_Bcast(err->msg, (int)sizeof err->msg, MPI_CHAR, first, comm);
    err->code = (gs_status)code;
    return err->code;
}

gs_status gs_mpi_fail(int rc, const char *call, const char *file, int line, gs_error *err)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    msg[len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1] = '\0';
    return gs_fail(err, GS_ESYS, "MPI call failed: %s: %s (%s:%d)", call, msg, file, line);
}

void gs_mpi_node_rank(MPI_Comm comm, int *local_rank, int *local_size)
{
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, local_rank);
    MPI_Comm_size(node, local_size);
    MPI_Comm_free(&node);
}
