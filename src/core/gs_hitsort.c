/* gs_hitsort.c - radix sort of packed keys, run merging of hits.
 *
 * Why: at 10^8 hits, qsort of gs_hit records through gs_hit_cmp was the
 * largest part of a hits run on the host (it moved every 32-byte record
 * log2(n) times and faulted in a second copy). Producers now hand over
 * sorted runs, so what is left here is linear or nearly so.
 */
#include "gs_hitsort.h"

#include <stdlib.h>
#include <string.h>

enum { DIGIT = 11, BUCKETS = 1 << DIGIT };

void gs_radix_sort_u64(uint64_t *a, uint64_t *tmp, size_t n, int bits)
{
    uint64_t *src = a, *dst = tmp;
    size_t cnt[BUCKETS];
    for (int shift = 0; shift < bits && n > 1; shift += DIGIT) {
        memset(cnt, 0, sizeof cnt);
        for (size_t i = 0; i < n; i++)
            cnt[(src[i] >> shift) & (BUCKETS - 1)]++;
        if (cnt[(src[0] >> shift) & (BUCKETS - 1)] == n)
            continue; /* one digit value: this pass would move nothing */
        size_t sum = 0;
        for (int d = 0; d < BUCKETS; d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[cnt[(src[i] >> shift) & (BUCKETS - 1)]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

/* gs_hit_cmp(x, y) > 0, inlined for the merge loop. */
static inline int after(const gs_hit *x, const gs_hit *y)
{
    if (x->record != y->record)
        return x->record > y->record;
    if (x->start != y->start)
        return x->start > y->start;
    if (x->strand != y->strand)
        return x->strand < y->strand;
    if (x->pattern != y->pattern)
        return x->pattern > y->pattern;
    return x->end > y->end;
}

/* Merge the sorted a[0..na) and b[0..nb) into out; stable (a first). */
static void merge(const gs_hit *a, size_t na, const gs_hit *b, size_t nb, gs_hit *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb)
        out[k++] = after(&a[i], &b[j]) ? b[j++] : a[i++];
    memcpy(out + k, a + i, (na - i) * sizeof *out);
    k += na - i;
    memcpy(out + k, b + j, (nb - j) * sizeof *out);
}

int gs_hits_sort(gs_hits *h)
{
    /* Run starts, with n at the end. Data with more runs than this is not
     * what producers hand over (they give sorted runs); qsort takes it. */
    enum { MAX_RUNS = 1 << 16 };
    size_t n = h->n, nr = 0, cap = 64;
    if (n < 2)
        return 0;
    size_t *run = malloc((cap + 1) * sizeof *run);
    if (run == NULL)
        return -1;
    run[nr++] = 0;
    for (size_t i = 1; i < n && nr <= MAX_RUNS; i++) {
        if (!after(&h->v[i - 1], &h->v[i]))
            continue;
        if (nr == cap) {
            size_t *r = realloc(run, (2 * cap + 1) * sizeof *run);
            if (r == NULL) {
                free(run);
                return -1;
            }
            run = r;
            cap *= 2;
        }
        run[nr++] = i;
    }
    if (nr > MAX_RUNS) {
        free(run);
        qsort(h->v, n, sizeof *h->v, gs_hit_cmp);
        return 0;
    }
    run[nr] = n;
    if (nr == 1) {
        free(run);
        return 0;
    }
    gs_hit *buf = malloc(n * sizeof *buf), *src = h->v, *dst = buf;
    if (buf == NULL) {
        free(run);
        return -1;
    }
    while (nr > 1) {
        size_t m = 0;
        for (size_t r = 0; r < nr; r += 2, m++) {
            size_t lo = run[r], mid = run[r + 1], hi = r + 2 <= nr ? run[r + 2] : mid;
            if (r + 1 == nr) /* odd run out: copied over as it is */
                memcpy(dst + lo, src + lo, (mid - lo) * sizeof *dst);
            else
                merge(src + lo, mid - lo, src + mid, hi - mid, dst + lo);
            run[m] = lo;
        }
        run[m] = n;
        nr = m;
        gs_hit *t = src;
        src = dst;
        dst = t;
    }
    free(run);
    if (src != h->v) { /* the sorted copy becomes the vector */
        free(h->v);
        h->v = src;
        h->cap = n;
    } else {
        free(buf);
    }
    return 0;
}
