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
#include "mpi/job.h"

typedef struct gs_gen_opts gs_gen_opts;

/* One command line, parsed before MPI_Init. */
typedef struct gs_cli {
    int argc;           /* the command's arguments: argv[0] is its name */
    char **argv;
    gs_tune tune;       /* --tune, --debug */
    int help;           /* 1: print the command's usage; 2: the --tune keys */
    gs_scan_opts scan;  /* gscan scan's options (tune included) */
    gs_gen_opts *gen;   /* gscan gen's options */
} gs_cli;

/* gscan scan and gscan gen: parse (before MPI_Init), run, free. */
gs_status gs_cmd_scan_parse(gs_cli *c, gs_error *err);
gs_status gs_cmd_scan_run(gs_cli *c, MPI_Comm comm, gs_error *err);
gs_status gs_cmd_gen_parse(gs_cli *c, gs_error *err);
gs_status gs_cmd_gen_run(gs_cli *c, MPI_Comm comm, gs_error *err);
void gs_cmd_gen_free(gs_cli *c);
void gs_cmd_gen_print_usage(FILE *out);

/* cmd_files.c: these parse their own argv when they run, on rank 0; tune
 * is the run's --tune and --debug, taken out of argv before MPI_Init. */
gs_status gs_cmd_index(int argc, char **argv, const gs_tune *tune, MPI_Comm comm, gs_error *err);
gs_status gs_cmd_info(int argc, char **argv, const gs_tune *tune, MPI_Comm comm, gs_error *err);
gs_status gs_cmd_export(int argc, char **argv, const gs_tune *tune, MPI_Comm comm,
                        gs_error *err);

/* cmd_lz.c: "gscan index --lz" (argv as for gscan index) and the summary of
 * an index for "gscan info"; both run on rank 0 only. */
gs_status gs_lz_index_files(int argc, char **argv, const gs_tune *tune, gs_error *err);
gs_status gs_lz_info_file(const char *path, const gs_tune *tune, gs_error *err);
extern const char gs_lz_index_usage[];

#endif
