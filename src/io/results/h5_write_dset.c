/* h5_write_dset.c - the collective steps of the result file writer: every
 * rank makes the same HDF5 calls in the same order, and agrees on the
 * status after each, so no rank waits in a call another rank never makes.
 *
 * - Large datasets are chunked and deflate-compressed. Parallel HDF5 1.10
 *   writes filtered datasets only collectively, so every H5Dwrite here is
 *   collective and ranks with nothing to write select nothing; the number of
 *   calls per dataset is agreed first (MPI_Allreduce).
 * - Chunk shapes depend on the data only, never on the rank count, and piece
 *   boundaries (what one H5Dwrite moves) fall on chunk boundaries, so a file
 *   written by 1 or 64 ranks holds the same values, chunked the same way.
 * - One process writing alone stores every chunked 1-D dataset through
 *   h5_direct.c (chunks compressed on all cores).
 * - Parallel HDF5 cannot write variable-length data: strings are fixed-length,
 *   sized to the longest (at least 1 byte), null-padded (docs/format.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "h5_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm/comm.h"
#include "h5_internal.h"

/* Chunk and piece sizes. A chunk of about 1 MiB keeps compression effective
 * and partial reads cheap (HDF5's default chunk cache is 1 MiB). Pieces are
 * a whole number of chunks, at most about 8 MiB of buffer. */
enum { CHUNK_BYTES = 1 << 20, PIECE_BYTES = 8 << 20 };

/* A rank that failed waits this long for the others to agree; past it they
 * are taken to be blocked inside an HDF5 collective call it left early. */
enum { STRAND_SECONDS = 60 };

void gs_h5w_fail(wctx *w, const char *what, const char *obj)
{
    char why[256];
    gs_h5_reason(why, sizeof why);
    gs_fail(&w->e, GS_ESYS, "cannot %s %s: %s (%s)", what, obj, why, w->path);
}

/* The others cannot be reached when a collective HDF5 call failed here but
 * not there: they wait in it for this rank forever. A rank that failed
 * waits STRAND_SECONDS for the agreement, then reports and ends the job
 * (contract §5: one failing rank ends the job with its message, never a
 * hang); see gs_mpi_agree_within. */
gs_status gs_h5w_agree(wctx *w)
{
    return gs_mpi_agree_within(w->comm, &w->e, STRAND_SECONDS,
                               "the other ranks are blocked in HDF5");
}

hsize_t gs_h5w_chunk_rows(uint64_t n, size_t row_bytes)
{
    if (n == 0)
        return 0; /* a chunk needs at least one row: empty datasets are contiguous */
    uint64_t r = CHUNK_BYTES / row_bytes;
    if (r < 1)
        r = 1;
    return n < r ? n : r;
}

static hid_t make_dset(wctx *w, const dspec *d)
{
    hsize_t dims[2] = {d->n, d->cols};
    hid_t space = -1, dcpl = -1, dset = -1;
    space = H5Screate_simple(d->cols ? 2 : 1, dims, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || dcpl < 0)
        goto fail;
    if (d->chunk > 0) {
        hsize_t cdims[2] = {d->chunk, d->cols};
        if (H5Pset_chunk(dcpl, d->cols ? 2 : 1, cdims) < 0
            || (d->shuffle && H5Pset_shuffle(dcpl) < 0) || H5Pset_deflate(dcpl, DEFLATE_LEVEL) < 0)
            goto fail;
    }
    dset = H5Dcreate2(w->fid, d->name, d->ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0)
        goto fail;
    H5Pclose(dcpl);
    H5Sclose(space);
    return dset;
fail:
    gs_h5w_fail(w, "create dataset", d->name);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return -1;
}

/* Rows [off, off + n) of this rank, cut at multiples of piece rows of the
 * global row index so pieces never split a chunk between two calls of one
 * rank. piece_count gives the number of pieces, piece_at piece i. */
static uint64_t piece_count(uint64_t off, uint64_t n, uint64_t piece)
{
    return n == 0 ? 0 : (off + n - 1) / piece - off / piece + 1;
}

static void piece_at(uint64_t off, uint64_t n, uint64_t piece, uint64_t i, uint64_t *from,
                     uint64_t *cnt)
{
    uint64_t lo = (off / piece + i) * piece, hi = lo + piece;
    if (lo < off)
        lo = off;
    if (hi > off + n)
        hi = off + n;
    *from = lo;
    *cnt = hi > lo ? hi - lo : 0;
}

/* One writer, chunked 1-D datasets: chunks compressed on all cores and
 * stored directly (h5_direct.c): the hit columns and, for EST-like corpora,
 * the record table (2.1 M names deflated on one thread took 0.3 s). The
 * datasets' chunks go in that order through one pipeline (the hit columns:
 * no drain between columns, one set of buffers). */
gs_status gs_h5w_direct(wctx *w, const dspec *d, int n)
{
    gs_h5_direct dd[GS_H5_DIRECT_MAX];
    int made = 0;
    for (; made < n && w->e.code == GS_OK; made++)
        dd[made] = (gs_h5_direct){d[made].name, make_dset(w, &d[made]), d[made].n,
                                  (size_t)d[made].chunk, d[made].row_bytes, d[made].shuffle,
                                  DEFLATE_LEVEL, d[made].fill, d[made].src};
    if (w->e.code == GS_OK)
        gs_h5_write_direct(dd, n, w->tune, w->path, &w->e);
    for (int k = 0; k < made; k++)
        if (dd[k].dset >= 0 && H5Dclose(dd[k].dset) < 0)
            gs_h5w_fail(w, "close dataset", d[k].name);
    return gs_h5w_agree(w);
}

/* A dataset being written piece by piece: its handles, and the buffer a
 * piece is filled into. */
typedef struct dtarget {
    hid_t dset, fspace;
    void *buf;
} dtarget;

/* Rows [from, from + cnt) of the dataset from t->buf (cnt 0: an empty
 * selection, for a rank past its last piece); the status every rank agreed
 * on. */
static gs_status write_piece(wctx *w, const dspec *d, const dtarget *t, uint64_t from,
                             uint64_t cnt)
{
    hid_t fspace = t->fspace;
    hsize_t start[2] = {from, 0}, count[2] = {cnt, d->cols}, one = 1;
    hid_t mspace = -1;
    if (cnt > 0) {
        mspace = H5Screate_simple(d->cols ? 2 : 1, count, NULL);
        if (mspace < 0 || H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
            gs_h5w_fail(w, "select rows of", d->name);
    } else {
        mspace = H5Screate_simple(1, &one, NULL);
        if (mspace < 0 || H5Sselect_none(mspace) < 0 || H5Sselect_none(fspace) < 0)
            gs_h5w_fail(w, "select rows of", d->name);
    }
    gs_status st = gs_h5w_agree(w);
    if (st == GS_OK && H5Dwrite(t->dset, d->mtype, mspace, fspace, w->dxpl, t->buf) < 0)
        gs_h5w_fail(w, "write dataset", d->name);
    if (mspace >= 0)
        H5Sclose(mspace);
    return st == GS_OK ? gs_h5w_agree(w) : st;
}

/* This rank's rows [off, off + n) of d[0..nc) in pieces of `piece` rows,
 * each column filled into t[k].buf then written: with pull, each piece is
 * first readied by pull and filled from row 0; without, filled from its
 * own local rows. Every rank makes as many writes as the rank with the
 * most pieces (a failure on any rank stops all at the next agreement). */
static gs_status write_pieces(wctx *w, const dspec *d, const dtarget *t, int nc, uint64_t off,
                              uint64_t n, uint64_t piece,
                              gs_status (*pull)(void *ctx, size_t cnt, gs_error *err), void *ctx)
{
    uint64_t mine = piece ? piece_count(off, n, piece) : 0, most = 0;
    GS_MPI_CHECK(MPI_Allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, w->comm));
    gs_status st = gs_h5w_agree(w);
    for (uint64_t i = 0; st == GS_OK && i < most; i++) {
        uint64_t from = 0, cnt = 0;
        if (i < mine)
            piece_at(off, n, piece, i, &from, &cnt);
        if (cnt > 0 && pull)
            pull(ctx, (size_t)cnt, &w->e);
        for (int k = 0; k < nc && st == GS_OK; k++) {
            if (cnt > 0 && w->e.code == GS_OK)
                d[k].fill(d[k].src, d[k].row_bytes, pull ? 0 : from - off, (size_t)cnt, t[k].buf);
            st = write_piece(w, &d[k], &t[k], from, cnt);
        }
    }
    return st;
}

/* Every rank makes as many H5Dwrite calls as the rank with the most
 * pieces. */
gs_status gs_h5w_dset(wctx *w, const dspec *d, uint64_t off, uint64_t n)
{
    if (w->size == 1 && d->n > 0 && d->chunk > 0 && d->cols == 0)
        return gs_h5w_direct(w, d, 1);
    char dummy[16];
    dtarget t = {make_dset(w, d), -1, dummy};
    uint64_t piece = 0;
    if (d->n > 0) {
        uint64_t fit = PIECE_BYTES / d->row_bytes;
        if (d->chunk > 0) /* a whole number of chunks, at least one */
            piece = d->chunk * (fit / d->chunk > 0 ? fit / d->chunk : 1);
        else
            piece = fit > 0 ? fit : 1;
        if (piece_count(off, n, piece) > 0)
            t.buf = gs_malloc((size_t)((n < piece ? n : piece) * d->row_bytes), &w->e, d->name);
    }
    if (t.dset >= 0 && (t.fspace = H5Dget_space(t.dset)) < 0)
        gs_h5w_fail(w, "open dataspace of", d->name);
    write_pieces(w, d, &t, 1, off, n, piece, NULL, NULL);
    if (t.buf != dummy)
        free(t.buf);
    if (t.fspace >= 0)
        H5Sclose(t.fspace);
    if (t.dset >= 0 && H5Dclose(t.dset) < 0)
        gs_h5w_fail(w, "close dataset", d->name);
    return gs_h5w_agree(w);
}

static hid_t str_type(uint64_t width)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, (size_t)width) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* File and memory types are the same fixed-length type. */
gs_status gs_h5w_strings(wctx *w, const dspec *d, int chunked)
{
    hid_t t = str_type(d->row_bytes);
    if (t < 0)
        gs_h5w_fail(w, "make string type for", d->name);
    if (gs_h5w_agree(w) != GS_OK) {
        if (t >= 0)
            H5Tclose(t);
        return w->e.code;
    }
    dspec s = *d;
    s.ftype = s.mtype = t;
    s.cols = 0;
    s.chunk = chunked ? gs_h5w_chunk_rows(d->n, d->row_bytes) : 0;
    s.shuffle = 0;
    gs_status st = gs_h5w_dset(w, &s, 0, w->rank == 0 ? d->n : 0);
    H5Tclose(t);
    return st;
}

gs_status gs_h5w_numbers(wctx *w, const dspec *d)
{
    dspec s = *d;
    s.cols = 0;
    s.chunk = gs_h5w_chunk_rows(d->n, d->row_bytes);
    s.shuffle = 1;
    return gs_h5w_dset(w, &s, 0, w->rank == 0 ? d->n : 0);
}

gs_status gs_h5w_attr_str(wctx *w, const char *name, const char *value)
{
    return gs_h5w_attr_str_on(w, "/", name, value);
}

gs_status gs_h5w_attr_str_on(wctx *w, const char *obj, const char *name, const char *value)
{
    size_t n = strlen(value);
    hid_t t = str_type(n ? n : 1), space = H5Screate(H5S_SCALAR), a = -1;
    char one[1] = {0};
    if (t < 0 || space < 0
        || (a = H5Acreate_by_name(w->fid, obj, name, t, space, H5P_DEFAULT, H5P_DEFAULT,
                                  H5P_DEFAULT)) < 0
        || H5Awrite(a, t, n ? value : one) < 0)
        gs_h5w_fail(w, "write attribute", name);
    if (a >= 0)
        H5Aclose(a);
    if (space >= 0)
        H5Sclose(space);
    if (t >= 0)
        H5Tclose(t);
    return w->e.code;
}

gs_status gs_h5w_attr_int(wctx *w, const char *name, int value)
{
    hid_t space = H5Screate(H5S_SCALAR), a = -1;
    if (space < 0
        || (a = H5Acreate2(w->fid, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT)) < 0
        || H5Awrite(a, H5T_NATIVE_INT, &value) < 0)
        gs_h5w_fail(w, "write attribute", name);
    if (a >= 0)
        H5Aclose(a);
    if (space >= 0)
        H5Sclose(space);
    return w->e.code;
}

gs_status gs_h5w_group(wctx *w, const char *name)
{
    hid_t g = H5Gcreate2(w->fid, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        gs_h5w_fail(w, "create group", name);
    else
        H5Gclose(g);
    return gs_h5w_agree(w);
}

gs_status gs_h5w_stream(wctx *w, const dspec *d, int nc, uint64_t off, uint64_t n, uint64_t piece,
                        gs_status (*pull)(void *ctx, size_t cnt, gs_error *err), void *ctx)
{
    dtarget t[GS_H5_DIRECT_MAX] = {{0}};
    char dummy[16];
    size_t row = 1;
    int made = 0;
    for (int k = 0; k < nc; k++)
        row = d[k].row_bytes > row ? d[k].row_bytes : row;
    uint64_t mine = piece ? piece_count(off, n, piece) : 0;
    void *buf = mine > 0 ? gs_malloc((size_t)(piece * row), &w->e, "/hits") : dummy;
    for (; made < nc && w->e.code == GS_OK; made++) {
        t[made] = (dtarget){make_dset(w, &d[made]), -1, buf ? buf : dummy};
        if (t[made].dset >= 0 && (t[made].fspace = H5Dget_space(t[made].dset)) < 0)
            gs_h5w_fail(w, "open dataspace of", d[made].name);
    }
    write_pieces(w, d, t, made, off, n, piece, pull, ctx);
    if (buf != dummy)
        free(buf);
    for (int k = 0; k < made; k++) {
        if (t[k].fspace >= 0)
            H5Sclose(t[k].fspace);
        if (t[k].dset >= 0 && H5Dclose(t[k].dset) < 0)
            gs_h5w_fail(w, "close dataset", d[k].name);
    }
    return gs_h5w_agree(w);
}
