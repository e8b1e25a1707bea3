/* h5out.h - write the result file of contract §3 (HDF5); h5read.h reads it.
 *
 * Writing is collective over an MPI communicator (one process is a
 * communicator of one): every rank passes its own hits, already sorted and
 * forming one contiguous run of the global order, and its own timings; rank 0
 * passes the pattern set, the layout and the reduced counts (other ranks may
 * pass NULL). The file is written under a temporary name (gs_tmp_name,
 * replace_file.h) and renamed to <out> by rank 0 only when everything was
 * written and closed, so a failed run never leaves a file that looks finished.
 */
#ifndef GS_H5OUT_H
#define GS_H5OUT_H

#include <mpi.h>

#include "core/gs_error.h"
#include "core/gs_types.h"
#include "core/gs_result.h"
#include "h5read.h" /* reading it back */
#include "hit_seq.h"

gs_status gs_h5_write(const char *path, gs_result *res, MPI_Comm comm, gs_error *err);
/* 1 (on every rank) after a write whose file HDF5 could not close (a full
 * disk or a file-size limit that the close's metadata flush met): HDF5 1.10
 * then frees the file but keeps its ID, and its own close of that ID at
 * MPI_Finalize crashes. The process should leave without finalizing, as for
 * gs_h5_read_abandoned. */
int gs_h5_write_abandoned(void);

#endif
