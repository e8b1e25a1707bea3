/* layout_join.c - one layout from the layouts of pieces of a corpus read
 * side by side (gs_layout_join, fasta.h): parts of files (parts.c), whole
 * files (files.c).
 */
#include "fasta.h"

#include "core/gs_parallel.h"

#include <stdlib.h>
#include <string.h>

/* One thread of the join: every n-th piece's records and names moved to
 * their place (offsets set before), names re-pointed. */
typedef struct joiner {
    gs_layout *l, *piece;
    const uint32_t *file;
    uint32_t **lens;
    size_t n_pieces;
    size_t *rec_at, *name_at; /* [n_pieces] */
    int t, n;
} joiner;

static void *join_pieces(void *arg)
{
    const joiner *jn = arg;
    for (size_t k = (size_t)jn->t; k < jn->n_pieces; k += (size_t)jn->n) {
        gs_layout *p = &jn->piece[k];
        gs_record *to = jn->l->rec + jn->rec_at[k];
        char *names = jn->l->names + jn->name_at[k];
        if (jn->lens && jn->lens[k]) { /* unnamed records of these lengths */
            memset(names, 0, p->n_rec);
            for (size_t i = 0; i < p->n_rec; i++)
                to[i] = (gs_record){names + i, jn->lens[k][i], jn->file[k]};
            free(jn->lens[k]);
            jn->lens[k] = NULL;
            *p = (gs_layout){0}; /* it holds nothing */
            continue;
        }
        if (p->names_len)
            memcpy(names, p->names, p->names_len);
        for (size_t i = 0; i < p->n_rec; i++) {
            to[i] = p->rec[i];
            to[i].name = names + (p->rec[i].name - p->names);
            if (jn->file)
                to[i].file = jn->file[k];
        }
        gs_layout_free(p);
    }
    return NULL;
}

gs_status gs_layout_join(gs_layout *l, gs_layout *piece, size_t n, const uint32_t *file,
                         uint32_t **lens, int threads, gs_error *err)
{
    size_t recs = 0, names = 0;
    size_t *at = gs_malloc(2 * (n ? n : 1) * sizeof *at, err, "the record table");
    if (at == NULL)
        return GS_ESYS;
    for (size_t k = 0; k < n; k++) {
        at[k] = recs;
        at[n + k] = names;
        recs += piece[k].n_rec;
        names += piece[k].names_len;
    }
    if ((l->rec = gs_malloc((recs ? recs : 1) * sizeof *l->rec, err, "the record table")) == NULL ||
        (l->names = gs_malloc(names ? names : 1, err, "record names")) == NULL) {
        free(at);
        return GS_ESYS;
    }
    l->n_rec = l->cap_rec = recs;
    l->names_len = names;
    joiner jn[GS_PARALLEL_MAX];
    int nt = gs_parallel_threads(threads, n);
    for (int t = 0; t < nt; t++)
        jn[t] = (joiner){l, piece, file, lens, n, at, at + n, t, nt};
    gs_run_parallel(join_pieces, jn, sizeof *jn, nt);
    free(at);
    return GS_OK;
}
