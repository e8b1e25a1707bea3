/* cmd_files.c - the small commands around result and corpus files:
 * "gscan index", "gscan info" and "gscan export". They run on rank 0; other
 * ranks only learn the agreed status. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "info.h"
#include "io/seq/fai.h"
#include "io/results/h5out.h"
#include "io/stream/replace_file.h"
#include "lz/lz.h"
#include "comm/comm.h"

static const char index_usage[] =
    "usage: gscan index FASTA...\n"
    "       gscan index --bgzf [-o OUT] [-l LEVEL] [-t THREADS] FASTA...\n"
    "       gscan index --lz -o X.gsx [--max-pattern-length M] CORPUS...\n"
    "\n"
    "Write FASTA.fai next to each plain FASTA file, in the format of samtools\n"
    "faidx (NAME LENGTH OFFSET LINEBASES LINEWIDTH), so MPI ranks can seek to\n"
    "their ranges. BGZF files (bgzip) get FASTA.fai and FASTA.gzi; plain gzip\n"
    "cannot be indexed: recompress it with --bgzf (or bgzip).\n"
    "\n"
    "  --bgzf             recompress each FASTA (plain or gzip) as BGZF, then\n"
    "                     index it (.fai and .gzi): a gzip file is replaced in\n"
    "                     place, a plain one is kept and FASTA.gz written\n"
    "  -o, --out FILE     write the BGZF to FILE instead (one FASTA only)\n"
    "  -l, --level N      deflate level 1..12 (default 6)\n"
    "  -t, --threads N    compressing threads (default: all cores)\n"
    "\n"
    "With --lz: an LZ77 hybrid index of a repetitive collection, scanned by\n"
    "'gscan scan --index X.gsx' (gscan index --lz --help).\n";

static const char info_usage[] =
    "usage: gscan info RESULT.h5 | INDEX.gsx\n"
    "\n"
    "Print a summary of a result file: run, records, patterns, totals, the top\n"
    "patterns, patterns present and absent, and timings. For an LZ77 hybrid\n"
    "index: records, residues, phrases, kernel and sizes.\n";

static const char export_usage[] =
    "usage: gscan export RESULT.h5 [--format tsv|bed [--seq [--corpus FILE]...] | --counts]\n"
    "                    [-o FILE]\n"
    "\n"
    "Write the hits of a result file (made with --report hits) as text:\n"
    "  tsv   header line, then record, start, end, pattern, strand (+/-);\n"
    "        start 0-based, end exclusive (BED coordinates)\n"
    "  bed   BED6: chrom, start, end, name, 0, strand\n"
    "  --counts         per-pattern counts as TSV instead: pattern, sequence,\n"
    "                   length, forward, reverse ('.' if forward only), total\n"
    "  --seq            a last column, matched: each hit's residues (reverse\n"
    "                   complement on the - strand), read through the .fai of\n"
    "                   the scanned files (gscan index them first)\n"
    "  --corpus FILE    with --seq: where the scanned files are now; repeat it\n"
    "                   once per file, in the scan's order (default: the paths\n"
    "                   the scan was given)\n"
    "  -o, --out FILE   write to FILE (a regular file, replaced only when\n"
    "                   complete) instead of stdout; - is stdout\n";

static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

/* Run a file command on rank 0 (its --help too); the other ranks only learn
 * the agreed status. */
static gs_status on_rank0(int argc, char **argv, const gs_tune *tune, MPI_Comm comm,
                          const char *usage,
                          gs_status (*run)(int, char **, const gs_tune *, gs_error *),
                          gs_error *err)
{
    int rank;
    GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    if (rank == 0) {
        if (wants_help(argc, argv))
            fputs(usage == index_usage && argc > 1 && !strcmp(argv[1], "--lz") ? gs_lz_index_usage
                                                                               : usage,
                  stdout);
        else
            run(argc, argv, tune, err);
    }
    return gs_mpi_agree(comm, err);
}

/* Write FASTA.fai (and FASTA.gzi for BGZF) for one file. */
static gs_status index_one(const char *fasta, const gs_tune *tune, gs_error *err)
{
    /* BGZF gets FILE.gzi as well (samtools' names); it is written before
     * FILE.fai because a scan seeks into BGZF only when both exist */
    gs_fai fai = {0};
    gs_gzi gzi = {0};
    gs_compression comp = GS_COMP_NONE;
    char path[4096];
    gs_status st = gs_fai_build(fasta, 1, tune, &fai, err);
    if (st == GS_OK)
        st = gs_bgzf_detect(fasta, &comp, err);
    if (st == GS_OK && comp == GS_COMP_BGZF) {
        snprintf(path, sizeof path, "%s.gzi", fasta);
        st = gs_gzi_build(fasta, &gzi, err);
        if (st == GS_OK)
            st = gs_gzi_write(path, &gzi, err);
    }
    snprintf(path, sizeof path, "%s.fai", fasta);
    if (st == GS_OK)
        st = gs_fai_write(path, &fai, err);
    gs_gzi_free(&gzi);
    gs_fai_free(&fai);
    return st;
}

/* --bgzf: recompress fasta as BGZF into out (NULL: in place for gzip,
 * FASTA.gz for plain), then index the result. */
static gs_status convert_one(const char *fasta, const char *out, int level, int threads,
                             const gs_tune *tune, gs_error *err)
{
    char path[4096];
    gs_compression comp;
    if (gs_bgzf_detect(fasta, &comp, err) != GS_OK)
        return err->code;
    if (out == NULL) {
        snprintf(path, sizeof path, comp == GS_COMP_NONE ? "%s.gz" : "%s", fasta);
        out = path;
    }
    if (gs_bgzf_convert(fasta, out, level, threads, tune, err) != GS_OK)
        return err->code;
    return index_one(out, tune, err);
}

/* An integer in [lo, hi]; GS_EUSAGE otherwise (the caller names the option,
 * as gs_parse_size's callers do). */
static gs_status int_arg(const char *v, int lo, int hi, int *out)
{
    char *end;
    long x = v ? strtol(v, &end, 10) : 0;
    if (v == NULL || *v == 0 || *end != 0 || x < lo || x > hi)
        return GS_EUSAGE;
    *out = (int)x;
    return GS_OK;
}

static gs_status index_files(int argc, char **argv, const gs_tune *tune, gs_error *err)
{
    int bgzf = 0, level = 6, threads = (int)sysconf(_SC_NPROCESSORS_ONLN), n_files = 0;
    const char *out = NULL;
    char **files = argv + 1;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--lz"))
            return gs_lz_index_files(argc, argv, tune, err);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--bgzf"))
            bgzf = 1;
        else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            if (++i == argc)
                return gs_fail(err, GS_EUSAGE, "%s needs a file (gscan index)", a);
            out = argv[i];
        } else if (!strcmp(a, "-l") || !strcmp(a, "--level")) {
            if (int_arg(i + 1 < argc ? argv[++i] : NULL, 1, 12, &level) != GS_OK)
                return gs_fail(err, GS_EUSAGE, "%s needs a level from 1 to 12 (gscan index)", a);
        } else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) {
            if (int_arg(i + 1 < argc ? argv[++i] : NULL, 1, GS_BGZF_MAX_THREADS, &threads) != GS_OK)
                return gs_fail(err, GS_EUSAGE, "%s needs a count from 1 to %d (gscan index)", a,
                               GS_BGZF_MAX_THREADS);
        } else if (a[0] == '-')
            return gs_fail(err, GS_EUSAGE, "unknown option '%s' (gscan index)", a);
        else
            files[n_files++] = argv[i];
    }
    if (n_files == 0)
        return gs_fail(err, GS_EUSAGE, "no FASTA file given (gscan index)");
    if (!bgzf && (out || level != 6))
        return gs_fail(err, GS_EUSAGE, "--out and --level need --bgzf (gscan index)");
    if (out && n_files > 1)
        return gs_fail(err, GS_EUSAGE, "--out takes one FASTA file, not %d (gscan index)", n_files);
    if (threads < 1)
        threads = 1;
    for (int i = 0; i < n_files; i++) {
        gs_status st = bgzf ? convert_one(files[i], out, level, threads, tune, err)
                            : index_one(files[i], tune, err);
        if (st != GS_OK)
            return st;
    }
    return GS_OK;
}

gs_status gs_cmd_index(int argc, char **argv, const gs_tune *tune, MPI_Comm comm, gs_error *err)
{
    return on_rank0(argc, argv, tune, comm, index_usage, index_files, err);
}

static gs_status info_file(int argc, char **argv, const gs_tune *tune, gs_error *err)
{
    if (argc != 2 || argv[1][0] == '-')
        return gs_fail(err, GS_EUSAGE, argc < 2 ? "no result file given (gscan info)"
                                                : "gscan info takes one result file (gscan info)");
    if (gs_lz_is_index(argv[1]))
        return gs_lz_info_file(argv[1], tune, err);
    gs_h5_file *f = NULL;
    gs_status st = gs_h5_open(argv[1], &f, err);
    if (st == GS_OK)
        st = gs_info_result(f, stdout, err);
    gs_h5_close(f);
    return st;
}

gs_status gs_cmd_info(int argc, char **argv, const gs_tune *tune, MPI_Comm comm, gs_error *err)
{
    return on_rank0(argc, argv, tune, comm, info_usage, info_file, err);
}

static gs_status export_file(int argc, char **argv, const gs_tune *tune, gs_error *err)
{
    (void)tune; /* nothing in an export is tuned */
    const char *in = NULL, *format = "tsv", *out = NULL;
    int counts = 0, seq = 0;
    char **corpus = NULL;
    size_t n_corpus = 0;
    gs_h5_file *f = NULL;
    gs_replace_file r = {0};
    for (int i = 1; i < argc && err->code == GS_OK; i++) {
        const char *a = argv[i];
        int value = !strcmp(a, "--format") || !strcmp(a, "-f") || !strcmp(a, "--out")
                    || !strcmp(a, "-o") || !strcmp(a, "--corpus");
        if (value && i + 1 >= argc) {
            gs_fail(err, GS_EUSAGE, "option '%s' needs a value (gscan export)", a);
        } else if (!strcmp(a, "--counts")) {
            counts = 1;
        } else if (!strcmp(a, "--seq")) {
            seq = 1;
        } else if (!strcmp(a, "--corpus")) {
            char **v = gs_realloc(corpus, (n_corpus + 1) * sizeof *v, err, "--corpus");
            if (v)
                (corpus = v)[n_corpus++] = argv[++i];
        } else if (!strcmp(a, "--format") || !strcmp(a, "-f")) {
            format = argv[++i];
        } else if (value) {
            out = argv[++i];
        } else if (!strncmp(a, "--format=", 9)) {
            format = a + 9;
        } else if (!strncmp(a, "--out=", 6)) {
            out = a + 6;
        } else if (a[0] == '-') {
            gs_fail(err, GS_EUSAGE, "unknown option '%s' (gscan export)", a);
        } else if (in == NULL) {
            in = a;
        } else {
            gs_fail(err, GS_EUSAGE, "unexpected argument '%s' (gscan export)", a);
        }
    }
    if (err->code != GS_OK)
        goto done;
    if (in == NULL)
        gs_fail(err, GS_EUSAGE, "no result file given (gscan export)");
    else if (strcmp(format, "tsv") && strcmp(format, "bed"))
        gs_fail(err, GS_EUSAGE, "unknown format '%s': expected tsv or bed (--format)", format);
    else if (counts && seq)
        gs_fail(err, GS_EUSAGE, "--seq belongs to hit rows, not to --counts (gscan export)");
    else if (corpus && !seq)
        gs_fail(err, GS_EUSAGE, "--corpus is read for --seq only (gscan export)");
    if (out && !strcmp(out, "-"))
        out = NULL;
    if (err->code == GS_OK && out) { /* the inputs: the result file, and --corpus files */
        const char **inputs = gs_malloc((n_corpus + 1) * sizeof *inputs, err, "inputs");
        if (inputs) {
            inputs[0] = in;
            for (size_t i = 0; i < n_corpus; i++)
                inputs[i + 1] = corpus[i];
            gs_out_check(out, inputs, n_corpus + 1, err);
            free(inputs);
        }
    }
    if (err->code != GS_OK || gs_h5_open(in, &f, err) != GS_OK
        || (out && gs_replace_open(&r, out, "the export", err) != GS_OK))
        goto done;
    FILE *o = out ? r.f : stdout;
    if (counts)
        gs_h5_export_counts(f, o, err);
    else
        gs_h5_export_seq(f, &(gs_h5_export_opts){format, seq, corpus, n_corpus}, o, err);
    if (out && err->code == GS_OK)
        gs_replace_commit(&r, "the export", err);
    else if (out)
        gs_replace_abort(&r);
    else if (fflush(o) != 0)
        gs_fail(err, GS_ESYS, "cannot write: %s (standard output)", strerror(errno));
done:
    gs_h5_close(f);
    free(corpus);
    return err->code;
}

gs_status gs_cmd_export(int argc, char **argv, const gs_tune *tune, MPI_Comm comm, gs_error *err)
{
    return on_rank0(argc, argv, tune, comm, export_usage, export_file, err);
}
