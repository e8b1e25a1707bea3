/* test_spill.c - hits beyond memory: sorted runs spilled to a folder
 * beside the output and merged back (gs_spill), and the k-way merge they
 * use (gs_hitmerge), against qsort of all the hits. Runs of random sizes
 * (empty ones included) with ties across runs, a tail held in memory, a
 * budget so small that the runs are first merged in passes, a run of one;
 * the stream read twice gives the same hits; runs spilled while it is read
 * stay when the runs it read are retired; the folder is gone after
 * gs_spill_free; a folder that cannot be made is an error naming it. */
#include <dirent.h>
#include <string.h>

#include "core/gs_spill.h"
#include "testlib.h"

static gs_hit random_hit(uint64_t *rs)
{
    /* few distinct values, so that ties and equal starts are common */
    uint64_t start = gs_test_below(rs, 200);
    return (gs_hit){.start = start, .record = (uint32_t)gs_test_below(rs, 3),
                    .pattern = (uint32_t)gs_test_below(rs, 4),
                    .strand = gs_test_below(rs, 2) ? 1 : -1,
                    .distance = (uint8_t)gs_test_below(rs, 2),
                    .end = start + 1 + gs_test_below(rs, 3)};
}

static int same_hit(const gs_hit *a, const gs_hit *b)
{
    return a->start == b->start && a->end == b->end && a->record == b->record &&
           a->pattern == b->pattern && a->strand == b->strand && a->distance == b->distance;
}

/* Entries of the test folder (the spill folder, while it exists). */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

/* The stream of sp's runs and tail[0..n_tail) into out, in reads of chunk
 * hits; how many (at most cap). */
static size_t read_stream(gs_spill *sp, const gs_hit *tail, size_t n_tail, size_t mem,
                          size_t chunk, gs_hit *out, size_t cap)
{
    gs_error err = {0};
    gs_hit_source src;
    size_t got = 0, m = 1;
    CHECK(gs_spill_stream(sp, tail, n_tail, mem, &src, &err) == GS_OK);
    while (err.code == GS_OK && m > 0 && got <= cap) {
        CHECK(src.next(src.ctx, out + got, chunk, &m, &err) == GS_OK);
        got += m;
    }
    return got;
}

/* n hits cut into k sorted runs spilled (sizes random) and a tail of
 * n_tail, read back with mem bytes of buffers in reads of `chunk`. */
static void check_spill(uint64_t *rs, const char *dir, size_t n, size_t k, size_t n_tail,
                        size_t mem, size_t chunk)
{
    gs_hit *all = malloc((n + n_tail + 1) * sizeof *all), *out = malloc((n + n_tail + 1) * sizeof *out);
    for (size_t i = 0; i < n + n_tail; i++)
        all[i] = random_hit(rs);
    gs_error err = {0};
    gs_spill *sp;
    CHECK(gs_spill_new(gs_test_tmp_path("out.h5"), &sp, &err) == GS_OK);
    size_t at = 0;
    for (size_t r = 0; r < k; r++) {
        size_t len = r + 1 == k ? n - at : gs_test_below(rs, n - at + 1);
        qsort(all + at, len, sizeof *all, gs_hit_cmp);
        CHECK(gs_spill_run(sp, all + at, len, &err) == GS_OK);
        at += len;
    }
    qsort(all + n, n_tail, sizeof *all, gs_hit_cmp);
    CHECK(gs_spill_runs(sp) == k && gs_spill_hits(sp) == n);
    CHECK(k == 0 || strstr(gs_spill_dir(sp), "/.out.h5.gscan-spill.") != NULL);
    CHECK(k == 0 || entries(dir) == 1);
    size_t got = read_stream(sp, all + n, n_tail, mem, chunk, out, n + n_tail);
    size_t again = read_stream(sp, all + n, n_tail, mem, chunk, all, n + n_tail);
    CHECK_EQ_U64(again, got);
    for (size_t i = 0; i < got && i < again; i++)
        if (!same_hit(&all[i], &out[i])) {
            CHECK(!"the stream read again differs");
            break;
        }
    qsort(all, n + n_tail, sizeof *all, gs_hit_cmp);
    CHECK_EQ_U64(got, n + n_tail);
    for (size_t i = 0; i < got && i < n + n_tail; i++)
        if (!same_hit(&all[i], &out[i])) {
            CHECK(!"merged hits differ from qsort");
            break;
        }
    /* a run of every other hit spilled while the stream is open, the runs
     * it read retired: that run is what is left */
    const size_t n_read = gs_spill_runs(sp);
    read_stream(sp, NULL, 0, mem, chunk, out, n + n_tail);
    size_t half = 0;
    for (size_t i = 0; i < n; i += 2)
        out[half++] = all[i];
    CHECK(n == 0 || gs_spill_run(sp, out, half, &err) == GS_OK);
    gs_spill_retire(sp, n_read);
    CHECK(gs_spill_runs(sp) == (n ? 1 : 0) && gs_spill_hits(sp) == (n ? half : 0));
    CHECK_EQ_U64(read_stream(sp, NULL, 0, mem, chunk, all, n + n_tail), n ? half : 0);
    for (size_t i = 0; i < half; i++)
        if (!same_hit(&all[i], &out[i])) {
            CHECK(!"the run spilled while reading differs");
            break;
        }
    gs_spill_free(sp);
    CHECK(entries(dir) == 0);
    free(all);
    free(out);
}

int main(void)
{
    uint64_t rs = 26;
    const char *dir = gs_test_tmpdir("spill");
    CHECK(dir != NULL);
    check_spill(&rs, dir, 0, 0, 0, 1 << 20, 7);
    check_spill(&rs, dir, 0, 0, 100, 1 << 20, 7);   /* nothing spilled: the tail alone */
    check_spill(&rs, dir, 1, 1, 0, 1 << 20, 1);
    check_spill(&rs, dir, 5000, 7, 300, 1 << 20, 64);
    check_spill(&rs, dir, 20000, 40, 0, 1 << 20, 1000);
    check_spill(&rs, dir, 20000, 40, 999, 4096, 333); /* 3 runs at once: merged in passes */
    check_spill(&rs, dir, 100000, 150, 5000, 8 << 20, 4096);
    /* the folder cannot be made: an error naming it */
    gs_error err = {0};
    gs_spill *sp;
    gs_hit h = {.start = 1, .strand = 1};
    CHECK(gs_spill_new("/nonexistent-dir/out.h5", &sp, &err) == GS_OK);
    CHECK(gs_spill_run(sp, &h, 1, &err) == GS_ESYS);
    CHECK(strstr(err.msg, "nonexistent-dir/.out.h5.gscan-spill") != NULL);
    gs_spill_free(sp);
    CHECK(gs_test_tmp_remove() == 0);
    return gs_test_done("test_spill");
}
