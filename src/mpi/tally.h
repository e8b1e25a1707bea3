/* tally.h - --tally in a scan job (tally.c): the samples sheet read before
 * the scan, the ranks' hits tallied and merged on rank 0 after it, and the
 * tally handed to the writer. Part of the job (job_internal.h).
 */
#ifndef GS_MPI_TALLY_H
#define GS_MPI_TALLY_H

#include "job_internal.h"

/* Setup (every rank, --tally only): rank 0 reads and checks --samples
 * (GS_EINPUT naming sheet and line). */
gs_status gs_job_tally_setup(gs_job *j, gs_error *err);
/* 1 when the scan tallies its exact hits per record itself
 * (gs_scan_cfg.tally_runs): --tally without hits to report, to count
 * from or to pair (gscan pcr). */
int gs_job_tally_from_runs(const gs_job *j);
/* 1 when it does so by file (--tally file): the scan's rows are then by
 * file (gs_scan_cfg.tally_files), no record rows are made. */
int gs_job_tally_files(const gs_job *j);
/* Collective, after the reduce phase: this rank's hits (as reported) are
 * tallied, or its scan's rows taken (moved out of *scanned) when the scan
 * made them, and the tallies summed on rank 0, by unit; a record that no
 * row of the sheet covers is GS_EINPUT naming it and the sheet. Every rank
 * returns the same status. */
gs_status gs_job_tally(gs_job *j, const gs_hits *hits, gs_tally *scanned, gs_error *err);
/* The tally's fields of the result (rank 0), nothing without --tally. */
void gs_job_tally_result(const gs_job *j, gs_result *r);
void gs_job_tally_free(gs_job *j);

#endif
