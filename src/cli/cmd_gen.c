/* cmd_gen.c - "gscan gen": reproducible random workloads.
 *
 * Writes a corpus (FASTA for dna, a raw file for bytes) and a pattern file
 * from one seed, so any run can be replayed and checked. Patterns can be cut
 * from the text (planted, so they hit), random (mostly absent), duplicated,
 * palindromic or degenerate (IUPAC), the cases the engines must get right.
 * The generator is splitmix64: the same seed gives the same files everywhere.
 * --variants writes mutated copies of the text after it (SNPs and short
 * indels): the repetitive collections (strain sets) the LZ77 index is for.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "commands.h"
#include "comm/comm.h"
#include "io/stream/replace_file.h"
#include "options.h"
#include "tune.h"

static const char gen_usage[] =
    "usage: gscan gen -o PREFIX [options]\n"
    "\n"
    "Write a random workload: PREFIX.fa (dna, or PREFIX.fa.gz with --gzip) or\n"
    "PREFIX.bin (bytes, raw), and PREFIX.patterns (one \"name<TAB>sequence\" a line).\n"
    "\n"
    "  -o, --out PREFIX         output prefix (required)\n"
    "  -n, --length N           residues of text, K/M/G suffixes (default 1M)\n"
    "  -r, --records R          records the text is split into (dna, default 1)\n"
    "  -k, --patterns K         number of patterns (default 1000)\n"
    "      --min-length A       shortest pattern (default 8)\n"
    "      --max-length B       longest pattern (default: the shortest)\n"
    "      --alphabet NAME      dna | bytes (default dna)\n"
    "      --bytes-range N      bytes alphabet: symbols 0..N-1 (default 256)\n"
    "  -s, --seed S             random seed (default 1)\n"
    "      --planted F          fraction of patterns cut from the text (default 0.5)\n"
    "      --mutations D        planted patterns differ from the text by D random\n"
    "                           edits, so the text holds approximate occurrences\n"
    "                           (for --max-edits / --max-mismatches; default 0)\n"
    "      --mutation-kind KIND edit (substitutions, insertions, deletions) or\n"
    "                           substitution (default edit)\n"
    "      --degenerate F       fraction of dna patterns with IUPAC codes (default 0)\n"
    "      --duplicates F       fraction of patterns repeating an earlier one (default 0)\n"
    "      --palindromes F      fraction of dna patterns that are their own reverse\n"
    "                           complement (default 0)\n"
    "      --lowercase F        fraction of dna text in lowercase (default 0)\n"
    "      --n-runs R           runs of N (1..50 long) put into the dna text (default 0)\n"
    "      --line-width W       FASTA line width (default 60)\n"
    "      --gzip               gzip the corpus\n"
    "      --variants V         dna: also write V mutated copies of the text\n"
    "                           (records seqR_vI), a strain-like collection\n"
    "      --base FASTA         dna: take the text from FASTA's residues (all\n"
    "                           records joined) instead of random ones\n"
    "      --snp-rate F         per residue, a substituted base in a copy\n"
    "                           (default 0.001)\n"
    "      --indel-rate F       per residue, an insertion or deletion of 1..5\n"
    "                           residues in a copy (default 0.0001)\n"
    "  -h, --help               this help\n";

struct gs_gen_opts {
    const char *prefix;
    const char *base; /* --base: the text comes from this corpus */
    uint64_t length, records, patterns, min_len, max_len, seed, n_runs, line_width, range;
    uint64_t variants, mutations;
    int subst_only; /* --mutation-kind substitution */
    double planted, degenerate, duplicates, palindromes, lowercase, snp_rate, indel_rate;
    int bytes, gzip;
};
typedef gs_gen_opts gen_opts;

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static uint64_t below(uint64_t *s, uint64_t n) { return n ? rnd(s) % n : 0; }
static double unit(uint64_t *s) { return (double)(rnd(s) >> 11) * (1.0 / 9007199254740992.0); }

/* Apply g->mutations random edits to a planted pattern, keeping its length
 * within [min_len, max_len]: a substitution (to another symbol), an
 * insertion or a deletion. Returns the new length. */
static uint64_t mutate(uint64_t *s, const gen_opts *g, uint8_t *pat, uint64_t len)
{
    static const char acgt[] = "ACGT";
    for (uint64_t d = 0; d < g->mutations && len > 0; d++) {
        int kind = g->subst_only ? 0 : (int)below(s, 3);
        uint64_t at = below(s, len);
        if (kind == 1 && len < g->max_len) { /* insertion */
            memmove(pat + at + 1, pat + at, len - at);
            pat[at] = g->bytes ? (uint8_t)below(s, g->range) : (uint8_t)acgt[below(s, 4)];
            len++;
        } else if (kind == 2 && len > g->min_len && len > 1) { /* deletion */
            memmove(pat + at, pat + at + 1, len - at - 1);
            len--;
        } else {
            uint8_t c = pat[at];
            while (pat[at] == c && (g->bytes ? g->range > 1 : 1))
                pat[at] = g->bytes ? (uint8_t)below(s, g->range) : (uint8_t)acgt[below(s, 4)];
        }
    }
    return len;
}

/* A fraction from 0 to 1: GS_OK, or GS_EUSAGE (the caller names the option). */
static gs_status parse_fraction(const char *v, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || *end || end == v || d < 0 || d > 1)
        return GS_EUSAGE;
    *out = d;
    return GS_OK;
}

enum { G_MIN = 300, G_MAX, G_ALPHA, G_PLANT, G_DEGEN, G_DUP, G_PALIN, G_LOWER, G_NRUNS, G_WIDTH,
       G_GZIP, G_RANGE, G_VARIANTS, G_SNP, G_INDEL, G_BASE, G_MUT, G_MUTKIND };

static const struct option gen_long_opts[] = {
    {"out", required_argument, NULL, 'o'}, {"length", required_argument, NULL, 'n'},
    {"records", required_argument, NULL, 'r'}, {"patterns", required_argument, NULL, 'k'},
    {"min-length", required_argument, NULL, G_MIN}, {"max-length", required_argument, NULL, G_MAX},
    {"alphabet", required_argument, NULL, G_ALPHA}, {"seed", required_argument, NULL, 's'},
    {"planted", required_argument, NULL, G_PLANT}, {"degenerate", required_argument, NULL, G_DEGEN},
    {"duplicates", required_argument, NULL, G_DUP}, {"palindromes", required_argument, NULL, G_PALIN},
    {"lowercase", required_argument, NULL, G_LOWER}, {"n-runs", required_argument, NULL, G_NRUNS},
    {"line-width", required_argument, NULL, G_WIDTH}, {"gzip", no_argument, NULL, G_GZIP},
    {"bytes-range", required_argument, NULL, G_RANGE},
    {"variants", required_argument, NULL, G_VARIANTS}, {"base", required_argument, NULL, G_BASE},
    {"snp-rate", required_argument, NULL, G_SNP}, {"indel-rate", required_argument, NULL, G_INDEL},
    {"mutations", required_argument, NULL, G_MUT},
    {"mutation-kind", required_argument, NULL, G_MUTKIND},
    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

/* The long name of an option (errors name it whichever form was given). */
static const char *gen_option_name(int id)
{
    for (const struct option *lo = gen_long_opts; lo->name; lo++)
        if (lo->val == id)
            return lo->name;
    return "?";
}

/* The checks of a parsed command line, and what follows from it. */
static gs_status check_gen(gen_opts *g, gs_error *err)
{
    if (g->prefix == NULL)
        return gs_fail(err, GS_EUSAGE, "missing -o/--out PREFIX (gscan gen)");
    if (g->max_len == 0)
        g->max_len = g->min_len;
    if (g->min_len < 1 || g->max_len < g->min_len || g->max_len > 4096)
        return gs_fail(err, GS_EUSAGE, "pattern lengths must satisfy 1 <= min <= max <= 4096 (--min-length, --max-length)");
    if (g->records < 1 || g->records > g->length + 1 || g->line_width < 1 || g->range < 1 || g->range > 256)
        return gs_fail(err, GS_EUSAGE, "need 1 <= records <= length + 1, line width >= 1, 1 <= bytes-range <= 256 (gscan gen)");
    if (g->bytes)
        g->records = 1;
    if (g->base && g->bytes)
        return gs_fail(err, GS_EUSAGE, "--base needs --alphabet dna (gscan gen)");
    return GS_OK;
}

static gs_status parse(int argc, char **argv, gen_opts *g, int *help, gs_error *err)
{
    *g = (gen_opts){.length = 1u << 20, .records = 1, .patterns = 1000, .min_len = 8, .seed = 1,
                    .planted = 0.5, .line_width = 60, .range = 256, .snp_rate = 0.001,
                    .indel_rate = 0.0001};
    *help = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:n:r:k:s:h", gen_long_opts, NULL)) != -1) {
        uint64_t *num = NULL;
        double *frac = NULL;
        switch (c) {
        case 'h': *help = 1; return GS_OK;
        case 'o': g->prefix = optarg; break;
        case 'n': num = &g->length; break;
        case 'r': num = &g->records; break;
        case 'k': num = &g->patterns; break;
        case 's': num = &g->seed; break;
        case G_MIN: num = &g->min_len; break;
        case G_MAX: num = &g->max_len; break;
        case G_NRUNS: num = &g->n_runs; break;
        case G_WIDTH: num = &g->line_width; break;
        case G_RANGE: num = &g->range; break;
        case G_VARIANTS: num = &g->variants; break;
        case G_BASE: g->base = optarg; break;
        case G_SNP: frac = &g->snp_rate; break;
        case G_INDEL: frac = &g->indel_rate; break;
        case G_MUT: num = &g->mutations; break;
        case G_MUTKIND:
            if (!strcmp(optarg, "edit")) g->subst_only = 0;
            else if (!strcmp(optarg, "substitution")) g->subst_only = 1;
            else return gs_fail(err, GS_EUSAGE, "unknown mutation kind '%s': expected edit or substitution (--mutation-kind)", optarg);
            break;
        case G_PLANT: frac = &g->planted; break;
        case G_DEGEN: frac = &g->degenerate; break;
        case G_DUP: frac = &g->duplicates; break;
        case G_PALIN: frac = &g->palindromes; break;
        case G_LOWER: frac = &g->lowercase; break;
        case G_GZIP: g->gzip = 1; break;
        case G_ALPHA:
            if (!strcmp(optarg, "dna")) g->bytes = 0;
            else if (!strcmp(optarg, "bytes")) g->bytes = 1;
            else return gs_fail(err, GS_EUSAGE, "unknown alphabet '%s': expected dna or bytes (--alphabet)", optarg);
            break;
        case ':': return gs_fail(err, GS_EUSAGE, "option '%s' needs a value (gscan gen)", argv[optind - 1]);
        default: return gs_fail(err, GS_EUSAGE, "unknown option '%s' (gscan gen)", argv[optind - 1]);
        }
        if (num && gs_parse_size(optarg, num) != GS_OK)
            return gs_fail(err, GS_EUSAGE, "'%s' is not a number (--%s)", optarg, gen_option_name(c));
        if (frac && parse_fraction(optarg, frac) != GS_OK)
            return gs_fail(err, GS_EUSAGE, "'%s' is not a fraction from 0 to 1 (--%s)", optarg,
                           gen_option_name(c));
    }
    if (optind < argc)
        return gs_fail(err, GS_EUSAGE, "unexpected argument '%s' (gscan gen)", argv[optind]);
    return check_gen(g, err);
}

static const char iupac_degenerate[] = "RYSWKMBDHVN";

static char complement(char c)
{
    switch (c) {
    case 'A': return 'T';
    case 'C': return 'G';
    case 'G': return 'C';
    default: return 'A';
    }
}

/* Write one pattern's text: dna as is; bytes with \xHH for anything that the
 * pattern reader would not take literally. */
static void put_pattern(FILE *f, uint64_t i, const uint8_t *p, uint64_t len, int bytes)
{
    fprintf(f, "p%llu\t", (unsigned long long)(i + 1));
    for (uint64_t k = 0; k < len; k++) {
        int c = p[k];
        if (!bytes || (c > 0x20 && c < 0x7f && c != '\\' && c != '#'))
            fputc(c, f);
        else
            fprintf(f, "\\x%02x", c);
    }
    fputc('\n', f);
}

/* One mutated copy of text[0..n) into out (room for 2n + 5): SNPs and
 * indels of 1..5 residues at the given rates per residue. Returns its length. */
static uint64_t mutate_text(const gen_opts *g, uint64_t *s, const uint8_t *text, uint64_t n, uint8_t *out)
{
    static const char acgt[] = "ACGT";
    uint64_t o = 0;
    for (uint64_t i = 0; i < n; i++) {
        double u = unit(s);
        if (u < g->indel_rate) {
            uint64_t k = 1 + below(s, 5);
            if (below(s, 2)) { /* insertion before text[i] */
                for (uint64_t j = 0; j < k; j++)
                    out[o++] = (uint8_t)acgt[below(s, 4)];
                out[o++] = text[i];
            } else {           /* deletion of text[i .. i + k) */
                i += k - 1;
            }
        } else if (u < g->indel_rate + g->snp_rate) {
            uint8_t c = gs_dna_code[text[i]]; /* a different base */
            out[o++] = (uint8_t)acgt[c < 4 ? (c + 1 + below(s, 3)) % 4 : below(s, 4)];
        } else {
            out[o++] = text[i];
        }
    }
    return o;
}

static gs_status write_failed(const char *path, gs_error *err)
{
    return gs_fail(err, GS_ESYS, "cannot write: %s (%s)", strerror(errno), path);
}

/* One FASTA record of text t[0..n), lines of width residues, into path. */
static gs_status write_record(gzFile gz, const char *name, const uint8_t *t, uint64_t n,
                              uint64_t width, const char *path, gs_error *err)
{
    int ok = gzprintf(gz, ">%s generated by gscan gen\n", name) > 0;
    for (uint64_t p = 0; ok && p < n; p += width) {
        unsigned k = (unsigned)(n - p < width ? n - p : width);
        ok = gzwrite(gz, t + p, k) == (int)k && gzputc(gz, '\n') == '\n';
    }
    return ok ? GS_OK : write_failed(path, err);
}

/* --base: every residue of a corpus, records joined, as the text. */
static gs_status read_base(const char *path, uint8_t **text, uint64_t *n, gs_error *err)
{
    enum { BLOCK = 1 << 22 };
    gs_reader_opts ro = {.format = GS_INPUT_AUTO, .block = BLOCK, .overlap = 0};
    gs_layout layout = {0};
    gs_reader *r = NULL;
    gs_segment seg;
    uint8_t *buf = gs_malloc(BLOCK, err, "base text");
    gs_status st = buf ? gs_reader_open(&path, 1, &ro, &layout, &r, err) : GS_ESYS;
    uint64_t cap = 0;
    int more = 0;
    *text = NULL;
    *n = 0;
    while (st == GS_OK && (st = gs_reader_next(r, buf, &seg, &more, err)) == GS_OK && more) {
        if (*n + seg.own > cap) {
            cap = 2 * (*n + seg.own);
            uint8_t *t = gs_realloc(*text, cap, err, "base text");
            if (t == NULL) {
                st = GS_ESYS;
                break;
            }
            *text = t;
        }
        memcpy(*text + *n, seg.text, seg.own);
        *n += seg.own;
    }
    if (st == GS_OK && *n == 0)
        st = gs_fail(err, GS_EINPUT, "no residues in the base text (%s)", path);
    gs_reader_close(r);
    gs_layout_free(&layout);
    free(buf);
    return st;
}

/* One generation under way: the options, the random state and the text. */
typedef struct gen {
    const gen_opts *g;
    uint64_t s;        /* splitmix64 state: every draw, in order, from the seed */
    uint8_t *text;     /* g->length residues (or bytes) */
    uint64_t *rec_end; /* end of each record in text */
} gen;

static const char acgt[] = "ACGT";

/* The text: the base's residues or random ones, runs of N, record cuts. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static gs_status make_text(gen *w, const uint8_t *base, gs_error *err)
{
    const gen_opts *g = w->g;
    w->text = gs_malloc(g->length, err, "text");
    w->rec_end = gs_malloc(g->records * sizeof *w->rec_end, err, "records");
    if (!w->text || !w->rec_end)
        return GS_ESYS;
    for (uint64_t i = 0; i < g->length; i++)
        w->text[i] = base ? base[i] : g->bytes ? (uint8_t)below(&w->s, g->range)
                                               : (uint8_t)acgt[below(&w->s, 4)];
    for (uint64_t r = 0; !g->bytes && r < g->n_runs && g->length; r++) {
        uint64_t at = below(&w->s, g->length), n = 1 + below(&w->s, 50);
        for (uint64_t k = at; k < at + n && k < g->length; k++)
            w->text[k] = 'N';
    }
    if (g->bytes && g->length && w->text[0] == '>')
        w->text[0] = '<'; /* a leading '>' would make the raw file read as FASTA */
    /* record boundaries: R - 1 random cuts, sorted */
    uint64_t *e = w->rec_end;
    for (uint64_t r = 0; r + 1 < g->records; r++)
        e[r] = below(&w->s, g->length + 1);
    e[g->records - 1] = g->length;
    qsort(e, g->records, sizeof *e, cmp_u64); /* EST-like sets: millions of records */
    return GS_OK;
}

/* Duplicates repeat one of the first KEEP patterns, kept whole. */
enum { KEEP = 4096 };

/* Draw pattern i into pat; returns its length. prev/prev_len hold the
 * first KEEP patterns, for duplicates. */
static uint64_t draw_pattern(gen *w, uint64_t i, uint8_t *pat, const uint8_t *prev,
                             const uint64_t *prev_len)
{
    const gen_opts *g = w->g;
    uint64_t *s = &w->s;
    uint64_t len = g->min_len + below(s, g->max_len - g->min_len + 1);
    int dup = i > 0 && unit(s) < g->duplicates;
    if (dup) {
        uint64_t j = below(s, i < KEEP ? i : KEEP);
        len = prev_len[j];
        memcpy(pat, prev + j * g->max_len, len);
        return len;
    }
    if (unit(s) < g->planted && g->length >= len) {
        uint64_t at = below(s, g->length - len + 1);
        memcpy(pat, w->text + at, len);
        for (uint64_t k = 0; !g->bytes && k < len; k++)
            if (pat[k] == 'N') /* a text N matches nothing; keep the pattern plain */
                pat[k] = (uint8_t)acgt[below(s, 4)];
        len = mutate(s, g, pat, len);
    } else {
        for (uint64_t k = 0; k < len; k++)
            pat[k] = g->bytes ? (uint8_t)below(s, g->range) : (uint8_t)acgt[below(s, 4)];
    }
    /* an odd-length DNA palindrome cannot exist: use an even length in range */
    uint64_t even = len % 2 == 0 ? len : len > g->min_len ? len - 1 : len < g->max_len ? len + 1 : 0;
    if (!g->bytes && unit(s) < g->palindromes && even >= 2) {
        if (even > len)
            pat[len] = (uint8_t)acgt[below(s, 4)];
        len = even;
        for (uint64_t k = 0; k < len / 2; k++)
            pat[len - 1 - k] = (uint8_t)complement((char)pat[k]);
    }
    if (!g->bytes && unit(s) < g->degenerate)
        for (int d = 0, n = 1 + (int)below(s, 2); d < n; d++)
            pat[below(s, len)] = (uint8_t)iupac_degenerate[below(s, sizeof iupac_degenerate - 1)];
    return len;
}

/* PREFIX.patterns, drawn before lowercasing so planted ones are uppercase. */
static gs_status write_patterns(gen *w, FILE *pf, const char *path, gs_error *err)
{
    const gen_opts *g = w->g;
    uint8_t *pat = gs_malloc(g->max_len + 1, err, "pattern");
    uint8_t *prev = gs_malloc(KEEP * g->max_len, err, "patterns");
    uint64_t *prev_len = gs_malloc(KEEP * sizeof *prev_len, err, "patterns");
    gs_status st = GS_ESYS;
    if (pat && prev && prev_len) {
        fprintf(pf, "# gscan gen --seed %llu: %llu patterns of length %llu..%llu\n",
                (unsigned long long)g->seed, (unsigned long long)g->patterns,
                (unsigned long long)g->min_len, (unsigned long long)g->max_len);
        for (uint64_t i = 0; i < g->patterns; i++) {
            uint64_t len = draw_pattern(w, i, pat, prev, prev_len);
            if (i < KEEP) {
                memcpy(prev + i * g->max_len, pat, len);
                prev_len[i] = len;
            }
            put_pattern(pf, i, pat, len, g->bytes);
        }
        st = ferror(pf) ? write_failed(path, err) : GS_OK;
    }
    free(pat);
    free(prev);
    free(prev_len);
    return st;
}

/* The dna records of the text, then --variants mutated copies of them. */
static gs_status write_records(gen *w, gzFile gz, const char *path, gs_error *err)
{
    const gen_opts *g = w->g;
    uint8_t *copy = NULL;
    if (g->variants && (copy = gs_malloc(2 * g->length + 5, err, "variant")) == NULL)
        return GS_ESYS;
    gs_status st = GS_OK;
    for (uint64_t v = 0; st == GS_OK && v <= g->variants; v++) {
        uint64_t start = 0;
        for (uint64_t r = 0; st == GS_OK && r < g->records; r++) {
            char name[64];
            const uint8_t *t = w->text + start;
            uint64_t n = w->rec_end[r] - start;
            if (v == 0) {
                snprintf(name, sizeof name, "seq%llu", (unsigned long long)(r + 1));
            } else {
                snprintf(name, sizeof name, "seq%llu_v%llu", (unsigned long long)(r + 1),
                         (unsigned long long)v);
                n = mutate_text(g, &w->s, t, n, copy);
                t = copy;
            }
            st = write_record(gz, name, t, n, g->line_width, path, err);
            start = w->rec_end[r];
        }
    }
    free(copy);
    return st;
}

/* PREFIX.fa (.gz) or PREFIX.bin, after lowercasing some of the dna text,
 * into f (an fd of its own, so gzclose leaves f open). */
static gs_status write_corpus(gen *w, FILE *f, const char *path, gs_error *err)
{
    const gen_opts *g = w->g;
    for (uint64_t i = 0; !g->bytes && g->lowercase > 0 && i < g->length; i++)
        if (unit(&w->s) < g->lowercase)
            w->text[i] = (uint8_t)tolower(w->text[i]);
    int fd = dup(fileno(f));
    gzFile gz = fd >= 0 ? gzdopen(fd, g->gzip ? "wb6" : "wbT") : NULL;
    if (gz == NULL) {
        if (fd >= 0)
            close(fd);
        return write_failed(path, err);
    }
    gs_status st = g->bytes ? GS_OK : write_records(w, gz, path, err);
    for (uint64_t off = 0; g->bytes && st == GS_OK && off < g->length; off += 1u << 30) {
        unsigned n = (unsigned)(g->length - off < (1u << 30) ? g->length - off : (1u << 30));
        if (gzwrite(gz, w->text + off, n) != (int)n)
            st = write_failed(path, err);
    }
    if (gzclose(gz) != Z_OK && st == GS_OK)
        st = write_failed(path, err);
    return st;
}

/* Both files under temporary names, renamed into place only when both are
 * whole: a failed run (a full disk, ulimit -f) leaves neither. */
static gs_status write_files(gen *w, gs_error *err)
{
    const gen_opts *g = w->g;
    char pat_path[4096], text_path[4096];
    snprintf(pat_path, sizeof pat_path, "%s.patterns", g->prefix);
    snprintf(text_path, sizeof text_path, "%s.%s%s", g->prefix, g->bytes ? "bin" : "fa",
             g->gzip ? ".gz" : "");
    gs_replace_file pr, tr;
    if (gs_replace_open(&pr, pat_path, "patterns", err) != GS_OK)
        return err->code;
    if (gs_replace_open(&tr, text_path, "corpus", err) != GS_OK) {
        gs_replace_abort(&pr);
        return err->code;
    }
    if (write_patterns(w, pr.f, pat_path, err) != GS_OK ||
        write_corpus(w, tr.f, text_path, err) != GS_OK) {
        gs_replace_abort(&tr);
        gs_replace_abort(&pr);
        return err->code;
    }
    if (gs_replace_commit(&tr, "corpus", err) != GS_OK) {
        gs_replace_abort(&pr);
        return err->code;
    }
    if (gs_replace_commit(&pr, "patterns", err) != GS_OK)
        unlink(text_path); /* not one without the other */
    return err->code;
}

static gs_status generate(const gen_opts *g0, gs_error *err)
{
    gen_opts g = *g0;
    uint8_t *base = NULL;
    if (g0->base) {
        gs_status st = read_base(g0->base, &base, &g.length, err);
        if (st != GS_OK)
            return st;
        if (g.records > g.length)
            g.records = 1;
    }
    gen w = {.g = &g, .s = g.seed * 0x2545F4914F6CDD1DULL + 1};
    gs_status st = make_text(&w, base, err);
    if (st == GS_OK)
        st = write_files(&w, err);
    free(w.text);
    free(w.rec_end);
    free(base);
    return st;
}

gs_status gs_cmd_gen_parse(gs_cli *c, gs_error *err)
{
    gs_status st = gs_tune_take(&c->argc, c->argv, &c->tune, &c->help, err);
    if (st != GS_OK || c->help)
        return st;
    if ((c->gen = malloc(sizeof *c->gen)) == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (gscan gen)");
    return parse(c->argc, c->argv, c->gen, &c->help, err);
}

gs_status gs_cmd_gen_run(gs_cli *c, MPI_Comm comm, gs_error *err)
{
    int rank;
    GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    if (rank == 0)
        generate(c->gen, err);
    return gs_mpi_agree(comm, err);
}

void gs_cmd_gen_free(gs_cli *c)
{
    free(c->gen);
    c->gen = NULL;
}

void gs_cmd_gen_print_usage(FILE *out) { fputs(gen_usage, out); }
