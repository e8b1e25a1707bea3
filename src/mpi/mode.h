/* mode.h - the read modes of a scan job: how a rank gets its segments.
 *
 * A mode is a small table, as the engines are (match/engine.h): its name,
 * whether its hits must travel to rank 0, and the steps the job calls in
 * order. The job's phases never name a mode; gs_mode_choose picks one.
 *
 *   local     one process streams its files (gs_reader)            mode_local.c
 *   ranges    each rank reads its pieces of the plan through .fai  mode_ranges.c
 *   streamed  rank 0 streams and deals segments to every rank      mode_stream.c
 *   lz        every rank scans its share of an LZ77 index's kernel mode_lz.c
 */
#ifndef GS_MODE_H
#define GS_MODE_H

#include "io/seq/fasta.h"
#include "io/seq/files.h"
#include "io/seq/parts.h"
#include "job_internal.h"
#include "sources.h"

/* One pass's sources on this rank. */
typedef struct gs_pass {
    int main;                      /* its records make the layout (not --verify's pass) */
    int want_hits;                 /* the scan keeps hits, which name their records */
    gs_source src[GS_MAX_READERS]; /* filled by open */
    int n_src;
    double t_send;                 /* seconds rank 0 spent dealing segments */
    uint64_t bytes_read;           /* corpus bytes read by the pass */
} gs_pass;

/* When rank 0 checks the record names for repeats (gs_job_dups_*). */
typedef enum gs_names_check {
    GS_NAMES_AFTER,  /* once the scan has met them all */
    GS_NAMES_BESIDE, /* beside the scan: the layout is known before it */
    GS_NAMES_NONE    /* not checked (an LZ index's names) */
} gs_names_check;

typedef struct gs_mode {
    const char *name;  /* the summary's "reading" */
    gs_names_check names;
    int gathers_hits;  /* its hits interleave across ranks: gathered to rank 0 */
    int needs_hits;    /* it counts from hits (after_scan), so hits are always kept */
    /* Collective, once the mode is chosen: what every rank needs before
     * scanning (j->ms, j->readers, j->total); NULL: nothing. */
    gs_status (*plan)(gs_job *j, gs_error *err);
    /* This rank's sources for one pass. */
    gs_status (*open)(gs_job *j, gs_pass *p, gs_error *err);
    /* After the pass, also after a failed open or scan (st): streams ended,
     * readers closed, p->bytes_read and p->t_send set. Returns st, or after
     * a pass that went well its own failure (a layout it cannot finish). */
    gs_status (*close)(gs_job *j, gs_pass *p, gs_status st, gs_error *err);
    /* NULL, or: turn a pass's result into this rank's counts and hits. */
    gs_status (*after_scan)(gs_job *j, gs_scan_res *res, gs_error *err);
    /* The corpus layout the result is written with (complete on rank 0). */
    const gs_layout *(*layout)(const gs_job *j);
    void (*free)(gs_job *j);
} gs_mode;

extern const gs_mode gs_mode_local, gs_mode_ranges, gs_mode_streamed, gs_mode_lz;

/* Collective: pick the mode (gs_policy_mode) from rank 0's look at the
 * corpus, and set j->mode and j->readers on every rank. */
gs_status gs_mode_choose(gs_job *j, gs_error *err);

/* mode_ranges.c, rank 0: can every file be read by ranges? Loads or builds
 * the indexes and, when so, keeps the layout in j->ms. */
gs_status gs_ranges_probe(gs_job *j, int *by_ranges, gs_error *err);

/* mode_local.c: rank 0's reader over the corpus files, shared by local and
 * streamed (their state: the records the main pass met). */
typedef struct gs_reader_state {
    gs_layout layout;  /* rank 0: the records the main pass met */
    gs_layout scratch; /* another pass's records, dropped at close */
    gs_reader *reader; /* rank 0, during a pass */
    gs_parts *parts;   /* or, one process, its files read in parts */
    gs_files *files;   /* or whole files side by side (no result names a record) */
    gs_stream_src ss;  /* streamed: the dealing of rank 0's segments */
} gs_reader_state;
gs_status gs_reader_state_plan(gs_job *j, gs_error *err);
gs_status gs_reader_state_open(gs_job *j, gs_pass *p, gs_source *inner, gs_error *err);
gs_status gs_reader_state_close(gs_job *j, gs_pass *p, gs_status st, gs_error *err);
const gs_layout *gs_reader_state_layout(const gs_job *j);
void gs_reader_state_free(gs_job *j);

#endif
