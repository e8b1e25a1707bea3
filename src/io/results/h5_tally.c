/* h5_tally.c - the /tally group of the result file (--tally), written by
 * rank 0 with the collective steps of h5_write_dset.c (see h5_write.h).
 *
 *   /tally                attributes unit (record|file|sample), n_units
 *   /tally/unit_name      string [U]
 *   /tally/unit, pattern  uint32 [T]  sorted by (unit, pattern, strand)
 *   /tally/strand         int8   [T]
 *   /tally/count          uint64 [T]
 *   /tally/best_distance  uint8  [T]  (approximate modes)
 *
 * A tally is small next to the hits (one row per unit, pattern and strand
 * that has any), so one writer and the plain chunked path are enough.
 */
#include "h5_write.h"

#include <stddef.h>
#include <string.h>

#include "core/gs_result.h"

void gs_h5w_tally_prepare(const gs_result *res, int approx, gs_h5w_tally_meta *tm)
{
    memset(tm, 0, sizeof *tm);
    if (res->tally == NULL || res->tally_unit == NULL)
        return;
    tm->kind = (int32_t)gs_tally_unit_of(res->tally_unit);
    tm->approx = approx;
    tm->n_units = res->n_units;
    tm->n_rows = res->tally->n;
    size_t wmax = 1;
    for (uint64_t i = 0; i < res->n_units; i++) {
        size_t l = res->unit_names[i] ? strlen(res->unit_names[i]) : 0;
        wmax = l > wmax ? l : wmax;
    }
    tm->w_unit = wmax;
}

static void fill_unit_name(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    const char *const *names = src;
    for (size_t i = 0; i < n; i++) {
        char *row = (char *)buf + i * width;
        const char *s = names[from + i] ? names[from + i] : "";
        size_t l = strlen(s);
        memset(row, 0, width);
        memcpy(row, s, l < width ? l : width);
    }
}

typedef struct col_src {
    const gs_tally *t;
    size_t offset;
} col_src;

static void fill_col(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    const col_src *c = src;
    for (size_t i = 0; i < n; i++)
        memcpy((char *)buf + i * width, (const char *)&c->t->v[from + i] + c->offset, width);
}

/* The group's attributes: unit and n_units. */
static gs_status group_attrs(wctx *w, const char *unit, uint64_t n_units)
{
    hid_t space = H5Screate(H5S_SCALAR), t = H5Tcopy(H5T_C_S1), a = -1, b = -1;
    size_t n = strlen(unit);
    if (space < 0 || t < 0 || H5Tset_size(t, n ? n : 1) < 0
        || (a = H5Acreate_by_name(w->fid, "/tally", "unit", t, space, H5P_DEFAULT, H5P_DEFAULT,
                                  H5P_DEFAULT)) < 0
        || H5Awrite(a, t, unit) < 0
        || (b = H5Acreate_by_name(w->fid, "/tally", "n_units", H5T_STD_U64LE, space, H5P_DEFAULT,
                                  H5P_DEFAULT, H5P_DEFAULT)) < 0
        || H5Awrite(b, H5T_NATIVE_UINT64, &n_units) < 0)
        gs_h5w_fail(w, "write attributes of", "/tally");
    if (a >= 0)
        H5Aclose(a);
    if (b >= 0)
        H5Aclose(b);
    if (t >= 0)
        H5Tclose(t);
    if (space >= 0)
        H5Sclose(space);
    return gs_h5w_agree(w);
}

gs_status gs_h5w_tally(wctx *w, const gs_result *res, const gs_h5w_tally_meta *tm)
{
    if (tm->kind == 0)
        return GS_OK;
    const char *unit = gs_tally_unit_name((gs_tally_unit)tm->kind);
    if (gs_h5w_group(w, "/tally") != GS_OK || group_attrs(w, unit, tm->n_units) != GS_OK)
        return w->e.code;
    dspec names = {.name = "/tally/unit_name", .n = tm->n_units, .row_bytes = tm->w_unit,
                   .fill = fill_unit_name, .src = res->unit_names};
    if (gs_h5w_strings(w, &names, 1) != GS_OK)
        return w->e.code;
    static const struct {
        const char *name;
        size_t offset, bytes;
        int approx; /* written in the approximate modes only */
    } cols[] = {
        {"/tally/unit", offsetof(gs_tally_row, unit), 4, 0},
        {"/tally/pattern", offsetof(gs_tally_row, pattern), 4, 0},
        {"/tally/strand", offsetof(gs_tally_row, strand), 1, 0},
        {"/tally/count", offsetof(gs_tally_row, count), 8, 0},
        {"/tally/best_distance", offsetof(gs_tally_row, best), 1, 1},
    };
    for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
        if (cols[c].approx && !tm->approx)
            continue;
        col_src src = {res->tally, cols[c].offset};
        int i8 = !strcmp(cols[c].name, "/tally/strand");
        hid_t ft = cols[c].bytes == 8 ? H5T_STD_U64LE
                   : cols[c].bytes == 4 ? H5T_STD_U32LE : i8 ? H5T_STD_I8LE : H5T_STD_U8LE;
        hid_t mt = cols[c].bytes == 8 ? H5T_NATIVE_UINT64
                   : cols[c].bytes == 4 ? H5T_NATIVE_UINT32 : i8 ? H5T_NATIVE_INT8
                                                                : H5T_NATIVE_UINT8;
        dspec d = {.name = cols[c].name, .ftype = ft, .mtype = mt, .row_bytes = cols[c].bytes,
                   .n = tm->n_rows, .fill = fill_col, .src = &src};
        if (gs_h5w_numbers(w, &d) != GS_OK)
            return w->e.code;
    }
    return GS_OK;
}
