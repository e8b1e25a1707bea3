/* info.c - what "gscan info" shows of a result file, and how: the reader
 * (io/results/h5read.h) hands over the tables, this file lays them out.
 * Lists are cut to their first few entries, and the patterns are streamed
 * once for the totals and the ten with the most hits, so a summary of a
 * file with millions of patterns or records stays short and fast.
 */
#include "info.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { SHOW = 5, TOP_N = 10 };

/* The ten patterns with the most hits (ties: lower id first). */
typedef struct top_entry {
    uint64_t id, total, fwd, rev;
} top_entry;

/* The patterns' totals, gathered block by block (gs_h5_each_pattern). */
typedef struct pattern_totals {
    int n_strands;
    uint64_t strand[2], present;
    uint32_t lmin, lmax;
    top_entry top[TOP_N + 1];
    int n_top;
} pattern_totals;

/* Insert e into the sorted top list when it belongs there. */
static void top_insert(top_entry *top, int *n, const top_entry *e)
{
    int pos = *n;
    while (pos > 0 && top[pos - 1].total < e->total)
        pos--; /* equal totals keep the earlier (lower) id first */
    if (pos >= TOP_N)
        return;
    int last = *n < TOP_N ? *n : TOP_N - 1;
    memmove(&top[pos + 1], &top[pos], (size_t)(last - pos) * sizeof *top);
    top[pos] = *e;
    if (*n < TOP_N)
        (*n)++;
}

static void add_patterns(void *ctx, const gs_h5_pattern_rows *rows)
{
    pattern_totals *t = ctx;
    const int S = t->n_strands;
    for (uint64_t i = 0; i < rows->n; i++) {
        const uint64_t *c = rows->counts + i * S;
        top_entry e = {rows->first + i, 0, c[0], S == 2 ? c[1] : 0};
        e.total = e.fwd + e.rev;
        t->strand[0] += e.fwd;
        t->strand[1] += e.rev;
        t->present += e.total > 0;
        if (e.total > 0)
            top_insert(t->top, &t->n_top, &e);
        t->lmin = rows->length[i] < t->lmin ? rows->length[i] : t->lmin;
        t->lmax = rows->length[i] > t->lmax ? rows->length[i] : t->lmax;
    }
}

/* The first SHOW names of a string dataset (with the records' lengths),
 * then how many more. */
static void print_list(FILE *out, gs_h5_file *f, const char *names, int with_len, uint64_t n,
                       gs_error *err)
{
    uint64_t k = n < SHOW ? n : SHOW;
    size_t stride = 0;
    char *v = k ? gs_h5_strings(f, names, 0, k, &stride, err) : NULL;
    uint64_t len[SHOW];
    if (k && v == NULL)
        return;
    if (with_len && k && gs_h5_record_lengths(f, 0, k, len, err) != GS_OK) {
        free(v);
        return;
    }
    for (uint64_t i = 0; i < k; i++) {
        if (with_len) /* a FASTQ read of a counts-only run has no name (docs/format.md) */
            fprintf(out, "  %s\t%" PRIu64 "\n", v[i * stride] ? v + i * stride : "(no name)",
                    len[i]);
        else
            fprintf(out, "  %s\n", v + i * stride);
    }
    if (n > k)
        fprintf(out, "  ... and %" PRIu64 " more\n", n - k);
    free(v);
}

/* The run: the root attributes. */
static gs_status print_run(FILE *out, gs_h5_file *f, gs_error *err)
{
    static const struct {
        const char *label, *attr;
    } attrs[] = {{"gscan version", "gscan_version"}, {"command line", "command_line"},
                 {"engine", "engine"},               {"device", "device"},
                 {"alphabet", "alphabet"},           {"strands", "strand_mode"},
                 {"report", "report"},               {"created", "created"}};
    char s[1024];
    fprintf(out, "file: %s\n", gs_h5_shape_of(f)->path);
    for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
        gs_h5_attr_str(f, attrs[i].attr, s, sizeof s, err);
        fprintf(out, "  %-14s %s\n", attrs[i].label, s);
    }
    fprintf(out, "  %-14s %ld\n", "ranks", gs_h5_attr_int(f, "n_ranks", err));
    fprintf(out, "  %-14s %ld\n", "gpus", gs_h5_attr_int(f, "n_gpus", err));
    if (gs_h5_attr_exists(f, "match_mode")) {
        gs_h5_attr_str(f, "match_mode", s, sizeof s, err);
        char bulges[32] = "";
        if (gs_h5_attr_exists(f, "max_bulges"))
            snprintf(bulges, sizeof bulges, ", bulges B = %ld", gs_h5_attr_int(f, "max_bulges", err));
        if (strcmp(s, "exact") != 0)
            fprintf(out, "  %-14s %s, K = %ld%s%s\n", "matching", s,
                    gs_h5_attr_int(f, "max_distance", err), bulges,
                    gs_h5_attr_int(f, "best_per_site", err) > 0 ? ", best per site" : "");
    }
    if (gs_h5_attr_exists(f, "circular"))
        fprintf(out, "  %-14s %s\n", "records", "circular (a hit's end may pass its record's length)");
    return err->code;
}

/* The patterns: their count and lengths, the hits by strand, and the ten
 * with the most hits. */
static gs_status print_patterns(FILE *out, gs_h5_file *f, gs_error *err)
{
    const gs_h5_shape *sh = gs_h5_shape_of(f);
    pattern_totals t = {.n_strands = sh->n_strands, .lmin = UINT32_MAX};
    if (gs_h5_each_pattern(f, add_patterns, &t, err) != GS_OK)
        return err->code;
    if (sh->n_pat > 0)
        fprintf(out, "patterns: %" PRIu64 " (length %" PRIu32 " to %" PRIu32 ")\n", sh->n_pat,
                t.lmin, t.lmax);
    else
        fprintf(out, "patterns: 0\n");
    const char *only = sh->has_hits ? "" : ", counts only";
    if (t.n_strands == 2)
        fprintf(out, "hits: %" PRIu64 " (forward %" PRIu64 ", reverse %" PRIu64 ")%s\n",
                t.strand[0] + t.strand[1], t.strand[0], t.strand[1], only);
    else
        fprintf(out, "hits: %" PRIu64 " (forward strand only)%s\n", t.strand[0], only);
    fprintf(out, "patterns with hits: %" PRIu64 ", without: %" PRIu64 "\n", t.present,
            sh->n_pat - t.present);
    if (t.n_top > 0)
        fprintf(out, "top patterns by count:\n");
    for (int i = 0; i < t.n_top; i++) {
        size_t stride = 0;
        const top_entry *e = &t.top[i];
        char *name = gs_h5_strings(f, "/patterns/name", e->id, 1, &stride, err);
        if (name == NULL)
            return err->code;
        if (t.n_strands == 2)
            fprintf(out, "  %2d. %s\t%" PRIu64 " (forward %" PRIu64 ", reverse %" PRIu64 ")\n",
                    i + 1, name, e->total, e->fwd, e->rev);
        else
            fprintf(out, "  %2d. %s\t%" PRIu64 "\n", i + 1, name, e->total);
        free(name);
    }
    return GS_OK;
}

/* --tally: its unit, size and the rows with the most hits (ties: the
 * earlier row). */
static gs_status print_tally(FILE *out, gs_h5_file *f, gs_error *err)
{
    gs_h5_tally t;
    uint64_t top[TOP_N + 1], units_hit = 0;
    int n_top = 0;
    if (!gs_h5_has_tally(f))
        return GS_OK;
    if (gs_h5_tally_read(f, &t, err) != GS_OK)
        return err->code;
    for (uint64_t i = 0; i < t.n_rows; i++) {
        units_hit += i == 0 || t.unit[i - 1] != t.unit[i];
        int pos = n_top < TOP_N ? n_top++ : TOP_N;
        while (pos > 0 && t.count[top[pos - 1]] < t.count[i]) {
            top[pos] = top[pos - 1];
            pos--;
        }
        if (pos < TOP_N)
            top[pos] = i;
    }
    fprintf(out, "tally: by %s, %" PRIu64 " units (%" PRIu64 " with hits), %" PRIu64 " rows\n",
            t.kind, t.n_units, units_hit, t.n_rows);
    if (n_top > 0)
        fprintf(out, "top tally rows by count:\n");
    for (int k = 0; k < n_top && err->code == GS_OK; k++) {
        uint64_t i = top[k];
        size_t stride = 0;
        char *name = gs_h5_strings(f, t.of, t.pattern[i], 1, &stride, err);
        if (name)
            fprintf(out, "  %2d. %s\t%s\t%c\t%" PRIu64 "\n", k + 1, t.names + t.unit[i] * t.stride,
                    name, t.strand[i] > 0 ? '+' : '-', t.count[i]);
        free(name);
    }
    gs_h5_tally_free(&t);
    return err->code;
}

/* Timing: the slowest rank of each phase is what the run waited for. */
static gs_status print_timing(FILE *out, gs_h5_file *f, gs_error *err)
{
    gs_h5_timing t;
    if (gs_h5_timing_read(f, &t, err) != GS_OK)
        return err->code;
    if (t.damaged) /* said, not dropped: a reader would take it for an old file */
        fprintf(out, "timing: damaged, could not be read (%s)\n", gs_h5_shape_of(f)->path);
    int header = 0;
    for (int p = 0; p < GS_N_PHASES; p++) {
        if (t.ranks[p] == 0)
            continue;
        if (!header++)
            fprintf(out, "timing (seconds, max over %llu ranks):\n",
                    (unsigned long long)t.ranks[p]);
        fprintf(out, "  %-9s %.3f\n", gs_phase_names[p], t.max[p]);
    }
    return GS_OK;
}

gs_status gs_info_result(gs_h5_file *f, FILE *out, gs_error *err)
{
    const gs_h5_shape *sh = gs_h5_shape_of(f);
    uint64_t residues = 0;
    if (print_run(out, f, err) != GS_OK)
        return err->code;
    fprintf(out, "files: %" PRIu64 "\n", sh->n_files);
    print_list(out, f, "/files", 0, sh->n_files, err);
    if (err->code != GS_OK || gs_h5_residues(f, &residues, err) != GS_OK)
        return err->code;
    fprintf(out, "records: %" PRIu64 " (%" PRIu64 " residues)\n", sh->n_rec, residues);
    print_list(out, f, "/records/name", 1, sh->n_rec, err);
    if (err->code != GS_OK || print_patterns(out, f, err) != GS_OK
        || print_tally(out, f, err) != GS_OK || print_timing(out, f, err) != GS_OK)
        return err->code;
    if (fflush(out) != 0 || ferror(out))
        gs_fail(err, GS_ESYS, "cannot write the summary: %s (%s)", strerror(errno), sh->path);
    return err->code;
}
