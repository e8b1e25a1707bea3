/* plan.c - cut the corpus into one contiguous residue range per rank.
 *
 * Cutting the concatenated residues at floor(T*r/n) balances the ranks to
 * within one residue, however the records are sized (one huge record, 100k
 * tiny ones, empty ones), and keeps each rank's hits a contiguous run of the
 * global hit order, so ranks can write them side by side (offsets from
 * MPI_Exscan). The overlap never crosses into another record, since no hit
 * does; a circular record's runs on into its own start.
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
    *plan = (gs_plan){.len = rec_len, .n_rec = n_rec, .n_ranks = n_ranks, .overlap = overlap};
    plan->parts = gs_calloc((size_t)n_ranks, sizeof *plan->parts, err, "partition plan");
    if (plan->parts == NULL)
        return GS_ESYS;
    for (size_t i = 0; i < n_rec; i++)
        plan->total += rec_len[i];
    size_t rec = 0, last = 0;
    uint64_t rec_start = 0, last_start = 0; /* global positions of their first residues */
    for (int r = 0; r < n_ranks; r++) {
        uint64_t lo = cut(plan->total, r, n_ranks), hi = cut(plan->total, r + 1, n_ranks);
        /* skip the records wholly before lo (and empty ones) */
        while (rec < n_rec && rec_start + rec_len[rec] <= lo)
            rec_start += rec_len[rec++];
        /* and to the one that holds hi - 1 */
        while (lo < hi && last_start + rec_len[last] < hi)
            last_start += rec_len[last++];
        plan->parts[r] = (gs_part){.lo = lo, .hi = hi, .rec = rec, .rec_start = rec_start,
                                   .last = lo < hi ? last : rec};
    }
    return GS_OK;
}

void gs_plan_walk_init(gs_plan_walk *w, const gs_plan *plan, int rank)
{
    *w = (gs_plan_walk){.plan = plan, .at = plan->parts[rank]};
}

int gs_plan_next(gs_plan_walk *w, gs_piece *p)
{
    const uint64_t *len = w->plan->len;
    gs_part *at = &w->at;
    while (at->rec < w->plan->n_rec && at->rec_start < at->hi) {
        uint64_t rec = at->rec, start = at->rec_start, l = len[rec];
        at->rec++;
        at->rec_start += l;
        uint64_t b = at->lo > start ? at->lo - start : 0;
        uint64_t e = (at->hi < start + l ? at->hi : start + l) - start;
        if (b >= e)
            continue; /* an empty record */
        *p = (gs_piece){.record = (uint32_t)rec, .begin = b, .end = e,
                        .read_end = gs_read_end(e, w->plan->overlap, l, w->plan->circular)};
        return 1;
    }
    return 0;
}

void gs_plan_free(gs_plan *plan)
{
    free(plan->parts);
    plan->parts = NULL;
}
