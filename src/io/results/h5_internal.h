/* h5_internal.h - what the HDF5 writer and reader share, private to src/io. */
#ifndef GS_H5_INTERNAL_H
#define GS_H5_INTERNAL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gs_error.h"
#include "core/gs_tune.h"

/* The innermost reason on HDF5's error stack (what really failed: an MPI-IO
 * or system call, with strerror when there is one), then clear the stack. */
void gs_h5_reason(char *buf, size_t size);

/* A 1-D chunked dataset written chunk by chunk, compressed on all cores
 * (h5_direct.c). The dataset's filters must be shuffle (when shuffle is
 * set) then deflate at level, as its creation property list says; level 1
 * is ISA-L's level 1, any other libdeflate's. */
typedef struct gs_h5_direct {
    const char *name;  /* the dataset's path in the file, for messages */
    hid_t dset;
    uint64_t n_rows;   /* rows of the dataset */
    size_t chunk_rows; /* rows per chunk */
    size_t elem;       /* bytes per row */
    int shuffle, level;
    /* fill buf with rows [from, from + n); called on any thread, several
     * at once */
    void (*fill)(const void *src, size_t width, uint64_t from, size_t n, void *buf);
    const void *src;
} gs_h5_direct;

/* Write datasets d[0..n) (n <= GS_H5_DIRECT_MAX, all of the same rows,
 * chunk rows and deflate level) through one set of threads and buffers,
 * chunk r of every dataset (in dataset order) before chunk r + 1: memory is
 * about two groups of chunks per core, filled and compressed, whatever the
 * sizes. GS_ESYS "cannot write dataset <name>: <reason> (path)" names the
 * dataset where writing stopped (HDF5's error stack, or out of memory).
 * One process only: see h5_direct.c. tune (NULL: the defaults): debug time
 * prints where the time went; io.h5.threads and io.h5.slots set the
 * threads and the row groups in flight (the file is the same for any). */
enum { GS_H5_DIRECT_MAX = 8 };
gs_status gs_h5_write_direct(const gs_h5_direct *d, int n, const gs_tune *tune, const char *path,
                             gs_error *err);

/* Threads for work on the process's own cores: the cores it may run on (a
 * Slurm allocation's, not the host's), at most most. */
int gs_h5_threads(int most);

#endif
