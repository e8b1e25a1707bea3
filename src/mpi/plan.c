/* plan.c - cut the corpus into one contiguous residue range per rank.
 *
 * Cutting the concatenated residues at floor(T*r/n) balances the ranks to
 * within one residue, however the records are sized (one huge record, 100k
 * tiny ones, empty ones), and keeps each rank's hits a contiguous run of the
 * global hit order, so ranks can write them side by side (offsets from
 * MPI_Exscan). The overlap never crosses a record, since no hit does.
 */
#include "plan.h"

#include <stdlib.h>

static uint64_t cut(uint64_t total, int r, int n)
{
    return (uint64_t)((unsigned __int128)total * (unsigned)r / (unsigned)n);
}

gs_status gs_partition_plan(const uint64_t *rec_len, size_t n_rec, int n_ranks, uint64_t overlap,
                            gs_plan *plan, gs_error *err)
{
    plan->pieces = NULL;
    plan->n_pieces = 0;
    plan->n_ranks = n_ranks;
    plan->overlap = overlap;
    plan->total = 0;
    plan->first = gs_calloc((size_t)n_ranks + 1, sizeof *plan->first, err, "partition plan");
    if (plan->first == NULL)
        return GS_ESYS;
    size_t nonempty = 0;
    for (size_t i = 0; i < n_rec; i++) {
        plan->total += rec_len[i];
        nonempty += rec_len[i] > 0;
    }
    /* Each rank boundary splits at most one record: pieces <= records + ranks. */
    size_t cap = nonempty + (size_t)n_ranks;
    plan->pieces = gs_malloc(cap * sizeof *plan->pieces, err, "partition plan");
    if (plan->pieces == NULL) {
        gs_plan_free(plan);
        return GS_ESYS;
    }
    size_t rec = 0;
    uint64_t rec_start = 0; /* global position of record rec's first residue */
    for (int r = 0; r < n_ranks; r++) {
        plan->first[r] = plan->n_pieces;
        uint64_t lo = cut(plan->total, r, n_ranks), hi = cut(plan->total, r + 1, n_ranks);
        while (lo < hi) {
            while (rec_start + rec_len[rec] <= lo) /* skip records wholly before lo (and empty ones) */
                rec_start += rec_len[rec++];
            uint64_t b = lo - rec_start;
            uint64_t e = (hi < rec_start + rec_len[rec] ? hi : rec_start + rec_len[rec]) - rec_start;
            gs_piece *p = &plan->pieces[plan->n_pieces++];
            p->record = (uint32_t)rec;
            p->begin = b;
            p->end = e;
            p->read_end = e + overlap < rec_len[rec] ? e + overlap : rec_len[rec];
            lo = rec_start + e;
        }
    }
    plan->first[n_ranks] = plan->n_pieces;
    return GS_OK;
}

void gs_plan_free(gs_plan *plan)
{
    free(plan->pieces);
    free(plan->first);
    plan->pieces = NULL;
    plan->first = NULL;
    plan->n_pieces = 0;
}
