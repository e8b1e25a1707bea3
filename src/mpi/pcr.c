/* pcr.c - gscan pcr in a scan job: the primer sites, once the reduce phase
 * has gathered them on rank 0, paired into products (core/gs_amplicon.h).
 *
 * Products can join sites that different ranks found (a product spans
 * block and rank boundaries), so they are made where all sites are: rank
 * 0, which holds every approximate hit after the reduce phase anyway
 * (gs_policy_gather). Its memory is then the sites (32 bytes each) plus the
 * products (32 bytes each) plus one record's reverse sites; the result is
 * the same at any rank count because the sites are.
 */
#include "job_internal.h"

#include <stdlib.h>

#include "comm/comm.h"
#include "io/seq/pairs.h"
#include "mode.h"

static gs_status find_products(gs_job *j, const gs_hits *hits, gs_hits *tally_hits,
                               gs_error *err)
{
    const gs_pcr_pairs *pp = j->o->pcr;
    const gs_layout *l = j->mode->layout(j);
    uint64_t *len = NULL;
    if (j->o->circular) {
        if ((len = gs_malloc((l->n_rec + 1) * sizeof *len, err, "record lengths")) == NULL)
            return GS_ESYS;
        for (size_t r = 0; r < l->n_rec; r++)
            len[r] = l->rec[r].length;
    }
    gs_amplicons_find(hits->v, hits->n, pp->v, pp->n, j->ps.n, len, &j->amp, err);
    free(len);
    if (err->code == GS_OK && j->o->tally &&
        gs_amplicons_as_hits(&j->amp, &tally_hits->v, err) == GS_OK)
        tally_hits->n = tally_hits->cap = j->amp.n;
    return err->code;
}

gs_status gs_job_pcr(gs_job *j, const gs_hits *hits, gs_hits *tally_hits, gs_error *err)
{
    if (j->rank == 0)
        find_products(j, hits, tally_hits, err);
    return gs_mpi_agree(j->comm, err);
}
