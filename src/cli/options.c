/* options.c - parse "gscan scan" command lines and --config files.
 *
 * Both go through one table and one apply_option(), so a key in a config file
 * is validated exactly like the long option of the same name, and a usage
 * error names the option (command line) or the file and line (config).
 */
#define _POSIX_C_SOURCE 200809L
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match/engine.h"

const char gs_scan_usage[] =
    "usage: gscan scan -p PATTERNS | -s SEQ... [-o OUT.h5 | -o -] [options] CORPUS...\n"
    "       gscan scan -p PATTERNS | -s SEQ... [-o OUT.h5 | -o -] [options] --index X.gsx\n"
    "\n"
    "Scan FASTA/EST corpora (plain, gzip, BGZF, or raw files) for every pattern\n"
    "and write counts (and hits) to HDF5. Runs as one process or under\n"
    "mpiexec/srun, one rank per GPU; the result is the same at any rank count.\n"
    "A CORPUS of - is standard input; pipes and FIFOs are read once, as streams.\n"
    "\n"
    "  -p, --patterns FILE      FASTA (>name, sequence) or text: one pattern a line,\n"
    "                           optionally \"name<TAB>sequence\"; '#' starts a comment\n"
    "  -s, --pattern SEQ        one more pattern, named SEQ; repeatable, after those\n"
    "                           of -p (which it can replace)\n"
    "  -o, --out FILE           output file (default gscan.h5); - is standard output;\n"
    "                           a regular file or a new name, never an input\n"
    "  -O, --out-format F       h5 | tsv | bed (default from -o: .tsv and - give tsv,\n"
    "                           .bed bed, else h5); tsv and bed write the hits as\n"
    "                           text (gscan export's columns) unless --report counts\n"
    "                           (per-pattern counts as TSV)\n"
    "  -e, --engine NAME        %s (default auto)\n"
    "  -d, --device KIND        auto | gpu | cpu (auto: a GPU when one is visible)\n"
    "      --strand MODE        both | forward (default both)\n"
    "      --alphabet NAME      dna | bytes (default dna)\n"
    "      --input-format F     auto | fasta | raw (default auto)\n"
    "      --report WHAT        counts | hits (default counts; hits for text output)\n"
    "  -t, --threads N          CPU worker threads per rank (default: all cores)\n"
    "      --readers N          reading threads per rank for indexed input (.fai or\n"
    "                           one built in memory for plain FASTA, BGZF .fai +\n"
    "                           .gzi) and --index, 1 to 64 (default: threads / 2, at most\n"
    "                           8, with a GPU; threads / 4, at most 4, on the CPU; for\n"
    "                           --index, which unpacks its kernel, 3/4 of the threads\n"
    "                           with a GPU and all of them on the CPU)\n"
    "      --block-size N       residues per block, K/M/G suffixes (default 16M\n"
    "                           with a GPU, 256K on the CPU);\n"
    "                           a rank holds at most 2 x (threads + 1 + readers)\n"
    "                           blocks (2 x (2 + readers) + 3 pinned with a GPU)\n"
    "      --max-expansions N   most concrete strings one IUPAC pattern may stand\n"
    "                           for (default 4096)\n"
    "      --max-mismatches K   approximate: hits within K substitutions (0 to 15,\n"
    "                           below the shortest pattern); IUPAC positions are\n"
    "                           matched as base sets, not expanded\n"
    "      --max-edits K        approximate: hits within K substitutions, insertions\n"
    "                           and deletions, one per end (not with --max-mismatches)\n"
    "      --best-per-site      approximate: one hit per run of overlapping hits of a\n"
    "                           pattern and strand (smallest distance, then start)\n"
    "      --index X.gsx        scan an LZ77 hybrid index (gscan index --lz) instead\n"
    "                           of corpus files: the same result, no corpus needed\n"
    "                           (exact matching only)\n"
    "      --verify             also run the CPU reference and compare (exit 3 if\n"
    "                           the results differ)\n"
    "      --config FILE        key = value lines; keys are long option names\n"
    "                           (and 'corpus'); the command line overrides them\n"
    "  -q, --quiet              no progress bar\n"
    "      --progress           progress bar on stderr (default: when a terminal)\n"
    "  -h, --help               this help\n"
    "\n"
    "Engines:\n";

enum { OPT_QUIET = 'q', OPT_STRAND = 256, OPT_ALPHABET, OPT_INPUT_FORMAT, OPT_REPORT, OPT_VERIFY,
       OPT_CONFIG, OPT_PROGRESS, OPT_BLOCK, OPT_MAXEXP, OPT_READERS, OPT_CORPUS,
       OPT_MISMATCHES, OPT_EDITS, OPT_BEST_SITE, OPT_INDEX, OPT_SEQ };
enum { REPORT_UNSET = -1 };

static const struct option long_opts[] = {
    {"patterns", required_argument, NULL, 'p'},
    {"pattern", required_argument, NULL, 's'},
    {"out", required_argument, NULL, 'o'},
    {"out-format", required_argument, NULL, 'O'},
    {"engine", required_argument, NULL, 'e'},
    {"device", required_argument, NULL, 'd'},
    {"strand", required_argument, NULL, OPT_STRAND},
    {"alphabet", required_argument, NULL, OPT_ALPHABET},
    {"input-format", required_argument, NULL, OPT_INPUT_FORMAT},
    {"report", required_argument, NULL, OPT_REPORT},
    {"threads", required_argument, NULL, 't'},
    {"readers", required_argument, NULL, OPT_READERS},
    {"block-size", required_argument, NULL, OPT_BLOCK},
    {"max-expansions", required_argument, NULL, OPT_MAXEXP},
    {"max-mismatches", required_argument, NULL, OPT_MISMATCHES},
    {"max-edits", required_argument, NULL, OPT_EDITS},
    {"best-per-site", no_argument, NULL, OPT_BEST_SITE},
    {"seq", no_argument, NULL, OPT_SEQ},
    {"verify", no_argument, NULL, OPT_VERIFY},
    {"index", required_argument, NULL, OPT_INDEX},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

int gs_parse_size(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    if (s == NULL || !isdigit((unsigned char)*s))
        return -1;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno)
        return -1;
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end != '\0' || (shift && x > (~0ULL >> shift)))
        return -1;
    *v = (uint64_t)x << shift;
    return 0;
}

/* 1 true, 0 false, -1 neither (config booleans; a bare flag passes NULL). */
static int parse_bool(const char *v)
{
    if (v == NULL || !strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "on"))
        return 1;
    if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "off"))
        return 0;
    return -1;
}

static int add_corpus(gs_scan_opts *o, char *path)
{
    char **v = realloc(o->corpus, (o->n_corpus + 1) * sizeof *v);
    if (v == NULL)
        return -1;
    o->corpus = v;
    o->corpus[o->n_corpus++] = path;
    return 0;
}

static char *keep(gs_scan_opts *o, const char *s)
{
    char **v = realloc(o->owned, (o->n_owned + 1) * sizeof *v);
    char *c = strdup(s);
    if (v == NULL || c == NULL) {
        free(c);
        if (v)
            o->owned = v;
        return NULL;
    }
    o->owned = v;
    return o->owned[o->n_owned++] = c;
}

/* Set by -O (or out-format in a config) for the one parse under way: without
 * it the format follows -o's extension. */
static int explicit_format;

/* Apply one option. name is the long name; where is "--name" or "file:line". */
static gs_status apply_option(gs_scan_opts *o, int id, const char *name, const char *val,
                              const char *where, gs_status bad, gs_error *err)
{
    uint64_t n;
    switch (id) {
    case 'p': o->patterns = val; break;
    case 's': {
        char **v = realloc(o->seqs, (o->n_seqs + 1) * sizeof *v);
        if (v == NULL)
            return gs_fail(err, GS_ESYS, "out of memory (%s)", where);
        o->seqs = v;
        o->seqs[o->n_seqs++] = (char *)val;
        break;
    }
    case 'o': o->out = val; break;
    case OPT_INDEX: o->index = val; break;
    case 'O':
        if (!strcmp(val, "h5")) o->out_format = GS_OUT_H5;
        else if (!strcmp(val, "tsv")) o->out_format = GS_OUT_TSV;
        else if (!strcmp(val, "bed")) o->out_format = GS_OUT_BED;
        else return gs_fail(err, bad, "unknown output format '%s': expected h5, tsv or bed (%s)", val, where);
        explicit_format = 1;
        break;
    case 'e':
        if (strcmp(val, "auto") && gs_engine_find(val) == NULL) {
            char names[256];
            gs_engine_names(names, sizeof names);
            return gs_fail(err, bad, "unknown engine '%s': expected %s (%s)", val, names, where);
        }
        o->engine = val;
        break;
    case OPT_MISMATCHES:
    case OPT_EDITS: {
        gs_match_mode mode = id == OPT_EDITS ? GS_MATCH_EDITS : GS_MATCH_MISMATCHES;
        if (gs_parse_size(val, &n) || n > GS_MAX_DIST)
            return gs_fail(err, bad, "%s must be a number from 0 to %d, not '%s' (%s)", name,
                           GS_MAX_DIST, val, where);
        if (o->match != GS_MATCH_EXACT && o->match != mode)
            return gs_fail(err, bad, "--max-mismatches and --max-edits exclude each other (%s)", where);
        o->match = mode;
        o->max_dist = (uint32_t)n;
        break;
    }
    case 'd':
        if (!strcmp(val, "auto")) o->device = GS_DEV_AUTO;
        else if (!strcmp(val, "gpu")) o->device = GS_DEV_GPU;
        else if (!strcmp(val, "cpu")) o->device = GS_DEV_CPU;
        else return gs_fail(err, bad, "unknown device '%s': expected auto, gpu or cpu (%s)", val, where);
        break;
    case OPT_STRAND:
        if (!strcmp(val, "both")) o->both_strands = 1;
        else if (!strcmp(val, "forward")) o->both_strands = 0;
        else return gs_fail(err, bad, "unknown strand mode '%s': expected both or forward (%s)", val, where);
        break;
    case OPT_ALPHABET:
        if (!strcmp(val, "dna")) o->alphabet = GS_ALPHA_DNA;
        else if (!strcmp(val, "bytes")) o->alphabet = GS_ALPHA_BYTES;
        else return gs_fail(err, bad, "unknown alphabet '%s': expected dna or bytes (%s)", val, where);
        break;
    case OPT_INPUT_FORMAT:
        if (!strcmp(val, "auto")) o->format = GS_INPUT_AUTO;
        else if (!strcmp(val, "fasta")) o->format = GS_INPUT_FASTA;
        else if (!strcmp(val, "raw")) o->format = GS_INPUT_RAW;
        else return gs_fail(err, bad, "unknown input format '%s': expected auto, fasta or raw (%s)", val, where);
        break;
    case OPT_REPORT:
        if (!strcmp(val, "counts")) o->report_hits = 0;
        else if (!strcmp(val, "hits")) o->report_hits = 1;
        else return gs_fail(err, bad, "unknown report '%s': expected counts or hits (%s)", val, where);
        break;
    case 't':
        if (gs_parse_size(val, &n) || n < 1 || n > 1024)
            return gs_fail(err, bad, "threads must be a number from 1 to 1024, not '%s' (%s)", val, where);
        o->threads = (int)n;
        break;
    case OPT_READERS:
        if (gs_parse_size(val, &n) || n < 1 || n > GS_MAX_READERS)
            return gs_fail(err, bad, "readers must be a number from 1 to %d, not '%s' (%s)",
                           GS_MAX_READERS, val, where);
        o->readers = (int)n;
        break;
    case OPT_BLOCK:
        if (gs_parse_size(val, &n) || n < 1 || n > (1ULL << 34))
            return gs_fail(err, bad, "block size must be 1 to 16G residues, not '%s' (%s)", val, where);
        o->block = n;
        break;
    case OPT_MAXEXP:
        if (gs_parse_size(val, &n) || n < 1 || n > UINT32_MAX)
            return gs_fail(err, bad, "max-expansions must be a positive number, not '%s' (%s)", val, where);
        o->max_expansions = (uint32_t)n;
        break;
    case OPT_BEST_SITE:
    case OPT_SEQ:
    case OPT_VERIFY:
    case OPT_QUIET:
    case OPT_PROGRESS: {
        int b = parse_bool(val);
        if (b < 0)
            return gs_fail(err, bad, "%s takes true or false, not '%s' (%s)", name, val, where);
        if (id == OPT_VERIFY) o->verify = b;
        else if (id == OPT_BEST_SITE) o->best_per_site = b;
        else if (id == OPT_SEQ) o->with_seq = b;
        else if (id == OPT_QUIET) o->progress = b ? 0 : o->progress;
        else o->progress = b ? 1 : o->progress;
        break;
    }
    default:
        return gs_fail(err, bad, "unknown option (%s)", where);
    }
    return GS_OK;
}

static int option_id(const char *name)
{
    for (const struct option *lo = long_opts; lo->name; lo++)
        if (!strcmp(lo->name, name))
            return lo->val;
    return 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* Read a config file: "key = value", '#' comments, blank lines. */
static gs_status load_config(gs_scan_opts *o, const char *path, gs_error *err)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return gs_fail(err, GS_EINPUT, "cannot open config file: %s (%s)", strerror(errno), path);
    char line[8192], where[4200];
    gs_status st = GS_OK;
    for (unsigned lineno = 1; fgets(line, sizeof line, f); lineno++) {
        snprintf(where, sizeof where, "%s:%u", path, lineno);
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (*s == '\0')
            continue;
        char *eq = strchr(s, '=');
        if (eq == NULL) {
            st = gs_fail(err, GS_EINPUT, "expected 'key = value' (%s)", where);
            goto fail;
        }
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        if (!strcmp(key, "corpus")) {
            for (char *tok = strtok(val, " \t"); tok; tok = strtok(NULL, " \t")) {
                char *c = keep(o, tok);
                if (c == NULL || add_corpus(o, c)) {
                    st = gs_fail(err, GS_ESYS, "out of memory (%s)", where);
                    goto fail;
                }
            }
            continue;
        }
        int id = option_id(key);
        if (id == 0 || id == OPT_CONFIG || id == 'h') {
            st = gs_fail(err, GS_EINPUT, "unknown key '%s' (%s)", key, where);
            goto fail;
        }
        const char *v = keep(o, val);
        if (v == NULL) {
            st = gs_fail(err, GS_ESYS, "out of memory (%s)", where);
            goto fail;
        }
        if ((st = apply_option(o, id, key, v, where, GS_EINPUT, err)) != GS_OK)
            goto fail;
    }
    if (ferror(f))
        st = gs_fail(err, GS_EINPUT, "cannot read config file (%s)", path);
fail:
    fclose(f);
    return st;
}

static char *join_args(int argc, char **argv)
{
    size_t n = strlen("gscan") + 1;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *s = malloc(n);
    if (s == NULL)
        return NULL;
    strcpy(s, "gscan");
    for (int i = 0; i < argc; i++) {
        strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

gs_status gs_scan_opts_parse(int argc, char **argv, gs_scan_opts *o, int *help, gs_error *err)
{
    memset(o, 0, sizeof *o);
    o->out = "gscan.h5";
    o->engine = "auto";
    o->device = GS_DEV_AUTO;
    o->both_strands = 1;
    o->progress = -1;
    o->block = 0; /* by device: GS_BLOCK_GPU or GS_BLOCK_CPU */
    o->max_expansions = 4096;
    o->report_hits = REPORT_UNSET;
    explicit_format = 0;
    *help = 0;
    if ((o->command_line = join_args(argc, argv)) == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (command line)");

    /* The config is applied first so the command line overrides it. */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        const char *cfg = NULL;
        if (!strcmp(argv[i], "--config") && i + 1 < argc)
            cfg = argv[i + 1];
        else if (!strncmp(argv[i], "--config=", 9))
            cfg = argv[i] + 9;
        if (cfg) {
            o->config = cfg;
            gs_status st = load_config(o, cfg, err);
            if (st != GS_OK)
                return st;
        }
    }
    size_t n_config_corpus = o->n_corpus;

    char where[64];
    optind = 1;
    opterr = 0;
    int c, idx;
    while ((c = getopt_long(argc, argv, ":p:s:o:O:e:d:t:qh", long_opts, &idx)) != -1) {
        if (c == '?') {
            if (optopt)
                return gs_fail(err, GS_EUSAGE, "unknown option '-%c' (gscan scan)", optopt);
            return gs_fail(err, GS_EUSAGE, "unknown option '%s' (gscan scan)", argv[optind - 1]);
        }
        if (c == ':')
            return gs_fail(err, GS_EUSAGE, "option '%s' needs a value (gscan scan)", argv[optind - 1]);
        if (c == 'h') {
            *help = 1;
            return GS_OK;
        }
        if (c == OPT_CONFIG)
            continue;
        const char *name = NULL;
        for (const struct option *lo = long_opts; lo->name; lo++)
            if (lo->val == c)
                name = lo->name;
        snprintf(where, sizeof where, "--%s", name ? name : "?");
        gs_status st = apply_option(o, c, name, optarg, where, GS_EUSAGE, err);
        if (st != GS_OK)
            return st;
    }
    /* Corpus files on the command line replace those of a config. */
    if (optind < argc && n_config_corpus) {
        o->n_corpus = 0;
    }
    for (int i = optind; i < argc; i++) {
        if (add_corpus(o, argv[i]))
            return gs_fail(err, GS_ESYS, "out of memory (command line)");
    }
    if (o->patterns == NULL && o->n_seqs == 0)
        return gs_fail(err, GS_EUSAGE, "missing -p/--patterns FILE or -s/--pattern SEQ (gscan scan)");
    if (!explicit_format) { /* from the name: "-", .tsv and .bed are text */
        size_t l = strlen(o->out);
        if (!strcmp(o->out, "-") || (l >= 4 && !strcmp(o->out + l - 4, ".tsv")))
            o->out_format = GS_OUT_TSV;
        else if (l >= 4 && !strcmp(o->out + l - 4, ".bed"))
            o->out_format = GS_OUT_BED;
    }
    if (o->out_format == GS_OUT_H5 && !strcmp(o->out, "-"))
        return gs_fail(err, GS_EUSAGE, "HDF5 cannot be written to standard output: use -O tsv or bed with -o - (gscan scan)");
    if (o->out_format == GS_OUT_BED && o->report_hits == 0)
        return gs_fail(err, GS_EUSAGE, "--report counts has no BED form: use -O tsv (gscan scan)");
    if (o->report_hits == REPORT_UNSET)
        o->report_hits = o->out_format != GS_OUT_H5;
    if (o->n_corpus == 0 && o->index == NULL)
        return gs_fail(err, GS_EUSAGE, "no corpus file given (gscan scan)");
    if (o->n_corpus && o->index)
        return gs_fail(err, GS_EUSAGE, "--index replaces the corpus files: give one or the other (gscan scan)");
    if (o->alphabet == GS_ALPHA_BYTES && o->both_strands) {
        /* bytes have no reverse strand: forward is implied unless --strand both was explicit */
        int explicit_both = 0;
        for (int i = 1; i < argc; i++)
            if ((!strcmp(argv[i], "--strand") && i + 1 < argc && !strcmp(argv[i + 1], "both")) ||
                !strcmp(argv[i], "--strand=both"))
                explicit_both = 1;
        if (explicit_both)
            return gs_fail(err, GS_EUSAGE, "--strand both needs --alphabet dna: bytes have no reverse strand (gscan scan)");
        o->both_strands = 0;
    }
    if (o->match != GS_MATCH_EXACT && o->alphabet != GS_ALPHA_DNA)
        return gs_fail(err, GS_EUSAGE, "approximate matching needs --alphabet dna (gscan scan)");
    if (o->index && o->match != GS_MATCH_EXACT)
        return gs_fail(err, GS_EUSAGE,
                       "--index serves exact matching only: scan the corpus files for "
                       "--max-mismatches or --max-edits (gscan scan)");
    if (o->best_per_site && o->match == GS_MATCH_EXACT)
        return gs_fail(err, GS_EUSAGE,
                       "--best-per-site needs --max-mismatches or --max-edits (gscan scan)");
    if (o->with_seq && (o->out_format == GS_OUT_H5 || !o->report_hits))
        return gs_fail(err, GS_EUSAGE,
                       "--seq adds a column to text hit rows: use -O tsv or bed (or -o -) with "
                       "--report hits; for a result file, gscan export --seq (gscan scan)");
    if (o->with_seq && o->index)
        return gs_fail(err, GS_EUSAGE,
                       "--seq reads the corpus files back, and --index scans without them (gscan scan)");
    for (size_t i = 0; o->with_seq && i < o->n_corpus; i++)
        if (!strcmp(o->corpus[i], "-"))
            return gs_fail(err, GS_EUSAGE,
                           "--seq reads the corpus back through its .fai: not possible for "
                           "standard input (gscan scan)");
    return GS_OK;
}

void gs_scan_opts_free(gs_scan_opts *o)
{
    for (size_t i = 0; i < o->n_owned; i++)
        free(o->owned[i]);
    free(o->owned);
    free(o->corpus);
    free(o->seqs);
    free(o->command_line);
    memset(o, 0, sizeof *o);
}

void gs_scan_print_usage(FILE *out)
{
    char names[256];
    gs_engine_names(names, sizeof names);
    fprintf(out, gs_scan_usage, names);
    for (int i = 0; gs_engines[i]; i++)
        if (!gs_engines[i]->for_tests)
            fprintf(out, "  %-4s %s%s%s\n", gs_engines[i]->name, gs_engines[i]->summary,
                    gs_engines[i]->caps & GS_CAP_APPROX ? " [approximate]" : "",
                    gs_engines[i]->gpu ? " [cpu, gpu]" : " [cpu]");
}
