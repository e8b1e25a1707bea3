/* cmd_files.c - the small commands around result and corpus files:
 * "gscan index", "gscan info" and "gscan export". They run on rank 0; other
 * ranks only learn the agreed status. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "io/fai.h"
#include "io/h5out.h"
#include "lz/lz.h"
#include "mpi/comm.h"

static const char index_usage[] =
    "usage: gscan index FASTA...\n"
    "       gscan index --lz -o X.gsx [--max-pattern-length M] CORPUS...\n"
    "\n"
    "Write FASTA.fai next to each plain FASTA file, in the format of samtools\n"
    "faidx (NAME LENGTH OFFSET LINEBASES LINEWIDTH), so MPI ranks can seek to\n"
    "their ranges. BGZF files (bgzip) get FASTA.fai and FASTA.gzi; plain gzip\n"
    "cannot be indexed: recompress it with bgzip.\n"
    "With --lz: an LZ77 hybrid index of a repetitive collection, scanned by\n"
    "'gscan scan --index X.gsx' (gscan index --lz --help).\n";

static const char info_usage[] =
    "usage: gscan info RESULT.h5 | INDEX.gsx\n"
    "\n"
    "Print a summary of a result file: run, records, patterns, totals, the top\n"
    "patterns, patterns present and absent, and timings. For an LZ77 hybrid\n"
    "index: records, residues, phrases, kernel and sizes.\n";

static const char export_usage[] =
    "usage: gscan export RESULT.h5 [--format tsv|bed] [-o FILE]\n"
    "\n"
    "Write the hits of a result file (made with --report hits) as text:\n"
    "  tsv   header line, then record, start, end, pattern, strand (+/-)\n"
    "  bed   BED6: chrom, start, end, name, 0, strand\n"
    "  -o, --out FILE   write to FILE instead of stdout\n";

static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

/* Run a file command on rank 0 (its --help too); the other ranks only learn
 * the agreed status. */
static gs_status on_rank0(int argc, char **argv, MPI_Comm comm, const char *usage,
                          gs_status (*run)(int, char **, gs_error *), gs_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        if (wants_help(argc, argv))
            fputs(usage == index_usage && argc > 1 && !strcmp(argv[1], "--lz") ? gs_lz_index_usage
                                                                               : usage,
                  stdout);
        else
            run(argc, argv, err);
    }
    return gs_mpi_agree(comm, err);
}

static gs_status index_files(int argc, char **argv, gs_error *err)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--lz"))
            return gs_lz_index_files(argc, argv, err);
    if (argc < 2)
        return gs_fail(err, GS_EUSAGE, "no FASTA file given (gscan index)");
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-')
            return gs_fail(err, GS_EUSAGE, "unknown option '%s' (gscan index)", argv[i]);
    /* BGZF gets FILE.gzi as well (samtools' names); it is written before
     * FILE.fai because a scan seeks into BGZF only when both exist */
    for (int i = 1; i < argc; i++) {
        gs_fai fai = {0};
        gs_gzi gzi = {0};
        gs_compression comp = GS_COMP_NONE;
        char path[4096];
        gs_status st = gs_fai_build(argv[i], &fai, err);
        if (st == GS_OK)
            st = gs_bgzf_detect(argv[i], &comp, err);
        if (st == GS_OK && comp == GS_COMP_BGZF) {
            snprintf(path, sizeof path, "%s.gzi", argv[i]);
            st = gs_gzi_build(argv[i], &gzi, err);
            if (st == GS_OK)
                st = gs_gzi_write(path, &gzi, err);
        }
        snprintf(path, sizeof path, "%s.fai", argv[i]);
        if (st == GS_OK)
            st = gs_fai_write(path, &fai, err);
        gs_gzi_free(&gzi);
        gs_fai_free(&fai);
        if (st != GS_OK)
            return st;
    }
    return GS_OK;
}

gs_status gs_cmd_index(int argc, char **argv, MPI_Comm comm, gs_error *err)
{
    return on_rank0(argc, argv, comm, index_usage, index_files, err);
}

static gs_status info_file(int argc, char **argv, gs_error *err)
{
    if (argc != 2 || argv[1][0] == '-')
        return gs_fail(err, GS_EUSAGE, argc < 2 ? "no result file given (gscan info)"
                                                : "gscan info takes one result file (gscan info)");
    if (gs_lz_is_index(argv[1]))
        return gs_lz_info_file(argv[1], err);
    gs_h5_file *f = NULL;
    gs_status st = gs_h5_open(argv[1], &f, err);
    if (st == GS_OK)
        st = gs_h5_info(f, stdout, err);
    gs_h5_close(f);
    return st;
}

gs_status gs_cmd_info(int argc, char **argv, MPI_Comm comm, gs_error *err)
{
    return on_rank0(argc, argv, comm, info_usage, info_file, err);
}

static gs_status export_file(int argc, char **argv, gs_error *err)
{
    const char *in = NULL, *format = "tsv", *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--format") || !strcmp(a, "-f") || !strcmp(a, "--out") || !strcmp(a, "-o")) {
            if (i + 1 >= argc)
                return gs_fail(err, GS_EUSAGE, "option '%s' needs a value (gscan export)", a);
            if (a[1] == 'f' || a[2] == 'f')
                format = argv[++i];
            else
                out = argv[++i];
        } else if (!strncmp(a, "--format=", 9)) {
            format = a + 9;
        } else if (!strncmp(a, "--out=", 6)) {
            out = a + 6;
        } else if (a[0] == '-') {
            return gs_fail(err, GS_EUSAGE, "unknown option '%s' (gscan export)", a);
        } else if (in == NULL) {
            in = a;
        } else {
            return gs_fail(err, GS_EUSAGE, "unexpected argument '%s' (gscan export)", a);
        }
    }
    if (in == NULL)
        return gs_fail(err, GS_EUSAGE, "no result file given (gscan export)");
    if (strcmp(format, "tsv") && strcmp(format, "bed"))
        return gs_fail(err, GS_EUSAGE, "unknown format '%s': expected tsv or bed (--format)", format);
    gs_h5_file *f = NULL;
    gs_status st = gs_h5_open(in, &f, err);
    if (st != GS_OK)
        return st;
    FILE *o = stdout;
    if (out && (o = fopen(out, "w")) == NULL) {
        gs_h5_close(f);
        return gs_fail(err, GS_ESYS, "cannot write: %s (%s)", strerror(errno), out);
    }
    st = gs_h5_export(f, format, o, err);
    if (fflush(o) != 0 && st == GS_OK)
        st = gs_fail(err, GS_ESYS, "cannot write: %s (%s)", strerror(errno), out ? out : "stdout");
    if (out && fclose(o) != 0 && st == GS_OK)
        st = gs_fail(err, GS_ESYS, "cannot write: %s (%s)", strerror(errno), out);
    gs_h5_close(f);
    return st;
}

gs_status gs_cmd_export(int argc, char **argv, MPI_Comm comm, gs_error *err)
{
    return on_rank0(argc, argv, comm, export_usage, export_file, err);
}
