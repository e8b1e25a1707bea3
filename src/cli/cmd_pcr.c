/* cmd_pcr.c - "gscan pcr": in-silico PCR. The command line is gscan scan's
 * (one parser, options.c) plus --product-size, with -p naming a primer-pairs
 * file; the primers become the scan's patterns (each distinct one once),
 * scanned in mismatch mode on both strands, and the job pairs their sites
 * into products (mpi/pcr.c, core/gs_amplicon.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "io/seq/pairs.h"
#include "options.h"

/* The window of pairs without one of their own: UCSC In-Silico PCR's
 * largest product (isPcr -maxSize=4000), any size from 1 up. */
enum { PCR_MIN_DEFAULT = 1, PCR_MAX_DEFAULT = 4000 };

static const char pcr_usage[] =
    "usage: gscan pcr -p PAIRS.tsv [--max-mismatches K] [--exact-3p N]\n"
    "                 [--product-size MIN-MAX] [-o OUT] [options] CORPUS...\n"
    "\n"
    "In-silico PCR: every product of every primer pair in every record. A binding\n"
    "site of a primer is a hit with at most K mismatches (IUPAC codes match what\n"
    "they stand for) on either strand. A product of pair (A, B) is a site of X on\n"
    "the forward strand at [s, s+|X|) and a site of Y on the reverse strand at\n"
    "[t, e) with s <= t and MIN <= e - s <= MAX; its kind is forward (A, B),\n"
    "revcomp (B, A), single_A (A, A) or single_B (B, B). Every combination is\n"
    "reported, not only the longest.\n"
    "\n"
    "  -p, --patterns PAIRS     lines name<TAB>A<TAB>B[<TAB>MIN<TAB>MAX] ('#' comments);\n"
    "                           a line's MIN and MAX replace --product-size for it\n"
    "      --product-size MIN-MAX  product sizes in residues (default 1-4000)\n"
    "      --max-mismatches K   mismatches per primer site (default 0, at most 15)\n"
    "      --exact-3p N         the N 3'-most primer positions match exactly\n"
    "  -o, --out FILE           .h5 (default gscan.h5: /amplicons), .tsv or - (TSV:\n"
    "                           pair record start end kind mismatches_5 mismatches_3\n"
    "                           size), .bed (BED6) or .fa (product sequences, read\n"
    "                           back through each corpus file's .fai)\n"
    "  -O, --out-format F       h5 | tsv | bed | fa\n"
    "      --tally UNIT         record | file | sample: products per unit and pair\n"
    "                           (HDF5 /tally; sample needs --samples SHEET.tsv)\n"
    "      --circular           records are circular: products may cross the origin\n"
    "\n"
    "gscan scan's options -d, -t, -e, -q, --block-size, --readers, --infile-list,\n"
    "--input-format, --config, --progress, --verify, --mpi-hint work as there\n"
    "(gscan scan --help); the corpus is read the same ways (files, directories,\n"
    "gzip, BGZF, - for standard input), at any rank count with the same result.\n";

void gs_cmd_pcr_print_usage(FILE *out)
{
    fputs(pcr_usage, out);
}

/* "MIN-MAX" with 1 <= MIN <= MAX. */
static gs_status parse_window(const char *s, uint64_t *min, uint64_t *max, gs_error *err)
{
    char *end;
    const char *dash = strchr(s, '-');
    unsigned long long a = 0, b = 0;
    int ok = dash && dash > s && dash[1] >= '0' && dash[1] <= '9' && s[0] >= '0' && s[0] <= '9';
    if (ok) {
        a = strtoull(s, &end, 10);
        ok = end == dash;
        b = strtoull(dash + 1, &end, 10);
        ok = ok && *end == '\0' && a >= 1 && a <= b;
    }
    if (!ok)
        return gs_fail(err, GS_EUSAGE,
                       "--product-size takes MIN-MAX with 1 <= MIN <= MAX, not '%s'", s);
    *min = a;
    *max = b;
    return GS_OK;
}

/* Take --product-size out of argv (in place, as main takes --tune out):
 * everything else is gscan scan's. */
static gs_status take_window(gs_cli *c, uint64_t *min, uint64_t *max, gs_error *err)
{
    int w = 1, i = 1;
    for (; i < c->argc; i++) {
        const char *v = NULL;
        if (!strcmp(c->argv[i], "--"))
            break;
        if (!strcmp(c->argv[i], "--product-size")) {
            if (i + 1 >= c->argc)
                return gs_fail(err, GS_EUSAGE, "option '--product-size' needs a value");
            v = c->argv[++i];
        } else if (!strncmp(c->argv[i], "--product-size=", 15))
            v = c->argv[i] + 15;
        if (v == NULL)
            c->argv[w++] = c->argv[i];
        else if (parse_window(v, min, max, err) != GS_OK)
            return err->code;
    }
    for (; i < c->argc; i++) /* "--" and what follows: kept */
        c->argv[w++] = c->argv[i];
    c->argc = w;
    return GS_OK;
}

/* What gscan scan takes and a PCR cannot use. */
static gs_status refuse(const gs_scan_opts *o, gs_error *err)
{
    const char *what = o->n_seqs ? "-s/--pattern (primers come from -p's pairs)"
                       : o->index ? "--index (a PCR scans the corpus files)"
                       : o->match == GS_MATCH_EDITS ? "--max-edits (use --max-mismatches)"
                       : o->bulges ? "--max-bulges (a primer's site is a mismatch hit)"
                       : !o->both_strands ? "--strand forward (a PCR needs both strands)"
                       : o->alphabet != GS_ALPHA_DNA ? "--alphabet bytes"
                       : o->best_per_site ? "--best-per-site"
                       : o->with_seq || o->aligned ? "--seq/--aligned (use -o X.fa)"
                                                   : NULL;
    if (what)
        return gs_fail(err, GS_EUSAGE, "gscan pcr does not take %s", what);
    if (o->patterns == NULL)
        return gs_fail(err, GS_EUSAGE, "missing -p PAIRS.tsv (gscan pcr)");
    for (size_t f = 0; o->out_format == GS_OUT_FASTA && f < o->n_corpus; f++) {
        char fai[4096];
        if (!strcmp(o->corpus[f], "-") ||
            (size_t)snprintf(fai, sizeof fai, "%s.fai", o->corpus[f]) >= sizeof fai ||
            access(fai, R_OK) != 0)
            return gs_fail(err, GS_EINPUT,
                           "-o .fa reads the products back through each corpus file's .fai: "
                           "run gscan index (%s%s)",
                           o->corpus[f], strcmp(o->corpus[f], "-") ? "" : ": standard input");
    }
    return GS_OK;
}

gs_status gs_cmd_pcr_parse(gs_cli *c, gs_error *err)
{
    gs_scan_opts *o = &c->scan;
    uint64_t min = PCR_MIN_DEFAULT, max = PCR_MAX_DEFAULT;
    if (take_window(c, &min, &max, err) != GS_OK)
        return err->code;
    gs_status st = gs_scan_opts_parse(c->argc, c->argv, o, &c->help, err);
    c->tune = o->tune;
    char *tag = strstr(err->msg, "(gscan scan)"); /* the parser is scan's, the command pcr */
    if (st != GS_OK && tag && tag[strlen("(gscan scan)")] == '\0')
        memcpy(tag + strlen("(gscan "), "pcr)", 5);
    if (st != GS_OK || c->help || refuse(o, err) != GS_OK)
        return err->code;
    if ((c->pcr = gs_calloc(1, sizeof *c->pcr, err, "primer pairs")) == NULL ||
        gs_pcr_pairs_read(o->patterns, min, max, c->pcr, err) != GS_OK)
        return err->code;
    if ((o->seqs = gs_malloc(c->pcr->n_primers * sizeof *o->seqs, err, "primers")) == NULL)
        return err->code;
    for (uint32_t i = 0; i < c->pcr->n_primers; i++)
        o->seqs[i] = c->pcr->primers[i];
    o->n_seqs = c->pcr->n_primers;
    o->pairs = o->patterns;
    o->patterns = NULL;
    o->pcr = c->pcr;
    o->match = GS_MATCH_MISMATCHES; /* K = 0 unless --max-mismatches */
    o->report_hits = 0;             /* the sites stay in memory: products are the output */
    return GS_OK;
}

void gs_cmd_pcr_free(gs_cli *c)
{
    if (c->pcr)
        gs_pcr_pairs_free(c->pcr);
    free(c->pcr);
    c->pcr = NULL;
}

gs_status gs_cmd_pcr_run(gs_cli *c, MPI_Comm comm, gs_error *err)
{
    const gs_scan_opts *o = &c->scan;
    int rank;
    gs_job_summary s;
    gs_status st = gs_cmd_job(c, comm, &s, &rank, err);
    if (st == GS_OK && rank == 0 && !o->quiet)
        fprintf(stderr,
                "gscan: wrote %s: %llu product%s of %zu pair%s (%llu primer site%s, K = %u) in "
                "%llu record%s; %s on the %s, %d rank%s, %.2f s\n",
                strcmp(o->out, "-") ? o->out : "standard output",
                (unsigned long long)s.n_products, s.n_products == 1 ? "" : "s", c->pcr->n,
                c->pcr->n == 1 ? "" : "s", (unsigned long long)s.total_hits,
                s.total_hits == 1 ? "" : "s", o->max_dist, (unsigned long long)s.n_records,
                s.n_records == 1 ? "" : "s", s.engine, s.device, s.n_ranks,
                s.n_ranks == 1 ? "" : "s", s.t_total);
    return st;
}
