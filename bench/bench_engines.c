/* bench_engines.c - time every CPU engine on one text and one key set.
 *
 *   bench_engines [options] TEXT
 *     -n N        patterns (default 1000)
 *     -k L[:M]    pattern lengths, L..M (default 8)
 *     -s both|forward   (default forward)
 *     -r counts|hits    (default counts)
 *     -a dna|bytes      (default dna)
 *     -t T        threads (default 1)
 *     -b MiB      segment size (default 16)
 *     -e LIST     engines, comma-separated (default ac,wm,rk)
 *     -x R        repeats, the best is reported (default 3)
 *
 * TEXT is a plain file; when it starts with '>' its first line is skipped and
 * the rest (newlines included: they are non-bases) is the text, which is how a
 * one-record FASTA file can be timed without the reader. Patterns are drawn
 * from the text at random places whose window holds no non-base (uppercased),
 * so they hit as real probes would. Segments are scanned the way ranks scan
 * them: own = the segment size, plus max_len - 1 residues of overlap; thread t
 * scans segments t, t + T, ... with its own counts and hit vector.
 */
#define _POSIX_C_SOURCE 200809L
#include "match/engine.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng = 42;
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

typedef struct job {
    const gs_engine *e;
    const void *c;
    const uint8_t *text;
    size_t n, block, overlap;
    int tid, nth, hits;
    uint32_t n_keys;
    uint64_t total_hits;
    double cpu; /* thread CPU seconds: robust when other work shares the cores */
} job;

static void *worker(void *arg)
{
    job *j = arg;
    uint64_t *kc = calloc(j->n_keys + 1, sizeof *kc);
    gs_keyhits kh = {0};
    gs_match_out out = {kc, j->hits ? &kh : NULL, 0};
    size_t nseg = (j->n + j->block - 1) / j->block;
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    for (size_t s = (size_t)j->tid; s < nseg; s += (size_t)j->nth) {
        size_t a = s * j->block, own = j->n - a < j->block ? j->n - a : j->block;
        size_t len = j->n - a < own + j->overlap ? j->n - a : own + j->overlap;
        kh.n = 0;
        j->e->scan(j->c, j->text + a, len, own, &out);
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    j->cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
    j->total_hits = 0;
    for (uint32_t k = 0; k < j->n_keys; k++)
        j->total_hits += kc[k];
    free(kc);
    free(kh.v);
    return NULL;
}

int main(int argc, char **argv)
{
    uint32_t n_pat = 1000, lmin = 8, lmax = 8;
    int both = 0, hits = 0, nth = 1, reps = 3;
    gs_alphabet alpha = GS_ALPHA_DNA;
    size_t block = 16u << 20;
    const char *engines = "ac,wm,rk", *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "-n")) n_pat = (uint32_t)atoi(v), i++;
        else if (!strcmp(a, "-k")) {
            lmin = lmax = (uint32_t)atoi(v);
            if (strchr(v, ':'))
                lmax = (uint32_t)atoi(strchr(v, ':') + 1);
            i++;
        } else if (!strcmp(a, "-s")) both = !strcmp(v, "both"), i++;
        else if (!strcmp(a, "-r")) hits = !strcmp(v, "hits"), i++;
        else if (!strcmp(a, "-a")) alpha = !strcmp(v, "bytes") ? GS_ALPHA_BYTES : GS_ALPHA_DNA, i++;
        else if (!strcmp(a, "-t")) nth = atoi(v), i++;
        else if (!strcmp(a, "-b")) block = (size_t)atoi(v) << 20, i++;
        else if (!strcmp(a, "-e")) engines = v, i++;
        else if (!strcmp(a, "-x")) reps = atoi(v), i++;
        else path = a;
    }
    if (path == NULL || nth < 1 || lmin < 1 || lmax < lmin || n_pat < 1) {
        fprintf(stderr, "usage: bench_engines [-n N] [-k L[:M]] [-s both|forward] "
                        "[-r counts|hits] [-a dna|bytes] [-t T] [-b MiB] [-e LIST] [-x R] TEXT\n");
        return 1;
    }
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    size_t size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(size + 1);
    if (buf == NULL || fread(buf, 1, size, f) != size) {
        fprintf(stderr, "cannot read %s\n", path);
        return 2;
    }
    fclose(f);
    uint8_t *text = buf;
    size_t n = size;
    if (n && text[0] == '>') {
        uint8_t *nl = memchr(text, '\n', n);
        size_t skip = nl ? (size_t)(nl - text) + 1 : n;
        text += skip;
        n -= skip;
    }

    gs_patset ps = {0};
    ps.path = "bench";
    ps.v = calloc(n_pat, sizeof *ps.v);
    for (uint32_t p = 0; p < n_pat; p++) {
        uint32_t L = lmin + (uint32_t)(rnd() % (lmax - lmin + 1));
        uint8_t *b = malloc(L + 1);
        for (int tries = 0;; tries++) {
            size_t at = rnd() % (n - L + 1);
            uint32_t j = 0;
            for (; j < L; j++) {
                uint8_t c = text[at + j];
                if (alpha == GS_ALPHA_DNA && gs_dna_code[c] == GS_NONBASE)
                    break;
                b[j] = alpha == GS_ALPHA_DNA ? "ACGT"[gs_dna_code[c]] : c;
            }
            if (j == L || tries > 1000)
                break;
        }
        ps.v[p] = (gs_pattern){.bytes = b, .len = L, .line = p + 1};
    }
    ps.n = n_pat;

    gs_keyset ks;
    gs_error err = {0};
    double t0 = now();
    if (gs_keyset_build(&ps, alpha, both, 4096, &ks, &err) != GS_OK) {
        fprintf(stderr, "keyset: %s\n", err.msg);
        return 2;
    }
    printf("text %s: %zu bytes; %u patterns, lengths %u..%u, %s, %s, %s; %u keys (built in %.3f s); "
           "%d thread(s), %zu MiB segments; auto = %s\n",
           path, n, n_pat, lmin, lmax, alpha == GS_ALPHA_DNA ? "dna" : "bytes",
           both ? "both strands" : "forward", hits ? "hits" : "counts", ks.n_keys, now() - t0,
           nth, block >> 20, gs_engine_auto(&ks)->name);

    char list[256];
    snprintf(list, sizeof list, "%s", engines);
    for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
        const gs_engine *e = gs_engine_find(name);
        if (e == NULL) {
            fprintf(stderr, "no engine %s\n", name);
            continue;
        }
        void *c;
        t0 = now();
        if (e->compile(&ks, NULL, &c, &err) != GS_OK) {
            fprintf(stderr, "%s: %s\n", name, err.msg);
            continue;
        }
        double tc = now() - t0, best = 1e30, best_cpu = 1e30;
        uint64_t total = 0;
        for (int r = 0; r < reps; r++) {
            job *jobs = calloc((size_t)nth, sizeof *jobs);
            pthread_t *th = calloc((size_t)nth, sizeof *th);
            t0 = now();
            for (int t = 0; t < nth; t++) {
                jobs[t] = (job){e, c, text, n, block, ks.max_len - 1, t, nth, hits, ks.n_keys, 0, 0};
                pthread_create(&th[t], NULL, worker, &jobs[t]);
            }
            total = 0;
            double cpu = 0;
            for (int t = 0; t < nth; t++) {
                pthread_join(th[t], NULL);
                total += jobs[t].total_hits;
                if (jobs[t].cpu > cpu)
                    cpu = jobs[t].cpu;
            }
            double dt = now() - t0;
            if (dt < best)
                best = dt;
            if (cpu < best_cpu)
                best_cpu = cpu;
            free(jobs);
            free(th);
        }
        printf("%-3s compile %7.3f s  scan %7.3f s  %6.3f GB/s wall  %6.3f GB/s per thread "
               "(CPU time)  %llu key hits\n",
               name, tc, best, (double)n / best / 1e9, (double)n / best_cpu / 1e9 / nth,
               (unsigned long long)total);
        e->destroy(c);
    }
    gs_keyset_free(&ks);
    for (uint32_t p = 0; p < n_pat; p++)
        free(ps.v[p].bytes);
    free(ps.v);
    free(buf);
    return 0;
}
