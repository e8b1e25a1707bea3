/* lz_sources.c - the copy phrases ordered by source start, with a max-tree
 * over their source ends: the structure locate walks (see lz.h).
 *
 * An occurrence [g, g + m) lies inside the sources of exactly the phrases
 * among the first k in this order (sources starting at or before g) whose
 * source ends at or after g + m; the tree visits only subtrees whose
 * maximum end reaches g + m. The order costs a sort of every copy phrase
 * (10 M for 1000 strains, memory-bound): the index build makes it once and
 * the file stores it, so a scan only decodes it, checks it and builds the
 * tree, a linear pass. Each step splits its range evenly over the threads
 * and runs through gs_run_parallel; the sort is an LSD radix sort, 11 bits
 * a pass over the bits keys use, each pass a per-thread histogram, one
 * prefix sum over (bucket, thread), and a stable scatter, so ties keep
 * phrase order.
 */
#define _POSIX_C_SOURCE 200809L
#include "lz_file.h" /* gs_lz_corrupt */

#include "core/gs_parallel.h"

#include <stdlib.h>
#include <string.h>

enum { RADIX_BITS = 11, RADIX_BUCKETS = 1 << RADIX_BITS };

typedef struct srcs_job {
    gs_lz_index *ix;
    uint64_t *pairs, *tmp; /* (source start, phrase) pairs; scatter target */
    uint64_t lo, hi;       /* this thread's share of the step's range */
    uint64_t first;        /* fill: the thread's first pair */
    int step, shift, bad;  /* bad: check found an inconsistency */
    uint64_t count[RADIX_BUCKETS]; /* histogram, then scatter offsets */
} srcs_job;

enum { STEP_COUNT, STEP_FILL, STEP_HIST, STEP_SCATTER, STEP_PLACE, STEP_CHECK, STEP_TREE };

/* Phrase j's source and length are valid (the file's checks): the leaf of
 * copy i. */
static void place(gs_lz_index *ix, uint64_t i, uint64_t j)
{
    ix->cp_target[i] = ix->ph_start[j];
    ix->cp_tree[ix->tree_off[ix->tree_h] + i] = ix->cp_start[i] + ix->ph_start[j + 1] - ix->ph_start[j];
}

/* Copy i of the file: its phrase is an unclaimed copy, which it claims (a
 * compare-and-swap, so that two entries naming one phrase are caught on any
 * threads), and its source lies before the phrase and inside one record.
 * GS_EINPUT otherwise (on a thread: gs_lz_sources_finish names the file). */
static gs_status check(gs_lz_index *ix, uint64_t i)
{
    uint64_t j = ix->cp_target[i], s = ix->cp_start[i], unset = GS_LZ_SOURCE_UNSET;
    if (j >= ix->n_phrases || s >= ix->ph_start[j])
        return GS_EINPUT;
    uint64_t len = ix->ph_start[j + 1] - ix->ph_start[j];
    uint64_t r = gs_lz_last_le(ix->rec_off, ix->layout.n_rec, s);
    if (r == ix->layout.n_rec || len > ix->rec_off[r + 1] - s)
        return GS_EINPUT;
    if (!__atomic_compare_exchange_n(&ix->ph_src[j], &unset, s, 0, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED))
        return GS_EINPUT;
    place(ix, i, j);
    return GS_OK;
}

static void *srcs_step(void *arg)
{
    srcs_job *t = arg;
    gs_lz_index *ix = t->ix;
    uint64_t mask = RADIX_BUCKETS - 1;
    switch (t->step) {
    case STEP_COUNT:
        t->first = 0;
        for (uint64_t j = t->lo; j < t->hi; j++)
            t->first += ix->ph_src[j] != GS_LZ_LITERAL;
        break;
    case STEP_FILL:
        for (uint64_t j = t->lo, i = t->first; j < t->hi; j++)
            if (ix->ph_src[j] != GS_LZ_LITERAL) {
                t->pairs[2 * i] = ix->ph_src[j];
                t->pairs[2 * i + 1] = j;
                i++;
            }
        break;
    case STEP_HIST:
        memset(t->count, 0, sizeof t->count);
        for (uint64_t i = t->lo; i < t->hi; i++)
            t->count[(t->pairs[2 * i] >> t->shift) & mask]++;
        break;
    case STEP_SCATTER:
        for (uint64_t i = t->lo; i < t->hi; i++) {
            uint64_t d = t->count[(t->pairs[2 * i] >> t->shift) & mask]++;
            t->tmp[2 * d] = t->pairs[2 * i];
            t->tmp[2 * d + 1] = t->pairs[2 * i + 1];
        }
        break;
    case STEP_PLACE:
        for (uint64_t i = t->lo; i < t->hi; i++) {
            ix->cp_start[i] = t->pairs[2 * i];
            place(ix, i, t->pairs[2 * i + 1]);
        }
        break;
    case STEP_CHECK:
        /* copies in source order visit their phrases in random order (the
         * strains alternate): fetch a few ahead so the misses overlap */
        for (uint64_t i = t->lo; i < t->hi && !t->bad; i++) {
            enum { AHEAD = 16 };
            uint64_t ja = i + AHEAD < t->hi ? ix->cp_target[i + AHEAD] : 0;
            if (ja < ix->n_phrases) {
                __builtin_prefetch(&ix->ph_start[ja]);
                __builtin_prefetch(&ix->ph_src[ja], 1);
            }
            t->bad = check(ix, i) != GS_OK;
        }
        break;
    case STEP_TREE: { /* nodes [lo, hi) of level shift */
        const uint64_t *down = ix->cp_tree + ix->tree_off[t->shift + 1];
        uint64_t n_down = ix->tree_n[t->shift + 1], *up = ix->cp_tree + ix->tree_off[t->shift];
        for (uint64_t v = t->lo; v < t->hi; v++) {
            uint64_t a = down[2 * v], b = 2 * v + 1 < n_down ? down[2 * v + 1] : 0;
            up[v] = a > b ? a : b;
        }
        break;
    }
    }
    return NULL;
}

/* Run one step over [lo, hi), split evenly over the threads. */
static void srcs_run(srcs_job *job, int threads, int step, uint64_t lo, uint64_t hi)
{
    for (int t = 0; t < threads; t++) {
        job[t].step = step;
        job[t].lo = lo + (hi - lo) * (uint64_t)t / (uint64_t)threads;
        job[t].hi = lo + (hi - lo) * (uint64_t)(t + 1) / (uint64_t)threads;
    }
    gs_run_parallel(srcs_step, job, sizeof *job, threads);
}

/* The jobs for `threads` threads (one when the work is too small to pay
 * for starting them); NULL when out of memory. */
static srcs_job *jobs(gs_lz_index *ix, int *threads)
{
    *threads = ix->n_phrases < 65536 ? 1 : gs_parallel_threads(*threads, SIZE_MAX);
    srcs_job *job = calloc((size_t)*threads, sizeof *job);
    for (int t = 0; job && t < *threads; t++)
        job[t].ix = ix;
    return job;
}

/* The tree's levels for n_copies leaves, and its memory: 2 n_copies + 64
 * nodes at most, where padding the leaves to a power of two took up to
 * 4 n_copies (268 MB for 10 M copies). GS_ESYS when out of memory (the
 * callers say for what, with the other memory they ask for). */
static gs_status alloc_tree(gs_lz_index *ix)
{
    uint64_t n[65], total = 0;
    int h = 0;
    n[0] = ix->n_copies;
    while (n[h] > 1) {
        n[h + 1] = n[h] / 2 + n[h] % 2;
        h++;
    }
    ix->tree_h = h; /* n[] was counted leaves up: turn it round */
    for (int l = 0; l <= h; l++) {
        ix->tree_n[l] = n[h - l];
        ix->tree_off[l] = total;
        total += n[h - l];
    }
    ix->cp_tree = malloc((total ? total : 1) * sizeof *ix->cp_tree);
    return ix->cp_tree != NULL ? GS_OK : GS_ESYS;
}

/* The levels above the leaves, bottom up; the small ones on this thread. */
static void build_tree(srcs_job *job, int threads)
{
    gs_lz_index *ix = job->ix;
    for (int l = ix->tree_h - 1; l >= 0; l--) {
        for (int t = 0; t < threads; t++)
            job[t].shift = l;
        srcs_run(job, ix->tree_n[l] >= 65536 ? threads : 1, STEP_TREE, 0, ix->tree_n[l]);
    }
}

gs_status gs_lz_sources_sort(gs_lz_index *ix, int threads, gs_error *err)
{
    uint64_t *pairs = NULL, *tmp = NULL;
    srcs_job *job = jobs(ix, &threads);
    if (job == NULL)
        goto oom;
    srcs_run(job, threads, STEP_COUNT, 0, ix->n_phrases);
    uint64_t n = 0;
    for (int t = 0; t < threads; t++) {
        uint64_t c = job[t].first;
        job[t].first = n;
        n += c;
    }
    ix->n_copies = n;
    pairs = malloc((n ? n : 1) * 2 * sizeof *pairs);
    tmp = malloc((n ? n : 1) * 2 * sizeof *tmp);
    ix->cp_start = malloc((n ? n : 1) * sizeof *ix->cp_start);
    ix->cp_target = malloc((n ? n : 1) * sizeof *ix->cp_target);
    if (!pairs || !tmp || !ix->cp_start || !ix->cp_target || alloc_tree(ix) != GS_OK)
        goto oom;
    for (int t = 0; t < threads; t++)
        job[t].pairs = pairs, job[t].tmp = tmp;
    /* the count step split the phrases as the fill step does */
    srcs_run(job, threads, STEP_FILL, 0, ix->n_phrases);
    for (int shift = 0; shift < 64 && (ix->n_residues >> shift) != 0; shift += RADIX_BITS) {
        for (int t = 0; t < threads; t++)
            job[t].shift = shift;
        srcs_run(job, threads, STEP_HIST, 0, n);
        uint64_t at = 0; /* bucket-major, thread-minor: a stable scatter */
        for (int b = 0; b < RADIX_BUCKETS; b++)
            for (int t = 0; t < threads; t++) {
                uint64_t c = job[t].count[b];
                job[t].count[b] = at;
                at += c;
            }
        srcs_run(job, threads, STEP_SCATTER, 0, n);
        for (int t = 0; t < threads; t++)
            job[t].pairs = tmp, job[t].tmp = pairs;
        uint64_t *sw = pairs;
        pairs = tmp;
        tmp = sw;
    }
    srcs_run(job, threads, STEP_PLACE, 0, n);
    build_tree(job, threads);
    free(pairs);
    free(tmp);
    free(job);
    return GS_OK;
oom:
    free(pairs);
    free(tmp);
    free(job);
    return gs_fail(err, GS_ESYS, "out of memory (sources of %llu phrases)",
                   (unsigned long long)ix->n_phrases);
}

gs_status gs_lz_sources_finish(gs_lz_index *ix, int threads, const char *path, gs_error *err)
{
    srcs_job *job = jobs(ix, &threads);
    if (job == NULL || alloc_tree(ix) != GS_OK) {
        free(job);
        return gs_fail(err, GS_ESYS, "out of memory (index sources)");
    }
    srcs_run(job, threads, STEP_CHECK, 0, ix->n_copies);
    int ok = 1;
    for (int t = 0; t < threads; t++)
        ok &= !job[t].bad;
    if (ok)
        build_tree(job, threads);
    free(job);
    return ok ? GS_OK : gs_lz_corrupt(err, path, "section sources");
}
