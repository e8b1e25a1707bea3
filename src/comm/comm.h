/* comm.h - MPI helpers below the job and the writer: one agreed error per
 * step, messages of any size, node-local rank (and GS_MPI_CHECK, from
 * mpi_check.h).
 *
 * Every rank runs the same phases; between phases gs_mpi_agree makes all ranks
 * learn whether any failed and carry the same message (the lowest failing
 * rank's), so rank 0 prints it once and every rank exits with the same status
 * instead of hanging in the next collective.
 *
 * MPI counts are int: a buffer of more than 2 GiB cannot go in one call. The
 * gs_mpi_*_bytes helpers move any number of bytes in pieces of GS_MPI_PIECE;
 * sender and receiver cut the same length the same way, so the pieces match.
 */
#ifndef GS_COMM_H
#define GS_COMM_H

#include <mpi.h>
#include <stdint.h>

#include "core/gs_error.h"
#include "mpi_check.h" /* GS_MPI_CHECK */

/* Bytes one MPI call moves at most (1 GiB: far from INT_MAX, whatever the
 * datatype's size up to 2 bytes). */
#define GS_MPI_PIECE ((uint64_t)1 << 30)

/* Collective. Returns the agreed status; err then holds the agreed message. */
gs_status gs_mpi_agree(MPI_Comm comm, gs_error *err);

/* gs_mpi_agree for steps after which a rank that failed may have left the
 * others blocked in a collective call it never made (parallel HDF5): a rank
 * that failed waits at most `seconds` for the others to arrive (polling a
 * nonblocking reduction); past it, it prints "gscan: error: <its message>;
 * <stuck>, ending the job" and ends the job with MPI_Abort (GS_ESYS, as a
 * failed MPI call does).
 * Ranks that did not fail wait as long as it takes: only a failed rank can
 * know the others may never come. seconds <= 0: no limit (gs_mpi_agree). */
gs_status gs_mpi_agree_within(MPI_Comm comm, gs_error *err, double seconds, const char *stuck);

/* Collective: broadcast bytes from root (every rank passes the same count). */
void gs_mpi_bcast_bytes(void *buf, uint64_t bytes, int root, MPI_Comm comm);

/* Point to point: bytes to rank `to` / from rank `from`, as one logical
 * message of tag `tag` (the receiver knows the length). */
void gs_mpi_send_bytes(const void *buf, uint64_t bytes, int to, int tag, MPI_Comm comm);
void gs_mpi_recv_bytes(void *buf, uint64_t bytes, int from, int tag, MPI_Comm comm);

/* Collective: out[i] = the sum over ranks of in[i] on root (out is read on
 * root only), for any n. */
void gs_mpi_reduce_sum_u64(const uint64_t *in, uint64_t *out, uint64_t n, int root, MPI_Comm comm);

/* The ranks of comm on this node (MPI_Comm_split_type shared); the caller
 * frees it. */
MPI_Comm gs_mpi_node_comm(MPI_Comm comm);

#endif
