/* gs_types.c - the DNA code table, hit order and the hit vector. */
#include "gs_types.h"
#include "gs_parallel.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define N4 GS_NONBASE
#define ROW16 N4, N4, N4, N4, N4, N4, N4, N4, N4, N4, N4, N4, N4, N4, N4, N4
const uint8_t gs_dna_code[256] = {
    ROW16, ROW16, ROW16, ROW16,
    /* 0x40 @ A B C D E F G H I J K L M N O */
    N4, 0, N4, 1, N4, N4, N4, 2, N4, N4, N4, N4, N4, N4, N4, N4,
    /* 0x50 P Q R S T U ... */
    N4, N4, N4, N4, 3, N4, N4, N4, N4, N4, N4, N4, N4, N4, N4, N4,
    /* 0x60 ` a b c d e f g ... */
    N4, 0, N4, 1, N4, N4, N4, 2, N4, N4, N4, N4, N4, N4, N4, N4,
    N4, N4, N4, N4, 3, N4, N4, N4, N4, N4, N4, N4, N4, N4, N4, N4,
    ROW16, ROW16, ROW16, ROW16, ROW16, ROW16, ROW16, ROW16,
};

const char *gs_match_mode_name(gs_match_mode m)
{
    return m == GS_MATCH_MISMATCHES ? "mismatches" : m == GS_MATCH_EDITS ? "edits" : "exact";
}

int gs_hit_cmp(const void *a, const void *b)
{
    const gs_hit *x = a, *y = b;
    if (x->record != y->record)
        return x->record < y->record ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->strand != y->strand) /* forward (+1) before reverse (-1) */
        return x->strand > y->strand ? -1 : 1;
    if (x->pattern != y->pattern)
        return x->pattern < y->pattern ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return 0;
}

gs_status gs_grow(void *vp, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n < *cap)
        return GS_OK;
    size_t c = *cap ? *cap : first;
    while (c <= n)
        c *= 2;
    void *old, *v;
    memcpy(&old, vp, sizeof old); /* the caller's T*, read and written as bytes */
    if ((v = realloc(old, c * elem)) == NULL)
        return GS_ESYS;
    memcpy(vp, &v, sizeof v);
    *cap = c;
    return GS_OK;
}

gs_status gs_hits_push(gs_hits *h, const gs_hit *hit)
{
    if (gs_grow(&h->v, &h->cap, h->n, sizeof *h->v, 1024) != GS_OK)
        return GS_ESYS;
    h->v[h->n++] = *hit;
    return GS_OK;
}

void gs_hits_free(gs_hits *h)
{
    free(h->v);
    h->v = NULL;
    h->n = h->cap = 0;
}

void gs_layout_free(gs_layout *l)
{
    for (size_t i = 0; l->names == NULL && i < l->n_rec; i++)
        free(l->rec[i].name);
    free(l->names);
    free(l->rec);
    for (size_t i = 0; i < l->n_files; i++)
        free(l->files[i]);
    free(l->files);
    l->rec = NULL;
    l->files = NULL;
    l->names = NULL;
    l->n_rec = l->cap_rec = l->n_files = l->names_len = 0;
}

typedef struct layout_slice {
    const gs_record *rec;
    size_t from, to;
    int names;
    gs_layout_stats st;
} layout_slice;

static void *scan_slice(void *arg)
{
    layout_slice *s = arg;
    for (size_t r = s->from; r < s->to; r++) {
        const size_t n = s->names && s->rec[r].name ? strlen(s->rec[r].name) : 0;
        s->st.residues += s->rec[r].length;
        s->st.name_max = n > s->st.name_max ? n : s->st.name_max;
    }
    return NULL;
}

gs_layout_stats gs_layout_scan(const gs_layout *l, int threads, int names)
{
    enum { RECS_A_THREAD = 1 << 20 }; /* below this a thread costs more than it saves */
    layout_slice sl[GS_PARALLEL_MAX];
    const int nt = gs_parallel_threads(threads, l->n_rec / RECS_A_THREAD + 1);
    for (int t = 0; t < nt; t++)
        sl[t] = (layout_slice){l->rec, l->n_rec * (size_t)t / (size_t)nt,
                               l->n_rec * (size_t)(t + 1) / (size_t)nt, names, {0, 0}};
    gs_run_parallel(scan_slice, sl, sizeof *sl, nt);
    gs_layout_stats st = {0, 0};
    for (int t = 0; t < nt; t++) {
        st.residues += sl[t].st.residues;
        st.name_max = sl[t].st.name_max > st.name_max ? sl[t].st.name_max : st.name_max;
    }
    return st;
}

void gs_layout_point_names(gs_layout *l)
{
    char *p = l->names;
    for (size_t i = 0; i < l->n_rec; i++) {
        l->rec[i].name = p;
        p += strlen(p) + 1;
    }
}

gs_status gs_raw_stale(gs_error *err, const char *record, const char *path, uint64_t residue,
                       int line_end)
{
    if (line_end)
        return gs_fail(err, GS_EINPUT,
                       "stale index: record %s has no line end after residue %" PRIu64 " (%s.fai)",
                       record, residue, path);
    return gs_fail(err, GS_EINPUT,
                   "stale index: record %s has a line end, blank or header where residue %" PRIu64
                   " should be (%s.fai)",
                   record, residue, path);
}
