/* commands.h - the gscan subcommands.
 *
 * main() parses a command line once, before MPI_Init, into a gs_cli; then
 * every rank runs the command, which returns a status with err set; main
 * prints the message once and exits with the status (contract §5). The
 * gscan-wide options --tune and --debug are taken out of argv before a
 * command's own parser sees it (gscan scan's parser knows them itself, so
 * that its --config files may set them too).
 */
#ifndef GS_COMMANDS_H
#define GS_COMMANDS_H

#include <mpi.h>
#include <stdio.h>

#include "core/gs_error.h"
#include "core/gs_tune.h"
#include "lz/lz.h"
#include "mpi/job.h"

typedef struct gs_gen_opts gs_gen_opts;
typedef struct gs_pcr_pairs gs_pcr_pairs; /* io/seq/pairs.h */

/* gscan index's options. The file list is gathered in argv itself (each
 * file takes one of the words already read). */
typedef struct gs_index_opts {
    const char **files;   /* the FASTA files, or --lz's corpus files */
    size_t n_files;
    int bgzf, lz;         /* --bgzf, --lz */
    const char *out;      /* -o: --bgzf's output (one FASTA) or --lz's index */
    int level;            /* --bgzf: deflate level */
    int threads;          /* --bgzf: compressing threads; --lz: parsing threads */
    gs_lz_build_opts lzo; /* --lz: -m, --input-format, --reference-records */
} gs_index_opts;

/* gscan export's options; the --corpus list is gathered in argv as above. */
typedef struct gs_export_cmd {
    const char *in, *format, *out; /* out NULL: standard output */
    int counts, seq, aligned; /* aligned: --aligned (implies seq) */
    const char *matrix;            /* --matrix record|file|sample */
    int presence, long_form, coverage; /* --presence, --long, --coverage */
    char **corpus;
    size_t n_corpus;
} gs_export_cmd;

/* One command line, parsed before MPI_Init. */
typedef struct gs_cli {
    int argc;           /* the command's arguments: argv[0] is its name */
    char **argv;
    gs_tune tune;       /* --tune, --debug */
    int help;           /* 1: print the command's usage; 2: the --tune keys */
    gs_scan_opts scan;  /* gscan scan's options (tune included) */
    gs_gen_opts *gen;   /* gscan gen's options */
    gs_index_opts index;
    const char *info;   /* gscan info's file */
    gs_export_cmd export;
    gs_pcr_pairs *pcr;  /* gscan pcr: the pairs of -p (scan.seqs point into it) */
} gs_cli;

/* Each command: parse (before MPI_Init, on every rank alike), run. */
gs_status gs_cmd_scan_parse(gs_cli *c, gs_error *err);
gs_status gs_cmd_scan_run(gs_cli *c, MPI_Comm comm, gs_error *err);
/* The job of scan and pcr (cmd_scan.c): the node's memory limits read now
 * that MPI has started (its mappings count against RLIMIT_AS), then
 * gs_scan_job; *rank is this process's rank in comm. */
gs_status gs_cmd_job(gs_cli *c, MPI_Comm comm, gs_job_summary *sum, int *rank, gs_error *err);
gs_status gs_cmd_gen_parse(gs_cli *c, gs_error *err);
gs_status gs_cmd_gen_run(gs_cli *c, MPI_Comm comm, gs_error *err);
void gs_cmd_gen_free(gs_cli *c);
void gs_cmd_gen_print_usage(FILE *out);
/* cmd_pcr.c: gscan pcr, a scan of the primers whose sites become products. */
gs_status gs_cmd_pcr_parse(gs_cli *c, gs_error *err);
gs_status gs_cmd_pcr_run(gs_cli *c, MPI_Comm comm, gs_error *err);
void gs_cmd_pcr_free(gs_cli *c);
void gs_cmd_pcr_print_usage(FILE *out);

/* cmd_files.c: gscan index, info and export. They run on rank 0; the other
 * ranks only learn the agreed status. */
gs_status gs_cmd_index_parse(gs_cli *c, gs_error *err);
gs_status gs_cmd_index_run(gs_cli *c, MPI_Comm comm, gs_error *err);
void gs_cmd_index_print_usage(const gs_cli *c, FILE *out);
gs_status gs_cmd_info_parse(gs_cli *c, gs_error *err);
gs_status gs_cmd_info_run(gs_cli *c, MPI_Comm comm, gs_error *err);
void gs_cmd_info_print_usage(FILE *out);
gs_status gs_cmd_export_parse(gs_cli *c, gs_error *err);
gs_status gs_cmd_export_run(gs_cli *c, MPI_Comm comm, gs_error *err);
void gs_cmd_export_print_usage(FILE *out);

/* cmd_lz.c: "gscan index --lz" (its argv as gscan index's, its options
 * into o) and the summary of an index for "gscan info"; they run on rank 0. */
gs_status gs_lz_index_parse(int argc, char **argv, gs_index_opts *o, gs_error *err);
gs_status gs_lz_index_files(const gs_index_opts *o, const gs_tune *tune, gs_error *err);
gs_status gs_lz_info_file(const char *path, const gs_tune *tune, gs_error *err);
extern const char gs_lz_index_usage[];

#endif
