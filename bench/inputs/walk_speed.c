/* walk_speed.c - the loose walk alone (src/io/seq/parts_loose.c): how long
 * the host takes to find the records of a FASTA or FASTQ part in its bytes,
 * fed 256 KiB at a time as a reader's pieces arrive, on one core. Prints
 * records, ns a record and GB/s of text, the median of RUNS walks.
 *
 *   cc -O2 -Isrc bench/inputs/walk_speed.c build/libgs_seq.a build/libgs_stream.a \
 *      build/libgs_core.a -lz -lisal -ldeflate -lpthread -o /tmp/walk_speed
 *   /tmp/walk_speed FILE [RUNS]     (FASTQ where FILE's first byte is '@')
 */
#define _POSIX_C_SOURCE 200809L
#include "io/seq/parts_loose.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { PIECE = 256 << 10 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: walk_speed FILE [RUNS]\n");
        return 2;
    }
    const int runs = argc > 2 ? atoi(argv[2]) : 5;
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0) {
        perror(argv[1]);
        return 1;
    }
    const size_t n = (size_t)ftell(f);
    uint8_t *b = malloc(n ? n : 1);
    rewind(f);
    if (b == NULL || fread(b, 1, n, f) != n) {
        perror(argv[1]);
        return 1;
    }
    fclose(f);
    gs_loose lz = {0};
    gs_error err = {0};
    double t[64];
    int k = runs < 1 ? 1 : runs > 64 ? 64 : runs;
    for (int r = 0; r < k; r++) {
        gs_loose_begin(&lz, n > 0 && b[0] == '@', UINT64_MAX);
        const double t0 = now();
        for (size_t have = 0; have < n && lz.state == GS_LOOSE_WALKING;) {
            have = n - have < PIECE ? n : have + PIECE;
            if (gs_loose_feed(&lz, b, have, n, &err) != GS_OK) {
                fprintf(stderr, "%s\n", err.msg);
                return 1;
            }
        }
        t[r] = now() - t0;
    }
    qsort(t, (size_t)k, sizeof *t, cmp);
    const double m = t[k / 2];
    printf("%s: %s, %zu records, %.3f s (median of %d), %.1f ns a record, %.2f GB/s\n", argv[1],
           lz.state == GS_LOOSE_DONE ? "walked" : "gave up", lz.n, m, k,
           lz.n ? 1e9 * m / (double)lz.n : 0.0, (double)n / m / 1e9);
    gs_loose_free(&lz);
    free(b);
    return 0;
}
