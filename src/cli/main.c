/* main.c - gscan's entry point: MPI start-up, command dispatch, and the one
 * place that prints errors and picks the exit status (contract §5).
 *
 * gscan is always an MPI program; run without mpiexec it is one rank. Every
 * command returns an agreed status on all ranks, so rank 0 prints the
 * message once and all ranks leave with the same exit code.
 */
#define _GNU_SOURCE /* pthread_setattr_default_np */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "comm/mpi_check.h"
#include "commands.h"
#include "core/gs_clock.h"
#include "core/gs_parallel.h"
#include "gpu/gpu.h"
#include "io/results/h5out.h"
#include "match/engine.h"
#include "mpi/host.h"
#include "options.h"
#include "signals.h"
#include "tune.h"

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
    "  pcr      in-silico PCR: every product of primer pairs (HDF5, TSV, BED, FASTA)\n"
    "\n"
    "  gscan COMMAND --help   options of one command\n"
    "  gscan --version        version\n"
    "\n"
    "Every command also takes --tune KEY=VALUE (knobs of how gscan computes:\n"
    "gscan scan --tune help lists them) and --debug time (per-step timings).\n"
    "\n"
    "Exit status: 0 success, 1 usage, 2 bad input, 3 system failure.\n";

/* The commands: parsed before MPI_Init, run on every rank after it. */
typedef struct command {
    const char *name;
    gs_status (*parse)(gs_cli *c, gs_error *err);
    gs_status (*run)(gs_cli *c, MPI_Comm comm, gs_error *err);
    void (*print_usage)(const gs_cli *c, FILE *out);
} command;

static void scan_usage(const gs_cli *c, FILE *out) { (void)c; gs_scan_print_usage(out); }
static void gen_usage(const gs_cli *c, FILE *out) { (void)c; gs_cmd_gen_print_usage(out); }
static void info_usage(const gs_cli *c, FILE *out) { (void)c; gs_cmd_info_print_usage(out); }
static void export_usage(const gs_cli *c, FILE *out) { (void)c; gs_cmd_export_print_usage(out); }
static void pcr_usage(const gs_cli *c, FILE *out) { (void)c; gs_cmd_pcr_print_usage(out); }

static const command commands[] = {
    {"scan", gs_cmd_scan_parse, gs_cmd_scan_run, scan_usage},
    {"gen", gs_cmd_gen_parse, gs_cmd_gen_run, gen_usage},
    {"index", gs_cmd_index_parse, gs_cmd_index_run, gs_cmd_index_print_usage},
    {"info", gs_cmd_info_parse, gs_cmd_info_run, info_usage},
    {"export", gs_cmd_export_parse, gs_cmd_export_run, export_usage},
    {"pcr", gs_cmd_pcr_parse, gs_cmd_pcr_run, pcr_usage},
};

static const command *command_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

/* What main() decided before MPI_Init: the command and its parse. */
typedef struct launch {
    const char *word;    /* argv[1], NULL when absent */
    const command *cmd;  /* NULL: not a command (--help, --version, unknown) */
    gs_cli cli;
    gs_status st;        /* the parse's status, reported after MPI_Init */
    gs_error err;
} launch;

static void parse_command_line(int argc, char **argv, launch *l)
{
    memset(l, 0, sizeof *l);
    l->word = argc > 1 ? argv[1] : NULL;
    if (l->word == NULL)
        l->st = GS_EUSAGE; /* the usage, on rank 0 */
    else if ((l->cmd = command_find(l->word)) != NULL) {
        l->cli.argc = argc - 1;
        l->cli.argv = argv + 1;
        l->st = l->cmd->parse(&l->cli, &l->err);
    } else if (strcmp(l->word, "--help") && strcmp(l->word, "-h") && strcmp(l->word, "help") &&
               strcmp(l->word, "--version") && strcmp(l->word, "-V"))
        l->st = gs_fail(&l->err, GS_EUSAGE, "unknown command '%s' (gscan --help lists them)", l->word);
}

/* The node-local rank as the launchers tell it (MPICH's Hydra, Open MPI,
 * Slurm), before MPI can; -1 when none does. These launcher variables and
 * CUDA_VISIBLE_DEVICES (host.h) are the only environment gscan reads: they
 * say where this process runs, which no option can, and MPI_Init (which
 * would tell) is what the warm-up overlaps. */
static int launcher_local_rank(void)
{
    static const char *const vars[] = {"MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK",
                                       "SLURM_LOCALID", "PMI_LOCAL_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v);
    }
    return -1;
}

/* Whether a launcher started this process; one that none did is a
 * singleton, node-local rank 0. */
static int launched(void)
{
    return getenv("PMI_RANK") || getenv("PMIX_RANK") || getenv("OMPI_COMM_WORLD_RANK") ||
           getenv("SLURM_PROCID");
}

/* A scan that may use a GPU: not --device cpu, and an engine with a GPU
 * counterpart (auto has one). */
static int may_use_gpu(const launch *l)
{
    const gs_scan_opts *o = &l->cli.scan;
    if (l->cmd == NULL || (l->cmd->run != gs_cmd_scan_run && l->cmd->run != gs_cmd_pcr_run) ||
        l->st != GS_OK || l->cli.help ||
        o->device == GS_DEV_CPU)
        return 0;
    const gs_engine *e = strcmp(o->engine, "auto") ? gs_engine_find(o->engine) : NULL;
    return e == NULL || e->gpu != NULL;
}

/* CUDA's start-up (driver, context: a few hundred ms) on a task of its own,
 * so that it overlaps MPI's and the job's set-up instead of following them;
 * before it, the process's view narrowed to the GPU it takes, so that CUDA
 * starts that one alone (host.h). */
typedef struct warm_up {
    gs_task task;
    int on;
    int local_rank;
} warm_up;

static void *warm_gpu(void *arg)
{
    const warm_up *w = arg;
    int dev = gs_gpu_for_rank(w->local_rank, gs_gpu_device_count());
    if (dev >= 0)
        gs_gpu_warm(dev);
    return NULL;
}

static void warm_up_start(warm_up *w, launch *l)
{
    int gpu = may_use_gpu(l), local = launcher_local_rank();
    if (local < 0 && !launched())
        local = 0;
    if (gpu)
        gs_host_gpu_view(local, l->cli.scan.tune.host_visible);
    w->local_rank = local < 0 ? 0 : local;
    w->on = gpu && !(l->cli.scan.tune.debug & GS_DEBUG_NO_WARMUP);
    if (w->on)
        gs_task_start(&w->task, warm_gpu, w);
}

/* Run what was parsed: a command, or the top-level --help and --version. */
static gs_status run(launch *l, int rank, gs_error *err)
{
    if (l->word == NULL || !l->cmd) {
        int version = l->word && (!strcmp(l->word, "--version") || !strcmp(l->word, "-V"));
        if (rank == 0 && version)
            printf("gscan %s\n", GS_VERSION);
        else if (rank == 0 && l->st == GS_OK)
            fputs(usage, stdout);
        else if (rank == 0 && l->word == NULL)
            fputs(usage, stderr);
        return l->st;
    }
    if (l->cli.help) {
        if (rank == 0 && l->cli.help == 2)
            gs_tune_print_help(stdout);
        else if (rank == 0)
            l->cmd->print_usage(&l->cli, stdout);
        return GS_OK;
    }
    return l->cmd->run(&l->cli, MPI_COMM_WORLD, err);
}

/* hwloc's GPU plugins, which MPICH's MPI_Init loads with the node's topology:
 * the OpenCL one starts the GPU driver to list its devices, 0.21 of the 0.23 s
 * MPI_Init took on a one-H100 node (bench/startup/mpi_init.sh), and gscan
 * needs no GPU in MPI's view of the node (ranks pick GPUs by local rank).
 * A user's own HWLOC_COMPONENTS is kept. */
static const char hwloc_skip[] = "-opencl,-cuda,-nvml,-rsmi,-levelzero,-gl";

/* UCX backs its shared-memory segments with files (about 4.2 MB at
 * MPI_Init), so a file-size limit (ulimit -f) below them made MPI_Init fail
 * before gscan could say a word; SysV segments are no files. Under such a
 * limit, and unless the user chose UCX_TLS, the posix transport is left out. */
static void keep_mpi_under_fsize_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur < ((rlim_t)64 << 20))
        setenv("UCX_TLS", "^posix", 0);
}

/* Leave without MPI_Finalize, which would close HDF5 and fault in a file it
 * could not close. Alone: exit. Under a launcher, rank 0 (which printed the
 * message) ends the job with MPI_Abort and st once the message has left,
 * while the others wait to be ended: ranks leaving on their own race the
 * launcher, which kills the slower ones, and a killed rank's status (9), not
 * st, would end the job. */
static void leave_now(gs_status st, int rank)
{
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size == 1)
        _exit((int)st);
    if (rank == 0)
        gs_mpi_abort(MPI_COMM_WORLD, (int)st);
    for (;;)
        pause();
}

static int gscan_main(int argc, char **argv)
{
    int provided, rank = 0;
    gs_signals_install(); /* before anything: MPI_Init writes files too */
    setenv("HWLOC_COMPONENTS", hwloc_skip, 0); /* before any thread starts */
    keep_mpi_under_fsize_limit();
    static launch l;
    parse_command_line(argc, argv, &l);
    if (l.cmd) /* MPI_Init sees argv as the parse left it (--tune and --debug taken out) */
        argc = l.cli.argc + 1;
    warm_up warm = {0};
    warm_up_start(&warm, &l);
    GS_MPI_CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    GS_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    gs_signals_install(); /* again: an MPI may load UCX in MPI_Init, which takes SIGHUP */
    /* Errors from MPI calls come back as codes, so GS_MPI_CHECK can name
     * the call and its place before it ends the job (mpi/mpi_check.h);
     * communicators made from this one inherit the handler. */
    GS_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    gs_error err = l.err;
    gs_status st = l.st != GS_OK && l.word ? l.st : run(&l, rank, &err);
    if (st != GS_OK && err.code != GS_OK && rank == 0) {
        fprintf(stderr, "gscan: error: %s\n", err.msg);
        if (st == GS_EUSAGE)
            fprintf(stderr, "Try 'gscan %s%s--help'.\n", l.cmd ? l.cmd->name : "", l.cmd ? " " : "");
    }
    if (warm.on)
        gs_task_join(&warm.task);
    gs_scan_opts_free(&l.cli.scan);
    gs_cmd_gen_free(&l.cli);
    gs_cmd_pcr_free(&l.cli);
    fflush(stdout);
    fflush(stderr);
    if (gs_h5_read_abandoned() || gs_h5_write_abandoned()) /* closing HDF5 would fault */
        leave_now(st, rank);
    double t_fin = gs_now();
    GS_MPI_CHECK(MPI_Finalize());
    if (l.cli.tune.debug & GS_DEBUG_TIME)
        fprintf(stderr, "gscan: rank %d: MPI_Finalize %.3f s, %.3f s since exec\n", rank,
                gs_now() - t_fin, gs_process_age());
    return (int)st;
}

/* A stack limit (ulimit -s) below what MPI and HDF5 need: at 128 KiB the
 * collective file write (MPICH's MPI_File_write_at_all) overflowed the main
 * thread's stack, SIGSEGV inside MPI. Under such a limit gscan runs on a
 * thread whose stack it sizes itself, as it sizes every thread started
 * after it (pthread_setattr_default_np: gscan's, MPI's, CUDA's), and
 * MPI_Init is called there, which makes it MPI's main thread (FUNNELED).
 * Thread stacks are mappings that the limit does not bound. */
enum { STACK_BYTES = 8 << 20 };

typedef struct main_args {
    int argc;
    char **argv;
    int status;
} main_args;

static void *main_thread(void *arg)
{
    main_args *a = arg;
    a->status = gscan_main(a->argc, a->argv);
    return NULL;
}

int main(int argc, char **argv)
{
    struct rlimit rl;
    pthread_attr_t at;
    pthread_t t;
    main_args a = {argc, argv, (int)GS_ESYS};
    if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur >= STACK_BYTES || pthread_attr_init(&at) != 0)
        return gscan_main(argc, argv);
    if (pthread_attr_setstacksize(&at, STACK_BYTES) != 0 || pthread_setattr_default_np(&at) != 0 ||
        pthread_create(&t, &at, main_thread, &a) != 0) {
        pthread_attr_destroy(&at);
        return gscan_main(argc, argv);
    }
    pthread_attr_destroy(&at);
    pthread_join(t, NULL);
    return a.status;
}
