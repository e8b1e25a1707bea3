/* verify.c - --verify: a second pass over the same share with a reference
 * engine (gs_policy_reference), its counts and hits compared with the main
 * pass's (see job_internal.h). */
#include "job_internal.h"

#include <stdlib.h>

#include "comm/comm.h"

/* Field by field: gs_hit has padding bytes that memcmp would compare too. */
static int same_hits(const gs_hits *a, const gs_hits *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (gs_hit_cmp(&a->v[i], &b->v[i]) != 0)
            return 0;
    return 1;
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

gs_status gs_job_verify(gs_job *j, const gs_scan_res *main_res, const uint64_t *counts,
                        gs_job_summary *sum, gs_error *err)
{
    const gs_engine *ref = gs_policy_reference(j->engine, j->use_gpu, j->ks.mode != GS_MATCH_EXACT);
    gs_scan_res res;
    double t_send = 0, t0 = gs_now();
    gs_job_scan_pass(j, ref, 0, 0, &res, &t_send, err);
    if (gs_mpi_agree(j->comm, err) != GS_OK) {
        gs_scan_res_free(&res);
        return err->code;
    }
    /* hits are compared before any gathering: both passes deal the same
     * blocks to the same ranks, so each rank's hits must match */
    int bad_hits = !same_hits(&main_res->hits, &res.hits), any_bad_hits = 0;
    GS_MPI_CHECK(MPI_Allreduce(&bad_hits, &any_bad_hits, 1, MPI_INT, MPI_SUM, j->comm));
    uint64_t bad = bad_counts(j, counts, &res, err);
    double t_ref = gs_now() - t0;
    gs_scan_res_free(&res);
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
