/* h5_write.h - the collective steps of the result file writer, private to
 * src/io/results: the writer's state, the agreed status, and datasets and
 * attributes written the same way by every rank (h5_write_dset.c). h5out.c
 * decides what goes into the file.
 */
#ifndef GS_H5_WRITE_H
#define GS_H5_WRITE_H

#include <hdf5.h>
#include <mpi.h>

#include "core/gs_error.h"
#include "core/gs_tune.h"
#include "core/gs_types.h"

/* Deflate level 1: hit columns are sorted integers which, after the shuffle
 * filter groups their bytes, compress nearly as well at level 1 as at 4-9
 * while costing a fraction of the CPU time; the write must not become the
 * slow phase of a scan that produced the hits at GPU speed. */
enum { DEFLATE_LEVEL = 1 };

typedef struct wctx {
    MPI_Comm comm;
    int rank, size;
    const char *path;    /* final name, for messages */
    gs_error e;          /* this rank's first failure, then the agreed one */
    hid_t fid;           /* the file being written */
    hid_t dxpl;          /* collective transfer */
    const gs_tune *tune; /* the direct writer's knobs (NULL: defaults) */
} wctx;

/* Fill buf with rows [from, from + n) of src; width = bytes per row. */
typedef void (*fill_fn)(const void *src, size_t width, uint64_t from, size_t n, void *buf);

/* How one dataset is laid out, and where its rows come from: rows of cols
 * elements (cols 0: 1-D). */
typedef struct dspec {
    const char *name;  /* absolute path in the file */
    hid_t ftype;       /* file type (closed by the caller when it made it) */
    hid_t mtype;       /* memory type */
    size_t row_bytes;  /* bytes of one row in memory and in buf */
    hsize_t cols;      /* 0: 1-D [n]; else 2-D [n][cols] */
    uint64_t n;        /* global rows */
    hsize_t chunk;     /* rows per chunk; 0: contiguous */
    int shuffle;       /* numbers: the shuffle filter helps deflate */
    fill_fn fill;      /* this rank's rows, from src */
    const void *src;
} dspec;

/* Record GS_ESYS "cannot <what> <obj>: <HDF5's reason> (path)". */
void gs_h5w_fail(wctx *w, const char *what, const char *obj);
/* Collective: GS_OK when every rank is fine; otherwise every rank ends up
 * holding the message of the lowest failing rank and returns its status.
 * A rank that failed waits for the others a bounded time (h5_write_dset.c). */
gs_status gs_h5w_agree(wctx *w);

/* Rows per chunk of a dataset of n rows of row_bytes (0: contiguous, for
 * an empty one). */
hsize_t gs_h5w_chunk_rows(uint64_t n, size_t row_bytes);
/* Create dataset d and write this rank's rows [off, off + n) of it (local
 * row 0 = global row off) through d->fill. Collective: every rank calls it
 * with the same d. */
gs_status gs_h5w_dset(wctx *w, const dspec *d, uint64_t off, uint64_t n);
/* Datasets d[0..nc) of the same rows and chunks, this rank's rows [off,
 * off + n) written piece by piece (piece rows, a whole number of chunks):
 * before each piece of cnt rows pull(ctx, cnt) readies them, and each
 * d[k].fill is called with from 0 .. cnt. Collective; every rank makes as
 * many writes as the rank with the most pieces. */
gs_status gs_h5w_stream(wctx *w, const dspec *d, int nc, uint64_t off, uint64_t n, uint64_t piece,
                        gs_status (*pull)(void *ctx, size_t cnt, gs_error *err), void *ctx);
/* One writer: datasets d[0..n) at once, their chunks compressed on all
 * cores (h5_direct.c). */
gs_status gs_h5w_direct(wctx *w, const dspec *d, int n);
/* Rank 0's column of d->n fixed-length strings of d->row_bytes bytes
 * (chunked or contiguous), or of numbers (d->ftype, d->mtype; chunked,
 * shuffled). */
gs_status gs_h5w_strings(wctx *w, const dspec *d, int chunked);
gs_status gs_h5w_numbers(wctx *w, const dspec *d);
/* A root attribute; a group. */
gs_status gs_h5w_attr_str(wctx *w, const char *name, const char *value);
/* A string attribute of the object obj (a group or dataset path). */
gs_status gs_h5w_attr_str_on(wctx *w, const char *obj, const char *name, const char *value);
gs_status gs_h5w_attr_int(wctx *w, const char *name, int value);
gs_status gs_h5w_group(wctx *w, const char *name);

/* The /hits group (h5_hits.c): what every rank knows of the file's tables,
 * to check each hit against; whether a hit's ids fit them; and the group,
 * every rank's hits (res->hits, or res->hit_stream) at its offset. */
struct gs_result;
typedef struct gs_h5w_hits_meta {
    uint64_t n_pat, n_rec;
    int32_t n_strands, approx; /* approx: /hits/distance and /hits/end too */
} gs_h5w_hits_meta;
int gs_h5w_hit_ok(const gs_hit *h, const gs_h5w_hits_meta *m);
gs_status gs_h5w_hits(wctx *w, const struct gs_result *res, const gs_h5w_hits_meta *m);

/* The /tally group (h5_tally.c): what every rank needs to write it, filled
 * on rank 0 from the result (kind 0: no tally), then the group itself. */
typedef struct gs_h5w_tally_meta {
    int32_t kind, approx;              /* gs_tally_unit; best_distance is written */
    uint64_t n_units, n_rows, w_unit;  /* w_unit: widest unit name */
} gs_h5w_tally_meta;
void gs_h5w_tally_prepare(const struct gs_result *res, int approx, gs_h5w_tally_meta *tm);
gs_status gs_h5w_tally(wctx *w, const struct gs_result *res, const gs_h5w_tally_meta *tm);

/* The /amplicons group of gscan pcr (h5_amplicons.c), the same way (on 0: none). */
typedef struct gs_h5w_amp_meta {
    int32_t on;
    uint64_t n_pairs, n_rows, w_name; /* w_name: widest pair name */
} gs_h5w_amp_meta;
void gs_h5w_amp_prepare(const struct gs_result *res, gs_h5w_amp_meta *am);
gs_status gs_h5w_amplicons(wctx *w, const struct gs_result *res, const gs_h5w_amp_meta *am);

#endif
