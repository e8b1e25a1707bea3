/* h5_export.c - gscan export: the hits of a result file as TSV or BED (with
 * the matched residues on request), or its per-pattern counts as TSV.
 *
 * The names are looked up at random, so they are held whole; the hits and
 * counts stream READ_ROWS at a time, so a file with billions of hits exports
 * in bounded memory. Every hit's ids are checked against the tables before
 * it is used (a crafted file is GS_EINPUT, never a read out of bounds).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "h5_file.h"
#include "hit_seq.h"
#include "text_out.h"

/* One block of hit columns. */
typedef struct hit_rows {
    uint32_t *pat, *rec;
    uint64_t *start, *end; /* end: approximate modes only */
    int8_t *strand;
    uint8_t *dist;         /* approximate modes only */
} hit_rows;

/* An export in progress. */
typedef struct exporter {
    gs_h5_file *f;
    gs_text_format fmt;
    char *rnames, *pnames; /* record and pattern names, whole */
    size_t rstride, pstride;
    uint32_t *plen, longest; /* pattern lengths, the longest */
    hit_rows h;
    gs_hit_seq *hs;          /* --seq: the corpus, and a hit's residues */
    char *seq, *fnames, **fv;
    size_t seq_cap;
    char *line;
    size_t line_cap;
    char *pseqs;             /* --aligned: the patterns' sequences, whole */
    size_t sstride;
    int edits;               /* the file's match mode is edits */
    uint32_t bulges;         /* its max_bulges (0 without) */
    uint32_t zone;           /* its exact_3p (0 without) */
    uint32_t *zones;         /* each pattern's (/patterns/exact_3p), or NULL */
    gs_text_align al;
} exporter;

gs_status gs_h5_export(gs_h5_file *f, const char *format, FILE *out, gs_error *err)
{
    return gs_h5_export_seq(f, &(gs_h5_export_opts){.format = format}, out, err);
}

/* --seq: the records' files and lengths to match them to the corpus index. */
static gs_status open_seq(exporter *x, char *const *corpus, size_t n_corpus, gs_error *err)
{
    gs_h5_file *f = x->f;
    hsize_t d[2];
    uint32_t *file = NULL;
    uint64_t *len = NULL;
    char alpha[16];
    if (n_corpus != f->s.n_files)
        return gs_fail(err, GS_EUSAGE,
                       "--corpus needs the %llu file(s) of the scan, in order, not %zu (%s)",
                       (unsigned long long)f->s.n_files, n_corpus, f->s.path);
    gs_h5_attr_str(f, "alphabet", alpha, sizeof alpha, err);
    if (err->code == GS_OK
        && gs_h5_dset_check(f, "/records/file", H5T_INTEGER, 0, d, err) == GS_OK) {
        if (d[0] != f->s.n_rec)
            gs_fail(err, GS_EINPUT,
                    "not a gscan result file: /records/file is of another length (%s)", f->s.path);
        file = gs_malloc(f->s.n_rec * sizeof *file, err, "records");
        len = gs_malloc(f->s.n_rec * sizeof *len, err, "records");
        if (err->code == GS_OK
            && (gs_h5_read_rows(f->fid, "/records/file", H5T_NATIVE_UINT32, 0, 0, f->s.n_rec,
                                file) != GS_OK
                || gs_h5_read_rows(f->fid, "/records/length", H5T_NATIVE_UINT64, 0, 0, f->s.n_rec,
                                   len) != GS_OK))
            gs_h5_read_fail(f, "/records", err);
        if (err->code == GS_OK)
            gs_hit_seq_open(corpus, n_corpus, x->rnames ? x->rnames : "", x->rstride, file, len,
                            (size_t)f->s.n_rec, strcmp(alpha, "bytes") != 0, &x->hs, err);
    }
    free(file);
    free(len);
    return err->code;
}

/* The hit columns are there and whole; the names and the pattern lengths
 * held; a block of hit columns allocated. */
static gs_status begin(exporter *x, gs_error *err)
{
    gs_h5_file *f = x->f;
    for (int c = 0; c < (f->s.approx ? 6 : 4); c++) {
        hsize_t dims[2];
        if (gs_h5_dset_check(f, gs_h5_hit_cols[c], H5T_INTEGER, 0, dims, err) != GS_OK)
            return err->code;
    }
    if (f->s.n_rec
        && (x->rnames = gs_h5_strings(f, "/records/name", 0, f->s.n_rec, &x->rstride, err)) == NULL)
        return err->code;
    if (f->s.n_pat
        && (x->pnames = gs_h5_strings(f, "/patterns/name", 0, f->s.n_pat, &x->pstride, err))
               == NULL)
        return err->code;
    hit_rows *h = &x->h;
    x->plen = gs_malloc(f->s.n_pat * sizeof *x->plen, err, "pattern lengths");
    h->pat = gs_malloc(READ_ROWS * sizeof *h->pat, err, "hits");
    h->rec = gs_malloc(READ_ROWS * sizeof *h->rec, err, "hits");
    h->start = gs_malloc(READ_ROWS * sizeof *h->start, err, "hits");
    h->strand = gs_malloc(READ_ROWS * sizeof *h->strand, err, "hits");
    if (!x->plen || !h->pat || !h->rec || !h->start || !h->strand)
        return err->code;
    if (f->s.approx && ((h->end = gs_malloc(READ_ROWS * sizeof *h->end, err, "hits")) == NULL ||
                        (h->dist = gs_malloc(READ_ROWS * sizeof *h->dist, err, "hits")) == NULL))
        return err->code;
    if (gs_h5_read_rows(f->fid, "/patterns/length", H5T_NATIVE_UINT32, 0, 0, f->s.n_pat, x->plen)
        != GS_OK)
        return gs_h5_read_fail(f, "/patterns/length", err);
    for (uint64_t i = 0; i < f->s.n_pat; i++)
        x->longest = x->plen[i] > x->longest ? x->plen[i] : x->longest;
    return GS_OK;
}

/* --seq: the corpus (the files the scan was given when corpus is NULL)
 * opened, and room for a hit's residues. */
static gs_status begin_seq(exporter *x, char *const *corpus, size_t n_corpus, gs_error *err)
{
    gs_h5_file *f = x->f;
    if (corpus == NULL && f->s.n_files) {
        size_t fstride = 0;
        if ((x->fnames = gs_h5_strings(f, "/files", 0, f->s.n_files, &fstride, err)) == NULL
            || (x->fv = gs_malloc(f->s.n_files * sizeof *x->fv, err, "files")) == NULL)
            return err->code;
        for (uint64_t i = 0; i < f->s.n_files; i++)
            x->fv[i] = x->fnames + i * fstride;
        corpus = x->fv;
        n_corpus = (size_t)f->s.n_files;
    }
    if (open_seq(x, corpus, n_corpus, err) != GS_OK)
        return err->code;
    x->seq_cap = (size_t)x->longest + 1;
    return (x->seq = gs_malloc(x->seq_cap, err, "--seq")) ? GS_OK : GS_ESYS;
}

/* --aligned: the patterns' sequences and the match mode. */
static gs_status begin_aligned(exporter *x, gs_error *err)
{
    gs_h5_file *f = x->f;
    char alpha[16] = "", mode[16] = "";
    gs_h5_attr_str(f, "alphabet", alpha, sizeof alpha, err);
    if (err->code == GS_OK && f->s.approx)
        gs_h5_attr_str(f, "match_mode", mode, sizeof mode, err);
    if (err->code != GS_OK)
        return err->code;
    if (!strcmp(alpha, "bytes"))
        return gs_fail(err, GS_EUSAGE, "--aligned shows DNA alignments, and %s holds bytes (gscan export)",
                       f->s.path);
    x->edits = !strcmp(mode, "edits");
    if (gs_h5_attr_exists(f, "max_bulges"))
        x->bulges = (uint32_t)gs_h5_attr_int(f, "max_bulges", err);
    if (err->code == GS_OK && gs_h5_attr_exists(f, "exact_3p"))
        x->zone = (uint32_t)gs_h5_attr_int(f, "exact_3p", err);
    if (err->code != GS_OK)
        return err->code;
    if (f->s.n_pat &&
        (x->pseqs = gs_h5_strings(f, "/patterns/sequence", 0, f->s.n_pat, &x->sstride, err)) ==
            NULL)
        return err->code;
    if (x->pseqs == NULL)
        x->pseqs = calloc(1, 1); /* no patterns, no rows: the header still says aligned */
    if (x->pseqs && f->s.n_pat && gs_h5_path_checked(f, "/patterns/exact_3p") > 0) {
        if ((x->zones = gs_malloc(f->s.n_pat * sizeof *x->zones, err, "--aligned")) == NULL)
            return err->code;
        if (gs_h5_read_rows(f->fid, "/patterns/exact_3p", H5T_NATIVE_UINT32, 0, 0, f->s.n_pat,
                            x->zones) != GS_OK)
            return gs_h5_read_fail(f, "/patterns/exact_3p", err);
    }
    return x->pseqs ? GS_OK : gs_fail(err, GS_ESYS, "out of memory (--aligned)");
}

/* Room for n bytes in *b (capacity *cap). */
static gs_status room(char **b, size_t *cap, size_t n, const char *what, gs_error *err)
{
    if (n > 0 && gs_grow(b, cap, n - 1, 1, 256) != GS_OK)
        return gs_fail(err, GS_ESYS, "out of memory (%s, %zu bytes)", what, n);
    return GS_OK;
}

/* Hits [at, at + k): read, checked and written as text rows. */
static gs_status write_block(exporter *x, uint64_t at, uint64_t k, FILE *out, gs_error *err)
{
    gs_h5_file *f = x->f;
    hit_rows *h = &x->h;
    hid_t fid = f->fid;
    if (gs_h5_read_rows(fid, "/hits/pattern", H5T_NATIVE_UINT32, 0, at, k, h->pat) != GS_OK
        || gs_h5_read_rows(fid, "/hits/record", H5T_NATIVE_UINT32, 0, at, k, h->rec) != GS_OK
        || gs_h5_read_rows(fid, "/hits/start", H5T_NATIVE_UINT64, 0, at, k, h->start) != GS_OK
        || gs_h5_read_rows(fid, "/hits/strand", H5T_NATIVE_INT8, 0, at, k, h->strand) != GS_OK
        || (h->end
            && gs_h5_read_rows(fid, "/hits/end", H5T_NATIVE_UINT64, 0, at, k, h->end) != GS_OK)
        || (h->dist
            && gs_h5_read_rows(fid, "/hits/distance", H5T_NATIVE_UINT8, 0, at, k, h->dist)
                   != GS_OK))
        return gs_h5_read_fail(f, "/hits", err);
    for (uint64_t i = 0; i < k; i++) {
        uint32_t pat = h->pat[i], rec = h->rec[i];
        int8_t strand = h->strand[i];
        if (pat >= f->s.n_pat || rec >= f->s.n_rec || (strand != 1 && strand != -1))
            return gs_fail(err, GS_EINPUT,
                           "corrupt hit %" PRIu64 ": pattern %" PRIu32 ", record %" PRIu32
                           ", strand %d (%s)",
                           at + i, pat, rec, strand, f->s.path);
        gs_text_hit t = {x->rnames + (size_t)rec * x->rstride, x->pnames + (size_t)pat * x->pstride,
                         h->start[i], h->end ? h->end[i] : h->start[i] + x->plen[pat], strand,
                         NULL, h->dist ? h->dist[i] : -1, NULL, NULL, NULL, 0, 0};
        if (x->seq) { /* an edits hit may be longer than its pattern */
            if (t.end < t.start || room(&x->seq, &x->seq_cap, t.end - t.start + 1, "--seq", err)
                                       != GS_OK)
                return t.end < t.start ? gs_fail(err, GS_EINPUT,
                                                 "corrupt hit %" PRIu64 ": it ends before it "
                                                 "starts (%s)", at + i, f->s.path)
                                       : GS_ESYS;
            if (gs_hit_seq_get(x->hs, rec, t.start, t.end, strand, x->seq, err) != GS_OK)
                return err->code;
            t.seq = x->seq;
            const char *p = x->pseqs ? x->pseqs + (size_t)pat * x->sstride : NULL;
            t.pattern_seq = p;
            if (p && gs_text_hit_align(&x->al, &t, (const uint8_t *)p, strlen(p), x->edits, x->bulges,
                                       x->zones ? x->zones[pat] : x->zone, err)
                         != GS_OK)
                return err->code;
        }
        if (room(&x->line, &x->line_cap, gs_text_hit_row_max(&t), "export line", err) != GS_OK)
            return GS_ESYS;
        fwrite(x->line, 1, gs_text_hit_row(x->line, x->fmt, &t), out);
    }
    return GS_OK;
}

static void end(exporter *x)
{
    free(x->rnames);
    free(x->pnames);
    free(x->plen);
    free(x->h.pat);
    free(x->h.rec);
    free(x->h.start);
    free(x->h.strand);
    free(x->h.end);
    free(x->h.dist);
    free(x->line);
    free(x->seq);
    free(x->pseqs);
    free(x->zones);
    gs_text_align_free(&x->al);
    free(x->fnames);
    free(x->fv);
    gs_hit_seq_close(x->hs);
}

gs_status gs_h5_export_seq(gs_h5_file *f, const gs_h5_export_opts *o, FILE *out, gs_error *err)
{
    gs_h5_quiet q = gs_h5_quiet_begin();
    exporter x = {.f = f};
    if (gs_text_format_parse(o->format, &x.fmt, err) == GS_OK && !f->s.has_hits)
        gs_fail(err, GS_EINPUT, "no hits in %s (run gscan scan with --report hits)", f->s.path);
    if (err->code != GS_OK || begin(&x, err) != GS_OK
        || (o->with_seq && begin_seq(&x, o->corpus, o->n_corpus, err) != GS_OK))
        goto done;
    if (o->with_seq && o->aligned && begin_aligned(&x, err) != GS_OK)
        goto done;
    gs_text_hits_header(out, x.fmt, f->s.approx, x.seq != NULL, x.pseqs != NULL);
    for (uint64_t at = 0; at < f->s.n_hits; at += READ_ROWS) {
        uint64_t k = f->s.n_hits - at < READ_ROWS ? f->s.n_hits - at : READ_ROWS;
        if (write_block(&x, at, k, out, err) != GS_OK)
            goto done;
        if (ferror(out))
            break;
    }
    if (fflush(out) != 0 || ferror(out))
        gs_fail(err, GS_ESYS, "cannot write the exported hits: %s (%s)", strerror(errno),
                f->s.path);
done:
    end(&x);
    gs_h5_quiet_end(q);
    return err->code;
}

gs_status gs_h5_export_counts(gs_h5_file *f, FILE *out, gs_error *err)
{
    gs_h5_quiet q = gs_h5_quiet_begin();
    char *names = NULL, *seqs = NULL;
    uint64_t *counts = NULL;
    uint32_t *lens = NULL;
    size_t nstride = 0, sstride = 0;
    counts = gs_malloc(READ_ROWS * 2 * sizeof *counts, err, "counts");
    lens = gs_malloc(READ_ROWS * sizeof *lens, err, "pattern lengths");
    if (counts == NULL || lens == NULL)
        goto fail;
    gs_text_counts_header(out);
    for (uint64_t at = 0; at < f->s.n_pat && !ferror(out); at += READ_ROWS) {
        uint64_t k = f->s.n_pat - at < READ_ROWS ? f->s.n_pat - at : READ_ROWS;
        free(names);
        free(seqs);
        seqs = NULL;
        if ((names = gs_h5_strings(f, "/patterns/name", at, k, &nstride, err)) == NULL
            || (seqs = gs_h5_strings(f, "/patterns/sequence", at, k, &sstride, err)) == NULL)
            goto fail;
        if (gs_h5_read_rows(f->fid, "/counts", H5T_NATIVE_UINT64, (hsize_t)f->s.n_strands, at, k,
                             counts) != GS_OK) {
            gs_h5_read_fail(f, "/counts", err);
            goto fail;
        }
        if (gs_h5_read_rows(f->fid, "/patterns/length", H5T_NATIVE_UINT32, 0, at, k, lens)
            != GS_OK) {
            gs_h5_read_fail(f, "/patterns/length", err);
            goto fail;
        }
        for (uint64_t i = 0; i < k; i++)
            gs_text_counts_row(out, names + i * nstride, seqs + i * sstride, lens[i],
                               counts + i * (uint64_t)f->s.n_strands, f->s.n_strands);
    }
    if (fflush(out) != 0 || ferror(out))
        gs_fail(err, GS_ESYS, "cannot write the exported counts: %s (%s)", strerror(errno),
                f->s.path);
fail:
    free(names);
    free(seqs);
    free(counts);
    free(lens);
    gs_h5_quiet_end(q);
    return err->code;
}
