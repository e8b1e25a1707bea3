/* gs_hitmerge.c - the k-way merge of sorted hit streams (see gs_hitmerge.h).
 *
 * A binary heap of source indices keyed by each source's current hit:
 * log2(k) comparisons a hit, and one refill call a buffer, so the merge of
 * a few dozen spilled runs costs about what writing them did.
 */
#include "gs_hitmerge.h"

#include <stdlib.h>
#include <string.h>

static gs_status array_next(void *ctx, gs_hit *buf, size_t cap, size_t *n, gs_error *err)
{
    (void)err;
    gs_hit_array_src *a = ctx;
    size_t m = a->n - a->at < cap ? a->n - a->at : cap;
    if (m > 0)
        memcpy(buf, a->v + a->at, m * sizeof *buf);
    a->at += m;
    *n = m;
    return GS_OK;
}

gs_hit_source gs_hit_array_source(gs_hit_array_src *a, const gs_hit *v, size_t n)
{
    *a = (gs_hit_array_src){v, n, 0};
    return (gs_hit_source){array_next, a};
}

typedef struct cursor {
    gs_hit_source src;
    gs_hit *buf;
    size_t n, at;
} cursor;

struct gs_hit_merge {
    cursor *c;
    size_t k, buf;
    size_t *heap, n_heap;
    int started;
};

/* Source i before source j: its head is smaller, or equal and i < j. */
static int before(const gs_hit_merge *m, size_t i, size_t j)
{
    int c = gs_hit_cmp(&m->c[i].buf[m->c[i].at], &m->c[j].buf[m->c[j].at]);
    return c < 0 || (c == 0 && i < j);
}

static void sift_down(gs_hit_merge *m, size_t p)
{
    for (;;) {
        size_t l = 2 * p + 1, r = l + 1, s = p;
        if (l < m->n_heap && before(m, m->heap[l], m->heap[s]))
            s = l;
        if (r < m->n_heap && before(m, m->heap[r], m->heap[s]))
            s = r;
        if (s == p)
            return;
        size_t t = m->heap[p];
        m->heap[p] = m->heap[s];
        m->heap[s] = t;
        p = s;
    }
}

/* Refill cursor i; *live 0 when it has ended. */
static gs_status refill(gs_hit_merge *m, size_t i, int *live, gs_error *err)
{
    cursor *c = &m->c[i];
    c->at = 0;
    *live = 0;
    if (c->src.next(c->src.ctx, c->buf, m->buf, &c->n, err) != GS_OK)
        return err->code;
    *live = c->n > 0;
    return GS_OK;
}

gs_status gs_hit_merge_open(const gs_hit_source *src, size_t k, size_t buf, gs_hit_merge **out,
                            gs_error *err)
{
    gs_hit_merge *m = gs_calloc(1, sizeof *m, err, "the merge of hit runs");
    *out = NULL;
    if (m == NULL)
        return GS_ESYS;
    m->k = k;
    m->buf = buf ? buf : 1;
    m->c = gs_calloc(k ? k : 1, sizeof *m->c, err, "the merge of hit runs");
    m->heap = gs_calloc(k ? k : 1, sizeof *m->heap, err, "the merge of hit runs");
    for (size_t i = 0; m->c && m->heap && i < k; i++) {
        m->c[i].src = src[i];
        if ((m->c[i].buf = gs_malloc(m->buf * sizeof(gs_hit), err, "the merge of hit runs")) == NULL)
            break;
    }
    if (err->code != GS_OK) {
        gs_hit_merge_close(m);
        return GS_ESYS;
    }
    *out = m;
    return GS_OK;
}

/* The first fill of every cursor, at the first read (not at open, so a
 * source may be set up after the merge). */
static gs_status start(gs_hit_merge *m, gs_error *err)
{
    m->started = 1;
    for (size_t i = 0; i < m->k; i++) {
        int live;
        if (refill(m, i, &live, err) != GS_OK)
            return err->code;
        if (live)
            m->heap[m->n_heap++] = i;
    }
    for (size_t p = m->n_heap / 2; p-- > 0;)
        sift_down(m, p);
    return GS_OK;
}

gs_status gs_hit_merge_next(void *mv, gs_hit *out, size_t cap, size_t *n, gs_error *err)
{
    gs_hit_merge *m = mv;
    *n = 0;
    if (!m->started && start(m, err) != GS_OK)
        return err->code;
    while (*n < cap && m->n_heap > 0) {
        size_t i = m->heap[0];
        cursor *c = &m->c[i];
        out[(*n)++] = c->buf[c->at++];
        int live = 1;
        if (c->at == c->n && refill(m, i, &live, err) != GS_OK)
            return err->code;
        if (!live)
            m->heap[0] = m->heap[--m->n_heap];
        sift_down(m, 0);
    }
    return GS_OK;
}

gs_hit_source gs_hit_merge_source(gs_hit_merge *m)
{
    return (gs_hit_source){gs_hit_merge_next, m};
}

void gs_hit_merge_close(gs_hit_merge *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; m->c && i < m->k; i++)
        free(m->c[i].buf);
    free(m->c);
    free(m->heap);
    free(m);
}
