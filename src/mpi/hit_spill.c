/* hit_spill.c - a rank's hits beyond --max-memory (core/gs_spill.h): the
 * spill made before the scan, the gather of spilled hits to rank 0, and
 * the stream the writers read (see job_internal.h).
 *
 * Spilling serves hits that are written, counted or tallied from their
 * sorted stream: exact hits with --report hits, and approximate ones,
 * which rank 0 thins (--best-per-site) and counts as the gather merges
 * them; --verify compares them with its reference pass's, each a sorted
 * stream (verify.c). gscan pcr pairs them all, and the LZ index's scan
 * turns its kernel hits into others after the scan: those keep their hits
 * in memory.
 *
 * The gather moves sorted chunks: every other rank sends its stream (its
 * runs merged with what it holds) GATHER_CHUNK hits at a time, each chunk
 * preceded by its count (0: the end; UINT64_MAX: the rank failed), with
 * blocking sends, so rank 0's merge paces them. Rank 0 merges its own
 * stream with theirs into one run of its spill, then writes from that run
 * as a lone rank would. Rank 0 reads every sender to its end whatever
 * fails, so no sender is left blocked, and the ranks agree after.
 */
#include "job_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "core/gs_hitsort.h"
#include "match/sites.h"
#include "mode.h"

enum { TAG_COUNT = 83, TAG_CHUNK = 84, GATHER_CHUNK = 1 << 15 };

gs_status gs_job_spill_begin(gs_job *j, gs_error *err)
{
    const gs_scan_opts *o = j->o;
    if (!(o->report_hits || o->match != GS_MATCH_EXACT) || o->pcr || j->mode->after_scan)
        return GS_OK;
    return gs_spill_new(o->out, &j->spill, err);
}

void gs_job_spill_report(const gs_job *j)
{
    if (!(j->o->tune.debug & GS_DEBUG_TIME) || gs_spill_runs(j->spill) == 0)
        return;
    fprintf(stderr,
            "gscan: hits: rank %d spilled %llu hits in %zu runs (%llu bytes, %d a hit) to %s "
            "(--max-memory %llu)\n",
            j->rank, (unsigned long long)gs_spill_hits(j->spill), gs_spill_runs(j->spill),
            (unsigned long long)gs_spill_bytes(j->spill), (int)GS_SPILL_HIT_BYTES,
            gs_spill_dir(j->spill), (unsigned long long)j->max_memory);
}

int gs_job_spilled(const gs_job *j)
{
    int mine = gs_spill_runs(j->spill) > 0, any = 0;
    GS_MPI_CHECK(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, j->comm));
    return any;
}

gs_status gs_job_own_stream(gs_job *j, const gs_hits *hits, gs_hit_source *src, gs_error *err)
{
    return gs_spill_source(j->spill, hits->v, hits->n, j->max_memory / 2, &j->held, src, err);
}

typedef struct remote {
    MPI_Comm comm;
    int from, done;
} remote;

static gs_status remote_next(void *ctx, gs_hit *buf, size_t cap, size_t *n, gs_error *err)
{
    remote *r = ctx;
    uint64_t cnt = 0;
    *n = 0;
    if (r->done)
        return GS_OK;
    GS_MPI_CHECK(MPI_Recv(&cnt, 1, MPI_UINT64_T, r->from, TAG_COUNT, r->comm, MPI_STATUS_IGNORE));
    if (cnt == 0 || cnt > cap) {
        r->done = 1;
        if (cnt == 0)
            return GS_OK;
        return gs_fail(err, GS_ESYS, "cannot gather the hits of rank %d", r->from);
    }
    gs_mpi_recv_bytes(buf, cnt * sizeof *buf, r->from, TAG_CHUNK, r->comm);
    *n = (size_t)cnt;
    return GS_OK;
}

/* Every other rank: its stream to rank 0, then nothing held. */
static void send_stream(gs_job *j, gs_hits *hits, gs_error *err)
{
    gs_hit_source src;
    gs_hit *buf = gs_malloc(GATHER_CHUNK * sizeof *buf, err, "the gather of hits");
    if (buf != NULL && gs_job_own_stream(j, hits, &src, err) == GS_OK)
        for (;;) {
            size_t n = 0;
            if (src.next(src.ctx, buf, GATHER_CHUNK, &n, err) != GS_OK)
                break;
            uint64_t cnt = n;
            GS_MPI_CHECK(MPI_Send(&cnt, 1, MPI_UINT64_T, 0, TAG_COUNT, j->comm));
            if (n == 0)
                break;
            gs_mpi_send_bytes(buf, n * sizeof *buf, 0, TAG_CHUNK, j->comm);
        }
    if (err->code != GS_OK) {
        uint64_t bad = UINT64_MAX;
        GS_MPI_CHECK(MPI_Send(&bad, 1, MPI_UINT64_T, 0, TAG_COUNT, j->comm));
    }
    free(buf);
    gs_hits_free(hits);
    gs_spill_free(j->spill);
    j->spill = NULL;
}

/* Rank 0, approximate: the hits as reported from the merged stream src
 * (--best-per-site's winners, else all), counted into counts (zeroed
 * first) and kept in *kept; each time they reach half the budget they are
 * sorted and spilled as a run (or, with neither --report hits nor
 * --tally to read them, dropped once counted). What is left in *kept is
 * sorted. */
static gs_status report_approx(gs_job *j, gs_hit_source src, gs_hits *kept, uint64_t *counts,
                               gs_error *err)
{
    const size_t n_counts = (size_t)j->ps.n * (size_t)j->ks.n_strands;
    const size_t cap = GATHER_CHUNK > 2 * (size_t)j->ps.n ? GATHER_CHUNK : 2 * (size_t)j->ps.n;
    gs_hit *buf = gs_malloc(cap * sizeof *buf, err, "the gather of hits");
    gs_sites sites = {0};
    if (buf == NULL || (j->o->best_per_site && gs_sites_init(&sites, j->ps.n, err) != GS_OK))
        goto done;
    memset(counts, 0, n_counts * sizeof *counts);
    for (;;) {
        size_t n = 0;
        if (src.next(src.ctx, buf, GATHER_CHUNK, &n, err) != GS_OK)
            goto done;
        const int end = n == 0;
        if (end && sites.v) /* the sites still open, reported as they are */
            n = gs_sites_end(&sites, buf);
        for (size_t i = 0; i < n; i++) {
            gs_hit won = buf[i];
            if ((end || !sites.v || gs_sites_add(&sites, &buf[i], &won)) &&
                gs_hits_push(kept, &won) != GS_OK) {
                gs_fail(err, GS_ESYS, "out of memory (the hits of rank 0)");
                goto done;
            }
        }
        if (!end && kept->n * sizeof *kept->v < j->max_memory / 2)
            continue;
        gs_hits_order(kept);
        gs_hits_count(kept, j->ks.n_strands, n_counts, counts, j->threads);
        if (end)
            break;
        if ((j->o->report_hits || j->o->tally) &&
            gs_spill_run(j->spill, kept->v, kept->n, err) != GS_OK)
            goto done;
        kept->n = 0;
    }
done:
    free(buf);
    gs_sites_free(&sites);
    return err->code;
}

/* Rank 0: its stream and every other rank's, merged into one run, or
 * (approximate) into the runs and *hits of report_approx. */
static void merge_streams(gs_job *j, gs_hits *hits, uint64_t *counts, gs_error *err)
{
    remote *rm = gs_calloc((size_t)j->size, sizeof *rm, err, "the gather of hits");
    gs_hit_source *src = gs_calloc((size_t)j->size, sizeof *src, err, "the gather of hits");
    gs_hit_merge *m = NULL;
    for (int r = 1; rm && r < j->size; r++) {
        rm[r] = (remote){j->comm, r, 0};
        if (src)
            src[r] = (gs_hit_source){remote_next, &rm[r]};
    }
    gs_hits kept = {0};
    if (src && rm && gs_job_own_stream(j, hits, &src[0], err) == GS_OK &&
        gs_hit_merge_open(src, (size_t)j->size, GATHER_CHUNK, &m, err) == GS_OK) {
        const size_t n_read = gs_spill_runs(j->spill); /* the runs the stream reads */
        if (j->o->match == GS_MATCH_EXACT)
            gs_spill_collapse(j->spill, gs_hit_merge_source(m), err);
        else if (report_approx(j, gs_hit_merge_source(m), &kept, counts, err) == GS_OK)
            gs_spill_retire(j->spill, n_read);
    }
    gs_hit_merge_close(m);
    gs_hit *scratch = malloc(GATHER_CHUNK * sizeof *scratch);
    for (int r = 1; r < j->size; r++) { /* what a failure left unread */
        gs_error ignored = {0};
        remote left = {j->comm, r, rm ? rm[r].done : 0};
        size_t n = 1;
        while (!left.done && scratch && n > 0)
            remote_next(&left, scratch, GATHER_CHUNK, &n, &ignored);
        if (scratch == NULL && !left.done)
            gs_mpi_abort(j->comm, GS_ESYS);
    }
    free(scratch);
    free(rm);
    free(src);
    gs_hits_free(hits);
    *hits = kept;
}

gs_status gs_job_gather_spilled(gs_job *j, gs_hits *hits, uint64_t *counts, gs_error *err)
{
    if (j->rank == 0)
        merge_streams(j, hits, counts, err);
    else
        send_stream(j, hits, err);
    return gs_mpi_agree(j->comm, err);
}

gs_status gs_job_hit_stream(gs_job *j, gs_hits *hits, gs_error *err)
{
    j->n_out_hits = hits->n + gs_spill_hits(j->spill);
    j->streamed = gs_spill_runs(j->spill) > 0;
    if (j->streamed)
        gs_job_own_stream(j, hits, &j->hit_src, err);
    return gs_mpi_agree(j->comm, err);
}
