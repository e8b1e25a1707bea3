/* main.c - gscan's entry point: MPI start-up, command dispatch, and the one
 * place that prints errors and picks the exit status (contract §5).
 *
 * gscan is always an MPI program; run without mpiexec it is one rank. Every
 * command returns an agreed status on all ranks, so rank 0 prints the
 * message once and all ranks leave with the same exit code.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "core/gs_clock.h"
#include "gpu/gpu.h"
#include "io/results/h5out.h"
#include "comm/mpi_check.h"

static const char usage[] =
    "usage: gscan COMMAND [options]\n"
    "\n"
    "Scan large genomic corpora for large pattern sets, on GPUs or CPUs, one MPI\n"
    "rank per GPU, and write every count and hit to HDF5.\n"
    "\n"
    "commands:\n"
    "  scan     scan FASTA/EST corpora for a pattern set into an HDF5 result file\n"
    "  gen      write a reproducible random workload (corpus + patterns)\n"
    "  index    write a samtools-compatible .fai (and .gzi) next to each FASTA file;\n"
    "           --bgzf recompresses gzip as BGZF first; --lz writes an LZ77\n"
    "           hybrid index of a repetitive collection\n"
    "  info     print a human summary of a result file or an LZ77 index\n"
    "  export   write the hits of a result file as TSV or BED\n"
    "\n"
    "  gscan COMMAND --help   options of one command\n"
    "  gscan --version        version\n"
    "\n"
    "Exit status: 0 success, 1 usage, 2 bad input, 3 system failure.\n";

/* The node-local rank as the launchers tell it (MPICH's Hydra, Open MPI,
 * Slurm), before MPI can: the job picks GPU (local rank mod GPUs), and the
 * warm-up makes that device's context. */
static int launcher_local_rank(void)
{
    static const char *const vars[] = {"MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK",
                                       "SLURM_LOCALID", "PMI_LOCAL_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v);
    }
    return 0;
}

/* A scan that may use a GPU: not "-d cpu" / "--device cpu" on the command
 * line (a config file's device key is not looked at; a context made for
 * nothing costs only the overlapped time). */
static int may_use_gpu(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "scan") != 0 || getenv("GS_NO_GPU_WARMUP"))
        return 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-dcpu") || !strcmp(a, "--device=cpu") ||
            ((!strcmp(a, "-d") || !strcmp(a, "--device")) && i + 1 < argc &&
             !strcmp(argv[i + 1], "cpu")))
            return 0;
    }
    return 1;
}

static void *warm_gpu(void *arg)
{
    gs_gpu_warm(*(int *)arg);
    return NULL;
}

/* hwloc's GPU plugins, which MPICH's MPI_Init loads with the node's topology:
 * the OpenCL one starts the GPU driver to list its devices, 0.21 of the 0.23 s
 * MPI_Init took on a one-H100 node (bench/startup/mpi_init.sh), and gscan
 * needs no GPU in MPI's view of the node (ranks pick GPUs by local rank).
 * A user's own HWLOC_COMPONENTS is kept. */
static const char hwloc_skip[] = "-opencl,-cuda,-nvml,-rsmi,-levelzero,-gl";

int main(int argc, char **argv)
{
    int provided, rank = 0;
    setenv("HWLOC_COMPONENTS", hwloc_skip, 0); /* before any thread starts */
    /* CUDA's start-up (driver, context: a few hundred ms) overlaps MPI's and
     * the job's set-up instead of following them */
    pthread_t warm;
    int warm_dev = launcher_local_rank();
    int warming = may_use_gpu(argc, argv) && pthread_create(&warm, NULL, warm_gpu, &warm_dev) == 0;
    GS_MPI_CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    GS_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    /* Errors from MPI calls come back as codes, so GS_MPI_CHECK can name
     * the call and its place before it ends the job (mpi/mpi_check.h);
     * communicators made from this one inherit the handler. */
    GS_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

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
    if (warming)
        pthread_join(warm, NULL);
    fflush(stdout);
    fflush(stderr);
    if (gs_h5_read_abandoned()) /* closing HDF5 would loop over the lost objects */
        _exit((int)st);
    double t_fin = gs_now();
    GS_MPI_CHECK(MPI_Finalize());
    if (getenv("GS_DEBUG_TIME"))
        fprintf(stderr, "gscan: rank %d: MPI_Finalize %.3f s, %.3f s since exec\n", rank,
                gs_now() - t_fin, gs_process_age());
    return (int)st;
}
