/* text_out.c - hits and counts as TSV or BED (see text_out.h).
 *
 * Rows are built in a caller's buffer and written with one fwrite each:
 * export streams hundreds of millions of them, and fprintf's format parsing
 * would be the slow part. New columns (a distance, a matched sequence) go
 * into gs_text_hit and gs_text_hit_row, nowhere else.
 */
#define _POSIX_C_SOURCE 200809L
#include "text_out.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "io/stream/replace_file.h"

gs_status gs_text_format_parse(const char *name, gs_text_format *f, gs_error *err)
{
    if (!strcmp(name, "tsv"))
        *f = GS_TEXT_TSV;
    else if (!strcmp(name, "bed"))
        *f = GS_TEXT_BED;
    else if (!strcmp(name, "cas"))
        *f = GS_TEXT_CAS;
    else
        return gs_fail(err, GS_EUSAGE, "unknown export format '%s' (tsv, bed or cas)", name);
    return GS_OK;
}

void gs_text_hits_header(FILE *out, gs_text_format f, int with_dist, int with_seq,
                         int with_aligned)
{
    if (f == GS_TEXT_TSV)
        fprintf(out, "record\tstart\tend\tpattern\tstrand%s%s%s\n", with_dist ? "\tdistance" : "",
                with_seq ? "\tmatched" : "", with_aligned ? "\taligned\tcigar" : "");
}

size_t gs_text_hit_row_max(const gs_text_hit *h)
{
    return strlen(h->record) + strlen(h->pattern) +
           (h->pattern_seq ? strlen(h->pattern_seq) + 1 : 0) + (h->seq ? strlen(h->seq) + 1 : 0) +
           (h->aligned ? strlen(h->aligned) + strlen(h->cigar) + 2 : 0) + 3 * 20 + 8;
}

gs_status gs_text_hit_align(gs_text_align *x, gs_text_hit *t, const uint8_t *p, size_t m,
                            int edits, uint32_t bulges, uint32_t zone, gs_error *err)
{
    size_t n = strlen(t->seq), need = m + n + 1;
    if (gs_grow(&x->shown, &x->cap, need - 1, 1, 64) != GS_OK ||
        gs_grow(&x->cigar, &x->cigar_cap, 4 * need - 1, 1, 256) != GS_OK)
        return gs_fail(err, GS_ESYS, "out of memory (the aligned columns)");
    uint32_t dist;
    const gs_align_mode mode = {edits, bulges, t->distance > 0 ? (uint32_t)t->distance : 0, zone};
    if (gs_align_show(&x->a, p, m, t->seq, n, &mode, x->shown, x->cigar, &dist, &t->bulges, err) !=
        GS_OK)
        return err->code;
    t->aligned = x->shown;
    t->cigar = x->cigar;
    t->with_bulges = bulges > 0;
    return GS_OK;
}

void gs_text_align_free(gs_text_align *x)
{
    gs_aligner_free(&x->a);
    free(x->shown);
    free(x->cigar);
    memset(x, 0, sizeof *x);
}

/* Append decimal v to p; returns the new end. */
static char *put_u64(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

/* Cas-OFFinder's row: pattern sequence, record, 0-based start, the target
 * on the pattern's strand (mismatches lowercase, - where it lacks a
 * residue), strand, mismatches (edits); under --max-bulges the mismatches
 * alone, then the bulge residues. */
static size_t cas_row(char *buf, const gs_text_hit *h)
{
    char *p = put_str(buf, h->pattern_seq ? h->pattern_seq : h->pattern);
    *p++ = '\t';
    p = put_str(p, h->record);
    *p++ = '\t';
    p = put_u64(p, h->start);
    *p++ = '\t';
    p = put_str(p, h->aligned ? h->aligned : h->seq ? h->seq : "");
    *p++ = '\t';
    *p++ = h->strand > 0 ? '+' : '-';
    *p++ = '\t';
    uint64_t d = h->distance > 0 ? (uint64_t)h->distance : 0;
    p = put_u64(p, h->with_bulges ? d - h->bulges : d);
    if (h->with_bulges) {
        *p++ = '\t';
        p = put_u64(p, h->bulges);
    }
    *p++ = '\n';
    return (size_t)(p - buf);
}

size_t gs_text_hit_row(char *buf, gs_text_format f, const gs_text_hit *h)
{
    if (f == GS_TEXT_CAS)
        return cas_row(buf, h);
    char *p = put_str(buf, h->record);
    *p++ = '\t';
    p = put_u64(p, h->start);
    *p++ = '\t';
    p = put_u64(p, h->end);
    *p++ = '\t';
    p = put_str(p, h->pattern);
    *p++ = '\t';
    if (f == GS_TEXT_BED) {
        p = put_u64(p, h->distance > 0 ? (uint64_t)h->distance : 0);
        *p++ = '\t';
    }
    *p++ = h->strand > 0 ? '+' : '-';
    if (h->distance >= 0 && f == GS_TEXT_TSV) {
        *p++ = '\t';
        p = put_u64(p, (uint64_t)h->distance);
    }
    if (h->seq) {
        *p++ = '\t';
        p = put_str(p, h->seq);
    }
    if (h->aligned) {
        *p++ = '\t';
        p = put_str(p, h->aligned);
        *p++ = '\t';
        p = put_str(p, h->cigar);
    }
    *p++ = '\n';
    return (size_t)(p - buf);
}

void gs_text_counts_header(FILE *out)
{
    fputs("pattern\tsequence\tlength\tforward\treverse\ttotal\n", out);
}

void gs_text_counts_row(FILE *out, const char *name, const char *seq, uint32_t len,
                        const uint64_t *counts, int n_strands)
{
    if (n_strands == 2)
        fprintf(out, "%s\t%s\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", name, seq,
                len, counts[0], counts[1], counts[0] + counts[1]);
    else
        fprintf(out, "%s\t%s\t%" PRIu32 "\t%" PRIu64 "\t.\t%" PRIu64 "\n", name, seq, len,
                counts[0], counts[0]);
}

/* The hits of a result one at a time: its array, or its stream read a
 * chunk at a time (hits beyond --max-memory). */
typedef struct hit_cursor {
    const gs_result *res;
    gs_hit *buf;
    size_t n, at;
} hit_cursor;

enum { TEXT_CHUNK = 1 << 14 };

/* Hit i (the one after the last asked for); NULL on a failure. */
static const gs_hit *hit_at(hit_cursor *c, uint64_t i, gs_error *err)
{
    const gs_hit_source *s = c->res->hit_stream;
    if (s == NULL)
        return &c->res->hits[i];
    if (c->at == c->n) {
        if (c->buf == NULL &&
            (c->buf = gs_malloc(TEXT_CHUNK * sizeof *c->buf, err, "text output")) == NULL)
            return NULL;
        c->at = 0;
        if (s->next(s->ctx, c->buf, TEXT_CHUNK, &c->n, err) != GS_OK)
            return NULL;
        if (c->n == 0) {
            gs_fail(err, GS_ESYS, "invalid result: hits end early at hit %" PRIu64 " (text output)",
                    i);
            return NULL;
        }
    }
    return &c->buf[c->at++];
}

static void write_rows(FILE *out, gs_text_format f, const gs_result *res, gs_error *err)
{
    const gs_patset *ps = res->patterns;
    const gs_layout *lay = res->layout;
    if (!res->with_hits) {
        gs_text_counts_header(out);
        for (uint32_t i = 0; i < ps->n; i++)
            gs_text_counts_row(out, ps->v[i].name, ps->v[i].text, ps->v[i].len,
                               res->counts + (size_t)i * res->n_strands, res->n_strands);
        return;
    }
    size_t cap = 0, seq_cap = 0;
    char *line = NULL, *seq = NULL;
    const int approx = res->info.match && strcmp(res->info.match, "exact") != 0;
    const int edits = res->info.match && !strcmp(res->info.match, "edits");
    gs_text_align al = {0};
    gs_text_hits_header(out, f, approx, res->seq != NULL, res->seq && res->aligned);
    hit_cursor cur = {res, NULL, 0, 0};
    for (uint64_t i = 0; i < res->n_hits && !ferror(out); i++) {
        const gs_hit *h = hit_at(&cur, i, err);
        if (h == NULL)
            break;
        if (h->pattern >= ps->n || h->record >= lay->n_rec) {
            gs_fail(err, GS_ESYS, "invalid hit %" PRIu64 ": pattern %" PRIu32 ", record %" PRIu32
                    " (text output)", i, h->pattern, h->record);
            break;
        }
        gs_text_hit t = {lay->rec[h->record].name, ps->v[h->pattern].name, h->start,
                         approx ? h->end : h->start + ps->v[h->pattern].len, h->strand, NULL,
                         approx ? h->distance : -1, NULL, NULL, ps->v[h->pattern].text, 0, 0};
        if (res->seq) {
            if (t.end - t.start + 1 > seq_cap) {
                char *b = gs_realloc(seq, t.end - t.start + 1, err, "matched sequence");
                if (b == NULL)
                    break;
                seq = b;
                seq_cap = t.end - t.start + 1;
            }
            if (gs_hit_seq_get(res->seq, h->record, t.start, t.end, h->strand, seq, err) != GS_OK)
                break;
            t.seq = seq;
            if (res->aligned &&
                gs_text_hit_align(&al, &t, ps->v[h->pattern].bytes, ps->v[h->pattern].len, edits,
                                  (uint32_t)res->info.max_bulges,
                                  gs_pattern_zone(&ps->v[h->pattern], (uint32_t)res->info.exact3p),
                                  err) != GS_OK)
                break;
        }
        size_t need = gs_text_hit_row_max(&t);
        if (need > cap) {
            char *l = gs_realloc(line, need, err, "text output line");
            if (l == NULL)
                break;
            line = l;
            cap = need;
        }
        fwrite(line, 1, gs_text_hit_row(line, f, &t), out);
    }
    free(line);
    free(seq);
    free(cur.buf);
    gs_text_align_free(&al);
}

typedef struct rows_of {
    gs_text_format f;
    const gs_result *res;
} rows_of;

static void result_rows(FILE *out, const void *ctx, gs_error *err)
{
    const rows_of *r = ctx;
    write_rows(out, r->f, r->res, err);
}

gs_status gs_text_write(const char *path, gs_text_format f, const gs_result *res,
                        gs_error *err)
{
    rows_of r = {f, res};
    return gs_text_write_to(path, result_rows, &r, err);
}

gs_status gs_text_write_to(const char *path, gs_text_rows_fn rows, const void *ctx,
                           gs_error *err)
{
    if (!strcmp(path, "-")) {
        rows(stdout, ctx, err);
        if ((fflush(stdout) != 0 || ferror(stdout)) && err->code == GS_OK)
            gs_fail(err, GS_ESYS, "cannot write the result: %s (standard output)",
                    strerror(errno));
        return err->code;
    }
    gs_replace_file r;
    if (gs_replace_open(&r, path, "the result", err) != GS_OK)
        return err->code;
    rows(r.f, ctx, err);
    if (err->code != GS_OK) {
        gs_replace_abort(&r);
        return err->code;
    }
    return gs_replace_commit(&r, "the result", err);
}
