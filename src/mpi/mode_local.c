/* mode_local.c - the local mode: one process streams its files through
 * gs_reader (see mode.h), or, plain FASTA and FASTQ with several readers,
 * reads them in parts on as many threads (io/seq/parts.h); and the one
 * stream, which rank 0 of the streamed mode runs too.
 *
 * One process takes this mode for what cannot be read by ranges (gzip, raw,
 * pipes, FIFOs and stdin, FASTA that cannot be indexed, BGZF without its
 * indexes) and for plain files whose index would not pay (policy.h). The
 * layout is learnt while reading: the main pass's records are kept.
 */
#include "mode.h"

#include <stdio.h>
#include <stdlib.h>

gs_status gs_reader_state_plan(gs_job *j, gs_error *err)
{
    j->ms = gs_calloc(1, sizeof(gs_reader_state), err, "reader");
    return j->ms ? GS_OK : GS_ESYS;
}

/* How rank 0 reads the corpus, a stream or parts of it. */
static gs_reader_opts reader_opts(const gs_job *j)
{
    const gs_scan_opts *o = j->o;
    return (gs_reader_opts){.format = o->format, .block = j->block, .overlap = j->overlap,
                            .any_bytes = o->alphabet == GS_ALPHA_BYTES, .threads = j->threads,
                            .circular = o->circular, .tune = &o->tune,
                            /* a read's name is shown with its hits, names its
                             * unit in a record tally, or finds its sample */
                            .drop_read_names = !o->report_hits && (o->tally == GS_TALLY_NONE ||
                                                                   o->tally == GS_TALLY_FILE)};
}

gs_status gs_reader_state_open(gs_job *j, gs_pass *p, gs_source *inner, gs_error *err)
{
    gs_reader_state *s = j->ms;
    const gs_scan_opts *o = j->o;
    *inner = (gs_source){0};
    if (j->rank != 0)
        return GS_OK;
    gs_reader_opts ro = reader_opts(j);
    gs_status st = gs_reader_open((const char *const *)o->corpus, o->n_corpus, &ro,
                                  p->main ? &s->layout : &s->scratch, &s->reader, err);
    if (st == GS_OK)
        *inner = gs_source_reader(s->reader);
    return st;
}

gs_status gs_reader_state_close(gs_job *j, gs_pass *p, gs_status st, gs_error *err)
{
    gs_reader_state *s = j->ms;
    const char *w = NULL;
    if (s->reader) {
        p->bytes_read += gs_reader_bytes_in(s->reader);
        w = gs_reader_warning(s->reader);
    } else if (s->parts) {
        p->bytes_read += gs_parts_bytes_in(s->parts);
        w = gs_parts_warning(s->parts);
        if (j->o->tune.debug & GS_DEBUG_TIME) {
            double t[GS_PARTS_TIMES];
            gs_parts_times(s->parts, t);
            fprintf(stderr, "gscan: parts: %.3f s in pread, %.3f s finding records of the parts "
                    "given loose, %.3f s waiting for earlier parts' counts, %.3f s making their "
                    "record tables, %.3f s counting %.0f parts other readers took (summed over "
                    "readers)\n", t[GS_PT_READ], t[GS_PT_WALK], t[GS_PT_WAIT], t[GS_PT_TABLES],
                    t[GS_PT_OTHERS], t[GS_PT_OTHER_PARTS]);
        }
        double t0 = gs_now();
        if (st == GS_OK)
            st = gs_parts_finish(s->parts, err);
        if (j->o->tune.debug & GS_DEBUG_TIME)
            fprintf(stderr, "gscan: parts: record tables joined in %.3f s\n", gs_now() - t0);
    } else if (s->files) {
        p->bytes_read += gs_files_bytes_in(s->files);
        w = gs_files_warning(s->files);
        if (st == GS_OK)
            st = gs_files_finish(s->files, err);
        else
            gs_files_first_error(s->files, err);
    }
    if (w && p->main)
        fprintf(stderr, "gscan: warning: %s\n", w);
    gs_reader_close(s->reader);
    gs_parts_close(s->parts);
    gs_files_close(s->files);
    s->reader = NULL;
    s->parts = NULL;
    s->files = NULL;
    gs_layout_free(&s->scratch);
    return st;
}

const gs_layout *gs_reader_state_layout(const gs_job *j)
{
    return &((const gs_reader_state *)j->ms)->layout;
}

void gs_reader_state_free(gs_job *j)
{
    gs_reader_state *s = j->ms;
    if (s == NULL)
        return;
    gs_layout_free(&s->layout);
    gs_layout_free(&s->scratch);
    free(s);
    j->ms = NULL;
}

/* Plain FASTA and FASTQ on several readers are read in parts, each reader
 * a source of the pipeline's (io/seq/parts.h); other corpora of several
 * files, where the scan keeps no hits, a whole file a reader
 * (io/seq/files.h); else one stream. */
static gs_status local_open(gs_job *j, gs_pass *p, gs_error *err)
{
    gs_reader_state *s = j->ms;
    const gs_scan_opts *o = j->o;
    gs_reader_opts ro = reader_opts(j);
    if (j->readers > 1 &&
        gs_parts_open((const char *const *)o->corpus, o->n_corpus, &ro,
                      gs_policy_part_bytes(o->tune.io_part, j->block, j->use_gpu), j->readers,
                      p->main ? &s->layout : &s->scratch, &s->parts, err) != GS_OK)
        return err->code;
    if (s->parts) {
        if (o->tune.debug & GS_DEBUG_TIME) /* docs/performance.md */
            fprintf(stderr, "gscan: reading %zu files in %zu parts on %d threads\n", o->n_corpus,
                    gs_parts_count(s->parts), j->readers);
        for (p->n_src = 0; p->n_src < j->readers; p->n_src++)
            p->src[p->n_src] = (gs_source){.next = gs_parts_next, .next_raw = gs_parts_next_raw,
                                           .next_run = gs_parts_next_run,
                                           .ctx = gs_parts_lane(s->parts, p->n_src)};
        return GS_OK;
    }
    /* a segment's record is then its index in its file: only for a scan
     * that keeps no hits (which name their records) */
    if (j->readers > 1 && !p->want_hits &&
        gs_files_open((const char *const *)o->corpus, o->n_corpus, &ro, j->readers,
                      p->main ? &s->layout : &s->scratch, &s->files, err) != GS_OK)
        return err->code;
    if (s->files) {
        if (o->tune.debug & GS_DEBUG_TIME)
            fprintf(stderr, "gscan: reading %zu files side by side on %d threads\n", o->n_corpus,
                    gs_files_lanes(s->files));
        for (p->n_src = 0; p->n_src < gs_files_lanes(s->files); p->n_src++)
            p->src[p->n_src] = (gs_source){.next = gs_files_next,
                                           .ctx = gs_files_lane(s->files, p->n_src)};
        return GS_OK;
    }
    p->n_src = 1;
    return gs_reader_state_open(j, p, &p->src[0], err);
}

const gs_mode gs_mode_local = {.name = "local", .names = GS_NAMES_AFTER,
                               .plan = gs_reader_state_plan, .open = local_open, .close = gs_reader_state_close,
                               .layout = gs_reader_state_layout, .free = gs_reader_state_free};
