/* h5_internal.h - what the HDF5 writer and reader share, private to src/io. */
#ifndef GS_H5_INTERNAL_H
#define GS_H5_INTERNAL_H

#include <stddef.h>

/* The innermost reason on HDF5's error stack (what really failed: an MPI-IO
 * or system call, with strerror when there is one), then clear the stack. */
void gs_h5_reason(char *buf, size_t size);

#endif
