/* bench_gpu.c - time the GPU engines' kernels and the whole device pipeline.
 *
 * Workloads (docs/performance.md (GPU)):
 *   - DNA, 2^30 residues: the genome sequence given with --genome (headers
 *     and newlines already dropped, uppercased here, repeated to 2^30), and
 *     uniform random ACGT; d = 1000, 8000, 16000 distinct 8-mers drawn from
 *     the text; forward strand; counts only.
 *   - RK: 2^27 random residues over a 2-letter alphabet (A, C), k = 1..256
 *     random patterns of length 10..30 over the same letters.
 * Kernel time is the engine's scan kernels between CUDA events (gs_gpu_times
 * .kernel) for one whole-text segment: median of 5 runs after one warm-up.
 * The pipeline line submits the genome text in 64 MiB blocks (3 streams) and
 * times submit..finish on the host clock: copies into pinned memory,
 * host-to-device transfers and kernels together.
 * Every engine's counts on a workload are compared with the first engine's.
 *
 * Usage: bench_gpu --genome FILE [--out TABLE.md] [--quick] [--rk] [--one ENGINE TEXT N]
 * --one runs one workload once (TEXT genome, random or binary; N = d or k),
 * for a profiler. --rk runs only the RK workload and the genome rows, with ac
 * as the reference and rk with fixed bitmap windows ("rk:ext=N": every
 * group's window N residues past its shortest key, gs_gpu_args.rk_ext) side
 * by side.
 */
#define _POSIX_C_SOURCE 200809L
#include "gpu/gpu.h"
#include "match/keyset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static FILE *table_out;

/* A line of the table: to stdout and to --out. */
static void out(const char *line)
{
    fputs(line, stdout);
    fflush(stdout);
    if (table_out) {
        fputs(line, table_out);
        fflush(table_out);
    }
}

#define OUT(...)                                                                          \
    do {                                                                                  \
        char line_[1024];                                                                 \
        snprintf(line_, sizeof line_, __VA_ARGS__);                                       \
        out(line_);                                                                   \
    } while (0)

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void die(const char *what, const gs_error *err)
{
    fprintf(stderr, "bench_gpu: %s: %s\n", what, err ? err->msg : "failed");
    exit(3);
}

/* The genome file's letters, uppercased, repeated to n. */
static uint8_t *genome_text(const char *path, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        die(path, NULL);
    uint8_t *t = malloc(n);
    size_t m = 0;
    int c;
    while (m < n && (c = getc(f)) != EOF)
        if (c > ' ' && c != '>')
            t[m++] = (uint8_t)(c >= 'a' && c <= 'z' ? c - 32 : c);
    fclose(f);
    if (m == 0)
        die("empty genome", NULL);
    for (size_t i = m; i < n; i++)
        t[i] = t[i - m];
    return t;
}

static uint8_t *random_text(uint64_t seed, size_t n, const char *letters, int k)
{
    uint8_t *t = malloc(n);
    uint64_t s = seed;
    for (size_t i = 0; i < n; i += 32) {
        uint64_t r = rng_next(&s);
        for (size_t j = 0; j < 32 && i + j < n; j++, r >>= 2)
            t[i + j] = (uint8_t)letters[k == 4 ? (r & 3) : (r & 1)];
    }
    return t;
}

static void patset_add(gs_patset *ps, const uint8_t *seq, uint32_t len)
{
    ps->v = realloc(ps->v, (ps->n + 1) * sizeof *ps->v);
    gs_pattern *p = &ps->v[ps->n];
    p->name = NULL;
    p->text = NULL;
    p->bytes = malloc(len + 1);
    memcpy(p->bytes, seq, len);
    p->bytes[len] = 0;
    p->len = len;
    p->line = ps->n + 1;
    if (ps->n == 0 || len < ps->min_len)
        ps->min_len = len;
    if (len > ps->max_len)
        ps->max_len = len;
    ps->n++;
}

static void patset_free(gs_patset *ps)
{
    for (uint32_t i = 0; i < ps->n; i++)
        free(ps->v[i].bytes);
    free(ps->v);
    memset(ps, 0, sizeof *ps);
}

/* d distinct k-mers of ACGT drawn from random positions of t. */
static void draw_kmers(const uint8_t *t, size_t n, uint32_t d, uint32_t k, uint64_t seed,
                       gs_patset *ps)
{
    uint64_t s = seed, cap = 1;
    while (cap < 4ull * d)
        cap <<= 1;
    uint64_t *seen = calloc(cap, 8);
    while (ps->n < d) {
        size_t at = rng_next(&s) % (n - k);
        uint64_t code = 0;
        uint32_t i;
        for (i = 0; i < k; i++) {
            const char *p = memchr("ACGT", t[at + i], 4);
            if (p == NULL || t[at + i] == 0)
                break;
            code = code << 2 | (uint64_t)(p - "ACGT");
        }
        if (i < k)
            continue;
        uint64_t h = (code * 0x9E3779B97F4A7C15ull) & (cap - 1), key = code + 1;
        while (seen[h] && seen[h] != key)
            h = (h + 1) & (cap - 1);
        if (seen[h])
            continue;
        seen[h] = key;
        patset_add(ps, t + at, k);
    }
    free(seen);
}

/* Median kernel seconds over `runs` whole-text scans after one warm-up;
 * counts of the first run go to counts (may be NULL). */
static double time_engine(const char *eng, const gs_keyset *ks, const uint8_t *t, size_t n,
                          int runs, uint64_t *counts, double *lo, double *hi)
{
    gs_gpu *g;
    gs_error err = {0};
    gs_segment seg = {0, 0, t, n, n, 0, 0};
    double v[16];
    char name[64];
    const char *colon = strchr(eng, ':');
    /* "rk:ext=N": rk with every bitmap window fixed (src/gpu/rk.cu) */
    snprintf(name, sizeof name, "%.*s", colon ? (int)(colon - eng) : (int)strlen(eng), eng);
    const char *ext = colon ? strstr(colon, "ext=") : NULL;
    gs_gpu_args args = {.engine = name, .block = n, .rk_ext = ext ? atoi(ext + 4) + 1 : 0};
    if (gs_gpu_open(&args, ks, &g, &err) != GS_OK)
        die(eng, &err);
    for (int r = 0; r <= runs; r++) {
        gs_gpu_times tm;
        if (gs_gpu_submit(g, &seg, &err) != GS_OK ||
            gs_gpu_finish(g, r == 0 ? counts : NULL, NULL, &tm, &err) != GS_OK)
            die(eng, &err);
        if (r > 0)
            v[r - 1] = tm.kernel;
    }
    gs_gpu_close(g);
    qsort(v, (size_t)runs, sizeof *v, dcmp);
    *lo = v[0];
    *hi = v[runs - 1];
    return v[runs / 2];
}

static void bench_set(const char *text_name, const uint8_t *t, size_t n, const gs_patset *ps,
                      const char *label, const char *const *engines, int n_eng, int runs)
{
    gs_keyset ks;
    gs_error err = {0};
    if (gs_keyset_build(ps, GS_ALPHA_DNA, 0, 4096, &ks, &err) != GS_OK)
        die("keyset", &err);
    uint64_t *first = calloc(ks.n_keys, 8), *counts = calloc(ks.n_keys, 8);
    for (int e = 0; e < n_eng; e++) {
        double lo, hi, med;
        memset(counts, 0, ks.n_keys * 8ull);
        med = time_engine(engines[e], &ks, t, n, runs, counts, &lo, &hi);
        uint64_t total = 0;
        int agree = 1;
        for (uint32_t k = 0; k < ks.n_keys; k++) {
            total += counts[k];
            if (e > 0 && counts[k] != first[k])
                agree = 0;
        }
        if (e == 0)
            memcpy(first, counts, ks.n_keys * 8ull);
        OUT("| %s | %s | %s | %.3f | %.1f | %.3f-%.3f | %llu | %s |\n", text_name, label,
            engines[e], med * 1e3, n / med / 1e9, lo * 1e3, hi * 1e3,
            (unsigned long long)total, e == 0 ? "ref" : agree ? "yes" : "NO");
    }
    free(first);
    free(counts);
    gs_keyset_free(&ks);
}

/* The genome in blocks through the whole pipeline (host clock). */
static void bench_pipeline(const uint8_t *t, size_t n, const gs_patset *ps, const char *eng,
                           size_t block)
{
    gs_keyset ks;
    gs_error err = {0};
    gs_gpu *g;
    if (gs_keyset_build(ps, GS_ALPHA_DNA, 0, 4096, &ks, &err) != GS_OK)
        die("keyset", &err);
    uint64_t *counts = calloc(ks.n_keys, 8);
    gs_gpu_args args = {.engine = eng, .block = block};
    if (gs_gpu_open(&args, &ks, &g, &err) != GS_OK)
        die(eng, &err);
    double best = 1e30;
    gs_gpu_times bt = {0};
    for (int r = 0; r < 3; r++) {
        gs_gpu_times tm;
        double t0 = now();
        for (size_t base = 0; base < n; base += block) {
            size_t own = n - base < block ? n - base : block;
            size_t len = n - base < own + ks.max_len - 1 ? n - base : own + ks.max_len - 1;
            gs_segment seg = {0, base, t + base, len, own, 0, 0};
            if (gs_gpu_submit(g, &seg, &err) != GS_OK)
                die(eng, &err);
        }
        if (gs_gpu_finish(g, counts, NULL, &tm, &err) != GS_OK)
            die(eng, &err);
        double dt = now() - t0;
        if (r > 0 && dt < best) {
            best = dt;
            bt = tm;
        }
    }
    OUT("| pipeline %s, %zu MiB blocks | %.1f ms | %.1f GB/s | transfer %.1f ms, kernels %.1f ms "
        "(event sums) |\n",
        eng, block >> 20, best * 1e3, n / best / 1e9, bt.transfer * 1e3, bt.kernel * 1e3);
    gs_gpu_close(g);
    free(counts);
    gs_keyset_free(&ks);
}

/* The RK workload: 2^27 random residues over {A, C}, k = 1..256 patterns of
 * length 10..30 over the same letters. */
static void bench_rk(const char *const *engines, int n_eng, int runs)
{
    const size_t NR = (size_t)1 << 27;
    uint8_t *bin = random_text(99, NR, "AC", 2);
    OUT("\n## RK: %zu random residues over {A, C}, k patterns of length 10..30, counts\n\n", NR);
    OUT("| text | k | engine | kernel ms (median of %d) | GB/s | min-max ms | hits | counts "
        "agree |\n|---|---|---|---|---|---|---|---|\n",
        runs);
    const uint32_t ks_[] = {1, 4, 16, 64, 256};
    for (int i = 0; i < 5; i++) {
        gs_patset ps = {0};
        uint64_t s = 1234 + (uint64_t)i;
        uint8_t pat[32];
        for (uint32_t p = 0; p < ks_[i]; p++) {
            uint32_t len = 10 + (uint32_t)(rng_next(&s) % 21);
            for (uint32_t j = 0; j < len; j++)
                pat[j] = "AC"[rng_next(&s) & 1];
            patset_add(&ps, pat, len);
        }
        char label[32];
        snprintf(label, sizeof label, "%u", ks_[i]);
        bench_set("binary", bin, NR, &ps, label, engines, n_eng, runs);
        patset_free(&ps);
    }
    free(bin);
}

/* The DNA table: genome and random texts of n residues, d = 1000, 8000 and
 * 16000 distinct 8-mers drawn from each, engines side by side. */
static void bench_kmers(uint8_t *const texts[2], size_t n, const char *const *engines, int n_eng,
                        int runs)
{
    static const char *const names[2] = {"genome", "random"};
    static const uint32_t ds[] = {1000, 8000, 16000};
    OUT("\n## DNA, %zu residues, d distinct 8-mers from the text, forward, counts\n\n", n);
    OUT("| text | d | engine | kernel ms (median of %d) | GB/s | min-max ms | hits | counts "
        "agree |\n|---|---|---|---|---|---|---|---|\n",
        runs);
    for (int ti = 0; ti < 2; ti++)
        for (int di = 0; di < 3; di++) {
            gs_patset ps = {0};
            char label[32];
            draw_kmers(texts[ti], n, ds[di], 8, 7 + (uint64_t)di, &ps);
            snprintf(label, sizeof label, "%u", ds[di]);
            bench_set(names[ti], texts[ti], n, &ps, label, engines, n_eng, runs);
            patset_free(&ps);
        }
}

int main(int argc, char **argv)
{
    const char *genome = NULL, *table = NULL, *one_eng = NULL, *one_text = NULL;
    uint32_t one_n = 0;
    int quick = 0, rk_only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--genome") == 0 && i + 1 < argc)
            genome = argv[++i];
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            table = argv[++i];
        else if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--rk") == 0)
            rk_only = 1;
        else if (strcmp(argv[i], "--one") == 0 && i + 3 < argc) {
            one_eng = argv[++i];
            one_text = argv[++i];
            one_n = (uint32_t)atoi(argv[++i]);
        }
        else {
            fprintf(stderr, "usage: bench_gpu --genome FILE [--out TABLE.md] [--quick] [--rk]\n");
            return 1;
        }
    }
    if (genome == NULL) {
        fprintf(stderr, "usage: bench_gpu --genome FILE [--out TABLE.md] [--quick] [--rk]\n");
        return 1;
    }
    if (gs_gpu_device_count() == 0) {
        fprintf(stderr, "bench_gpu: no CUDA device\n");
        return 77;
    }
    if (table && (table_out = fopen(table, "w")) == NULL)
        die(table, NULL);
    const size_t N = quick ? (size_t)1 << 26 : (size_t)1 << 30;
    const int runs = 5;
    if (one_eng) {
        gs_patset ps = {0};
        uint8_t *t;
        size_t n = N;
        if (strcmp(one_text, "binary") == 0) {
            n = (size_t)1 << 27;
            t = random_text(99, n, "AC", 2);
            uint64_t s = 1234;
            uint8_t pat[32];
            for (uint32_t p = 0; p < one_n; p++) {
                uint32_t len = 10 + (uint32_t)(rng_next(&s) % 21);
                for (uint32_t j = 0; j < len; j++)
                    pat[j] = "AC"[rng_next(&s) & 1];
                patset_add(&ps, pat, len);
            }
        } else {
            t = strcmp(one_text, "genome") == 0 ? genome_text(genome, n)
                                                 : random_text(42, n, "ACGT", 4);
            draw_kmers(t, n, one_n, 8, 7, &ps);
        }
        const char *e1[] = {one_eng};
        bench_set(one_text, t, n, &ps, "one", e1, 1, 1);
        patset_free(&ps);
        free(t);
        return 0;
    }
    static const char *const rk_engines_all[] = {"rk", "ac", "wm"};
    if (rk_only) {
        static const char *const variants[] = {"ac", "rk", "rk:ext=0", "rk:ext=2", "rk:ext=6"};
        const int nv = (int)(sizeof variants / sizeof *variants);
        bench_rk(variants, nv, runs);
        uint8_t *texts[2] = {genome_text(genome, N), random_text(42, N, "ACGT", 4)};
        bench_kmers(texts, N, variants, 2, runs);
        free(texts[0]);
        free(texts[1]);
        if (table_out)
            fclose(table_out);
        return 0;
    }
    double t0 = now();
    uint8_t *texts[2] = {genome_text(genome, N), random_text(42, N, "ACGT", 4)};
    fprintf(stderr, "bench_gpu: texts built in %.1f s\n", now() - t0);
    const char *const dna_engines[] = {"ac", "wm", "rk"};
    bench_kmers(texts, N, dna_engines, 3, runs);

    OUT("\n## Pipeline: genome, d = 1000, submit..finish on the host clock (best of 2)\n\n");
    OUT("| what | wall | rate | device |\n|---|---|---|---|\n");
    {
        gs_patset ps = {0};
        draw_kmers(texts[0], N, 1000, 8, 7, &ps);
        bench_pipeline(texts[0], N, &ps, "ac", (size_t)64 << 20);
        bench_pipeline(texts[0], N, &ps, "ac", (size_t)256 << 20);
        patset_free(&ps);
    }
    free(texts[0]);
    free(texts[1]);

    bench_rk(rk_engines_all, 3, runs);
    if (table_out)
        fclose(table_out);
    return 0;
}
