/* gs_result.h - what a scan hands to the writers: the run's description,
 * the patterns, the layout, the reduced counts, this rank's hits and
 * timings.
 *
 * The HDF5 and text writers (src/io/results) and the job (src/mpi) share it;
 * it holds no file or MPI handle, so either side can be built and tested
 * without the other.
 */
#ifndef GS_RESULT_H
#define GS_RESULT_H

#include <stdint.h>

#include "gs_amplicon.h"
#include "gs_hitmerge.h"
#include "gs_patset.h"
#include "gs_tally.h"
#include "gs_tune.h"
#include "gs_types.h"

typedef struct gs_hit_seq gs_hit_seq; /* io/results/hit_seq.h */

/* /timing/<phase>, seconds per rank. init: from exec to the job's start (MPI
 * start-up, loading); setup: patterns, keyset, device probe; plan: layout
 * and plan; then read (inside scan), transfer, scan, reduce, write; total:
 * from exec to the written file, so only MPI_Finalize and exit follow it. */
enum gs_phase { GS_T_READ, GS_T_TRANSFER, GS_T_SCAN, GS_T_REDUCE, GS_T_WRITE, GS_T_INIT,
                GS_T_SETUP, GS_T_PLAN, GS_T_TOTAL, GS_N_PHASES };
extern const char *const gs_phase_names[GS_N_PHASES];

typedef struct gs_run_info {
    const char *command_line;
    const char *engine;      /* engine actually used */
    const char *device;      /* "cpu" or "gpu" */
    const char *alphabet;    /* "dna" | "bytes" */
    const char *strand_mode; /* "both" | "forward" */
    const char *report;      /* "counts" | "hits" */
    int n_ranks, n_gpus;
    const char *match;       /* "exact" | "mismatches" | "edits" (NULL: exact) */
    int max_dist;            /* K of the approximate modes */
    int max_bulges;          /* B of --max-bulges (0: none) */
    int exact3p;             /* N of --exact-3p (0: none; a pattern file's own column wins) */
    int option_k;            /* K of the option (a pattern file's own column wins) */
    int best_per_site;       /* --best-per-site */
    int circular;            /* --circular: hits may end past their record's length */
} gs_run_info;

typedef struct gs_result {
    gs_run_info info;
    const gs_patset *patterns; /* rank 0 */
    const gs_layout *layout;   /* rank 0 */
    const uint64_t *counts;    /* rank 0: [n_patterns][n_strands] */
    int n_strands;
    int with_hits;             /* --report hits: write /hits */
    const gs_hit *hits;        /* this rank's hits, sorted */
    uint64_t n_hits;
    const gs_hit_source *hit_stream; /* or NULL: else the n_hits come from here,
                                      * in order, a chunk at a time (hits beyond
                                      * --max-memory: core/gs_spill.h) */
    double timing[GS_N_PHASES]; /* this rank's seconds; write is filled in here */
    const char *tally_unit;    /* --tally: "record" | "file" | "sample" (NULL: none) */
    const gs_tally *tally;     /* rank 0: its rows, sorted by (unit, pattern, strand) */
    const char *const *unit_names; /* rank 0: n_units names, in unit order */
    uint64_t n_units;
    gs_hit_seq *seq;           /* text output (rank 0): a matched column read
                                * through it (io/hit_seq.h), or NULL */
    int aligned;               /* with seq: the aligned and cigar columns too */
    const gs_tune *tune;       /* the HDF5 writer's knobs: io.h5.threads,
                                * io.h5.slots, io.h5.align, debug time (NULL: the
                                * defaults) */
    char *const *mpi_hints;    /* MPI-IO hints of the HDF5 writer, "KEY=VALUE" */
    size_t n_mpi_hints;
    /* gscan pcr (rank 0): the pairs and their products, sorted; n_pairs 0: a scan */
    const gs_pcr_pair *pairs;
    char *const *pair_names;
    uint64_t n_pairs;
    const gs_amplicon *amplicons;
    uint64_t n_amplicons;
} gs_result;

#endif
