/* h5_hits.c - the /hits group: one dataset per hit attribute (the column
 * table below), every rank's hits at the offset MPI_Exscan gives it.
 *
 * From an array (the rank's hits in memory) the columns go through one
 * write: the direct writer on one rank, pieces of collective writes on
 * several. When any rank's hits come from a stream instead (hits beyond
 * --max-memory, merged from spilled runs: core/gs_spill.h), every rank
 * writes a piece (one chunk of rows, 8 MiB of records) at a time as its
 * stream gives it, each piece checked as check_hits checks an array, so
 * no rank holds more than a piece of its hits while writing.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "core/gs_result.h"
#include "h5_write.h"

/* The hit columns share one row count per chunk so a reader streaming rows
 * touches whole chunks in all of them. */
enum { HIT_CHUNK_ROWS = 1 << 18 };

int gs_h5w_hit_ok(const gs_hit *h, const gs_h5w_hits_meta *m)
{
    return h->pattern < m->n_pat && h->record < m->n_rec && (h->strand == 1 || h->strand == -1)
           && !(h->strand == -1 && m->n_strands == 1);
}

/* The hit columns: one row per /hits dataset, read out of gs_hit by offset,
 * so a new attribute of a hit is one line here. */
enum { T_U8, T_I8, T_U32, T_U64 };
static const struct hit_col {
    const char *name;
    int type;      /* T_* */
    size_t offset; /* in gs_hit */
    int approx;    /* written in the approximate modes only */
} hit_cols[] = {
    {"/hits/pattern", T_U32, offsetof(gs_hit, pattern), 0},
    {"/hits/record", T_U32, offsetof(gs_hit, record), 0},
    {"/hits/start", T_U64, offsetof(gs_hit, start), 0},
    {"/hits/strand", T_I8, offsetof(gs_hit, strand), 0},
    {"/hits/distance", T_U8, offsetof(gs_hit, distance), 1},
    {"/hits/end", T_U64, offsetof(gs_hit, end), 1},
};

typedef struct hit_src {
    const gs_hit *hits;
    size_t offset;
} hit_src;

/* A constant width makes each copy one load and one store (a call to
 * memcpy per hit with the width a variable). */
#define GATHER(W)                                                                                 \
    for (size_t i = 0; i < n; i++)                                                                \
        memcpy(out + i * (W), (const char *)&h->hits[from + i] + h->offset, (W));
static void fill_hit_col(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    const hit_src *h = src;
    char *out = buf;
    switch (width) {
    case 1: GATHER(1) break;
    case 4: GATHER(4) break;
    case 8: GATHER(8) break;
    default: GATHER(width) break;
    }
}

static int stream_any(wctx *w, const gs_result *res)
{
    int mine = res->hit_stream != NULL, any = 0;
    GS_MPI_CHECK(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, w->comm));
    return any;
}

/* The piece being written: the stream's next hits, checked as check_hits
 * checks an array (ids in range, in order, the last of the previous piece
 * included). */
typedef struct hit_pull {
    const gs_result *res;
    const gs_h5w_hits_meta *m;
    wctx *w;
    gs_hit *win;
    uint64_t done;
    gs_hit last;
} hit_pull;

static gs_status pull_hits(void *ctx, size_t cnt, gs_error *err)
{
    hit_pull *p = ctx;
    const gs_hit_source *s = p->res->hit_stream;
    for (size_t got = 0, n = 0; got < cnt; got += n) {
        if (s->next(s->ctx, p->win + got, cnt - got, &n, err) != GS_OK)
            return err->code;
        if (n == 0)
            return gs_fail(err, GS_ESYS, "invalid result: hits end early on rank %d (%s)",
                           p->w->rank, p->w->path);
    }
    for (size_t i = 0; i < cnt; i++, p->done++) {
        const gs_hit *h = &p->win[i];
        if (!gs_h5w_hit_ok(h, p->m) || (p->done > 0 && gs_hit_cmp(&p->last, h) > 0))
            return gs_fail(err, GS_ESYS, "invalid or unordered hit %" PRIu64 " on rank %d (%s)",
                           p->done, p->w->rank, p->w->path);
        p->last = *h;
    }
    return GS_OK;
}

/* Every rank writes its hits a piece at a time (one chunk of rows, 8 MiB
 * of records) as its stream gives them; a rank without a stream reads its
 * array the same way. */
static gs_status write_hit_stream(wctx *w, const gs_result *res, const gs_h5w_hits_meta *m,
                                  dspec *d, hit_src *src, int nc, uint64_t off, hsize_t chunk)
{
    gs_hit_array_src arr;
    gs_hit_source own = gs_hit_array_source(&arr, res->hits, res->hits ? res->n_hits : 0);
    gs_result r = *res;
    if (r.hit_stream == NULL)
        r.hit_stream = &own;
    uint64_t piece = chunk; /* HIT_CHUNK_ROWS records: 8 MiB */
    hit_pull p = {&r, m, w, NULL, 0, {0}};
    if (res->n_hits > 0 && piece > 0)
        p.win = gs_malloc((size_t)(res->n_hits < piece ? res->n_hits : piece) * sizeof *p.win,
                          &w->e, "hits being written");
    for (int c = 0; c < nc; c++)
        src[c].hits = p.win;
    gs_status st = gs_h5w_stream(w, d, nc, off, res->n_hits, piece, pull_hits, &p);
    free(p.win);
    return st;
}

gs_status gs_h5w_hits(wctx *w, const gs_result *res, const gs_h5w_hits_meta *m)
{
    uint64_t n = res->n_hits, off = 0, total = 0;
    GS_MPI_CHECK(MPI_Exscan(&n, &off, 1, MPI_UINT64_T, MPI_SUM, w->comm));
    if (w->rank == 0)
        off = 0; /* MPI_Exscan leaves rank 0's result undefined */
    GS_MPI_CHECK(MPI_Allreduce(&n, &total, 1, MPI_UINT64_T, MPI_SUM, w->comm));
    if (gs_h5w_group(w, "/hits") != GS_OK)
        return w->e.code;
    hsize_t chunk = total < HIT_CHUNK_ROWS ? total : HIT_CHUNK_ROWS;
    enum { N_COLS = sizeof hit_cols / sizeof *hit_cols };
    dspec d[N_COLS];
    hit_src src[N_COLS];
    int nc = 0;
    for (size_t c = 0; c < N_COLS; c++) {
        const struct hit_col *hc = &hit_cols[c];
        if (hc->approx && !m->approx)
            continue;
        const hid_t ft[] = {H5T_STD_U8LE, H5T_STD_I8LE, H5T_STD_U32LE, H5T_STD_U64LE};
        const hid_t mt[] = {H5T_NATIVE_UINT8, H5T_NATIVE_INT8, H5T_NATIVE_UINT32, H5T_NATIVE_UINT64};
        const size_t bytes[] = {1, 1, 4, 8};
        src[nc] = (hit_src){res->hits, hc->offset};
        d[nc] = (dspec){hc->name, ft[hc->type], mt[hc->type], bytes[hc->type], 0, total, chunk,
                        bytes[hc->type] > 1, fill_hit_col, &src[nc]};
        nc++;
    }
    if (stream_any(w, res))
        return write_hit_stream(w, res, m, d, src, nc, off, chunk);
    if (w->size == 1 && total > 0) /* every column through one pipeline */
        return gs_h5w_direct(w, d, nc);
    for (int c = 0; c < nc; c++)
        if (gs_h5w_dset(w, &d[c], off, n) != GS_OK)
            return w->e.code;
    return GS_OK;
}

