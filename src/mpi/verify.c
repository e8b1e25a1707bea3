/* verify.c - --verify: a second pass over the same share with a reference
 * engine (gs_policy_reference), its counts and hits compared with the main
 * pass's (see job_internal.h). */
#include "job_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "comm/comm.h"
#include "scan/pipeline.h"

enum { CHUNK = 1 << 15 };

/* *same: the two streams give the same hits, compared field by field
 * (gs_hit has padding bytes that memcmp would compare too). */
static gs_status same_hits(gs_hit_source a, gs_hit_source b, int *same, gs_error *err)
{
    gs_hit *buf = gs_malloc(2 * CHUNK * sizeof *buf, err, "the check of hits");
    size_t na = 0, nb = 0, ia = 0, ib = 0;
    *same = buf != NULL;
    while (*same) {
        if (ia == na && (ia = 0, a.next(a.ctx, buf, CHUNK, &na, err) != GS_OK))
            break;
        if (ib == nb && (ib = 0, b.next(b.ctx, buf + CHUNK, CHUNK, &nb, err) != GS_OK))
            break;
        if (na == 0 || nb == 0) {
            *same = na == 0 && nb == 0;
            break;
        }
        for (; ia < na && ib < nb; ia++, ib++)
            *same &= gs_hit_cmp(&buf[ia], &buf[CHUNK + ib]) == 0;
    }
    free(buf);
    return err->code;
}

/* Before the reference pass: where hits spill, it gets a spill of its own
 * and what the main pass leaves of the budget; a main pass that spilled
 * puts the hits it holds into a run of its own first, leaving it all. */
static gs_status ref_spill(gs_job *j, gs_hits *main_hits, gs_error *err)
{
    j->ref_budget = j->max_memory;
    if (j->spill == NULL)
        return GS_OK;
    if (gs_spill_runs(j->spill) > 0 && main_hits->n) {
        if (gs_spill_run(j->spill, main_hits->v, main_hits->n, err) != GS_OK)
            return err->code;
        main_hits->n = 0;
    }
    const uint64_t held = (uint64_t)main_hits->n * GS_HIT_HELD_BYTES;
    j->ref_budget = held < j->max_memory ? j->max_memory - held : 0;
    return gs_spill_new(j->o->out, &j->ref_spill, err);
}

/* Counts of rank 0 that differ from the reference's, known to every rank. */
static uint64_t bad_counts(const gs_job *j, const uint64_t *counts, const gs_scan_res *res,
                           gs_error *err)
{
    uint64_t *ref_counts = NULL, bad = 0;
    gs_status st = gs_job_reduce_counts(j, res, &ref_counts, err);
    if (st == GS_OK && j->rank == 0)
        for (size_t i = 0; i < (size_t)j->ps.n * (size_t)j->ks.n_strands; i++)
            bad += counts[i] != ref_counts[i];
    GS_MPI_CHECK(MPI_Bcast(&bad, 1, MPI_UINT64_T, 0, j->comm));
    free(ref_counts);
    return bad;
}

gs_status gs_job_verify(gs_job *j, gs_scan_res *main_res, const uint64_t *counts,
                        gs_job_summary *sum, gs_error *err)
{
    const gs_engine *ref = gs_policy_reference(j->engine, j->use_gpu, j->ks.mode != GS_MATCH_EXACT);
    gs_scan_res res = {0};
    double t_send = 0, t0 = gs_now();
    if (ref_spill(j, &main_res->hits, err) == GS_OK)
        gs_job_scan_pass(j, ref, 0, 0, &res, &t_send, err);
    if (gs_mpi_agree(j->comm, err) != GS_OK) {
        gs_scan_res_free(&res);
        return err->code;
    }
    /* hits are compared before any gathering: both passes deal the same
     * blocks to the same ranks, so each rank's hits must match */
    gs_hit_array_src held[2];
    gs_hit_source a, b;
    int same = 0, bad_hits, any_bad_hits = 0;
    const gs_hits *ha = &main_res->hits, *hb = &res.hits;
    if (gs_spill_source(j->spill, ha->v, ha->n, j->max_memory / 4, &held[0], &a, err) == GS_OK &&
        gs_spill_source(j->ref_spill, hb->v, hb->n, j->max_memory / 4, &held[1], &b, err) == GS_OK)
        same_hits(a, b, &same, err);
    bad_hits = !same;
    if ((j->o->tune.debug & GS_DEBUG_TIME) && gs_spill_runs(j->ref_spill) > 0)
        fprintf(stderr, "gscan: verify: rank %d's reference pass spilled %llu hits in %zu runs\n",
                j->rank, (unsigned long long)gs_spill_hits(j->ref_spill),
                gs_spill_runs(j->ref_spill));
    GS_MPI_CHECK(MPI_Allreduce(&bad_hits, &any_bad_hits, 1, MPI_INT, MPI_SUM, j->comm));
    uint64_t bad = bad_counts(j, counts, &res, err);
    double t_ref = gs_now() - t0;
    gs_scan_res_free(&res);
    gs_spill_free(j->ref_spill);
    j->ref_spill = NULL;
    if (gs_mpi_agree(j->comm, err) != GS_OK)
        return err->code;
    sum->ref_engine = ref->name;
    sum->t_ref = t_ref;
    sum->verified = !bad && !any_bad_hits;
    if (!sum->verified)
        return gs_fail(err, GS_ESYS,
                       "verify: %s on the %s and %s on the cpu disagree: %llu counts and the hits of "
                       "%d rank(s) differ (%s)",
                       j->engine->name, j->use_gpu ? "gpu" : "cpu", ref->name,
                       (unsigned long long)bad, any_bad_hits, j->o->patterns);
    return GS_OK;
}
