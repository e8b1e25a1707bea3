/* output.c - the end of a scan job: names said twice, and the result
 * written as HDF5 (every rank) or text (rank 0) (see job_internal.h). */
#include "job_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/results/amplicon_out.h"
#include "io/results/h5out.h"
#include "io/seq/pairs.h"
#include "io/results/hit_seq.h"
#include "io/results/text_out.h"
#include "mode.h"
#include "tally.h"

/* A record name used twice is kept (record ids tell the hits apart, as
 * samtools keeps the first and gscan index keeps all), but said. When the
 * layout is known before the scan, the names are checked beside it:
 * millions of ESTs take a tenth of a second that the GPU path leaves a host
 * core for. */
static void *dup_main(void *arg)
{
    gs_dup_check *d = arg;
    gs_error ignored = {0}; /* out of memory: no warning, the scan goes on */
    if (gs_layout_dup_names(d->l, d->threads, &d->n, &d->a, &d->b, &ignored) != GS_OK)
        d->n = 0;
    return NULL;
}

void gs_job_dups_start(gs_dup_check *d, const gs_layout *l, int threads)
{
    d->l = l;
    d->threads = threads;
    d->started = 1;
    gs_task_start(&d->task, dup_main, d);
}

void gs_job_dups_join(gs_dup_check *d)
{
    if (d->started)
        gs_task_join(&d->task);
    d->started = 0;
}

void gs_job_dups_warn(gs_dup_check *d, const gs_layout *l, char *const *corpus)
{
    if (d->started) {
        gs_job_dups_join(d);
    } else {
        d->l = l;
        d->threads = 1;
        dup_main(d);
    }
    if (d->n > 0)
        fprintf(stderr,
                "gscan: warning: %zu record(s) repeat an earlier record's name, first '%s': "
                "record %zu (%s) and record %zu (%s); hits keep them apart by record id\n",
                d->n, l->rec[d->b].name, d->a, corpus[l->rec[d->a].file], d->b,
                corpus[l->rec[d->b].file]);
}

/* Rank 0, gscan pcr's FASTA of products: the products' residues read back
 * through each corpus file's .fai (the scan captures only primer sites). */
static gs_status open_seq(const gs_job *j, const gs_layout *l, gs_hit_seq **hs, gs_error *err)
{
    size_t stride = 1;
    for (size_t r = 0; r < l->n_rec; r++)
        if (strlen(l->rec[r].name) + 1 > stride)
            stride = strlen(l->rec[r].name) + 1;
    char *names = gs_calloc(l->n_rec ? l->n_rec : 1, stride, err, "record names");
    uint32_t *file = gs_malloc((l->n_rec ? l->n_rec : 1) * sizeof *file, err, "records");
    uint64_t *len = gs_malloc((l->n_rec ? l->n_rec : 1) * sizeof *len, err, "records");
    if (names && file && len) {
        for (size_t r = 0; r < l->n_rec; r++) {
            memcpy(names + r * stride, l->rec[r].name, strlen(l->rec[r].name) + 1);
            file[r] = l->rec[r].file;
            len[r] = l->rec[r].length;
        }
        gs_hit_seq_open(j->o->corpus, j->o->n_corpus, names, stride, file, len, l->n_rec,
                        j->o->alphabet == GS_ALPHA_DNA, hs, err);
    }
    free(names);
    free(file);
    free(len);
    return err->code;
}

/* Rank 0, --seq: the matched column from the residues the scan captured
 * (gs_job_gather_seq), so any input serves, streamed and compressed ones too. */
static gs_status captured_seq(const gs_job *j, gs_hit_seq **hs, gs_error *err)
{
    return gs_hit_seq_captured(j->seqcap, j->o->alphabet == GS_ALPHA_DNA, hs, err);
}

gs_status gs_job_write(const gs_job *j, const uint64_t *counts, const gs_hits *hits,
                       double t_start, gs_error *err)
{
    const gs_scan_opts *o = j->o;
    gs_result r = {
        .info = {.command_line = o->command_line, .engine = j->engine->name,
                 .device = j->use_gpu ? "gpu" : "cpu",
                 .alphabet = o->alphabet == GS_ALPHA_DNA ? "dna" : "bytes",
                 .strand_mode = o->both_strands ? "both" : "forward",
                 .report = o->report_hits ? "hits" : "counts", .n_ranks = j->size,
                 .n_gpus = j->n_gpus, .match = gs_match_mode_name(o->match),
                 .max_dist = (int)(j->ks.max_dist - j->ks.bulges),
                 .max_bulges = (int)j->ks.bulges, .exact3p = (int)o->exact3p,
                 .option_k = (int)o->max_dist,
                 .best_per_site = o->best_per_site,
                 .circular = o->circular},
        .patterns = &j->ps, .layout = j->mode->layout(j), .counts = counts,
        .n_strands = j->ks.n_strands, .with_hits = o->report_hits, .hits = hits->v,
        .n_hits = hits->n, .hit_stream = j->streamed ? &j->hit_src : NULL, .tune = &o->tune, .mpi_hints = o->mpi_hints,
        .n_mpi_hints = o->n_mpi_hints, .aligned = o->aligned};
    if (j->streamed)
        r.n_hits = j->n_out_hits;
    gs_job_tally_result(j, &r);
    if (o->pcr) {
        r.pairs = o->pcr->v;
        r.pair_names = o->pcr->names;
        r.n_pairs = o->pcr->n;
        r.amplicons = j->amp.v;
        r.n_amplicons = j->amp.n;
    }
    memcpy(r.timing, j->t, sizeof r.timing);
    r.timing[GS_T_TOTAL] = j->t[GS_T_INIT] + gs_now() - t_start;
    if (o->out_format == GS_OUT_H5)
        gs_h5_write(o->out, &r, j->comm, err);
    else if (j->rank == 0 && o->pcr) {
        if (o->out_format != GS_OUT_FASTA || open_seq(j, r.layout, &r.seq, err) == GS_OK)
            gs_amp_text_write(o->out, o->out_format == GS_OUT_BED     ? GS_AMP_BED
                                      : o->out_format == GS_OUT_FASTA ? GS_AMP_FASTA
                                                                      : GS_AMP_TSV,
                              &r, err);
    } else if (j->rank == 0 && (!o->with_seq || captured_seq(j, &r.seq, err) == GS_OK)) {
        gs_text_write(o->out, o->out_format == GS_OUT_BED   ? GS_TEXT_BED
                              : o->out_format == GS_OUT_CAS ? GS_TEXT_CAS
                                                            : GS_TEXT_TSV,
                      &r, err);
    }
    gs_hit_seq_close(r.seq);
    return err->code;
}
