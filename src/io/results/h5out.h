/* h5out.h - write and read the result file of contract §3 (HDF5).
 *
 * Writing is collective over an MPI communicator (one process is a
 * communicator of one): every rank passes its own hits, already sorted and
 * forming one contiguous run of the global order, and its own timings; rank 0
 * passes the pattern set, the layout and the reduced counts (other ranks may
 * pass NULL). The file is written as "<out>.tmp.<pid>" and renamed to <out>
 * by rank 0 only when everything was written and closed, so a failed run never
 * leaves a file that looks finished.
 */
#ifndef GS_H5OUT_H
#define GS_H5OUT_H

#include <mpi.h>
#include <stdio.h>

#include "core/gs_error.h"
#include "core/gs_types.h"
#include "core/gs_result.h"
#include "hit_seq.h"


gs_status gs_h5_write(const char *path, gs_result *res, MPI_Comm comm, gs_error *err);

/* Reading back, for gscan info / export and tests (serial, one process). */
typedef struct gs_h5_file gs_h5_file;
gs_status gs_h5_open(const char *path, gs_h5_file **f, gs_error *err);
/* 1 when reading a crafted file made HDF5 fault and the open was abandoned:
 * the process should leave without closing HDF5 (its state is not whole). */
int gs_h5_read_abandoned(void);
void gs_h5_close(gs_h5_file *f);
/* Print the human summary of gscan info. */
gs_status gs_h5_info(gs_h5_file *f, FILE *out, gs_error *err);
/* Hits as TSV (header line; record, start, end, pattern, strand) or BED6
 * (text_out.h). */
gs_status gs_h5_export(gs_h5_file *f, const char *format, FILE *out, gs_error *err);
/* The same with a last column "matched" when with_seq: each hit's residues
 * read through the .fai of the n_corpus files of the scan, in order (corpus
 * NULL: the paths in /files), see io/hit_seq.h. */
gs_status gs_h5_export_seq(gs_h5_file *f, const char *format, int with_seq, char *const *corpus,
                           size_t n_corpus, FILE *out, gs_error *err);
/* Per-pattern counts as TSV (text_out.h: pattern, sequence, length, forward,
 * reverse, total). */
gs_status gs_h5_export_counts(gs_h5_file *f, FILE *out, gs_error *err);

#endif
