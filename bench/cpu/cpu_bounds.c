/* cpu_bounds.c - the two machine numbers the CPU bound in docs/performance-cpu.md rests on.
 *
 *   cpu_bounds [THREADS]
 *
 * 1. Streaming read bandwidth: THREADS threads each sum their share of a
 *    1 GiB buffer (8-byte loads, 4 independent sums so the adder is no
 *    limit); best of 3 passes. A scan reads each residue once, so this is the
 *    ceiling on residues per second if matching cost nothing.
 * 2. Dependent L1 load latency: a random pointer chase through 16 KB (the
 *    size of a 1000-key dna DFA in 16-bit entries), in ns and in cycles of
 *    the TSC. One Aho-Corasick chain needs one such load per residue
 *    (s = delta[s + class]), so this is the floor of its per-residue time.
 * Both with plain C so the compiler flags of the project's Release build
 * (-O2/-O3, no -march) apply.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUF_BYTES ((size_t)1 << 30)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct part {
    const uint64_t *p;
    size_t n;
    uint64_t sum;
} part;

static void *sum_part(void *arg)
{
    part *q = arg;
    uint64_t a = 0, b = 0, c = 0, d = 0;
    for (size_t i = 0; i + 4 <= q->n; i += 4) {
        a += q->p[i];
        b += q->p[i + 1];
        c += q->p[i + 2];
        d += q->p[i + 3];
    }
    q->sum = a + b + c + d;
    return NULL;
}

int main(int argc, char **argv)
{
    int nt = argc > 1 ? atoi(argv[1]) : 1;
    if (nt < 1 || nt > 64) {
        fprintf(stderr, "usage: cpu_bounds [THREADS]\n");
        return 1;
    }
    uint64_t *buf = malloc(BUF_BYTES);
    if (!buf) {
        fprintf(stderr, "cpu_bounds: out of memory\n");
        return 3;
    }
    size_t words = BUF_BYTES / 8;
    for (size_t i = 0; i < words; i++)
        buf[i] = i * 0x9e3779b97f4a7c15ULL;

    double best = 1e30;
    uint64_t check = 0;
    for (int rep = 0; rep < 3; rep++) {
        part q[64];
        pthread_t tid[64];
        double t0 = now();
        for (int t = 0; t < nt; t++) {
            q[t] = (part){buf + words / (size_t)nt * (size_t)t, words / (size_t)nt, 0};
            pthread_create(&tid[t], NULL, sum_part, &q[t]);
        }
        for (int t = 0; t < nt; t++) {
            pthread_join(tid[t], NULL);
            check += q[t].sum;
        }
        double dt = now() - t0;
        if (dt < best)
            best = dt;
    }
    printf("read bandwidth, %d thread(s): %.1f GB/s (checksum %llx)\n", nt,
           (double)BUF_BYTES / best * 1e-9, (unsigned long long)check);
    free(buf);

    /* A random cycle through 2048 slots of 8 bytes = 16 KB. */
    enum { SLOTS = 2048 };
    static uintptr_t chase[SLOTS];
    static uint32_t perm[SLOTS];
    uint64_t r = 12345;
    for (uint32_t i = 0; i < SLOTS; i++)
        perm[i] = i;
    for (uint32_t i = SLOTS - 1; i > 0; i--) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t j = (uint32_t)((r >> 33) % (i + 1));
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (uint32_t i = 0; i < SLOTS; i++)
        chase[perm[i]] = (uintptr_t)&chase[perm[(i + 1) % SLOTS]];
    const long steps = 200000000;
    uintptr_t p = (uintptr_t)&chase[perm[0]];
    double t0 = now();
    for (long i = 0; i < steps; i++)
        p = *(const uintptr_t *)p;
    double dt = now() - t0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    double mhz = 0;
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "cpu MHz", 7) && sscanf(strchr(line, ':') + 1, "%lf", &mhz) == 1)
            break;
    if (f)
        fclose(f);
    printf("dependent L1 load: %.2f ns", dt / (double)steps * 1e9);
    if (mhz > 0)
        printf(" = %.1f cycles at %.0f MHz", dt / (double)steps * mhz * 1e6, mhz);
    printf(" (end %lx)\n", (unsigned long)(p & 0xf));
    return 0;
}
