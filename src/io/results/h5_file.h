/* h5_file.h - what the parts of the result file reader share, private to
 * src/io/results: the open file, the bound on sizes taken from it, and the
 * checked reads (h5_open.c, h5read.c, h5_export.c). */
#ifndef GS_H5_FILE_H
#define GS_H5_FILE_H

#include <hdf5.h>

#include "h5read.h"

struct gs_h5_file {
    gs_h5_shape s;  /* s.path is owned */
    hid_t fid;
    uint64_t limit; /* most bytes any dataset or attribute may hold (h5_open.c) */
    uint64_t bytes; /* the file's size */
};

/* Rows per read: a whole number of hit chunks, 8 MiB of the widest column. */
enum { READ_ROWS = 1 << 20 };

/* n items of size bytes each fit the file's limit (no overflow). */
static inline int gs_h5_fits(const gs_h5_file *f, uint64_t n, uint64_t size)
{
    return size <= f->limit && (size == 0 || n <= f->limit / size);
}

/* The hit columns; the last two only in approximate modes. */
extern const char *const gs_h5_hit_cols[6];

/* Each object on path name exists and has a checksummed object header: 1,
 * 0 when one is missing, < 0 when one is of the old format or cannot be
 * loaded (gs_h5_dset_check then says why). */
int gs_h5_path_checked(const gs_h5_file *f, const char *name);

/* Dataset name exists with the rank (1; 2 with GS_DS_2D: 1 or 2 columns),
 * type class and a size the file can hold; strings are fixed-length; its
 * chunks are whole unless GS_DS_LAZY (the hit columns are checked so only
 * when first read, since gscan info never reads them). dims receives its
 * extent. GS_EINPUT naming the dataset and the file otherwise. */
enum { GS_DS_2D = 1, GS_DS_LAZY = 2 };
gs_status gs_h5_dset_check(gs_h5_file *f, const char *name, H5T_class_t cls, int flags,
                           hsize_t dims[2], gs_error *err);

/* Rows [from, from + n) of a dataset as mtype into buf, which holds n rows
 * of cols values (cols 0: the dataset must be 1-D). GS_EINPUT when they
 * cannot be read; no gs_error: HDF5's error stack says why, and the caller
 * passes it on with gs_h5_read_fail, naming the dataset or its group. */
gs_status gs_h5_read_rows(hid_t fid, const char *name, hid_t mtype, hsize_t cols, uint64_t from,
                          uint64_t n, void *buf);
/* GS_EINPUT "cannot read name: <HDF5's reason> (path)". */
gs_status gs_h5_read_fail(gs_h5_file *f, const char *name, gs_error *err);

/* HDF5's own error printing off for the length of a call (restored by
 * gs_h5_quiet_end): a failed call becomes one message naming the file. */
typedef struct gs_h5_quiet {
    H5E_auto2_t fn;
    void *data;
} gs_h5_quiet;
static inline gs_h5_quiet gs_h5_quiet_begin(void)
{
    gs_h5_quiet q = {NULL, NULL};
    H5Eget_auto2(H5E_DEFAULT, &q.fn, &q.data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return q;
}
static inline void gs_h5_quiet_end(gs_h5_quiet q)
{
    H5Eset_auto2(H5E_DEFAULT, q.fn, q.data);
}

#endif
