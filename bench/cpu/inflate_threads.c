/* inflate_threads.c - decompression speed of one gzip stream on threads
 * (src/io/inflate_parallel.c) next to ISA-L on one thread, the two ways
 * gscan reads a gzip file (-t 4 or more, and fewer).
 *
 *   cc -O2 -Isrc bench/cpu/inflate_threads.c src/io/inflate_parallel.c \
 *      src/io/deflate_chunk.c src/core/gs_error.c -lz -lisal -lpthread -o /tmp/inflate_threads
 *   /tmp/inflate_threads FILE.gz [runs] [threads...]
 *
 * The compressed file is read into memory first; each run decodes all of
 * it, every byte handed out in order and every member's CRC32 checked, as
 * gscan's reader gets them (nothing is copied out). Median of runs (3) per
 * thread count (default 1 2 4 8 16), wall seconds and GB/s of output.
 */
#define _POSIX_C_SOURCE 200809L
#include <isa-l/igzip_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/stream/inflate_parallel.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ISA-L, one thread, every member, into a reused 1 MiB buffer: bytes out. */
static uint64_t isal(const uint8_t *in, size_t n)
{
    static uint8_t out[1 << 20];
    struct inflate_state st;
    uint64_t total = 0;
    size_t at = 0;
    while (at + 2 <= n && in[at] == 0x1f && in[at + 1] == 0x8b) {
        isal_inflate_init(&st);
        st.crc_flag = ISAL_GZIP;
        st.next_in = (uint8_t *)in + at;
        st.avail_in = (uint32_t)(n - at);
        do {
            st.next_out = out;
            st.avail_out = sizeof out;
            if (isal_inflate(&st) < 0)
                return 0;
            total += sizeof out - st.avail_out;
        } while (st.block_state != ISAL_BLOCK_FINISH && (st.avail_in || st.avail_out == 0));
        if (st.block_state != ISAL_BLOCK_FINISH)
            return 0;
        at = n - st.avail_in;
    }
    return total;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE.gz [runs] [threads...]\n", argv[0]);
        return 1;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0)
        return 1;
    size_t n = (size_t)ftell(f);
    rewind(f);
    uint8_t *in = malloc(n);
    if (in == NULL || fread(in, 1, n, f) != n)
        return 1;
    fclose(f);
    double t[64];
    uint64_t out = 0;
    printf("| decoder | threads | compressed MB | decompressed MB | median wall s | GB/s (out) |\n");
    printf("|---|---|---|---|---|---|\n");
    for (int r = 0; r < runs && r < 64; r++) {
        double t0 = now();
        out = isal(in, n);
        t[r] = now() - t0;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp);
    printf("| ISA-L | 1 | %.1f | %.1f | %.3f | %.2f |\n", n / 1e6, out / 1e6, t[runs / 2],
           out / t[runs / 2] / 1e9);
    int def[] = {1, 2, 4, 8, 16}, nt = argc > 3 ? argc - 3 : 5;
    for (int k = 0; k < nt; k++) {
        int th = argc > 3 ? atoi(argv[3 + k]) : def[k];
        for (int r = 0; r < runs && r < 64; r++) {
            gs_error err = {0};
            gs_pinflate *p;
            double t0 = now();
            if (gs_pinflate_open(in, n, th, 0, argv[1], &p, &err) != GS_OK)
                return fprintf(stderr, "%s\n", err.msg), 1;
            const uint8_t *v;
            size_t got = 1;
            gs_status st = GS_OK;
            out = 0;
            while (got > 0 && (st = gs_pinflate_next(p, &v, &got, &err)) == GS_OK)
                out += got;
            gs_pinflate_close(p);
            if (st != GS_OK)
                return fprintf(stderr, "%s\n", err.msg), 1;
            t[r] = now() - t0;
        }
        qsort(t, (size_t)runs, sizeof *t, cmp);
        printf("| gscan threads | %d | %.1f | %.1f | %.3f | %.2f |\n", th, n / 1e6, out / 1e6,
               t[runs / 2], out / t[runs / 2] / 1e9);
    }
    free(in);
    return 0;
}
