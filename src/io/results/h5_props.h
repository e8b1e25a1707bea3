/* h5_props.h - the file-access properties every HDF5 file of gscan is
 * created or opened with (h5_props.c), private to src/io/results: the one
 * place that says how gscan's files meet a cluster file system. */
#ifndef GS_H5_PROPS_H
#define GS_H5_PROPS_H

#include <hdf5.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gs_tune.h"

/* Datasets and chunks of at least this many bytes start at a multiple of
 * it in the file (io.h5.align; 1 MiB, a common Lustre stripe size). */
enum { GS_H5_ALIGN_DEFAULT = 1 << 20 };

/* What the writer asks of MPI-IO: hints, "KEY=VALUE" each (--mpi-hint),
 * applied after gscan's own so they override it. */
typedef struct gs_h5_mpi_hints {
    char *const *v;
    size_t n;
} gs_h5_mpi_hints;

/* A file-access property list for reading a result file (gscan info,
 * export): the default driver, file locking off. < 0 on failure (HDF5's
 * error stack says why). */
hid_t gs_h5_fapl_read(void);

/* A file-access property list for writing a result file over comm: the
 * MPI-IO driver with hints, collective metadata reads and writes, the 1.8
 * file format, datasets aligned per tune (NULL: the defaults), file locking
 * off. < 0 on failure (HDF5's error stack says why). Collective only in
 * that every rank must pass the same hints. */
hid_t gs_h5_fapl_write(MPI_Comm comm, const gs_tune *tune, gs_h5_mpi_hints hints);

/* The alignment tune asks for: io.h5.align, 0 the default, 1 none. */
uint64_t gs_h5_align(const gs_tune *tune);

#endif
