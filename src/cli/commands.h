/* commands.h - the gscan subcommands. Each takes its own argv (argv[0] is the
 * command name), runs on every rank, and returns a status with err set; main
 * prints the message once and exits with the status (contract §5). */
#ifndef GS_COMMANDS_H
#define GS_COMMANDS_H

#include <mpi.h>

#include "core/gs_error.h"

gs_status gs_cmd_scan(int argc, char **argv, MPI_Comm comm, gs_error *err);
gs_status gs_cmd_gen(int argc, char **argv, MPI_Comm comm, gs_error *err);
gs_status gs_cmd_index(int argc, char **argv, MPI_Comm comm, gs_error *err);
gs_status gs_cmd_info(int argc, char **argv, MPI_Comm comm, gs_error *err);
gs_status gs_cmd_export(int argc, char **argv, MPI_Comm comm, gs_error *err);

/* cmd_lz.c: "gscan index --lz" (argv as for gscan index) and the summary of
 * an index for "gscan info"; both run on rank 0 only. */
gs_status gs_lz_index_files(int argc, char **argv, gs_error *err);
gs_status gs_lz_info_file(const char *path, gs_error *err);
extern const char gs_lz_index_usage[];

#endif
