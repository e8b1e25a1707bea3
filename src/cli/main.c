/* main.c - gscan's entry point: MPI start-up, command dispatch, and the one
 * place that prints errors and picks the exit status (contract §5).
 *
 * gscan is always an MPI program; run without mpiexec it is one rank. Every
 * command returns an agreed status on all ranks, so rank 0 prints the
 * message once and all ranks leave with the same exit code.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const char usage[] =
    "usage: gscan COMMAND [options]\n"
    "\n"
    "Scan large genomic corpora for large pattern sets, on GPUs or CPUs, one MPI\n"
    "rank per GPU, and write every count and hit to HDF5.\n"
    "\n"
    "commands:\n"
    "  scan     scan FASTA/EST corpora for a pattern set into an HDF5 result file\n"
    "  gen      write a reproducible random workload (corpus + patterns)\n"
    "  index    write a samtools-compatible .fai next to each plain FASTA file\n"
    "           (--lz: an LZ77 hybrid index of a repetitive collection)\n"
    "  info     print a human summary of a result file or an LZ77 index\n"
    "  export   write the hits of a result file as TSV or BED\n"
    "\n"
    "  gscan COMMAND --help   options of one command\n"
    "  gscan --version        version\n"
    "\n"
    "Exit status: 0 success, 1 usage, 2 bad input, 3 system failure.\n";

int main(int argc, char **argv)
{
    int provided, rank = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Errors from MPI calls come back as codes and end the job through the
     * agreed-status path rather than an abort from inside the library. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    gs_error err = {0};
    gs_status st = GS_OK;
    const char *cmd = argc > 1 ? argv[1] : NULL;
    if (cmd == NULL) {
        if (rank == 0)
            fputs(usage, stderr);
        st = GS_EUSAGE;
    } else if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (rank == 0)
            fputs(usage, stdout);
    } else if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        if (rank == 0)
            printf("gscan %s\n", GS_VERSION);
    } else if (!strcmp(cmd, "scan")) {
        st = gs_cmd_scan(argc - 1, argv + 1, MPI_COMM_WORLD, &err);
    } else if (!strcmp(cmd, "gen")) {
        st = gs_cmd_gen(argc - 1, argv + 1, MPI_COMM_WORLD, &err);
    } else if (!strcmp(cmd, "index")) {
        st = gs_cmd_index(argc - 1, argv + 1, MPI_COMM_WORLD, &err);
    } else if (!strcmp(cmd, "info")) {
        st = gs_cmd_info(argc - 1, argv + 1, MPI_COMM_WORLD, &err);
    } else if (!strcmp(cmd, "export")) {
        st = gs_cmd_export(argc - 1, argv + 1, MPI_COMM_WORLD, &err);
    } else {
        st = gs_fail(&err, GS_EUSAGE, "unknown command '%s' (gscan --help lists them)", cmd);
    }
    if (st != GS_OK && err.code != GS_OK && rank == 0) {
        fprintf(stderr, "gscan: error: %s\n", err.msg);
        if (st == GS_EUSAGE) {
            int known = cmd && (!strcmp(cmd, "scan") || !strcmp(cmd, "gen") || !strcmp(cmd, "index") ||
                                !strcmp(cmd, "info") || !strcmp(cmd, "export"));
            fprintf(stderr, "Try 'gscan %s%s--help'.\n", known ? cmd : "", known ? " " : "");
        }
    }
    fflush(stdout);
    fflush(stderr);
    MPI_Finalize();
    return (int)st;
}
