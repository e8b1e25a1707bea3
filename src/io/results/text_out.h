/* text_out.h - hits and counts as text (TSV, BED6): the one formatter behind
 * "gscan export" and "gscan scan -o - / -O tsv|bed".
 *
 * Hit rows, in contract §3 order:
 *   tsv  header "record start end pattern strand", then one row a hit:
 *        0-based start, end one past the last residue (BED coordinates),
 *        pattern name, strand '+' or '-'; optionally "matched": the residues
 *        of the hit, reverse-complemented on the reverse strand (seqkit
 *        locate's column), also appended to BED rows; in approximate modes
 *        "distance" follows strand
 *   bed  BED6 without header: chrom start end name score strand, the score
 *        being the distance in approximate modes, else 0
 * Count rows (tsv only): header "pattern sequence length forward reverse
 * total", one row a pattern in id order; reverse is "." when only the
 * forward strand was scanned.
 */
#ifndef GS_TEXT_OUT_H
#define GS_TEXT_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "core/gs_error.h"
#include "align.h"
#include "h5out.h"

/* TSV (a header, gscan's columns), BED6, or Cas-OFFinder's off-target rows
 * (pattern sequence, record, start, aligned target, strand, mismatches; no
 * header: the columns of Cas-OFFinder 2.4, and with --max-bulges a seventh,
 * the bulge size, docs/usage.md). */
typedef enum gs_text_format { GS_TEXT_TSV, GS_TEXT_BED, GS_TEXT_CAS } gs_text_format;

/* One hit as its text row needs it; names are NUL-terminated. */
typedef struct gs_text_hit {
    const char *record;  /* record name */
    const char *pattern; /* pattern name */
    uint64_t start, end; /* 0-based, end exclusive */
    int strand;          /* +1 or -1 */
    const char *seq;     /* the matched sequence (a "matched" column), or NULL */
    int distance;        /* approximate modes: a "distance" column (BED: the score); -1 */
    const char *aligned; /* --aligned: the target aligned to the pattern and */
    const char *cigar;   /* its CIGAR (align.h), two last columns; or NULL */
    const char *pattern_seq; /* GS_TEXT_CAS: the pattern's sequence (its first column) */
    /* --max-bulges (set by gs_text_hit_align): cas rows give the mismatches
     * and the bulge residues apart, as Cas-OFFinder 3 does */
    int with_bulges;
    uint32_t bulges;
} gs_text_hit;

/* --aligned: the buffers of a writer's aligned columns. */
typedef struct gs_text_align {
    gs_aligner a;
    char *shown, *cigar;
    size_t cap, cigar_cap; /* bytes of each */
} gs_text_align;
/* Set t->aligned and t->cigar from t->seq (the hit's residues on the
 * pattern's strand) and pattern p[0, m) (IUPAC, any case); edits: the
 * alignment of --max-edits, bulges: of --max-bulges (at t->distance), else
 * position by position; zone: the pattern's --exact-3p (align.h). */
gs_status gs_text_hit_align(gs_text_align *x, gs_text_hit *t, const uint8_t *p, size_t m,
                            int edits, uint32_t bulges, uint32_t zone, gs_error *err);
void gs_text_align_free(gs_text_align *x);

/* "tsv" / "bed" / "cas" into *f; anything else GS_EUSAGE naming it. */
gs_status gs_text_format_parse(const char *name, gs_text_format *f, gs_error *err);
/* The header line of hit rows (nothing for BED); with_dist: a column
 * "distance" after strand (approximate modes); with_seq: a column
 * "matched" (the hits' seq); with_aligned: then "aligned" and "cigar". */
void gs_text_hits_header(FILE *out, gs_text_format f, int with_dist, int with_seq,
                         int with_aligned);
/* Bytes gs_text_hit_row may write for h: at most this. */
size_t gs_text_hit_row_max(const gs_text_hit *h);
/* Write h's row, newline included, into buf; returns the bytes written. */
size_t gs_text_hit_row(char *buf, gs_text_format f, const gs_text_hit *h);
/* The header line of count rows; n_strands 1 or 2. */
void gs_text_counts_header(FILE *out);
/* One count row; counts[0] forward, counts[1] reverse when n_strands is 2. */
void gs_text_counts_row(FILE *out, const char *name, const char *seq, uint32_t len,
                        const uint64_t *counts, int n_strands);

/* Write the result of a scan (rank 0, all hits in hand and sorted) to path
 * ("-": standard output) as hit rows (res->with_hits) or count rows: through
 * a temporary name and a rename for a file, so a failed run leaves nothing
 * that looks finished. */
gs_status gs_text_write(const char *path, gs_text_format f, const gs_result *res,
                        gs_error *err);
/* The same for any rows: rows(out, ctx, err) writes them (gscan pcr's
 * products, amplicon_out.h). */
typedef void (*gs_text_rows_fn)(FILE *out, const void *ctx, gs_error *err);
gs_status gs_text_write_to(const char *path, gs_text_rows_fn rows, const void *ctx,
                           gs_error *err);

#endif
