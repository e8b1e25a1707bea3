/* sites.c - --best-per-site and counts taken from the reported hits.
 *
 * The hits are put in (record, pattern, strand, start, end) order, so each
 * site is a run whose next start lies below the run's largest end; the
 * winners go back to contract §3 order with one more sort. Counts of the
 * approximate modes are taken here, from what is reported, so that they
 * agree with the hits whatever filter ran (contract §1: counts count what
 * is reported).
 */
#include "sites.h"

#include <stdlib.h>

static int site_cmp(const void *a, const void *b)
{
    const gs_hit *x = a, *y = b;
    if (x->record != y->record)
        return x->record < y->record ? -1 : 1;
    if (x->pattern != y->pattern)
        return x->pattern < y->pattern ? -1 : 1;
    if (x->strand != y->strand)
        return x->strand > y->strand ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return 0;
}

/* Whether x represents a site better than y. */
static int better(const gs_hit *x, const gs_hit *y)
{
    if (x->distance != y->distance)
        return x->distance < y->distance;
    if (x->start != y->start)
        return x->start < y->start;
    return x->end < y->end;
}

void gs_hits_best_per_site(gs_hits *h)
{
    if (h->n < 2)
        return;
    qsort(h->v, h->n, sizeof *h->v, site_cmp);
    size_t w = 0;
    for (size_t i = 0; i < h->n;) {
        gs_hit best = h->v[i];
        uint64_t reach = h->v[i].end;
        size_t j = i + 1;
        for (; j < h->n; j++) {
            const gs_hit *x = &h->v[j];
            if (x->record != best.record || x->pattern != best.pattern ||
                x->strand != best.strand || x->start >= reach)
                break;
            if (x->end > reach)
                reach = x->end;
            if (better(x, &best))
                best = *x;
        }
        h->v[w++] = best;
        i = j;
    }
    h->n = w;
    qsort(h->v, h->n, sizeof *h->v, gs_hit_cmp);
}

void gs_hits_count(const gs_hits *h, int n_strands, uint64_t *counts)
{
    for (size_t i = 0; i < h->n; i++)
        counts[(size_t)h->v[i].pattern * (size_t)n_strands +
               (n_strands == 2 && h->v[i].strand < 0 ? 1 : 0)]++;
}
