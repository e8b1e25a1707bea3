/* h5read.h - read a result file back (contract §3): for gscan info and
 * export, and tests. Serial (one process).
 *
 * gs_h5_open checks every dataset the commands read before any is used (a
 * result file is input like any other: it may be truncated, hand-edited or
 * crafted), so a file that opens can be read through the functions below;
 * each still reports a failed read as GS_EINPUT naming the file. The large
 * datasets are streamed in pieces, so a file with billions of hits exports
 * in bounded memory. What to show and how is the caller's (src/cli/info.c).
 */
#ifndef GS_H5READ_H
#define GS_H5READ_H

#include <stdint.h>
#include <stdio.h>

#include "core/gs_error.h"
#include "core/gs_result.h"

typedef struct gs_h5_file gs_h5_file;

/* The tables of an opened file. */
typedef struct gs_h5_shape {
    const char *path;
    uint64_t n_pat, n_rec, n_files, n_hits;
    int n_strands; /* columns of /counts: 2, or 1 (forward strand only) */
    int has_hits;  /* /hits is present (--report hits) */
    int approx;    /* /hits/distance and /hits/end are present (approximate modes) */
} gs_h5_shape;

gs_status gs_h5_open(const char *path, gs_h5_file **f, gs_error *err);
const gs_h5_shape *gs_h5_shape_of(const gs_h5_file *f);
/* 1 when reading a crafted file made HDF5 fault and the open was abandoned:
 * the process should leave without closing HDF5 (its state is not whole). */
int gs_h5_read_abandoned(void);
void gs_h5_close(gs_h5_file *f);

/* Root attributes. A string into buf ("" when missing); an integer (-1 when
 * missing or unreadable); whether one exists. err is set when one exists
 * but is not one value of the expected kind. */
void gs_h5_attr_str(gs_h5_file *f, const char *name, char *buf, size_t size, gs_error *err);
/* The same for an attribute of the object at path obj ("/": the root). */
void gs_h5_attr_str_at(gs_h5_file *f, const char *obj, const char *name, char *buf, size_t size,
                       gs_error *err);
long gs_h5_attr_int(gs_h5_file *f, const char *name, gs_error *err);
int gs_h5_attr_exists(gs_h5_file *f, const char *name);

/* Rows [from, from + n) of a fixed-length string dataset ("/files",
 * "/records/name", "/patterns/name", ...), each NUL-terminated at *stride in
 * the returned buffer (free it); NULL on failure, err set. */
char *gs_h5_strings(gs_h5_file *f, const char *name, uint64_t from, uint64_t n, size_t *stride,
                    gs_error *err);
/* Lengths of records [from, from + n). */
gs_status gs_h5_record_lengths(gs_h5_file *f, uint64_t from, uint64_t n, uint64_t *len,
                               gs_error *err);
/* The residues of all records (streamed). */
gs_status gs_h5_residues(gs_h5_file *f, uint64_t *total, gs_error *err);

/* Per-pattern rows, streamed in blocks in pattern order: counts[i *
 * n_strands + s] and length[i] are those of pattern first + i. */
typedef struct gs_h5_pattern_rows {
    uint64_t first, n;
    const uint64_t *counts;
    const uint32_t *length;
} gs_h5_pattern_rows;
typedef void (*gs_h5_pattern_fn)(void *ctx, const gs_h5_pattern_rows *rows);
gs_status gs_h5_each_pattern(gs_h5_file *f, gs_h5_pattern_fn fn, void *ctx, gs_error *err);

/* /timing: each phase's slowest rank (max) over ranks[p] ranks; ranks[p] is
 * 0 where the phase is absent (older files have fewer) or empty. damaged:
 * HDF5 could not load the group or a phase's entry (a failed checksum), so
 * what is absent may only be unreadable: the caller says so. */
typedef struct gs_h5_timing {
    uint64_t ranks[GS_N_PHASES];
    double max[GS_N_PHASES];
    int damaged;
} gs_h5_timing;
gs_status gs_h5_timing_read(gs_h5_file *f, gs_h5_timing *t, gs_error *err);

/* Hits as TSV (header line; record, start, end, pattern, strand) or BED6
 * (text_out.h). */
gs_status gs_h5_export(gs_h5_file *f, const char *format, FILE *out, gs_error *err);
/* What gs_h5_export_seq writes. */
typedef struct gs_h5_export_opts {
    const char *format;   /* tsv or bed */
    int with_seq;         /* a last column "matched": each hit's residues read
                           * through the .fai of the scanned files (hit_seq.h) */
    char *const *corpus;  /* those files, in order (NULL: the paths in /files) */
    size_t n_corpus;
    int aligned;          /* with with_seq: the aligned and cigar columns (align.h) */
} gs_h5_export_opts;
gs_status gs_h5_export_seq(gs_h5_file *f, const gs_h5_export_opts *o, FILE *out, gs_error *err);
/* Per-pattern counts as TSV (text_out.h: pattern, sequence, length, forward,
 * reverse, total). */
gs_status gs_h5_export_counts(gs_h5_file *f, FILE *out, gs_error *err);

/* /tally (--tally), read whole and checked: ids inside the tables, rows in
 * (unit, pattern, strand) order. best is NULL in exact modes. */
typedef struct gs_h5_tally {
    char kind[16];            /* the unit: "record" | "file" | "sample" */
    uint64_t n_units, n_rows;
    char *names;              /* unit names, each at stride */
    size_t stride;
    uint32_t *unit, *pattern;
    int8_t *strand;
    uint64_t *count;
    uint8_t *best;            /* smallest distance of a row's hits */
    const char *of;           /* the names the pattern column indexes: "/patterns/name",
                               * or "/amplicons/pair_name" (gscan pcr: products by pair) */
    uint64_t n_of;            /* their number */
} gs_h5_tally;
int gs_h5_has_tally(gs_h5_file *f);
/* GS_EINPUT naming the file when it holds no tally. */
gs_status gs_h5_tally_read(gs_h5_file *f, gs_h5_tally *t, gs_error *err);
void gs_h5_tally_free(gs_h5_tally *t);
/* gscan export --matrix UNIT [--presence] | --long | --coverage: the
 * tally as TSV (docs/format.md). A matrix of a unit the file does not hold
 * is GS_EINPUT naming the file and its unit. */
typedef struct gs_h5_tally_opts {
    const char *matrix; /* the unit asked for (NULL: the file's) */
    int presence, long_form, coverage;
} gs_h5_tally_opts;
gs_status gs_h5_export_tally(gs_h5_file *f, const gs_h5_tally_opts *o, FILE *out, gs_error *err);

#endif
