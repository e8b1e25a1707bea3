/* options.c - parse "gscan scan" command lines and --config files.
 *
 * Both go through one table and one apply_option(), so a key in a config file
 * is validated exactly like the long option of the same name, and a usage
 * error names the option (command line) or the file and line (config).
 */
#define _POSIX_C_SOURCE 200809L
#include "inputs.h"
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match/bulge.h"
#include "match/engine.h"
#include "tune.h"

enum { OPT_QUIET = 'q', OPT_STRAND = 256, OPT_ALPHABET, OPT_INPUT_FORMAT, OPT_REPORT, OPT_VERIFY,
       OPT_CONFIG, OPT_PROGRESS, OPT_BLOCK, OPT_MAXEXP, OPT_READERS, OPT_CORPUS,
       OPT_MISMATCHES, OPT_EDITS, OPT_EXACT3P, OPT_BEST_SITE, OPT_INDEX, OPT_SEQ, OPT_ALIGNED,
       OPT_TUNE, OPT_DEBUG, OPT_INFILE_LIST, OPT_MPI_HINT, OPT_CIRCULAR, OPT_TALLY, OPT_SAMPLES,
       OPT_MAX_MEMORY, OPT_BULGES };
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
    {"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
    {"max-expansions", required_argument, NULL, OPT_MAXEXP},
    {"max-mismatches", required_argument, NULL, OPT_MISMATCHES},
    {"max-edits", required_argument, NULL, OPT_EDITS},
    {"max-bulges", required_argument, NULL, OPT_BULGES},
    {"exact-3p", required_argument, NULL, OPT_EXACT3P},
    {"best-per-site", no_argument, NULL, OPT_BEST_SITE},
    {"circular", no_argument, NULL, OPT_CIRCULAR},
    {"seq", no_argument, NULL, OPT_SEQ},
    {"aligned", no_argument, NULL, OPT_ALIGNED},
    {"verify", no_argument, NULL, OPT_VERIFY},
    {"index", required_argument, NULL, OPT_INDEX},
    {"infile-list", required_argument, NULL, OPT_INFILE_LIST},
    {"tally", required_argument, NULL, OPT_TALLY},
    {"samples", required_argument, NULL, OPT_SAMPLES},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"tune", required_argument, NULL, OPT_TUNE},
    {"debug", required_argument, NULL, OPT_DEBUG},
    {"mpi-hint", required_argument, NULL, OPT_MPI_HINT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

gs_status gs_parse_size(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    if (s == NULL || !isdigit((unsigned char)*s))
        return GS_EUSAGE;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno)
        return GS_EUSAGE;
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    if (*end != '\0' || (shift && x > (~0ULL >> shift)))
        return GS_EUSAGE;
    *v = (uint64_t)x << shift;
    return GS_OK;
}

/* *b = 1 true, 0 false; GS_EUSAGE neither, the caller names the option
 * (config booleans; a bare flag passes NULL). */
static gs_status parse_bool(const char *v, int *b)
{
    *b = v == NULL || !strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "1")
         || !strcmp(v, "on");
    if (*b || !strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "off"))
        return GS_OK;
    return GS_EUSAGE;
}

/* Append s to the list *v of *n strings. */
static gs_status push_str(char ***v, size_t *n, char *s, const char *where, gs_error *err)
{
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (nv == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (%s)", where);
    *v = nv;
    nv[(*n)++] = s;
    return GS_OK;
}

static gs_status add_corpus(gs_scan_opts *o, char *path, const char *where, gs_error *err)
{
    return push_str(&o->corpus, &o->n_corpus, path, where, err);
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

/* One parse under way: what the checks after it need to know. */
typedef struct parse_state {
    gs_scan_opts *o;
    int explicit_format; /* -O (or out-format in a config): else it follows -o */
    int *help;           /* 1: -h; 2: --tune help */
    int in_argv;         /* parsing the command line (not a config) */
    int argv_corpus;     /* the command line named corpus files */
} parse_state;

static gs_status add_kept(void *ctx, const char *path, const char *where, gs_error *err)
{
    gs_scan_opts *o = ctx;
    char *c = keep(o, path);
    return c ? add_corpus(o, c, where, err) : gs_fail(err, GS_ESYS, "out of memory (%s)", where);
}

/* A corpus argument, or an input list (list = 1), in order; the command
 * line's first one replaces the corpus files of a config. */
static gs_status corpus_arg(parse_state *ps, const char *arg, int list, const char *where,
                            gs_error *err)
{
    if (ps->in_argv && !ps->argv_corpus) {
        ps->o->n_corpus = 0;
        ps->argv_corpus = 1;
    }
    return list ? gs_input_list(arg, add_kept, ps->o, err)
                : gs_input_arg(arg, add_kept, ps->o, where, err);
}

/* Options that take one word of a short list. */
static const struct choice {
    int id;
    const char *what;      /* "unknown <what> 'x'" */
    const char *words[5];  /* NULL-ended, in the order the help lists them */
    int values[5];         /* what each word sets */
} choices[] = {
    {'O', "output format", {"h5", "tsv", "bed", "cas", "fa"},
     {GS_OUT_H5, GS_OUT_TSV, GS_OUT_BED, GS_OUT_CAS, GS_OUT_FASTA}},
    {'d', "device", {"auto", "gpu", "cpu"}, {GS_DEV_AUTO, GS_DEV_GPU, GS_DEV_CPU}},
    {OPT_STRAND, "strand mode", {"both", "forward"}, {1, 0}},
    {OPT_ALPHABET, "alphabet", {"dna", "bytes"}, {GS_ALPHA_DNA, GS_ALPHA_BYTES}},
    {OPT_INPUT_FORMAT, "input format", {"auto", "fasta", "fastq", "raw"},
     {GS_INPUT_AUTO, GS_INPUT_FASTA, GS_INPUT_FASTQ, GS_INPUT_RAW}},
    {OPT_REPORT, "report", {"counts", "hits"}, {0, 1}},
    {OPT_TALLY, "tally unit", {"record", "file", "sample"},
     {GS_TALLY_RECORD, GS_TALLY_FILE, GS_TALLY_SAMPLE}},
};

/* Options that take a number (K/M/G suffixes), within a range. */
static const struct number {
    int id;
    const char *what;  /* "<what> must be ..." (NULL: the option's name) */
    uint64_t lo, hi;
    const char *range; /* how the message states the range (NULL: "a number from lo to hi") */
} numbers[] = {
    {OPT_MISMATCHES, NULL, 0, GS_MAX_DIST, NULL},
    {OPT_EDITS, NULL, 0, GS_MAX_DIST, NULL},
    {OPT_BULGES, NULL, 0, GS_MAX_BULGES, NULL},
    {OPT_EXACT3P, NULL, 0, GS_MAX_EXACT3P, NULL},
    {'t', "threads", 1, 1024, NULL},
    {OPT_READERS, "readers", 1, GS_MAX_READERS, NULL},
    {OPT_BLOCK, "block size", 1, 1ULL << 34, "1 to 16G residues"},
    {OPT_MAXEXP, "max-expansions", 1, UINT32_MAX, "a positive number"},
    {OPT_MAX_MEMORY, "max-memory", 1ULL << 20, 1ULL << 60, "1M or more (K/M/G/T suffixes)"},
};

static void set_choice(parse_state *ps, int id, int v)
{
    gs_scan_opts *o = ps->o;
    switch (id) {
    case 'O': o->out_format = (gs_out_format)v; ps->explicit_format = 1; break;
    case 'd': o->device = (gs_device_kind)v; break;
    case OPT_STRAND: o->both_strands = v; break;
    case OPT_ALPHABET: o->alphabet = (gs_alphabet)v; break;
    case OPT_INPUT_FORMAT: o->format = (gs_input_format)v; break;
    case OPT_TALLY: o->tally = (gs_tally_unit)v; break;
    default: o->report_hits = v; break;
    }
}

static gs_status apply_choice(parse_state *ps, const struct choice *c, const char *val,
                              const char *where, gs_status bad, gs_error *err)
{
    char expected[128] = "";
    int n = 0;
    while (n < (int)(sizeof c->words / sizeof *c->words) && c->words[n])
        n++;
    for (int k = 0; k < n; k++) {
        if (!strcmp(val, c->words[k])) {
            set_choice(ps, c->id, c->values[k]);
            return GS_OK;
        }
    }
    for (int k = 0; k < n; k++) { /* "auto, gpu or cpu" */
        strcat(expected, k == 0 ? "" : k == n - 1 ? " or " : ", ");
        strcat(expected, c->words[k]);
    }
    return gs_fail(err, bad, "unknown %s '%s': expected %s (%s)", c->what, val, expected, where);
}

static gs_status apply_number(gs_scan_opts *o, const struct number *nb, const char *name,
                              const char *val, const char *where, gs_status bad, gs_error *err)
{
    uint64_t n;
    if (gs_parse_size(val, &n) || n < nb->lo || n > nb->hi) {
        char range[64];
        if (nb->range)
            snprintf(range, sizeof range, "%s", nb->range);
        else
            snprintf(range, sizeof range, "a number from %llu to %llu",
                     (unsigned long long)nb->lo, (unsigned long long)nb->hi);
        return gs_fail(err, bad, "%s must be %s, not '%s' (%s)", nb->what ? nb->what : name,
                       range, val, where);
    }
    switch (nb->id) {
    case 't': o->threads = (int)n; break;
    case OPT_READERS: o->readers = (int)n; break;
    case OPT_BLOCK: o->block = n; break;
    case OPT_MAXEXP: o->max_expansions = (uint32_t)n; break;
    case OPT_EXACT3P: o->exact3p = (uint32_t)n; break;
    case OPT_BULGES: o->bulges = (uint32_t)n; break;
    case OPT_MAX_MEMORY: o->max_memory = n; break;
    default: {
        gs_match_mode mode = nb->id == OPT_EDITS ? GS_MATCH_EDITS : GS_MATCH_MISMATCHES;
        if (o->match != GS_MATCH_EXACT && o->match != mode)
            return gs_fail(err, bad, "--max-mismatches and --max-edits exclude each other (%s)", where);
        o->match = mode;
        o->max_dist = (uint32_t)n;
    }
    }
    return GS_OK;
}

static gs_status apply_flag(gs_scan_opts *o, int id, const char *name, const char *val,
                            const char *where, gs_status bad, gs_error *err)
{
    int b;
    if (parse_bool(val, &b) != GS_OK)
        return gs_fail(err, bad, "%s takes true or false, not '%s' (%s)", name, val, where);
    switch (id) {
    case OPT_VERIFY: o->verify = b; break;
    case OPT_BEST_SITE: o->best_per_site = b; break;
    case OPT_CIRCULAR: o->circular = b; break;
    case OPT_SEQ: o->with_seq = b; break;
    case OPT_ALIGNED: o->aligned = o->with_seq = b; break;
    case OPT_QUIET:
        o->progress = b ? 0 : o->progress;
        o->quiet = b;
        break;
    default: o->progress = b ? 1 : o->progress; break;
    }
    return GS_OK;
}

/* --mpi-hint KEY=VALUE: both parts present and within MPI's bounds on an
 * info key and value, so MPI_Info_set takes it (h5_props.c). */
static gs_status add_mpi_hint(gs_scan_opts *o, char *val, const char *where, gs_status bad,
                              gs_error *err)
{
    const char *eq = strchr(val, '=');
    if (eq == NULL || eq == val || eq[1] == '\0')
        return gs_fail(err, bad, "--mpi-hint takes KEY=VALUE (an MPI-IO hint such as "
                       "romio_cb_write=enable), not '%s' (%s)", val, where);
    if (eq - val >= MPI_MAX_INFO_KEY || strlen(eq + 1) >= MPI_MAX_INFO_VAL)
        return gs_fail(err, bad, "--mpi-hint: key or value too long, at most %d and %d bytes (%s)",
                       MPI_MAX_INFO_KEY - 1, MPI_MAX_INFO_VAL - 1, where);
    return push_str(&o->mpi_hints, &o->n_mpi_hints, val, where, err);
}

/* Options that name things: files, patterns, the engine, the knobs. */
static gs_status apply_name(parse_state *ps, int id, const char *val, const char *where,
                            gs_status bad, gs_error *err)
{
    gs_scan_opts *o = ps->o;
    switch (id) {
    case 'p': o->patterns = val; return GS_OK;
    case 'o': o->out = val; return GS_OK;
    case OPT_INDEX: o->index = val; return GS_OK;
    case OPT_SAMPLES: o->samples = val; return GS_OK;
    case OPT_INFILE_LIST: return corpus_arg(ps, val, 1, where, err);
    case 's': return push_str(&o->seqs, &o->n_seqs, (char *)val, where, err);
    case 'e':
        if (strcmp(val, "auto") && gs_engine_find(val) == NULL) {
            char names[256];
            gs_engine_names(names, sizeof names);
            return gs_fail(err, bad, "unknown engine '%s': expected %s (%s)", val, names, where);
        }
        o->engine = val;
        return GS_OK;
    case OPT_DEBUG: return gs_debug_set(&o->tune, val, where, bad, err);
    case OPT_MPI_HINT: return add_mpi_hint(o, (char *)val, where, bad, err);
    case OPT_TUNE:
        if (gs_tune_wants_help(val)) {
            *ps->help = 2;
            return GS_OK;
        }
        return gs_tune_set(&o->tune, val, where, bad, err);
    default: return gs_fail(err, bad, "unknown option (%s)", where);
    }
}

/* Apply one option. name is the long name; where is "--name" or "file:line". */
static gs_status apply_option(parse_state *ps, int id, const char *name, const char *val,
                              const char *where, gs_status bad, gs_error *err)
{
    for (size_t i = 0; i < sizeof choices / sizeof *choices; i++)
        if (choices[i].id == id)
            return apply_choice(ps, &choices[i], val, where, bad, err);
    for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++)
        if (numbers[i].id == id)
            return apply_number(ps->o, &numbers[i], name, val, where, bad, err);
    switch (id) {
    case OPT_BEST_SITE:
    case OPT_CIRCULAR:
    case OPT_SEQ:
    case OPT_ALIGNED:
    case OPT_VERIFY:
    case OPT_QUIET:
    case OPT_PROGRESS: return apply_flag(ps->o, id, name, val, where, bad, err);
    default: return apply_name(ps, id, val, where, bad, err);
    }
}

static int option_id(const char *name)
{
    for (const struct option *lo = long_opts; lo->name; lo++)
        if (!strcmp(lo->name, name))
            return lo->val;
    return 0;
}

static const char *option_name(int id)
{
    for (const struct option *lo = long_opts; lo->name; lo++)
        if (lo->val == id)
            return lo->name;
    return "?";
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
static gs_status load_config(parse_state *ps, const char *path, gs_error *err)
{
    gs_scan_opts *o = ps->o;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return gs_fail_open(err, "config file", path);
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
            for (char *tok = strtok(val, " \t"); tok; tok = strtok(NULL, " \t"))
                if ((st = corpus_arg(ps, tok, 0, where, err)) != GS_OK)
                    goto fail;
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
        if ((st = apply_option(ps, id, key, v, where, GS_EINPUT, err)) != GS_OK)
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

static void scan_defaults(gs_scan_opts *o)
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
}

/* The config files of the command line, applied first so that the command
 * line overrides them. */
static gs_status load_configs(parse_state *ps, int argc, char **argv, gs_error *err)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *cfg = NULL;
        if (!strcmp(argv[i], "--config") && i + 1 < argc)
            cfg = argv[i + 1];
        else if (!strncmp(argv[i], "--config=", 9))
            cfg = argv[i] + 9;
        if (cfg) {
            ps->o->config = cfg;
            gs_status st = load_config(ps, cfg, err);
            if (st != GS_OK)
                return st;
        }
    }
    return GS_OK;
}

/* The options of the command line, then its corpus files (which replace
 * those of a config). */
static gs_status parse_argv(parse_state *ps, int argc, char **argv, gs_error *err)
{
    char where[64];
    optind = 1;
    opterr = 0;
    ps->in_argv = 1;
    int c, idx;
    /* "-": corpus arguments come back in order (1), among the options */
    while ((c = getopt_long(argc, argv, "-:p:s:o:O:e:d:t:qh", long_opts, &idx)) != -1) {
        if (c == 1) {
            gs_status st = corpus_arg(ps, optarg, 0, "command line", err);
            if (st != GS_OK)
                return st;
            continue;
        }
        if (c == '?' && optopt)
            return gs_fail(err, GS_EUSAGE, "unknown option '-%c' (gscan scan)", optopt);
        if (c == '?')
            return gs_fail(err, GS_EUSAGE, "unknown option '%s' (gscan scan)", argv[optind - 1]);
        if (c == ':')
            return gs_fail(err, GS_EUSAGE, "option '%s' needs a value (gscan scan)", argv[optind - 1]);
        if (c == 'h') {
            *ps->help = 1;
            return GS_OK;
        }
        if (c == OPT_CONFIG)
            continue;
        const char *name = option_name(c);
        snprintf(where, sizeof where, "--%s", name);
        gs_status st = apply_option(ps, c, name, optarg, where, GS_EUSAGE, err);
        if (st != GS_OK || *ps->help)
            return st;
    }
    gs_status st = GS_OK; /* after "--" */
    for (int i = optind; i < argc && st == GS_OK; i++)
        st = corpus_arg(ps, argv[i], 0, "command line", err);
    return st;
}

/* "--strand both" given on the command line (not only the default). */
static int strand_both_given(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if ((!strcmp(argv[i], "--strand") && i + 1 < argc && !strcmp(argv[i + 1], "both")) ||
            !strcmp(argv[i], "--strand=both"))
            return 1;
    return 0;
}

/* What follows from the options together: the output format and report from
 * -o's name, the strand of bytes; and which outputs they allow. */
static gs_status settle_output(parse_state *ps, int argc, char **argv, gs_error *err)
{
    gs_scan_opts *o = ps->o;
    if (!ps->explicit_format) { /* from the name: "-", .tsv and .bed are text, .h5 HDF5 */
        const char *dot = strrchr(o->out, '.'), *slash = strrchr(o->out, '/');
        const char *ext = dot && (!slash || dot > slash) ? dot + 1 : "";
        if (!strcmp(o->out, "-") || !strcmp(ext, "tsv"))
            o->out_format = GS_OUT_TSV;
        else if (!strcmp(ext, "bed"))
            o->out_format = GS_OUT_BED;
        else if (!strcmp(ext, "fa") || !strcmp(ext, "fasta"))
            o->out_format = GS_OUT_FASTA;
        else if (strcmp(ext, "h5") && strcmp(ext, "hdf5"))
            return gs_fail(err, GS_EUSAGE,
                           "cannot tell the output format from the name '%s': name it .h5, "
                           ".tsv or .bed, or give -O h5|tsv|bed (gscan scan)",
                           o->out);
    }
    if (o->out_format == GS_OUT_H5 && !strcmp(o->out, "-"))
        return gs_fail(err, GS_EUSAGE, "HDF5 cannot be written to standard output: use -O tsv or bed with -o - (gscan scan)");
    if ((o->out_format == GS_OUT_BED || o->out_format == GS_OUT_CAS) && o->report_hits == 0)
        return gs_fail(err, GS_EUSAGE, "--report counts has no %s form: use -O tsv (gscan scan)",
                       o->out_format == GS_OUT_BED ? "BED" : "Cas-OFFinder");
    if (o->out_format == GS_OUT_CAS) /* its rows carry the aligned target */
        o->with_seq = o->aligned = 1;
    if (o->report_hits == REPORT_UNSET)
        o->report_hits = o->out_format != GS_OUT_H5;
    if (o->alphabet == GS_ALPHA_BYTES && o->both_strands) {
        /* bytes have no reverse strand: forward is implied unless --strand both was explicit */
        if (strand_both_given(argc, argv))
            return gs_fail(err, GS_EUSAGE, "--strand both needs --alphabet dna: bytes have no reverse strand (gscan scan)");
        o->both_strands = 0;
    }
    return GS_OK;
}

/* The combinations of options that cannot run. */
static gs_status check_combinations(const gs_scan_opts *o, gs_error *err)
{
    if (o->n_corpus == 0 && o->index == NULL)
        return gs_fail(err, GS_EUSAGE, "no corpus file given (gscan scan)");
    if (o->n_corpus && o->index)
        return gs_fail(err, GS_EUSAGE, "--index replaces the corpus files: give one or the other (gscan scan)");
    if (o->match != GS_MATCH_EXACT && o->alphabet != GS_ALPHA_DNA)
        return gs_fail(err, GS_EUSAGE, "approximate matching needs --alphabet dna (gscan scan)");
    if (o->index && o->match != GS_MATCH_EXACT)
        return gs_fail(err, GS_EUSAGE,
                       "--index serves exact matching only: scan the corpus files for "
                       "--max-mismatches or --max-edits (gscan scan)");
    if (o->index && o->circular)
        return gs_fail(err, GS_EUSAGE,
                       "--index scans without the records' ends: scan the corpus files for "
                       "--circular (gscan scan)");
    if (o->bulges && o->match != GS_MATCH_MISMATCHES)
        return gs_fail(err, GS_EUSAGE,
                       "--max-bulges adds bulges to --max-mismatches K (with --max-edits every "
                       "edit may be one) (gscan scan)");
    if (o->bulges && o->max_dist + o->bulges > GS_MAX_DIST)
        return gs_fail(err, GS_EUSAGE, "--max-mismatches plus --max-bulges must be at most %d, "
                       "not %u + %u (gscan scan)", GS_MAX_DIST, o->max_dist, o->bulges);
    if (o->best_per_site && o->match == GS_MATCH_EXACT)
        return gs_fail(err, GS_EUSAGE,
                       "--best-per-site needs --max-mismatches or --max-edits (gscan scan)");
    if (o->with_seq && (o->out_format == GS_OUT_H5 || !o->report_hits))
        return gs_fail(err, GS_EUSAGE,
                       "--seq adds a column to text hit rows: use -O tsv or bed (or -o -) with "
                       "--report hits; for a result file, gscan export --seq (gscan scan)");
    if ((o->tally == GS_TALLY_SAMPLE) != (o->samples != NULL))
        return gs_fail(err, GS_EUSAGE, "%s (gscan scan)",
                       o->samples ? "--samples names the units of --tally sample"
                                  : "--tally sample needs --samples SHEET.tsv");
    if (o->tally && o->out_format != GS_OUT_H5)
        return gs_fail(err, GS_EUSAGE,
                       "--tally is stored in the HDF5 result: not with -O tsv or bed (gscan scan)");
    return GS_OK;
}

gs_status gs_scan_opts_parse(int argc, char **argv, gs_scan_opts *o, int *help, gs_error *err)
{
    scan_defaults(o);
    parse_state ps = {.o = o, .help = help};
    *help = 0;
    if ((o->command_line = join_args(argc, argv)) == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (command line)");
    gs_status st = load_configs(&ps, argc, argv, err);
    if (st == GS_OK)
        st = parse_argv(&ps, argc, argv, err);
    if (st != GS_OK || *help)
        return st;
    if (o->patterns == NULL && o->n_seqs == 0)
        return gs_fail(err, GS_EUSAGE, "missing -p/--patterns FILE or -s/--pattern SEQ (gscan scan)");
    if ((st = settle_output(&ps, argc, argv, err)) != GS_OK)
        return st;
    return check_combinations(o, err);
}

void gs_scan_opts_free(gs_scan_opts *o)
{
    for (size_t i = 0; i < o->n_owned; i++)
        free(o->owned[i]);
    free(o->owned);
    free(o->corpus);
    free(o->seqs);
    free(o->mpi_hints);
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
    fputc('\n', out);
    gs_tune_print_help(out);
}
