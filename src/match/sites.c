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

#include "core/gs_parallel.h"

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

typedef struct count_share {
    const gs_hit *v;
    size_t n;
    int n_strands;
    uint64_t *counts;
} count_share;

static void *count_run(void *arg)
{
    count_share *c = arg;
    for (size_t i = 0; i < c->n; i++)
        c->counts[(size_t)c->v[i].pattern * (size_t)c->n_strands +
                  (c->n_strands == 2 && c->v[i].strand < 0 ? 1 : 0)]++;
    return NULL;
}

void gs_hits_count(const gs_hits *h, int n_strands, size_t n_counts, uint64_t *counts,
                  int threads)
{
    /* a share of fewer than 4 hits per count costs more to sum than to count */
    size_t most = h->n / (4 * (n_counts ? n_counts : 1));
    int t = gs_parallel_threads(threads, most);
    count_share sh[GS_PARALLEL_MAX];
    uint64_t *own = t > 1 ? calloc((size_t)(t - 1) * n_counts, sizeof *own) : NULL;
    if (t > 1 && own == NULL)
        t = 1; /* counted on this thread alone */
    for (int i = 0; i < t; i++)
        sh[i] = (count_share){.v = h->v + h->n * i / t, .n = h->n * (i + 1) / t - h->n * i / t,
                              .n_strands = n_strands,
                              .counts = i == 0 ? counts : own + (size_t)(i - 1) * n_counts};
    gs_run_parallel(count_run, sh, sizeof *sh, t);
    for (int i = 1; i < t; i++)
        for (size_t k = 0; k < n_counts; k++)
            counts[k] += sh[i].counts[k];
    free(own);
}
