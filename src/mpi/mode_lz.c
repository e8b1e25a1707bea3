/* mode_lz.c - the LZ mode: a scan of an LZ77 hybrid index (--index) instead
 * of corpus files (see mode.h, lz/lz.h).
 *
 * Every rank reads the index and scans its share of the kernel string on
 * its readers; the occurrences it owns are derived from the kernel's hits
 * (gs_lz_locate). The hits of the ranks interleave, so they are gathered to
 * rank 0 as streamed ones are.
 */
#include "mode.h"

#include <stdlib.h>

#include "comm/comm.h"
#include "lz/lz.h"

typedef struct lz_state {
    gs_lz_index lz;                  /* the whole index, on every rank */
    gs_lz_src ls[GS_MAX_READERS];
} lz_state;

/* Patterns longer than the index's M would miss the occurrences that cross
 * phrase boundaries outside the kernel. */
static gs_status lz_plan(gs_job *j, gs_error *err)
{
    lz_state *s = gs_calloc(1, sizeof *s, err, "index");
    gs_status st = s ? GS_OK : GS_ESYS;
    j->ms = s;
    if (st == GS_OK)
        st = gs_lz_read(j->o->index, j->threads, &j->o->tune, &s->lz, err);
    /* each reader unpacks its part of the kernel; rank 0's count, so that
     * the ranks' parts tile it */
    j->readers = gs_policy_readers(j->o->readers, j->threads, j->use_gpu, 1);
    GS_MPI_CHECK(MPI_Bcast(&j->readers, 1, MPI_INT, 0, j->comm));
    if (st != GS_OK)
        return st;
    j->bytes_read = s->lz.file_bytes;
    for (uint32_t p = 0; p < j->ps.n; p++)
        if (j->ps.v[p].len > s->lz.max_pat)
            return gs_fail(err, GS_EINPUT,
                           "pattern '%s' has %u residues; the index serves patterns of at most "
                           "%u (gscan index --lz --max-pattern-length) (%s)",
                           j->ps.v[p].name, j->ps.v[p].len, s->lz.max_pat, j->o->index);
    /* only the windows the patterns' span needs are scanned */
    return gs_lz_trim(&s->lz, j->ks.span, j->threads, &j->o->tune, err);
}

static gs_status lz_open(gs_job *j, gs_pass *p, gs_error *err)
{
    (void)err;
    lz_state *s = j->ms;
    const int sep = gs_lz_separator(&j->ps, j->o->alphabet);
    for (int r = 0; r < j->readers; r++) {
        gs_lz_src_init(&s->ls[r], &s->lz, j->rank * j->readers + r, j->size * j->readers,
                       j->block, j->overlap, sep);
        p->src[r] = gs_source_lz(&s->ls[r]);
    }
    p->n_src = j->readers;
    return GS_OK;
}

static gs_status lz_close(gs_job *j, gs_pass *p, gs_status st, gs_error *err)
{
    (void)j, (void)p, (void)err;
    return st;
}

/* The kernel's hits (primaries need their positions even when only counts
 * are asked) become the occurrences this rank owns, counted. */
static gs_status lz_after_scan(gs_job *j, gs_scan_res *res, gs_error *err)
{
    lz_state *s = j->ms;
    size_t n = (size_t)j->ps.n * (size_t)j->ks.n_strands;
    if ((res->counts = gs_calloc(n ? n : 1, sizeof *res->counts, err, "counts")) == NULL)
        return GS_ESYS;
    gs_hits kernel_hits = res->hits;
    res->hits = (gs_hits){0};
    gs_lz_locate_opts lo = {.ps = &j->ps, .n_strands = j->ks.n_strands,
                            .want_hits = j->o->report_hits || j->o->tally, .threads = j->threads,
                            .counts = res->counts, .tune = &j->o->tune};
    /* what the pipeline captured has the kernel's coordinates: the located
     * hits' residues are read out of the index instead */
    gs_seqcap_free(&res->seq);
    if (gs_lz_locate(&s->lz, &lo, &kernel_hits, &res->hits, err) != GS_OK)
        return err->code;
    return j->o->with_seq ? gs_lz_capture(&s->lz, &j->ps, &res->hits, &res->seq, err) : GS_OK;
}

static const gs_layout *lz_layout(const gs_job *j)
{
    return &((const lz_state *)j->ms)->lz.layout;
}

static void lz_free(gs_job *j)
{
    lz_state *s = j->ms;
    if (s == NULL)
        return;
    gs_lz_free(&s->lz);
    free(s);
    j->ms = NULL;
}

const gs_mode gs_mode_lz = {.name = "lz", .names = GS_NAMES_NONE, .gathers_hits = 1, .needs_hits = 1,
                            .plan = lz_plan, .open = lz_open, .close = lz_close,
                            .after_scan = lz_after_scan, .layout = lz_layout, .free = lz_free};
