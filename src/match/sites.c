/* sites.c - --best-per-site and counts taken from the reported hits.
 *
 * Hits come in contract §3 order, in which each (pattern, strand)'s hits
 * are in (record, start, end) order: its sites are runs of them, each
 * closed by the first hit that starts at or past the run's largest end. So
 * one pass keeps an open site per pattern and strand, whether the hits are
 * an array or a stream read a chunk at a time; the winners come out in the
 * order their sites close and go back to contract §3 order with a merge of
 * their ascending runs. Counts of the approximate modes are taken here,
 * from what is reported, so that they agree with the hits whatever filter
 * ran (contract §1: counts count what is reported).
 */
#include "sites.h"

#include "core/gs_hitsort.h"
#include "core/gs_parallel.h"

#include <stdlib.h>

/* Whether x represents a site better than y. */
static int better(const gs_hit *x, const gs_hit *y)
{
    if (x->distance != y->distance)
        return x->distance < y->distance;
    if (x->start != y->start)
        return x->start < y->start;
    return x->end < y->end;
}

gs_status gs_sites_init(gs_sites *s, uint32_t n_patterns, gs_error *err)
{
    s->n_patterns = n_patterns;
    s->v = gs_calloc((size_t)n_patterns * 2 + 1, sizeof *s->v, err, "the sites of hits");
    return s->v ? GS_OK : GS_ESYS;
}

int gs_sites_add(gs_sites *s, const gs_hit *h, gs_hit *won)
{
    const gs_hit x = *h;
    gs_site *site = &s->v[(size_t)x.pattern * 2 + (x.strand < 0)];
    if (site->open && x.record == site->best.record && x.start < site->reach) {
        if (x.end > site->reach)
            site->reach = x.end;
        if (better(&x, &site->best))
            site->best = x;
        return 0;
    }
    const int closed = site->open;
    if (closed)
        *won = site->best;
    *site = (gs_site){.best = x, .reach = x.end, .open = 1};
    return closed;
}

size_t gs_sites_end(gs_sites *s, gs_hit *out)
{
    size_t n = 0;
    for (size_t e = 0; e < (size_t)s->n_patterns * 2; e++)
        if (s->v[e].open) {
            out[n++] = s->v[e].best;
            s->v[e].open = 0;
        }
    return n;
}

void gs_sites_free(gs_sites *s)
{
    free(s->v);
    s->v = NULL;
}

/* The winners are written over the hits already read: a site closes only
 * after its hits are read, so no more winners than hits read precede the
 * next hit. */
gs_status gs_hits_best_per_site(gs_hits *h, uint32_t n_patterns, gs_error *err)
{
    gs_sites s;
    if (h->n < 2 || gs_sites_init(&s, n_patterns, err) != GS_OK)
        return err->code;
    size_t w = 0;
    for (size_t i = 0; i < h->n; i++)
        w += (size_t)gs_sites_add(&s, &h->v[i], &h->v[w]);
    h->n = w + gs_sites_end(&s, h->v + w);
    gs_sites_free(&s);
    gs_hits_order(h);
    return GS_OK;
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
