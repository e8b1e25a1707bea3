/* test_copy.c - gs_copy against memcpy: sizes around the slice and the
 * cache-line rounding, 1 to more threads than it starts, and no byte
 * written outside the destination; and gs_run_items, which shares out
 * more items than threads: each item once. */
#include <string.h>

#include "core/gs_copy.h"
#include "core/gs_parallel.h"
#include "testlib.h"

static void *bump(void *arg)
{
    (*(unsigned *)arg)++;
    return NULL;
}

static void check_items(size_t n, int threads)
{
    unsigned *v = calloc(n + 1, sizeof *v);
    gs_run_items(bump, v, sizeof *v, n, threads);
    for (size_t i = 0; i < n; i++)
        CHECK(v[i] == 1);
    CHECK(v[n] == 0);
    free(v);
}

static void check(uint64_t *rs, size_t n, int threads)
{
    enum { GUARD = 64 };
    unsigned char *src = malloc(n + 1), *dst = malloc(n + 2 * GUARD);
    for (size_t i = 0; i < n; i++)
        src[i] = (unsigned char)gs_test_rand(rs);
    memset(dst, 0xA5, n + 2 * GUARD);
    gs_copy(dst + GUARD, src, n, threads);
    CHECK(memcmp(dst + GUARD, src, n) == 0);
    for (size_t i = 0; i < GUARD; i++)
        CHECK(dst[i] == 0xA5 && dst[GUARD + n + i] == 0xA5);
    free(src);
    free(dst);
}

int main(void)
{
    uint64_t rs = 7;
    size_t S = GS_COPY_SLICE;
    size_t sizes[] = {0, 1, 63, 64, 65, S - 1, S, S + 1, 2 * S - 1, 2 * S + 63,
                      3 * S + 17, 7 * S + 1, 16 * S + 5, 40 * S + 999};
    int threads[] = {0, 1, 2, 3, 4, 7, 16, 64};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++)
            check(&rs, sizes[s], threads[t]);
    size_t items[] = {0, 1, 2, 15, 16, 17, 1000, 100000};
    int item_threads[] = {0, 1, 3, 16, 300};
    for (size_t s = 0; s < sizeof items / sizeof *items; s++)
        for (size_t t = 0; t < sizeof item_threads / sizeof *item_threads; t++)
            check_items(items[s], item_threads[t]);
    return gs_test_done("test_copy");
}
