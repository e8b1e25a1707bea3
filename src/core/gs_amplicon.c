/* gs_amplicon.c - the products of primer pairs from their binding sites
 * (see gs_amplicon.h).
 *
 * Per record: the reverse sites sorted by (primer, end), so that for each
 * forward site of X and each primer Y that X pairs with, the sites of Y
 * whose end lies in the window are one binary search and a run. Which
 * (pair, kind) a combination (X, Y) stands for is a table of roles built
 * once, so a primer used by several pairs costs one search per partner,
 * not one per pair.
 */
#include "gs_amplicon.h"

#include <stdlib.h>
#include <string.h>

const char *const gs_amp_kind_names[GS_AMP_N_KINDS] = {"forward", "revcomp", "single_A",
                                                       "single_B"};

int gs_amplicon_cmp(const void *a, const void *b)
{
    const gs_amplicon *x = a, *y = b;
    if (x->record != y->record)
        return x->record < y->record ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    if (x->pair != y->pair)
        return x->pair < y->pair ? -1 : 1;
    return (x->kind > y->kind) - (x->kind < y->kind);
}

/* (X, Y) stands for (pair, kind): sorted by (x, y, pair, kind). */
typedef struct role {
    uint32_t x, y, pair;
    uint8_t kind;
} role;

static int role_cmp(const void *a, const void *b)
{
    const role *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    if (p->pair != q->pair)
        return p->pair < q->pair ? -1 : 1;
    return (p->kind > q->kind) - (p->kind < q->kind);
}

/* A reverse site, possibly one turn later. */
typedef struct rsite {
    uint64_t t, e;
    uint32_t primer;
    uint8_t dist;
} rsite;

static int rsite_cmp(const void *a, const void *b)
{
    const rsite *p = a, *q = b;
    if (p->primer != q->primer)
        return p->primer < q->primer ? -1 : 1;
    return (p->e > q->e) - (p->e < q->e);
}

typedef struct finder {
    const gs_pcr_pair *pairs;
    role *roles;          /* 4 per pair, sorted */
    size_t n_roles;
    size_t *role_of;      /* [n_primers + 1]: roles of primer x start at role_of[x] */
    rsite *rs;            /* one record's reverse sites, sorted */
    size_t n_rs, cap_rs;
    size_t *rs_of;        /* [n_primers + 1]: sites of primer y start at rs_of[y] */
    uint32_t n_primers;
    gs_amplicons *out;
} finder;

static gs_status build_roles(finder *f, size_t n_pairs, gs_error *err)
{
    f->roles = gs_malloc((4 * n_pairs + 1) * sizeof *f->roles, err, "primer pairs");
    f->role_of = gs_calloc(f->n_primers + 2, sizeof *f->role_of, err, "primer pairs");
    f->rs_of = gs_calloc(f->n_primers + 2, sizeof *f->rs_of, err, "primer pairs");
    if (f->roles == NULL || f->role_of == NULL || f->rs_of == NULL)
        return GS_ESYS;
    for (size_t p = 0; p < n_pairs; p++) {
        uint32_t a = f->pairs[p].a, b = f->pairs[p].b, pp = (uint32_t)p;
        if (a >= f->n_primers || b >= f->n_primers)
            return gs_fail(err, GS_ESYS, "primer pair %zu names primer ids out of range", p);
        f->roles[f->n_roles++] = (role){a, b, pp, GS_AMP_FORWARD};
        f->roles[f->n_roles++] = (role){b, a, pp, GS_AMP_REVCOMP};
        f->roles[f->n_roles++] = (role){a, a, pp, GS_AMP_SINGLE_A};
        f->roles[f->n_roles++] = (role){b, b, pp, GS_AMP_SINGLE_B};
    }
    qsort(f->roles, f->n_roles, sizeof *f->roles, role_cmp);
    for (size_t i = 0; i < f->n_roles; i++)
        f->role_of[f->roles[i].x + 1]++;
    for (uint32_t x = 0; x < f->n_primers; x++)
        f->role_of[x + 1] += f->role_of[x];
    return GS_OK;
}

/* The reverse sites of h[0 .. n) (one record), and one turn later when the
 * record is circular (L > 0), sorted by (primer, end). */
static gs_status collect_reverse(finder *f, const gs_hit *h, size_t n, uint64_t L, gs_error *err)
{
    f->n_rs = 0;
    for (size_t i = 0; i < n; i++) {
        if (h[i].strand >= 0)
            continue;
        for (int turn = 0; turn < (L ? 2 : 1); turn++) {
            if (gs_grow(&f->rs, &f->cap_rs, f->n_rs, sizeof *f->rs, 256) != GS_OK)
                return gs_fail(err, GS_ESYS, "out of memory (reverse primer sites)");
            uint64_t shift = turn ? L : 0;
            f->rs[f->n_rs++] = (rsite){h[i].start + shift, h[i].end + shift, h[i].pattern,
                                       h[i].distance};
        }
    }
    if (f->n_rs)
        qsort(f->rs, f->n_rs, sizeof *f->rs, rsite_cmp);
    memset(f->rs_of, 0, (f->n_primers + 2) * sizeof *f->rs_of);
    for (size_t i = 0; i < f->n_rs; i++)
        f->rs_of[f->rs[i].primer + 1]++;
    for (uint32_t y = 0; y < f->n_primers; y++)
        f->rs_of[y + 1] += f->rs_of[y];
    return GS_OK;
}

/* The first site in rs[lo, hi) whose end is >= e. */
static size_t first_end(const rsite *rs, size_t lo, size_t hi, uint64_t e)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rs[mid].e < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The products whose forward site is fw (in record r, of length L when
 * circular, else L = 0). */
static gs_status pair_site(finder *f, const gs_hit *fw, uint64_t L, gs_error *err)
{
    const uint64_t s = fw->start;
    for (size_t i = f->role_of[fw->pattern]; i < f->role_of[fw->pattern + 1];) {
        uint32_t y = f->roles[i].y;
        size_t i_end = i;
        uint64_t lo_e = UINT64_MAX, hi_e = 0; /* the widest window of y's roles */
        for (; i_end < f->role_of[fw->pattern + 1] && f->roles[i_end].y == y; i_end++) {
            const gs_pcr_pair *p = &f->pairs[f->roles[i_end].pair];
            lo_e = s + p->min < lo_e ? s + p->min : lo_e;
            hi_e = s + p->max > hi_e ? s + p->max : hi_e;
        }
        size_t end_y = f->rs_of[y + 1];
        for (size_t k = first_end(f->rs, f->rs_of[y], end_y, lo_e);
             k < end_y && f->rs[k].e <= hi_e; k++) {
            const rsite *rv = &f->rs[k];
            uint64_t size = rv->e - s;
            if (rv->t < s || (L && size > L))
                continue;
            for (size_t q = i; q < i_end; q++) {
                const gs_pcr_pair *p = &f->pairs[f->roles[q].pair];
                if (size < p->min || size > p->max)
                    continue;
                if (gs_grow(&f->out->v, &f->out->cap, f->out->n, sizeof *f->out->v, 1024) != GS_OK)
                    return gs_fail(err, GS_ESYS, "out of memory (%zu PCR products)", f->out->n);
                f->out->v[f->out->n++] = (gs_amplicon){
                    .start = s, .end = rv->e, .record = fw->record, .pair = f->roles[q].pair,
                    .kind = f->roles[q].kind, .mismatches_5 = fw->distance,
                    .mismatches_3 = rv->dist};
            }
        }
        i = i_end;
    }
    return GS_OK;
}

gs_status gs_amplicons_find(const gs_hit *h, size_t n, const gs_pcr_pair *pairs, size_t n_pairs,
                            uint32_t n_primers, const uint64_t *len, gs_amplicons *out,
                            gs_error *err)
{
    finder f = {.pairs = pairs, .n_primers = n_primers, .out = out};
    size_t first = out->n;
    if (build_roles(&f, n_pairs, err) != GS_OK)
        goto done;
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo; hi < n && h[hi].record == h[lo].record; hi++)
            if (h[hi].pattern >= n_primers) {
                gs_fail(err, GS_ESYS, "primer site of pattern %u out of range", h[hi].pattern);
                goto done;
            }
        uint64_t L = len ? len[h[lo].record] : 0;
        if (collect_reverse(&f, h + lo, hi - lo, L, err) != GS_OK)
            goto done;
        for (size_t i = lo; i < hi; i++)
            if (h[i].strand > 0 && pair_site(&f, &h[i], L, err) != GS_OK)
                goto done;
    }
    if (out->n > first)
        qsort(out->v + first, out->n - first, sizeof *out->v, gs_amplicon_cmp);
done:
    free(f.roles);
    free(f.role_of);
    free(f.rs);
    free(f.rs_of);
    return err->code;
}

gs_status gs_amplicons_as_hits(const gs_amplicons *a, gs_hit **h, gs_error *err)
{
    *h = gs_malloc((a->n ? a->n : 1) * sizeof **h, err, "PCR products");
    if (*h == NULL)
        return GS_ESYS;
    for (size_t i = 0; i < a->n; i++) {
        unsigned d = (unsigned)a->v[i].mismatches_5 + a->v[i].mismatches_3;
        (*h)[i] = (gs_hit){.start = a->v[i].start, .end = a->v[i].end, .record = a->v[i].record,
                           .pattern = a->v[i].pair, .strand = 1,
                           .distance = (uint8_t)(d > 255 ? 255 : d)};
    }
    return GS_OK;
}

void gs_amplicons_free(gs_amplicons *a)
{
    free(a->v);
    memset(a, 0, sizeof *a);
}
