/* job.h - one "gscan scan" over MPI_COMM_WORLD (contract §4): the phases every
 * rank runs, from reading the patterns to the renamed result file.
 *
 * Rank 0 learns the corpus layout and sends the plan; each rank scans what
 * the plan gives it; counts meet in MPI_Reduce; hits are written by all ranks
 * into one HDF5 file. After each phase the ranks agree on success, so an error
 * on any rank ends every rank with one message and contract §5's status.
 */
#ifndef GS_JOB_H
#define GS_JOB_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gs_error.h"
#include "core/gs_tally.h"
#include "core/gs_tune.h"
#include "core/gs_types.h"
#include "io/seq/fasta.h"
#include "policy.h" /* gs_device_kind, GS_MAX_READERS, GS_BLOCK_GPU, GS_BLOCK_CPU */

/* What -o receives: the HDF5 result file, or text rows (io/text_out.h). */
typedef enum gs_out_format { GS_OUT_H5, GS_OUT_TSV, GS_OUT_BED, GS_OUT_CAS,
                             GS_OUT_FASTA /* gscan pcr's product sequences */ } gs_out_format;

struct gs_pcr_pairs; /* io/seq/pairs.h */

typedef struct gs_scan_opts {
    const char *patterns;    /* -p, or NULL when only -s gives patterns */
    char **seqs;             /* -s/--pattern, in order, after those of -p */
    size_t n_seqs;
    const char *out;         /* -o, default gscan.h5; "-" is standard output */
    gs_out_format out_format; /* -O, else from -o's extension (.tsv, .bed, -: text) */
    const char *engine;      /* -e: auto | ac | wm | rk (bf for tests) */
    gs_device_kind device;   /* -d */
    int both_strands;        /* --strand both (1) | forward (0) */
    gs_alphabet alphabet;    /* --alphabet */
    gs_input_format format;  /* --input-format */
    int report_hits;         /* --report hits (1) | counts (0); text output: hits
                              * unless --report counts was given */
    int threads;             /* -t, 0: one per core */
    int readers;             /* --readers (1 .. GS_MAX_READERS), 0: from threads */
    int verify;              /* --verify */
    int progress;            /* 1 --progress, 0 --quiet, -1 default (a terminal) */
    int quiet;               /* -q: no progress bar and no summary line */
    uint64_t block;          /* --block-size residues; 0: GS_BLOCK_GPU or GS_BLOCK_CPU */
    uint32_t max_expansions; /* --max-expansions */
    uint64_t max_memory;     /* --max-memory bytes a rank holds; 0: from node_memory */
    gs_memory_limits node_memory; /* what limits the node's memory (src/cli reads it) */
    gs_match_mode match;     /* --max-mismatches / --max-edits (exact without) */
    uint32_t max_dist;       /* their K */
    uint32_t exact3p;        /* --exact-3p: 3'-most residues that align without edit */
    uint32_t bulges;         /* --max-bulges: bulge residues beside the mismatches */
    int best_per_site;       /* --best-per-site */
    int circular;            /* --circular: every record is circular */
    gs_tally_unit tally;     /* --tally: hits counted per record, file or sample */
    const char *samples;     /* --samples SHEET.tsv: file or record -> sample */
    int with_seq;            /* --seq: text hit rows end with the matched residues */
    int aligned;             /* --aligned: and with that alignment and CIGAR (implies --seq) */
    const char *config;      /* --config */
    const char *index;       /* --index: an LZ77 hybrid index instead of corpus files */
    char **corpus;           /* positional (or "corpus" in a config) */
    size_t n_corpus;
    char *command_line;      /* argv joined, for the result file */
    gs_tune tune;            /* --tune and --debug (core/gs_tune.h); zero: as shipped */
    char **mpi_hints;        /* --mpi-hint KEY=VALUE, in order: MPI-IO hints of the writer */
    size_t n_mpi_hints;
    const struct gs_pcr_pairs *pcr; /* gscan pcr: the primer pairs (primers are -s, in
                                     * order); NULL for gscan scan */
    const char *pairs;       /* gscan pcr: the pairs file (-p) */
    char **owned;            /* strings read from a config, freed with the opts */
    size_t n_owned;
} gs_scan_opts;

/* What the command reports on stderr after a scan (rank 0's view). */
typedef struct gs_job_summary {
    const char *engine, *device; /* what ran */
    double t_main;               /* seconds of the scan pass */
    int verified;                /* --verify ran and agreed */
    const char *ref_engine;      /* the CPU reference engine of --verify */
    double t_ref;                /* its seconds */
    uint64_t n_hits;             /* hits this rank wrote */
    uint64_t bytes_read;         /* corpus bytes this rank read */
    const char *reading;         /* the read mode (mode.h): "ranges" (through indexes),
                                  * "streamed" (dealt by rank 0), "local" (one process
                                  * streams) or "lz" (an LZ77 index, --index) */
    /* rank 0, after a written result: what the summary line says */
    uint32_t n_patterns;
    uint64_t n_records, residues; /* of the whole corpus (residues: 0 when unknown) */
    uint64_t total_hits;          /* the sum of the counts: every hit, stored or not */
    uint64_t n_products;          /* gscan pcr: the products */
    int n_ranks;
    double t_total;               /* seconds from exec to the written file */
} gs_job_summary;

/* Run the scan collectively over comm. Every rank returns the same status
 * and err message; the caller prints it on rank 0 only. */
gs_status gs_scan_job(const gs_scan_opts *o, MPI_Comm comm, gs_job_summary *sum, gs_error *err);

#endif
