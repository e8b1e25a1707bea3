/* test_hitsort.c - gs_radix_sort_u64 and gs_hits_sort against qsort, on
 * random keys and on hits cut into sorted runs the way producers hand them
 * over (interleaved ranks, disjoint segments), ties and edge sizes included. */
#include <string.h>

#include "core/gs_hitsort.h"
#include "testlib.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void check_radix(uint64_t *rs, size_t n, int bits)
{
    uint64_t *a = malloc((n + 1) * 8), *b = malloc((n + 1) * 8), *t = malloc((n + 1) * 8);
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] = bits == 64 ? gs_test_rand(rs) : gs_test_rand(rs) & (((uint64_t)1 << bits) - 1);
    gs_radix_sort_u64(a, t, n, bits);
    qsort(b, n, 8, cmp_u64);
    CHECK(n == 0 || memcmp(a, b, n * 8) == 0);
    free(a);
    free(b);
    free(t);
}

static gs_hit random_hit(uint64_t *rs)
{
    gs_hit h = {0};
    h.record = (uint32_t)gs_test_below(rs, 3);
    h.start = gs_test_below(rs, 50);
    h.strand = gs_test_below(rs, 2) ? 1 : -1;
    h.pattern = (uint32_t)gs_test_below(rs, 4);
    h.end = h.start + 1 + gs_test_below(rs, 3);
    return h;
}

/* n hits dealt to k producers; each producer's share sorted; concatenated */
static void check_runs(uint64_t *rs, size_t n, size_t k)
{
    gs_hits h = {malloc((n + 1) * sizeof(gs_hit)), n, n};
    gs_hit *ref = malloc((n + 1) * sizeof(gs_hit));
    for (size_t i = 0; i < n; i++)
        ref[i] = random_hit(rs);
    size_t o = 0;
    for (size_t p = 0; p < k; p++) {
        size_t first = o;
        for (size_t i = p; i < n; i += k)
            h.v[o++] = ref[i];
        qsort(h.v + first, o - first, sizeof(gs_hit), gs_hit_cmp);
    }
    qsort(ref, n, sizeof(gs_hit), gs_hit_cmp);
    CHECK(gs_hits_sort(&h) == 0);
    CHECK_EQ_U64(h.n, n);
    for (size_t i = 0; i < n; i++)
        if (gs_hit_cmp(&h.v[i], &ref[i]) != 0) {
            CHECK(!"merged hits differ from qsort");
            break;
        }
    gs_hits_free(&h);
    free(ref);
}

int main(void)
{
    uint64_t rs = 12345;
    size_t sizes[] = {0, 1, 2, 3, 100, 2047, 2049, 100000};
    int bits[] = {1, 10, 11, 12, 33, 63, 64};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t b = 0; b < sizeof bits / sizeof *bits; b++)
            check_radix(&rs, sizes[s], bits[b]);
    size_t ks[] = {1, 2, 3, 7, 64, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t k = 0; k < sizeof ks / sizeof *ks; k++)
            check_runs(&rs, sizes[s], ks[k]);
    /* more runs than the merge takes: qsort's fallback, same order */
    check_runs(&rs, 300000, 200000);
    return gs_test_done("test_hitsort");
}
