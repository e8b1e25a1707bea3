/* h5read.c - read the tables of an opened result file (h5read.h): root
 * attributes, string columns, record lengths, the per-pattern rows and the
 * timings, each read checked again against the buffer it fills; sizes taken
 * from the file are bounded by gs_h5_fits (h5_open.c says why). */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "h5_file.h"
#include "h5_internal.h"

/* Read rows [from, from + n) of a dataset as mtype into buf, which holds n
 * rows of cols values (cols 0: the dataset must be 1-D). */
gs_status gs_h5_read_rows(hid_t fid, const char *name, hid_t mtype, hsize_t cols, uint64_t from,
                          uint64_t n, void *buf)
{
    gs_status st = GS_EINPUT;
    hid_t d = H5Dopen2(fid, name, H5P_DEFAULT), fs = -1, ms = -1;
    if (d < 0 || (fs = H5Dget_space(d)) < 0)
        goto done;
    hsize_t dims[2] = {0, 1}, start[2] = {from, 0}, count[2];
    int r = H5Sget_simple_extent_ndims(fs);
    if (r != (cols ? 2 : 1) || H5Sget_simple_extent_dims(fs, dims, NULL) < 0
        || (cols && dims[1] != cols) || from > dims[0] || n > dims[0] - from)
        goto done;
    count[0] = n;
    count[1] = dims[1];
    if (n == 0) {
        st = GS_OK;
        goto done;
    }
    if ((ms = H5Screate_simple(r, count, NULL)) < 0
        || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0
        || H5Dread(d, mtype, ms, fs, H5P_DEFAULT, buf) < 0)
        goto done;
    st = GS_OK;
done:
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    if (d >= 0)
        H5Dclose(d);
    return st;
}

char *gs_h5_strings(gs_h5_file *f, const char *name, uint64_t from, uint64_t n, size_t *stride,
                    gs_error *err)
{
    gs_h5_quiet q = gs_h5_quiet_begin();
    char *buf = NULL;
    hid_t d = H5Dopen2(f->fid, name, H5P_DEFAULT), ft = d >= 0 ? H5Dget_type(d) : -1, mt = -1;
    if (ft < 0 || H5Tget_class(ft) != H5T_STRING || H5Tis_variable_str(ft) != 0) {
        gs_fail(err, GS_EINPUT, "%s is not a fixed-length string dataset (%s)", name, f->s.path);
        goto done;
    }
    size_t w = H5Tget_size(ft) + 1;
    if (w < 2 || !gs_h5_fits(f, n, w)) {
        gs_fail(err, GS_EINPUT, "%s is larger than the file could hold (%s)", name, f->s.path);
        goto done;
    }
    if ((mt = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mt, w) < 0
        || H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0) {
        gs_fail(err, GS_ESYS, "cannot make a string type for %s (%s)", name, f->s.path);
        goto done;
    }
    buf = gs_malloc((size_t)n * w, err, name);
    if (buf && gs_h5_read_rows(f->fid, name, mt, 0, from, n, buf) != GS_OK) {
        char why[256];
        gs_h5_reason(why, sizeof why);
        gs_fail(err, GS_EINPUT, "cannot read %s: %s (%s)", name, why, f->s.path);
        free(buf);
        buf = NULL;
    }
    *stride = w;
done:
    if (mt >= 0)
        H5Tclose(mt);
    if (ft >= 0)
        H5Tclose(ft);
    if (d >= 0)
        H5Dclose(d);
    gs_h5_quiet_end(q);
    return buf;
}

gs_status gs_h5_read_fail(gs_h5_file *f, const char *name, gs_error *err)
{
    char why[256];
    gs_h5_reason(why, sizeof why);
    return gs_fail(err, GS_EINPUT, "cannot read %s: %s (%s)", name, why, f->s.path);
}
/* Open root attribute name when it holds exactly one value of class cls
 * (strings: fixed-length, as gscan writes them; a variable-length one would
 * be read from the global heap, the one part of the file without a
 * checksum): -1 when it is missing, -2 (GS_EINPUT set) when it is of
 * another kind. */
static hid_t attr_open(gs_h5_file *f, const char *obj, const char *name, H5T_class_t cls,
                       gs_error *err)
{
    if (H5Aexists_by_name(f->fid, obj, name, H5P_DEFAULT) <= 0)
        return -1;
    hid_t a = H5Aopen_by_name(f->fid, obj, name, H5P_DEFAULT, H5P_DEFAULT), sp = -1, t = -1;
    int ok = a >= 0 && (sp = H5Aget_space(a)) >= 0 && H5Sget_simple_extent_npoints(sp) == 1
             && (t = H5Aget_type(a)) >= 0 && H5Tget_class(t) == cls
             && (cls != H5T_STRING || H5Tis_variable_str(t) == 0) && gs_h5_fits(f, 1, H5Tget_size(t) + 1);
    if (t >= 0)
        H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    if (ok)
        return a;
    if (a >= 0)
        H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
    gs_fail(err, GS_EINPUT, "not a gscan result file: attribute %s is not one %s (%s)", name,
            cls == H5T_STRING ? "string" : "integer", f->s.path);
    return -2;
}

void gs_h5_attr_str(gs_h5_file *f, const char *name, char *buf, size_t size, gs_error *err)
{
    gs_h5_attr_str_at(f, "/", name, buf, size, err);
}

void gs_h5_attr_str_at(gs_h5_file *f, const char *obj, const char *name, char *buf, size_t size,
                       gs_error *err)
{
    gs_h5_quiet q = gs_h5_quiet_begin();
    buf[0] = '\0';
    hid_t a = attr_open(f, obj, name, H5T_STRING, err), ft = a >= 0 ? H5Aget_type(a) : -1, mt = -1;
    if (ft >= 0) {
        size_t w = H5Tget_size(ft) + 1; /* bounded by attr_open */
        char *v = gs_malloc(w, err, name);
        mt = H5Tcopy(H5T_C_S1);
        if (v && mt >= 0 && H5Tset_size(mt, w) >= 0 && H5Tset_strpad(mt, H5T_STR_NULLTERM) >= 0
            && H5Aread(a, mt, v) >= 0)
            snprintf(buf, size, "%s", v);
        free(v);
    }
    if (mt >= 0)
        H5Tclose(mt);
    if (ft >= 0)
        H5Tclose(ft);
    if (a >= 0)
        H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
    gs_h5_quiet_end(q);
}

long gs_h5_attr_int(gs_h5_file *f, const char *name, gs_error *err)
{
    gs_h5_quiet q = gs_h5_quiet_begin();
    int v = -1;
    hid_t a = attr_open(f, "/", name, H5T_INTEGER, err);
    if (a >= 0) {
        if (H5Aread(a, H5T_NATIVE_INT, &v) < 0)
            v = -1;
        H5Aclose(a);
    }
    H5Eclear2(H5E_DEFAULT);
    gs_h5_quiet_end(q);
    return v;
}

int gs_h5_attr_exists(gs_h5_file *f, const char *name)
{
    gs_h5_quiet q = gs_h5_quiet_begin();
    int yes = H5Aexists(f->fid, name) > 0;
    gs_h5_quiet_end(q);
    return yes;
}

gs_status gs_h5_record_lengths(gs_h5_file *f, uint64_t from, uint64_t n, uint64_t *len,
                               gs_error *err)
{
    gs_h5_quiet q = gs_h5_quiet_begin();
    gs_status st = GS_OK;
    if (n && gs_h5_read_rows(f->fid, "/records/length", H5T_NATIVE_UINT64, 0, from, n, len)
                 != GS_OK)
        st = gs_h5_read_fail(f, "/records/length", err);
    gs_h5_quiet_end(q);
    return st;
}

gs_status gs_h5_residues(gs_h5_file *f, uint64_t *total, gs_error *err)
{
    uint64_t *buf = gs_malloc(READ_ROWS * sizeof *buf, err, "counts");
    gs_status st = buf ? GS_OK : GS_ESYS;
    *total = 0;
    for (uint64_t at = 0; st == GS_OK && at < f->s.n_rec; at += READ_ROWS) {
        uint64_t k = f->s.n_rec - at < READ_ROWS ? f->s.n_rec - at : READ_ROWS;
        st = gs_h5_record_lengths(f, at, k, buf, err);
        for (uint64_t i = 0; st == GS_OK && i < k; i++)
            *total += buf[i];
    }
    free(buf);
    return st;
}

gs_status gs_h5_each_pattern(gs_h5_file *f, gs_h5_pattern_fn fn, void *ctx, gs_error *err)
{
    gs_h5_quiet q = gs_h5_quiet_begin();
    const int S = f->s.n_strands;
    uint64_t *counts = gs_malloc(READ_ROWS * 2 * sizeof *counts, err, "counts");
    uint32_t *lens = gs_malloc(READ_ROWS * sizeof *lens, err, "pattern lengths");
    gs_status st = counts && lens ? GS_OK : GS_ESYS;
    for (uint64_t at = 0; st == GS_OK && at < f->s.n_pat; at += READ_ROWS) {
        uint64_t k = f->s.n_pat - at < READ_ROWS ? f->s.n_pat - at : READ_ROWS;
        if (gs_h5_read_rows(f->fid, "/counts", H5T_NATIVE_UINT64, (hsize_t)S, at, k, counts)
            != GS_OK)
            st = gs_h5_read_fail(f, "/counts", err);
        else if (gs_h5_read_rows(f->fid, "/patterns/length", H5T_NATIVE_UINT32, 0, at, k, lens)
                 != GS_OK)
            st = gs_h5_read_fail(f, "/patterns/length", err);
        else
            fn(ctx, &(gs_h5_pattern_rows){at, k, counts, lens});
    }
    free(counts);
    free(lens);
    gs_h5_quiet_end(q);
    return st;
}

/* The slowest rank of one phase's dataset name into t (ranks[p] left 0
 * when it is empty or larger than a read). */
static gs_status timing_phase(gs_h5_file *f, const char *name, int p, gs_h5_timing *t,
                              gs_error *err)
{
    hsize_t dims[2] = {0};
    if (gs_h5_dset_check(f, name, H5T_FLOAT, 0, dims, err) != GS_OK)
        return err->code;
    if (dims[0] == 0 || dims[0] > READ_ROWS * 2)
        return GS_OK;
    double *v = gs_malloc((size_t)dims[0] * sizeof *v, err, "timings"), mx = 0;
    if (v == NULL)
        return GS_ESYS;
    if (gs_h5_read_rows(f->fid, name, H5T_NATIVE_DOUBLE, 0, 0, dims[0], v) != GS_OK) {
        free(v);
        return gs_h5_read_fail(f, name, err);
    }
    for (hsize_t r = 0; r < dims[0]; r++)
        mx = v[r] > mx ? v[r] : mx;
    free(v);
    t->ranks[p] = dims[0];
    t->max[p] = mx;
    return GS_OK;
}

gs_status gs_h5_timing_read(gs_h5_file *f, gs_h5_timing *t, gs_error *err)
{
    gs_h5_quiet q = gs_h5_quiet_begin();
    gs_status st = GS_OK;
    memset(t, 0, sizeof *t);
    int group = gs_h5_path_checked(f, "/timing");
    t->damaged = group < 0;
    for (int p = 0; p < GS_N_PHASES && st == GS_OK && group > 0; p++) {
        char name[64];
        snprintf(name, sizeof name, "/timing/%s", gs_phase_names[p]);
        /* older files have fewer phases (< 0: the check says why); a
         * lookup HDF5 fails on is damage, not absence */
        int r = H5Lexists(f->fid, name, H5P_DEFAULT) < 0 ? -1 : gs_h5_path_checked(f, name);
        if (r < 0)
            t->damaged = 1;
        else if (r > 0)
            st = timing_phase(f, name, p, t, err);
    }
    H5Eclear2(H5E_DEFAULT);
    gs_h5_quiet_end(q);
    return st;
}
