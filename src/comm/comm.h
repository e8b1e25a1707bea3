/* comm.h - MPI helpers: one agreed error per job, node-local rank (and
 * GS_MPI_CHECK, from mpi_check.h).
 *
 * Every rank runs the same phases; between phases gs_mpi_agree makes all ranks
 * learn whether any failed and carry the same message (the lowest failing
 * rank's), so rank 0 prints it once and every rank exits with the same status
 * instead of hanging in the next collective.
 */
#ifndef GS_COMM_H
#define GS_COMM_H

#include <mpi.h>

#include "core/gs_error.h"
#include "mpi_check.h" /* GS_MPI_CHECK */

/* Collective. Returns the agreed status; err then holds the agreed message. */
gs_status gs_mpi_agree(MPI_Comm comm, gs_error *err);

/* Rank among the ranks of this node (MPI_Comm_split_type shared), and how
 * many ranks share the node. */
void gs_mpi_node_rank(MPI_Comm comm, int *local_rank, int *local_size);

#endif
