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
#include "tune.h"

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
    "usage: gscan export RESULT.h5 [--format tsv|bed|cas [--seq [--aligned] [--corpus FILE]...] |\n"
    "                    --counts]\n"
    "                    [-o FILE]\n"
    "       gscan export RESULT.h5 --matrix record|file|sample [--presence] | --long\n"
    "                    | --coverage [-o FILE]\n"
    "\n"
    "Write the hits of a result file (made with --report hits) as text:\n"
    "  tsv   header line, then record, start, end, pattern, strand (+/-);\n"
    "        start 0-based, end exclusive (BED coordinates)\n"
    "  bed   BED6: chrom, start, end, name, 0, strand\n"
    "  cas   Cas-OFFinder's off-target rows (its 2.4 columns, no header): pattern\n"
    "        sequence, record, 0-based start, the target on the pattern's strand\n"
    "        (mismatches lowercase, - for a gap), strand, mismatches; implies\n"
    "        --aligned (-O cas is the same)\n"
    "  --counts         per-pattern counts as TSV instead: pattern, sequence,\n"
    "                   length, forward, reverse ('.' if forward only), total\n"
    "  --seq            a last column, matched: each hit's residues (reverse\n"
    "                   complement on the - strand), read through the .fai of\n"
    "                   the scanned files (gscan index them first; for gzip or\n"
    "                   streamed input, gscan scan --seq -o OUT.tsv instead)\n"
    "  --aligned        (implies --seq) two more columns: aligned, the hit's\n"
    "                   residues aligned to the pattern (mismatches and residues\n"
    "                   the pattern lacks in lowercase, - where the target lacks\n"
    "                   a pattern residue), and cigar (= X I D)\n"
    "  --matrix UNIT    the tally of a scan made with --tally UNIT: a header line\n"
    "                   (unit, then the pattern names), then one line per unit,\n"
    "                   zeros included, counts summed over strands\n"
    "  --presence       with --matrix: 1 where a unit has the pattern, else 0\n"
    "  --long           the tally's nonzero rows: unit, pattern, strand, count\n"
    "                   (and best_distance in approximate modes)\n"
    "  --coverage       per pattern: units hit, units total, fraction (and in\n"
    "                   approximate modes units at distance 0, within K, not hit)\n"
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

/* Take --tune and --debug out of argv; 1 when what is left asks for help. */
static int take_globals(gs_cli *c, gs_status *st, gs_error *err)
{
    *st = gs_tune_take(&c->argc, c->argv, &c->tune, &c->help, err);
    if (*st == GS_OK && !c->help && wants_help(c->argc, c->argv))
        c->help = 1;
    return *st != GS_OK || c->help;
}

/* Run a file command on rank 0; the other ranks only learn the agreed
 * status. */
static gs_status on_rank0(gs_cli *c, MPI_Comm comm, gs_status (*run)(gs_cli *, gs_error *),
                          gs_error *err)
{
    int rank;
    GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    if (rank == 0)
        run(c, err);
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

/* Where FASTA's --bgzf output goes: -o, else FASTA.gz for a plain file and
 * FASTA itself for gzip (*in_place = 1: replaced once read whole). */
static gs_status bgzf_target(const char *fasta, const char *out, char *path, size_t n,
                             int *in_place, gs_error *err)
{
    gs_compression comp;
    if (gs_bgzf_detect(fasta, &comp, err) != GS_OK)
        return err->code;
    *in_place = out == NULL && comp != GS_COMP_NONE;
    snprintf(path, n, "%s%s", out ? out : fasta, out == NULL && comp == GS_COMP_NONE ? ".gz" : "");
    return GS_OK;
}

/* --bgzf: recompress fasta as BGZF (where bgzf_target says), then index
 * the result. */
static gs_status convert_one(const char *fasta, const char *out, int level, int threads,
                             const gs_tune *tune, gs_error *err)
{
    char path[4096];
    int in_place;
    if (bgzf_target(fasta, out, path, sizeof path, &in_place, err) != GS_OK ||
        gs_bgzf_convert(fasta, path, level, threads, tune, err) != GS_OK)
        return err->code;
    return index_one(path, tune, err);
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

gs_status gs_cmd_index_parse(gs_cli *c, gs_error *err)
{
    gs_status st;
    if (take_globals(c, &st, err))
        return st;
    int argc = c->argc;
    char **argv = c->argv;
    gs_index_opts *o = &c->index;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--lz"))
            return gs_lz_index_parse(argc, argv, o, err);
    o->level = 6;
    o->threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    o->files = (const char **)argv + 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--bgzf"))
            o->bgzf = 1;
        else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            if (++i == argc)
                return gs_fail(err, GS_EUSAGE, "%s needs a file (gscan index)", a);
            o->out = argv[i];
        } else if (!strcmp(a, "-l") || !strcmp(a, "--level")) {
            if (int_arg(i + 1 < argc ? argv[++i] : NULL, 1, 12, &o->level) != GS_OK)
                return gs_fail(err, GS_EUSAGE, "%s needs a level from 1 to 12 (gscan index)", a);
        } else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) {
            if (int_arg(i + 1 < argc ? argv[++i] : NULL, 1, GS_BGZF_MAX_THREADS, &o->threads) != GS_OK)
                return gs_fail(err, GS_EUSAGE, "%s needs a count from 1 to %d (gscan index)", a,
                               GS_BGZF_MAX_THREADS);
        } else if (a[0] == '-')
            return gs_fail(err, GS_EUSAGE, "unknown option '%s' (gscan index)", a);
        else
            o->files[o->n_files++] = argv[i];
    }
    if (o->n_files == 0)
        return gs_fail(err, GS_EUSAGE, "no FASTA file given (gscan index)");
    if (!o->bgzf && (o->out || o->level != 6))
        return gs_fail(err, GS_EUSAGE, "--out and --level need --bgzf (gscan index)");
    if (o->out && o->n_files > 1)
        return gs_fail(err, GS_EUSAGE, "--out takes one FASTA file, not %zu (gscan index)",
                       o->n_files);
    if (o->threads < 1)
        o->threads = 1;
    return GS_OK;
}

/* Before any file is written: no output of the run (a BGZF file, a .fai, a
 * .gzi) is an input of it, by any name or link. The one exception is a gzip
 * file that --bgzf replaces in place: it is read whole before the rename. */
static gs_status index_check_outputs(const gs_index_opts *o, gs_error *err)
{
    char out[4096], side[4200];
    for (size_t i = 0; i < o->n_files; i++) {
        const char *target = o->files[i];
        if (o->bgzf) {
            int in_place = 0;
            if (bgzf_target(o->files[i], o->out, out, sizeof out, &in_place, err) != GS_OK)
                return err->code;
            target = out;
            for (size_t j = 0; j < o->n_files; j++)
                if ((j != i || !in_place) &&
                    gs_out_check(out, &o->files[j], 1, err) != GS_OK)
                    return err->code;
        }
        static const char *const sides[] = {".fai", ".gzi"};
        for (size_t k = 0; k < 2; k++) {
            snprintf(side, sizeof side, "%s%s", target, sides[k]);
            if (gs_out_check(side, o->files, o->n_files, err) != GS_OK)
                return err->code;
        }
    }
    return GS_OK;
}

static gs_status index_files(gs_cli *c, gs_error *err)
{
    const gs_index_opts *o = &c->index;
    if (o->lz)
        return gs_lz_index_files(o, &c->tune, err);
    if (index_check_outputs(o, err) != GS_OK)
        return err->code;
    for (size_t i = 0; i < o->n_files; i++) {
        gs_status st = o->bgzf ? convert_one(o->files[i], o->out, o->level, o->threads, &c->tune, err)
                               : index_one(o->files[i], &c->tune, err);
        if (st != GS_OK)
            return st;
    }
    return GS_OK;
}

gs_status gs_cmd_index_run(gs_cli *c, MPI_Comm comm, gs_error *err)
{
    return on_rank0(c, comm, index_files, err);
}

void gs_cmd_index_print_usage(const gs_cli *c, FILE *out)
{
    int lz = 0;
    for (int i = 1; i < c->argc; i++)
        lz |= !strcmp(c->argv[i], "--lz");
    fputs(lz ? gs_lz_index_usage : index_usage, out);
}

gs_status gs_cmd_info_parse(gs_cli *c, gs_error *err)
{
    gs_status st;
    if (take_globals(c, &st, err))
        return st;
    if (c->argc != 2 || c->argv[1][0] == '-')
        return gs_fail(err, GS_EUSAGE, c->argc < 2 ? "no result file given (gscan info)"
                                                   : "gscan info takes one result file (gscan info)");
    c->info = c->argv[1];
    return GS_OK;
}

static gs_status info_file(gs_cli *c, gs_error *err)
{
    if (gs_lz_is_index(c->info))
        return gs_lz_info_file(c->info, &c->tune, err);
    gs_h5_file *f = NULL;
    gs_status st = gs_h5_open(c->info, &f, err);
    if (st == GS_OK)
        st = gs_info_result(f, stdout, err);
    gs_h5_close(f);
    return st;
}

gs_status gs_cmd_info_run(gs_cli *c, MPI_Comm comm, gs_error *err)
{
    return on_rank0(c, comm, info_file, err);
}

void gs_cmd_info_print_usage(FILE *out) { fputs(info_usage, out); }

/* The words of gscan export; the checks between them follow. */
static gs_status export_words(int argc, char **argv, gs_export_cmd *o, gs_error *err)
{
    o->format = "tsv";
    o->corpus = argv + 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int value = !strcmp(a, "--format") || !strcmp(a, "-f") || !strcmp(a, "-O") || !strcmp(a, "--out")
                    || !strcmp(a, "-o") || !strcmp(a, "--corpus") || !strcmp(a, "--matrix");
        if (value && i + 1 >= argc)
            return gs_fail(err, GS_EUSAGE, "option '%s' needs a value (gscan export)", a);
        else if (!strcmp(a, "--counts"))
            o->counts = 1;
        else if (!strcmp(a, "--matrix"))
            o->matrix = argv[++i];
        else if (!strcmp(a, "--presence") || !strcmp(a, "--long") || !strcmp(a, "--coverage"))
            *(a[2] == 'p' ? &o->presence : a[2] == 'l' ? &o->long_form : &o->coverage) = 1;
        else if (!strcmp(a, "--seq"))
            o->seq = 1;
        else if (!strcmp(a, "--aligned"))
            o->seq = o->aligned = 1;
        else if (!strcmp(a, "--corpus"))
            o->corpus[o->n_corpus++] = argv[++i];
        else if (!strcmp(a, "--format") || !strcmp(a, "-f") || !strcmp(a, "-O"))
            o->format = argv[++i];
        else if (value)
            o->out = argv[++i];
        else if (!strncmp(a, "--format=", 9))
            o->format = a + 9;
        else if (!strncmp(a, "--out=", 6))
            o->out = a + 6;
        else if (a[0] == '-')
            return gs_fail(err, GS_EUSAGE, "unknown option '%s' (gscan export)", a);
        else if (o->in == NULL)
            o->in = a;
        else
            return gs_fail(err, GS_EUSAGE, "unexpected argument '%s' (gscan export)", a);
    }
    if (!strcmp(o->format, "cas")) /* its rows carry the aligned target */
        o->seq = o->aligned = 1;
    if (o->n_corpus == 0)
        o->corpus = NULL; /* the scan's own paths */
    return GS_OK;
}

/* The tally's words: one of --matrix, --long, --coverage, alone. */
static gs_status tally_words(const gs_export_cmd *o, gs_error *err)
{
    int n = (o->matrix != NULL) + o->long_form + o->coverage;
    if (o->matrix && gs_tally_unit_of(o->matrix) == GS_TALLY_NONE)
        return gs_fail(err, GS_EUSAGE,
                       "unknown unit '%s': expected record, file or sample (--matrix)", o->matrix);
    if (o->presence && !o->matrix)
        return gs_fail(err, GS_EUSAGE, "--presence belongs to --matrix (gscan export)");
    if (n > 1 || (n && (o->counts || o->seq)))
        return gs_fail(err, GS_EUSAGE, "--matrix, --long, --coverage and --counts/--seq "
                                       "exclude each other (gscan export)");
    return GS_OK;
}

gs_status gs_cmd_export_parse(gs_cli *c, gs_error *err)
{
    gs_status st;
    gs_export_cmd *o = &c->export;
    if (take_globals(c, &st, err) || export_words(c->argc, c->argv, o, err) != GS_OK)
        return err->code;
    if (o->in == NULL)
        return gs_fail(err, GS_EUSAGE, "no result file given (gscan export)");
    if (strcmp(o->format, "tsv") && strcmp(o->format, "bed") && strcmp(o->format, "cas"))
        return gs_fail(err, GS_EUSAGE, "unknown format '%s': expected tsv, bed or cas (--format)",
                       o->format);
    if (o->counts && o->seq)
        return gs_fail(err, GS_EUSAGE, "--%s belongs to hit rows, not to --counts (gscan export)",
                       o->aligned ? "aligned" : "seq");
    if (o->n_corpus && !o->seq)
        return gs_fail(err, GS_EUSAGE, "--corpus is read for --seq only (gscan export)");
    if (o->out && !strcmp(o->out, "-"))
        o->out = NULL;
    return tally_words(o, err);
}

static gs_status export_file(gs_cli *c, gs_error *err)
{
    const gs_export_cmd *o = &c->export;
    gs_h5_file *f = NULL;
    gs_replace_file r = {0};
    if (o->out) { /* the inputs: the result file, and --corpus files */
        const char **inputs = gs_malloc((o->n_corpus + 1) * sizeof *inputs, err, "inputs");
        if (inputs) {
            inputs[0] = o->in;
            for (size_t i = 0; i < o->n_corpus; i++)
                inputs[i + 1] = o->corpus[i];
            gs_out_check(o->out, inputs, o->n_corpus + 1, err);
            free(inputs);
        }
    }
    if (err->code != GS_OK || gs_h5_open(o->in, &f, err) != GS_OK
        || (o->out && gs_replace_open(&r, o->out, "the export", err) != GS_OK))
        goto done;
    FILE *out = o->out ? r.f : stdout;
    if (o->matrix || o->long_form || o->coverage)
        gs_h5_export_tally(
            f, &(gs_h5_tally_opts){o->matrix, o->presence, o->long_form, o->coverage}, out, err);
    else if (o->counts)
        gs_h5_export_counts(f, out, err);
    else
        gs_h5_export_seq(f, &(gs_h5_export_opts){o->format, o->seq, o->corpus, o->n_corpus, o->aligned}, out,
                         err);
    if (o->out && err->code == GS_OK)
        gs_replace_commit(&r, "the export", err);
    else if (o->out)
        gs_replace_abort(&r);
    else if (fflush(out) != 0)
        gs_fail(err, GS_ESYS, "cannot write: %s (standard output)", strerror(errno));
done:
    gs_h5_close(f);
    return err->code;
}

gs_status gs_cmd_export_run(gs_cli *c, MPI_Comm comm, gs_error *err)
{
    return on_rank0(c, comm, export_file, err);
}

void gs_cmd_export_print_usage(FILE *out) { fputs(export_usage, out); }
