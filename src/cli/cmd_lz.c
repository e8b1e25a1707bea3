/* cmd_lz.c - "gscan index --lz": build the LZ77 hybrid index of a
 * collection (src/lz), and its summary for "gscan info". Runs on rank 0
 * (cmd_files.c's wrapper). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "io/stream/replace_file.h"
#include "lz/lz.h"
#include "options.h"

const char gs_lz_index_usage[] =
    "usage: gscan index --lz -o X.gsx [--max-pattern-length M] CORPUS...\n"
    "\n"
    "Write an LZ77 hybrid index of a repetitive collection (strains of one\n"
    "species, haplotypes, viral sets): the whole collection in compressed form.\n"
    "'gscan scan --index X.gsx' then scans it without the corpus files, with the\n"
    "same result file as a plain scan, for patterns of at most M residues.\n"
    "\n"
    "  -o, --out FILE               the index (required)\n"
    "  -m, --max-pattern-length M   longest pattern the index serves (default 64);\n"
    "                               the index grows with M; a scan of shorter\n"
    "                               patterns reads only the part they need\n"
    "      --input-format F         auto | fasta | fastq | raw (default auto)\n"
    "      --reference-records K    the first K records are the reference that the\n"
    "                               others are parsed against (default: those of the\n"
    "                               first file when there are several, else the\n"
    "                               first non-empty record)\n"
    "  -t, --threads N              threads parsing records (default: all cores)\n"
    "\n"
    "Building holds the reference (17 bytes a residue while it is parsed), the\n"
    "kernel (1 byte a residue), 17 bytes a phrase and one batch of the other\n"
    "records (512 MiB of residues plus at most one record), never the whole\n"
    "collection.\n";

/* --lz's options; the corpus files are gathered in argv (commands.h). */
gs_status gs_lz_index_parse(int argc, char **argv, gs_index_opts *o, gs_error *err)
{
    uint64_t m = GS_LZ_DEFAULT_M, ref = 0, threads = 0;
    gs_status st = GS_OK;
    o->lz = 1;
    o->lzo.format = GS_INPUT_AUTO;
    o->files = (const char **)argv + 1;
    for (int i = 1; i < argc && st == GS_OK; i++) {
        const char *a = argv[i];
        int takes = !strcmp(a, "-o") || !strcmp(a, "--out") || !strcmp(a, "-m") ||
                    !strcmp(a, "--max-pattern-length") || !strcmp(a, "--input-format") ||
                    !strcmp(a, "--reference-records") || !strcmp(a, "-t") || !strcmp(a, "--threads");
        if (takes && i + 1 >= argc) {
            st = gs_fail(err, GS_EUSAGE, "option '%s' needs a value (gscan index --lz)", a);
        } else if (!strcmp(a, "--lz")) {
            continue;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            o->out = argv[++i];
        } else if (!strcmp(a, "-m") || !strcmp(a, "--max-pattern-length")) {
            if (gs_parse_size(argv[++i], &m) || m < 1 || m > (1u << 20))
                st = gs_fail(err, GS_EUSAGE,
                             "max-pattern-length must be a number from 1 to 1048576, not '%s' "
                             "(--max-pattern-length)", argv[i]);
        } else if (!strcmp(a, "--reference-records")) {
            if (gs_parse_size(argv[++i], &ref) || ref < 1)
                st = gs_fail(err, GS_EUSAGE, "reference-records must be a positive number, not '%s' "
                             "(--reference-records)", argv[i]);
        } else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) {
            if (gs_parse_size(argv[++i], &threads) || threads < 1 || threads > 1024)
                st = gs_fail(err, GS_EUSAGE, "threads must be a number from 1 to 1024, not '%s' "
                             "(--threads)", argv[i]);
        } else if (!strcmp(a, "--input-format")) {
            const char *v = argv[++i];
            if (!strcmp(v, "auto")) o->lzo.format = GS_INPUT_AUTO;
            else if (!strcmp(v, "fasta")) o->lzo.format = GS_INPUT_FASTA;
            else if (!strcmp(v, "fastq")) o->lzo.format = GS_INPUT_FASTQ;
            else if (!strcmp(v, "raw")) o->lzo.format = GS_INPUT_RAW;
            else st = gs_fail(err, GS_EUSAGE, "unknown input format '%s': expected auto, fasta, fastq or raw "
                              "(--input-format)", v);
        } else if (a[0] == '-' && a[1] != '\0') {
            st = gs_fail(err, GS_EUSAGE, "unknown option '%s' (gscan index --lz)", a);
        } else {
            o->files[o->n_files++] = a;
        }
    }
    if (st == GS_OK && o->out == NULL)
        st = gs_fail(err, GS_EUSAGE, "missing -o/--out X.gsx (gscan index --lz)");
    if (st == GS_OK && o->n_files == 0)
        st = gs_fail(err, GS_EUSAGE, "no corpus file given (gscan index --lz)");
    if (threads == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 ? (uint64_t)cores : 1;
    }
    o->threads = (int)threads;
    o->lzo.max_pat = (uint32_t)m;
    o->lzo.ref_records = (size_t)ref;
    o->lzo.threads = (int)threads;
    return st;
}

gs_status gs_lz_index_files(const gs_index_opts *o, const gs_tune *tune, gs_error *err)
{
    /* before the build, which may take minutes: not over a corpus file */
    gs_status st = gs_out_check(o->out, o->files, o->n_files, err);
    gs_lz_index ix;
    gs_lz_build_opts bo = o->lzo;
    bo.tune = tune;
    if (st == GS_OK && (st = gs_lz_build(o->files, o->n_files, &bo, &ix, err)) == GS_OK) {
        st = gs_lz_write(o->out, &ix, o->threads, tune, err);
        gs_lz_free(&ix);
    }
    return st;
}

/* The human summary of gscan info: records, residues, phrases, M, kernel,
 * sizes. */
static void print_summary(const gs_lz_index *ix, FILE *out)
{
    uint64_t lits = 0;
    for (uint64_t j = 0; j < ix->n_phrases; j++)
        lits += ix->ph_src[j] == GS_LZ_LITERAL;
    fprintf(out, "gscan LZ77 hybrid index, format version %d\n", gs_lz_format_version());
    fprintf(out, "files:              %zu\n", ix->layout.n_files);
    for (size_t f = 0; f < ix->layout.n_files; f++)
        fprintf(out, "  %s\n", ix->layout.files[f]);
    fprintf(out, "records:            %zu\n", ix->layout.n_rec);
    fprintf(out, "residues:           %llu\n", (unsigned long long)ix->n_residues);
    fprintf(out, "phrases:            %llu (%llu literal, %.1f residues per phrase)\n",
            (unsigned long long)ix->n_phrases, (unsigned long long)lits,
            ix->n_phrases ? (double)ix->n_residues / (double)ix->n_phrases : 0.0);
    fprintf(out, "max pattern length: %u\n", ix->max_pat);
    fprintf(out, "kernel:             %llu residues in %llu pieces (%.2f%% of the residues)\n",
            (unsigned long long)ix->kernel_len, (unsigned long long)ix->n_pieces,
            ix->n_residues ? 100.0 * (double)ix->kernel_len / (double)ix->n_residues : 0.0);
    fprintf(out, "index file:         %llu bytes (%.2f%% of one byte per residue)\n",
            (unsigned long long)ix->file_bytes,
            ix->n_residues ? 100.0 * (double)ix->file_bytes / (double)ix->n_residues : 0.0);
}

gs_status gs_lz_info_file(const char *path, const gs_tune *tune, gs_error *err)
{
    gs_lz_index ix;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    gs_status st = gs_lz_read(path, cores > 0 ? (int)cores : 1, tune, &ix, err);
    if (st == GS_OK) {
        print_summary(&ix, stdout);
        gs_lz_free(&ix);
    }
    return st;
}
