/* h5_tally_read.c - the /tally group read back (see h5read.h): gscan export
 * --matrix, --long and --coverage, and the rows gscan info shows.
 *
 * A tally is small (one row per unit, pattern and strand that has any hit),
 * so it is read whole and checked whole before any row is used: ids inside
 * the tables, strands +1 or -1, rows in (unit, pattern, strand) order. A
 * matrix is written unit by unit from the sorted rows, so its memory is one
 * line of patterns, whatever the number of units.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "h5_file.h"

int gs_h5_has_tally(gs_h5_file *f)
{
    return gs_h5_path_checked(f, "/tally") == 1;
}

/* The group's unit attribute into buf. */
static gs_status read_unit(gs_h5_file *f, char *buf, size_t size, gs_error *err)
{
    if (gs_h5_attr_str_at(f, "/tally", "unit", buf, size, err), err->code != GS_OK)
        return err->code;
    if (gs_tally_unit_of(buf) == GS_TALLY_NONE) /* a longer name is cut and matches none */
        return gs_fail(err, GS_EINPUT, "not a gscan result file: /tally has no unit (%s)",
                       f->s.path);
    return GS_OK;
}

static const struct tally_col {
    const char *name;
    size_t bytes;
} cols[] = {{"/tally/unit", 4}, {"/tally/pattern", 4}, {"/tally/strand", 1},
            {"/tally/count", 8}, {"/tally/best_distance", 1}};

/* Every row's ids inside the tables, in order, counts above zero. */
static gs_status check_rows(gs_h5_file *f, const gs_h5_tally *t, gs_error *err)
{
    for (uint64_t i = 0; i < t->n_rows; i++) {
        int key_up = i == 0 || t->unit[i - 1] < t->unit[i]
                     || (t->unit[i - 1] == t->unit[i]
                         && (t->pattern[i - 1] < t->pattern[i]
                             || (t->pattern[i - 1] == t->pattern[i]
                                 && t->strand[i - 1] > t->strand[i])));
        if (t->unit[i] >= t->n_units || t->pattern[i] >= t->n_of
            || (t->strand[i] != 1 && t->strand[i] != -1) || t->count[i] == 0 || !key_up)
            return gs_fail(err, GS_EINPUT,
                           "not a gscan result file: /tally row %" PRIu64
                           " is out of range or out of order (%s)",
                           i, f->s.path);
    }
    return GS_OK;
}

gs_status gs_h5_tally_read(gs_h5_file *f, gs_h5_tally *t, gs_error *err)
{
    gs_h5_quiet q = gs_h5_quiet_begin();
    hsize_t d[2];
    memset(t, 0, sizeof *t);
    if (!gs_h5_has_tally(f)) {
        gs_h5_quiet_end(q);
        return gs_fail(err, GS_EINPUT, "no tally in %s (run gscan scan with --tally)", f->s.path);
    }
    if (read_unit(f, t->kind, sizeof t->kind, err) != GS_OK
        || gs_h5_dset_check(f, "/tally/unit_name", H5T_STRING, 0, d, err) != GS_OK)
        goto done;
    t->n_units = d[0];
    t->of = "/patterns/name";
    t->n_of = f->s.n_pat;
    if (gs_h5_path_checked(f, "/amplicons/pair_name") == 1) { /* gscan pcr */
        if (gs_h5_dset_check(f, "/amplicons/pair_name", H5T_STRING, 0, d, err) != GS_OK)
            goto done;
        t->of = "/amplicons/pair_name";
        t->n_of = d[0];
    }
    if ((t->names = gs_h5_strings(f, "/tally/unit_name", 0, t->n_units, &t->stride, err)) == NULL)
        goto done;
    void **dst[] = {(void **)&t->unit, (void **)&t->pattern, (void **)&t->strand,
                    (void **)&t->count, (void **)&t->best};
    const hid_t mt[] = {H5T_NATIVE_UINT32, H5T_NATIVE_UINT32, H5T_NATIVE_INT8, H5T_NATIVE_UINT64,
                        H5T_NATIVE_UINT8};
    for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
        if (c == 4 && gs_h5_path_checked(f, cols[c].name) == 0)
            break; /* exact modes: no best distance */
        if (gs_h5_dset_check(f, cols[c].name, H5T_INTEGER, 0, d, err) != GS_OK)
            goto done;
        if (c > 0 && d[0] != t->n_rows) {
            gs_fail(err, GS_EINPUT, "not a gscan result file: %s is of another length (%s)",
                    cols[c].name, f->s.path);
            goto done;
        }
        t->n_rows = d[0];
        if ((*dst[c] = gs_malloc((t->n_rows + 1) * cols[c].bytes, err, "tally")) == NULL)
            goto done;
        if (gs_h5_read_rows(f->fid, cols[c].name, mt[c], 0, 0, t->n_rows, *dst[c]) != GS_OK) {
            gs_h5_read_fail(f, cols[c].name, err);
            goto done;
        }
    }
    check_rows(f, t, err);
done:
    gs_h5_quiet_end(q);
    if (err->code != GS_OK)
        gs_h5_tally_free(t);
    return err->code;
}

void gs_h5_tally_free(gs_h5_tally *t)
{
    free(t->names);
    free(t->unit);
    free(t->pattern);
    free(t->strand);
    free(t->count);
    free(t->best);
    memset(t, 0, sizeof *t);
}

/* One export: the tally, the pattern names, the output. */
typedef struct tally_out {
    gs_h5_file *f;
    gs_h5_tally t;
    char *pnames;
    size_t pstride;
    FILE *out;
} tally_out;

static const char *pname(const tally_out *x, uint32_t p) { return x->pnames + p * x->pstride; }
static const char *uname(const tally_out *x, uint32_t u) { return x->t.names + u * x->t.stride; }

static void write_matrix(tally_out *x, int presence, gs_error *err)
{
    uint64_t n_pat = x->t.n_of, *line = gs_calloc(n_pat + 1, sizeof *line, err, "matrix");
    if (line == NULL)
        return;
    fputs("unit", x->out);
    for (uint64_t p = 0; p < n_pat; p++)
        fprintf(x->out, "\t%s", pname(x, (uint32_t)p));
    fputc('\n', x->out);
    uint64_t i = 0;
    for (uint32_t u = 0; u < x->t.n_units && !ferror(x->out); u++) {
        for (; i < x->t.n_rows && x->t.unit[i] == u; i++)
            line[x->t.pattern[i]] += x->t.count[i];
        fputs(uname(x, u), x->out);
        for (uint64_t p = 0; p < n_pat; p++) {
            if (presence)
                fprintf(x->out, "\t%d", line[p] > 0);
            else
                fprintf(x->out, "\t%" PRIu64, line[p]);
            line[p] = 0;
        }
        fputc('\n', x->out);
    }
    free(line);
}

static void write_long(tally_out *x)
{
    const int best = x->t.best != NULL;
    fprintf(x->out, "unit\tpattern\tstrand\tcount%s\n", best ? "\tbest_distance" : "");
    for (uint64_t i = 0; i < x->t.n_rows && !ferror(x->out); i++) {
        fprintf(x->out, "%s\t%s\t%c\t%" PRIu64, uname(x, x->t.unit[i]), pname(x, x->t.pattern[i]),
                x->t.strand[i] > 0 ? '+' : '-', x->t.count[i]);
        if (best)
            fprintf(x->out, "\t%u", (unsigned)x->t.best[i]);
        fputc('\n', x->out);
    }
}

/* Per pattern: units hit and, in approximate modes, units by best distance
 * (the smallest over the pattern's rows of a unit, both strands). */
static void write_coverage(tally_out *x, gs_error *err)
{
    uint64_t n_pat = x->t.n_of, *hit = gs_calloc(n_pat + 1, sizeof *hit, err, "coverage"),
             *exact = gs_calloc(n_pat + 1, sizeof *exact, err, "coverage");
    if (hit == NULL || exact == NULL)
        goto done;
    for (uint64_t i = 0; i < x->t.n_rows; i++) {
        int first = i == 0 || x->t.unit[i - 1] != x->t.unit[i]
                    || x->t.pattern[i - 1] != x->t.pattern[i];
        int last = i + 1 == x->t.n_rows || x->t.unit[i + 1] != x->t.unit[i]
                   || x->t.pattern[i + 1] != x->t.pattern[i];
        int zero = x->t.best && (x->t.best[i] == 0 || (!first && x->t.best[i - 1] == 0));
        hit[x->t.pattern[i]] += first;
        exact[x->t.pattern[i]] += last && zero;
    }
    const int approx = x->t.best != NULL;
    fprintf(x->out, "pattern\tunits_hit\tunits_total\tfraction%s\n",
            approx ? "\texact\twithin_k\tnot_hit" : "");
    for (uint64_t p = 0; p < n_pat && !ferror(x->out); p++) {
        uint64_t u = x->t.n_units;
        fprintf(x->out, "%s\t%" PRIu64 "\t%" PRIu64 "\t%.4f", pname(x, (uint32_t)p), hit[p], u,
                u ? (double)hit[p] / (double)u : 0.0);
        if (approx)
            fprintf(x->out, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64, exact[p], hit[p] - exact[p],
                    u - hit[p]);
        fputc('\n', x->out);
    }
done:
    free(hit);
    free(exact);
}

gs_status gs_h5_export_tally(gs_h5_file *f, const gs_h5_tally_opts *o, FILE *out, gs_error *err)
{
    tally_out x = {.f = f, .out = out};
    if (gs_h5_tally_read(f, &x.t, err) != GS_OK)
        return err->code;
    if (o->matrix && strcmp(o->matrix, x.t.kind) != 0) {
        gs_fail(err, GS_EINPUT, "%s holds a tally by %s, not by %s (--matrix %s)", f->s.path,
                x.t.kind, o->matrix, o->matrix);
        goto done;
    }
    gs_h5_quiet q = gs_h5_quiet_begin();
    x.pnames = gs_h5_strings(f, x.t.of, 0, x.t.n_of, &x.pstride, err);
    gs_h5_quiet_end(q);
    if (x.pnames == NULL)
        goto done;
    if (o->coverage)
        write_coverage(&x, err);
    else if (o->long_form)
        write_long(&x);
    else
        write_matrix(&x, o->presence, err);
    if (err->code == GS_OK && (fflush(out) != 0 || ferror(out)))
        gs_fail(err, GS_ESYS, "cannot write the exported tally: %s (%s)", strerror(errno),
                f->s.path);
done:
    free(x.pnames);
    gs_h5_tally_free(&x.t);
    return err->code;
}
