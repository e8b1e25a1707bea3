/* tally.c - --tally in a scan job: the samples sheet, the record -> unit
 * map, and the ranks' partial tallies merged on rank 0 (see tally.h).
 *
 * Every rank turns the hits it holds after the reduce phase (as reported:
 * gathered and thinned by --best-per-site where the mode does that) into a
 * tally by record (core/gs_tally.h). Ranks hold disjoint hits, so rank 0
 * adds their rows. Only rank 0 knows the whole layout, so it maps records to
 * units. The sheet is read before the scan, so a malformed one costs no
 * scan; whether it covers every record is known only once the layout is.
 */
#define _POSIX_C_SOURCE 200809L
#include "tally.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "core/gs_lines.h"
#include "io/seq/pairs.h"
#include "mode.h"

/* One line of the sheet: key (a file or a record) -> sample. */
typedef struct sheet_row {
    const char *key;
    uint32_t sample; /* index into samples, in order of first appearance */
    unsigned line;
} sheet_row;

struct gs_tally_state {
    sheet_row *rows; /* sorted by key (rank 0, --samples) */
    size_t n_rows;
    char **samples;  /* names, in order of first appearance */
    size_t n_samples, cap_samples;
    char *text;      /* the sheet's bytes, rows and samples point into it */
    gs_tally t;      /* rank 0 after gs_job_tally: rows by unit */
    uint32_t *map;   /* record -> sample (--tally sample) */
    size_t *first;   /* [files + 1] a file's first record (--tally file) */
    const char **names; /* unit names (rank 0) */
    uint64_t n_units;
};

static int row_key_cmp(const void *a, const void *b)
{
    const sheet_row *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* The sample named s: its index, appended when new (linear: sheets name
 * few samples next to their rows; rows are what may be many). */
static gs_status sample_of(gs_tally_state *tl, char *s, uint32_t *id, gs_error *err)
{
    for (size_t i = tl->n_samples; i-- > 0;)
        if (!strcmp(tl->samples[i], s)) {
            *id = (uint32_t)i;
            return GS_OK;
        }
    if (gs_grow(&tl->samples, &tl->cap_samples, tl->n_samples, sizeof *tl->samples, 16) != GS_OK)
        return gs_fail(err, GS_ESYS, "out of memory (samples sheet)");
    *id = (uint32_t)tl->n_samples;
    tl->samples[tl->n_samples++] = s;
    return GS_OK;
}

/* Split the sheet into rows: "key<TAB>sample", blank lines and '#' lines
 * skipped, a CR before the newline dropped. */
static gs_status parse_sheet(gs_tally_state *tl, const char *path, gs_error *err)
{
    size_t cap = 0;
    unsigned line = 0;
    size_t len;
    for (char *q = tl->text, *p; (p = gs_line_next(&q, &len)) != NULL;) {
        char *tab = strchr(p, '\t');
        if (line++, gs_line_skip(p, len)) /* blank (spaces, tabs) or a comment */
            continue;
        if (tab == NULL || tab == p || tab[1] == '\0' || strchr(tab + 1, '\t'))
            return gs_fail(err, GS_EINPUT,
                           "expected 'file-or-record<TAB>sample' (samples sheet %s, line %u)", path,
                           line);
        *tab = '\0';
        if (gs_grow(&tl->rows, &cap, tl->n_rows, sizeof *tl->rows, 64) != GS_OK)
            return gs_fail(err, GS_ESYS, "out of memory (samples sheet %s)", path);
        sheet_row *r = &tl->rows[tl->n_rows++];
        *r = (sheet_row){.key = p, .line = line};
        if (sample_of(tl, tab + 1, &r->sample, err) != GS_OK)
            return err->code;
    }
    qsort(tl->rows, tl->n_rows, sizeof *tl->rows, row_key_cmp);
    for (size_t i = 1; i < tl->n_rows; i++)
        if (!strcmp(tl->rows[i - 1].key, tl->rows[i].key) &&
            tl->rows[i - 1].sample != tl->rows[i].sample)
            return gs_fail(err, GS_EINPUT,
                           "'%s' is given two samples, '%s' and '%s' (samples sheet %s, lines %u "
                           "and %u)",
                           tl->rows[i].key, tl->samples[tl->rows[i - 1].sample],
                           tl->samples[tl->rows[i].sample], path, tl->rows[i - 1].line,
                           tl->rows[i].line);
    return GS_OK;
}

gs_status gs_job_tally_setup(gs_job *j, gs_error *err)
{
    if (!j->o->tally)
        return GS_OK;
    if ((j->tally = gs_calloc(1, sizeof *j->tally, err, "tally")) == NULL)
        return GS_ESYS;
    if (j->rank != 0 || j->o->samples == NULL)
        return GS_OK;
    size_t len;
    if (gs_text_read(j->o->samples, "samples sheet", &j->tally->text, &len, err) != GS_OK)
        return err->code;
    return parse_sheet(j->tally, j->o->samples, err);
}

static const sheet_row *find_row(const gs_tally_state *tl, const char *key)
{
    sheet_row probe = {.key = key, .line = 0};
    size_t lo = 0, hi = tl->n_rows;
    while (lo < hi) { /* the first row not below (key, line 0) */
        size_t mid = lo + (hi - lo) / 2;
        if (row_key_cmp(&tl->rows[mid], &probe) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < tl->n_rows && !strcmp(tl->rows[lo].key, key) ? &tl->rows[lo] : NULL;
}

/* A file's row: by its path as given, else by its base name. */
static const sheet_row *file_row(const gs_tally_state *tl, const char *path)
{
    const sheet_row *r = find_row(tl, path);
    const char *slash = strrchr(path, '/');
    return r ? r : slash ? find_row(tl, slash + 1) : NULL;
}

/* Units are the samples that own a record, in order of first appearance
 * in the sheet; map[record] their index. */
static gs_status map_samples(gs_tally_state *tl, const gs_layout *l, const char *sheet,
                             char *const *corpus, gs_error *err)
{
    const sheet_row **by_file = gs_calloc(l->n_files + 1, sizeof *by_file, err, "tally");
    uint32_t *unit_of = gs_malloc((tl->n_samples + 1) * sizeof *unit_of, err, "tally");
    if (by_file == NULL || unit_of == NULL)
        goto done;
    for (size_t f = 0; f < l->n_files; f++)
        by_file[f] = file_row(tl, l->files[f]);
    size_t missing = 0, first = 0;
    for (size_t r = 0; r < l->n_rec; r++) {
        const sheet_row *row = by_file[l->rec[r].file];
        if (row == NULL)
            row = find_row(tl, l->rec[r].name);
        if (row == NULL && missing++ == 0)
            first = r;
        tl->map[r] = row ? row->sample : 0;
    }
    if (missing) {
        const gs_record *rec = &l->rec[first];
        gs_fail(err, GS_EINPUT,
                "%zu record(s) in no row of the samples sheet, first record '%s' of %s: name it "
                "or its file (samples sheet %s)",
                missing, rec->name, corpus ? corpus[rec->file] : l->files[rec->file], sheet);
        goto done;
    }
    memset(unit_of, 0xff, (tl->n_samples + 1) * sizeof *unit_of);
    for (size_t r = 0; r < l->n_rec; r++)
        unit_of[tl->map[r]] = 0;
    for (size_t s = 0; s < tl->n_samples; s++)
        if (unit_of[s] == 0) {
            unit_of[s] = (uint32_t)tl->n_units;
            tl->names[tl->n_units++] = tl->samples[s];
        }
    for (size_t r = 0; r < l->n_rec; r++)
        tl->map[r] = unit_of[tl->map[r]];
done:
    free(by_file);
    free(unit_of);
    return err->code;
}

/* Rank 0: the units of the tally and map[record]. */
static gs_status make_units(gs_job *j, gs_error *err)
{
    gs_tally_state *tl = j->tally;
    const gs_layout *l = j->mode->layout(j);
    size_t n_names = j->o->tally == GS_TALLY_FILE ? l->n_files
                     : j->o->tally == GS_TALLY_SAMPLE ? tl->n_samples : l->n_rec;
    tl->names = gs_malloc((n_names + 1) * sizeof *tl->names, err, "tally units");
    if (tl->names == NULL)
        return GS_ESYS;
    if (j->o->tally == GS_TALLY_SAMPLE) {
        tl->map = gs_malloc((l->n_rec + 1) * sizeof *tl->map, err, "tally units");
        return tl->map ? map_samples(tl, l, j->o->samples, j->o->index ? NULL : j->o->corpus, err)
                       : GS_ESYS;
    }
    tl->n_units = n_names;
    for (size_t i = 0; i < n_names; i++)
        tl->names[i] = j->o->tally == GS_TALLY_FILE ? l->files[i] : l->rec[i].name;
    if (j->o->tally != GS_TALLY_FILE || gs_job_tally_files(j)) /* rows by file already */
        return GS_OK;
    if ((tl->first = gs_malloc((l->n_files + 1) * sizeof *tl->first, err, "tally units")) == NULL)
        return GS_ESYS;
    /* records are in corpus order, so each file's are consecutive: the
     * first of each found by halving, not read one by one (10^8 reads) */
    tl->first[0] = 0;
    for (size_t f = 0; f < l->n_files; f++) {
        size_t lo = tl->first[f], hi = l->n_rec; /* the first record of a later file */
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (l->rec[mid].file <= f)
                lo = mid + 1;
            else
                hi = mid;
        }
        tl->first[f + 1] = lo;
    }
    return GS_OK;
}

/* Every rank's rows to rank 0, which makes room first and tells the ranks
 * before any row moves (as gs_job_gather_hits does). */
static gs_status gather_rows(const gs_job *j, gs_tally *t, gs_error *err)
{
    enum { TAG_TALLY = 83 };
    uint64_t n = t->n, *all = NULL, total = 0;
    if (j->size == 1)
        return GS_OK;
    if (j->rank == 0)
        all = gs_malloc((size_t)j->size * sizeof *all, err, "tally");
    if (gs_mpi_agree(j->comm, err) != GS_OK)
        return err->code;
    GS_MPI_CHECK(MPI_Gather(&n, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, j->comm));
    for (int r = 0; j->rank == 0 && r < j->size; r++)
        total += all[r];
    if (j->rank == 0 && total + 1 > t->cap) {
        gs_tally_row *v = realloc(t->v, (total + 1) * sizeof *v);
        if (v == NULL)
            gs_fail(err, GS_ESYS, "out of memory (tally of %llu rows on rank 0)",
                    (unsigned long long)total);
        else
            t->v = v, t->cap = total + 1;
    }
    if (gs_mpi_agree(j->comm, err) == GS_OK && j->rank != 0)
        gs_mpi_send_bytes(t->v, t->n * sizeof *t->v, 0, TAG_TALLY, j->comm);
    for (int r = 1; err->code == GS_OK && j->rank == 0 && r < j->size; r++) {
        gs_mpi_recv_bytes(t->v + t->n, all[r] * sizeof *t->v, r, TAG_TALLY, j->comm);
        t->n += all[r];
    }
    free(all);
    if (j->rank != 0)
        gs_tally_free(t);
    return err->code;
}

int gs_job_tally_from_runs(const gs_job *j)
{
    const gs_scan_opts *o = j->o;
    return o->tally && o->match == GS_MATCH_EXACT && !o->report_hits && !o->pcr &&
           !j->mode->needs_hits;
}

int gs_job_tally_files(const gs_job *j)
{
    return gs_job_tally_from_runs(j) && j->o->tally == GS_TALLY_FILE;
}

gs_status gs_job_tally(gs_job *j, const gs_hits *hits, gs_tally *scanned, gs_error *err)
{
    gs_tally_state *tl = j->tally;
    const double t0 = gs_now();
    if (gs_job_tally_from_runs(j)) {
        gs_tally_free(&tl->t);
        tl->t = *scanned;
        memset(scanned, 0, sizeof *scanned);
    } else if (gs_spill_runs(j->spill) > 0) { /* the hits' sorted stream */
        gs_hit_source src;
        if (gs_job_own_stream(j, hits, &src, err) == GS_OK)
            gs_tally_add_stream(&tl->t, src, j->ps.n, err);
    } else {
        uint32_t n_pat = j->o->pcr ? (uint32_t)j->o->pcr->n : j->ps.n; /* pcr: products by pair */
        gs_tally_add_hits(&tl->t, hits->v, hits->n, n_pat, err);
    }
    if (gs_mpi_agree(j->comm, err) != GS_OK || gather_rows(j, &tl->t, err) != GS_OK)
        return err->code;
    const double t1 = gs_now();
    const size_t rows = tl->t.n;
    if (j->rank == 0 && make_units(j, err) == GS_OK) {
        if (gs_job_tally_files(j)) { /* the ranks' rows are by file already */
            gs_tally_remap(&tl->t, NULL, err);
        } else {
            gs_tally_normalize(&tl->t);
            if (j->o->tally == GS_TALLY_FILE)
                gs_tally_remap_ranges(&tl->t, tl->first, (uint32_t)tl->n_units, err);
            else if (j->o->tally == GS_TALLY_SAMPLE)
                gs_tally_remap(&tl->t, tl->map, err);
        }
    }
    if (j->rank == 0 && (j->o->tune.debug & GS_DEBUG_TIME)) /* docs/performance.md */
        fprintf(stderr, "gscan: tally: %zu rows gathered in %.3f s, %zu rows of %zu units "
                "made in %.3f s\n", rows, t1 - t0, tl->t.n, tl->n_units, gs_now() - t1);
    return gs_mpi_agree(j->comm, err);
}

void gs_job_tally_result(const gs_job *j, gs_result *r)
{
    const gs_tally_state *tl = j->tally;
    if (tl == NULL)
        return;
    r->tally_unit = gs_tally_unit_name(j->o->tally);
    r->tally = &tl->t;
    r->unit_names = tl->names;
    r->n_units = tl->n_units;
}

void gs_job_tally_free(gs_job *j)
{
    gs_tally_state *tl = j->tally;
    if (tl == NULL)
        return;
    gs_tally_free(&tl->t);
    free(tl->rows);
    free(tl->samples);
    free(tl->text);
    free(tl->map);
    free(tl->first);
    free(tl->names);
    free(tl);
    j->tally = NULL;
}
