/* layout_names.c - records that repeat an earlier record's name
 * (gs_layout_dup_names, fasta.h), for every reader's layout.
 */
#include "fasta.h"

#include "core/gs_parallel.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a: names are short words, so hashing is cheap next to the table's
 * cache misses. */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3u;
    return h;
}

/* The check is split by name: a name's hash picks its bucket (its top
 * bits), every bucket holds its records in record order, and each bucket is
 * one pass in record order over an open-addressing table small enough to
 * stay in cache (a table of 34 M EST names took seconds of cache misses;
 * a sort of them cost more than the rest of the layout). Each slot holds a
 * name's hash (high 32 bits) and its first record + 1 (low 32 bits, record
 * ids are 32-bit). A bucket's first record found in its table is its
 * smallest b, the slot gives its a; the answer is the smallest over the
 * buckets. Threads take record ranges to bucket them, then buckets. */
typedef struct dup_task {
    const gs_layout *l;
    int t, n, bits;
    size_t nb;
    uint64_t *at;     /* [n x nb]: counts of (range, bucket), then where the next goes */
    uint32_t *idx;    /* every named record, bucket by bucket */
    const uint64_t *bucket0; /* [nb + 1]: where each bucket starts in idx */
    int phase;        /* 0 count, 1 place, 2 check */
    size_t dups, a, b;
    gs_status st;
} dup_task;

static size_t bucket_of(uint64_t h, int bits)
{
    return bits ? (size_t)(h >> (64 - bits)) : 0;
}

static void bucket_records(dup_task *d)
{
    const size_t n = d->l->n_rec, lo = n * (size_t)d->t / (size_t)d->n,
                 hi = n * (size_t)(d->t + 1) / (size_t)d->n;
    uint64_t *at = d->at + (size_t)d->t * d->nb;
    for (size_t i = lo; i < hi; i++) {
        const char *name = d->l->rec[i].name;
        if (name[0] == 0) /* no name (FASTQ reads when names are not kept) */
            continue;
        size_t k = bucket_of(name_hash(name), d->bits);
        if (d->phase == 0)
            at[k]++;
        else
            d->idx[at[k]++] = (uint32_t)i;
    }
}

static void check_buckets(dup_task *d)
{
    uint64_t *slot = NULL;
    size_t have = 0;
    d->b = SIZE_MAX;
    for (size_t k = (size_t)d->t; k < d->nb; k += (size_t)d->n) {
        const uint32_t *v = d->idx + d->bucket0[k];
        const size_t m = d->bucket0[k + 1] - d->bucket0[k];
        size_t cap = 64;
        while (cap < m + m / 2)
            cap *= 2;
        if (cap > have) {
            free(slot);
            have = 0;
            if ((slot = malloc(cap * sizeof *slot)) == NULL) {
                d->st = GS_ESYS;
                return;
            }
            have = cap;
        }
        memset(slot, 0, cap * sizeof *slot);
        for (size_t j = 0; j < m; j++) {
            const char *name = d->l->rec[v[j]].name;
            uint64_t h = name_hash(name), tag = h >> 32 << 32;
            for (size_t s = (size_t)h & (cap - 1);; s = (s + 1) & (cap - 1)) {
                if (slot[s] == 0) {
                    slot[s] = tag | (v[j] + 1u);
                    break;
                }
                size_t first = (size_t)(slot[s] & UINT32_MAX) - 1;
                if ((slot[s] >> 32 << 32) == tag && strcmp(d->l->rec[first].name, name) == 0) {
                    if (d->dups++ == 0 || v[j] < d->b)
                        d->a = first, d->b = v[j];
                    break;
                }
            }
        }
    }
    free(slot);
}

static void *dup_main(void *arg)
{
    dup_task *d = arg;
    if (d->phase < 2)
        bucket_records(d);
    else
        check_buckets(d);
    return NULL;
}

/* Run phase `phase` of the check on nt threads. */
static void dup_phase(dup_task *d, int nt, int phase, uint32_t *idx)
{
    for (int t = 0; t < nt; t++) {
        d[t].phase = phase;
        d[t].idx = idx;
    }
    gs_run_parallel(dup_main, d, sizeof *d, nt);
}

gs_status gs_layout_dup_names(const gs_layout *l, int threads, size_t *n, size_t *a, size_t *b,
                              gs_error *err)
{
    *n = *a = *b = 0;
    if (l->n_rec < 2 || l->n_rec >= UINT32_MAX)
        return GS_OK;
    int nt = gs_parallel_threads(threads, l->n_rec / 65536 + 1), bits = 0;
    while (bits < 12 && ((size_t)1 << bits) * 32768 < l->n_rec)
        bits++;
    const size_t nb = (size_t)1 << bits;
    dup_task d[GS_PARALLEL_MAX];
    uint64_t *at = gs_calloc((size_t)nt * nb + nb + 1, sizeof *at, err, "record names");
    if (at == NULL)
        return GS_ESYS;
    uint64_t *bucket0 = at + (size_t)nt * nb;
    for (int t = 0; t < nt; t++)
        d[t] = (dup_task){.l = l, .t = t, .n = nt, .bits = bits, .nb = nb, .at = at,
                          .bucket0 = bucket0};
    dup_phase(d, nt, 0, NULL);
    gs_bucket_starts(at, nt, nb, bucket0); /* counts of (range, bucket) -> where each goes */
    const size_t named = (size_t)bucket0[nb];
    uint32_t *idx = NULL;
    gs_status st = GS_OK;
    if (named >= 2) { /* 100 M nameless reads need no table */
        if ((idx = gs_malloc(named * sizeof *idx, err, "record names")) == NULL)
            st = GS_ESYS;
        if (st == GS_OK) {
            dup_phase(d, nt, 1, idx);
            dup_phase(d, nt, 2, idx);
        }
        for (int t = 0; st == GS_OK && t < nt; t++) {
            if (d[t].st != GS_OK)
                st = gs_fail(err, GS_ESYS, "out of memory (record names)");
            else if (d[t].dups && (*n == 0 || d[t].b < *b))
                *a = d[t].a, *b = d[t].b;
            *n += d[t].dups;
        }
    }
    free(at);
    free(idx);
    return st;
}
