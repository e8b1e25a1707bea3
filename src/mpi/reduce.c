/* reduce.c - counts and hits to rank 0 (see job_internal.h).
 *
 * Counts are summed with MPI_Reduce. Hits stay where they were found when
 * the mode's hits form contiguous runs of the global order per rank (the
 * writer puts each run in place); otherwise (gs_policy_gather) they are
 * gathered to rank 0 and merged there.
 */
#include "job_internal.h"

#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "core/gs_hitsort.h"

gs_status gs_job_reduce_counts(const gs_job *j, const gs_scan_res *res, uint64_t **counts,
                               gs_error *err)
{
    size_t n = (size_t)j->ps.n * (size_t)j->ks.n_strands;
    uint64_t *mine = gs_calloc(n, sizeof *mine, err, "counts");
    *counts = j->rank == 0 ? gs_calloc(n, sizeof **counts, err, "counts") : NULL;
    if (mine == NULL || (j->rank == 0 && *counts == NULL)) {
        free(mine);
        return GS_ESYS;
    }
    if (res->counts) /* already per (pattern, strand) */
        memcpy(mine, res->counts, n * sizeof *mine);
    else
        gs_keyset_fold_counts(&j->ks, res->key_counts, mine);
    gs_mpi_reduce_sum_u64(mine, *counts, n, 0, j->comm);
    free(mine);
    return GS_OK;
}

/* Rank 0 first makes room for every hit, and the ranks agree on that before
 * any hit moves, so a failed allocation cannot leave a sender blocked. */
gs_status gs_job_gather_hits(const gs_job *j, gs_hits *hits, gs_error *err)
{
    enum { TAG_HITS = 82 };
    uint64_t n = hits->n, *all = NULL, total = 0;
    if (j->size == 1)
        return GS_OK; /* rank 0 holds them all */
    if (j->rank == 0 && (all = gs_malloc((size_t)j->size * sizeof *all, err, "hit counts")) == NULL)
        gs_mpi_abort(j->comm, GS_ESYS);
    GS_MPI_CHECK(MPI_Gather(&n, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, j->comm));
    for (int r = 0; j->rank == 0 && r < j->size; r++)
        total += all[r];
    gs_hit *v = j->rank == 0 ? realloc(hits->v, (total + 1) * sizeof *v) : NULL;
    if (j->rank == 0 && v == NULL)
        gs_fail(err, GS_ESYS, "out of memory (gathering %llu hits on rank 0)",
                (unsigned long long)total);
    else if (v != NULL) {
        hits->v = v;
        hits->cap = total + 1;
    }
    if (gs_mpi_agree(j->comm, err) != GS_OK) {
        free(all);
        return err->code;
    }
    if (j->rank != 0) {
        gs_mpi_send_bytes(hits->v, hits->n * sizeof(gs_hit), 0, TAG_HITS, j->comm);
        gs_hits_free(hits);
        return GS_OK;
    }
    for (int r = 1; r < j->size; r++) {
        gs_mpi_recv_bytes(hits->v + hits->n, all[r] * sizeof(gs_hit), r, TAG_HITS, j->comm);
        hits->n += all[r];
    }
    free(all);
    /* each rank's hits are sorted: merging them is log2(ranks) passes; with
     * no room for the merge's second copy, qsort sorts in place */
    gs_hits_order(hits);
    return GS_OK;
}
