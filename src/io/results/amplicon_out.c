/* amplicon_out.c - gscan pcr's products as TSV, BED or FASTA (see
 * amplicon_out.h). Products are few next to hits (one per primer pair
 * site that faces another), so plain fprintf rows are enough. */
#define _POSIX_C_SOURCE 200809L
#include "amplicon_out.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hit_seq.h"
#include "text_out.h"

/* FASTA lines of 60 residues, as samtools faidx writes them. */
static void put_seq(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i += 60)
        fprintf(out, "%.*s\n", (int)(n - i < 60 ? n - i : 60), s + i);
}

static void write_rows(FILE *out, gs_amp_format f, const gs_result *res, gs_error *err)
{
    const gs_layout *lay = res->layout;
    char *seq = NULL;
    size_t cap = 0;
    if (f == GS_AMP_TSV)
        fprintf(out, "pair\trecord\tstart\tend\tkind\tmismatches_5\tmismatches_3\tsize\n");
    for (uint64_t i = 0; i < res->n_amplicons && !ferror(out); i++) {
        const gs_amplicon *a = &res->amplicons[i];
        if (a->record >= lay->n_rec || a->pair >= res->n_pairs || a->kind >= GS_AMP_N_KINDS) {
            gs_fail(err, GS_ESYS, "invalid product %" PRIu64 " (text output)", i);
            break;
        }
        const char *rec = lay->rec[a->record].name, *pair = res->pair_names[a->pair],
                   *kind = gs_amp_kind_names[a->kind];
        if (f == GS_AMP_TSV)
            fprintf(out, "%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%s\t%u\t%u\t%" PRIu64 "\n", pair, rec,
                    a->start, a->end, kind, a->mismatches_5, a->mismatches_3, a->end - a->start);
        else if (f == GS_AMP_BED)
            fprintf(out, "%s\t%" PRIu64 "\t%" PRIu64 "\t%s:%s\t%u\t+\n", rec, a->start, a->end,
                    pair, kind, a->mismatches_5 + a->mismatches_3);
        else {
            size_t n = (size_t)(a->end - a->start);
            if (gs_grow(&seq, &cap, n, 1, 4096) != GS_OK) {
                gs_fail(err, GS_ESYS, "out of memory (a product of %zu residues)", n);
                break;
            }
            if (gs_hit_seq_get(res->seq, a->record, a->start, a->end, 1, seq, err) != GS_OK)
                break;
            fprintf(out, ">%s:%s %s:%" PRIu64 "-%" PRIu64 "\n", pair, kind, rec, a->start, a->end);
            put_seq(out, seq, n);
        }
    }
    free(seq);
}

typedef struct rows_of {
    gs_amp_format f;
    const gs_result *res;
} rows_of;

static void result_rows(FILE *out, const void *ctx, gs_error *err)
{
    const rows_of *r = ctx;
    write_rows(out, r->f, r->res, err);
}

gs_status gs_amp_text_write(const char *path, gs_amp_format f, const gs_result *res,
                            gs_error *err)
{
    rows_of r = {f, res};
    return gs_text_write_to(path, result_rows, &r, err);
}
