/* inflate_speed.c - decompression speed of zlib, libdeflate and ISA-L on one
 * core, on the two shapes gscan reads: a BGZF file (independent blocks of at
 * most 64 KiB) and a single-stream gzip file.
 *
 *   cc -O2 bench/cpu/inflate_speed.c -lz -ldeflate -lisal -o /tmp/inflate_speed
 *   /tmp/inflate_speed FILE.bgz FILE.gz [runs]
 *
 * The compressed file is read into memory first, so only decompression is
 * timed (one thread, the median of runs), as wall time and as the thread's CPU
 * time (which other load on a shared machine disturbs much less). GB/s is
 * 10^9 decompressed bytes a second.
 * BGZF: every block is inflated into one 64 KiB buffer and its CRC32 is
 * computed, as gs_bgzf_read does (zlib: inflate + crc32; libdeflate:
 * libdeflate_deflate_decompress_ex + libdeflate_crc32; ISA-L:
 * isal_inflate_stateless + crc32_gzip_refl). gzip: the whole
 * stream, every member, into a 1 MiB buffer reused (zlib: inflate with
 * windowBits 31; ISA-L: isal_inflate with ISAL_GZIP, which checks the CRC).
 */
#define _POSIX_C_SOURCE 200809L
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

static double clock_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0)
        return NULL;
    long sz = ftell(f);
    rewind(f);
    uint8_t *b = malloc((size_t)sz + 1);
    if (b == NULL || fread(b, 1, (size_t)sz, f) != (size_t)sz)
        return NULL;
    fclose(f);
    *n = (size_t)sz;
    return b;
}

/* BGZF: returns decompressed bytes, or 0 on a bad block. */
static size_t bgzf_pass(const uint8_t *c, size_t n, int lib, uint8_t *out)
{
    static z_stream zs;
    static struct libdeflate_decompressor *d;
    if (!d) {
        d = libdeflate_alloc_decompressor();
        inflateInit2(&zs, -15);
    }
    size_t total = 0, off = 0;
    uint32_t sink = 0;
    while (off + 26 <= n) {
        size_t bsize = ((size_t)c[off + 16] | (size_t)c[off + 17] << 8) + 1;
        const uint8_t *def = c + off + 18;
        size_t dl = bsize - 26, got = 0;
        if (lib == 0) {
            inflateReset(&zs);
            zs.next_in = (uint8_t *)def;
            zs.avail_in = (uInt)dl;
            zs.next_out = out;
            zs.avail_out = 65536;
            if (inflate(&zs, Z_FINISH) != Z_STREAM_END)
                return 0;
            got = 65536 - zs.avail_out;
            sink ^= (uint32_t)crc32(0, out, (uInt)got);
        } else if (lib == 2) {
            struct inflate_state st;
            isal_inflate_init(&st);
            st.next_in = (uint8_t *)def;
            st.avail_in = (uint32_t)dl;
            st.next_out = out;
            st.avail_out = 65536;
            if (isal_inflate_stateless(&st) != ISAL_DECOMP_OK)
                return 0;
            got = 65536 - st.avail_out;
            sink ^= crc32_gzip_refl(0, out, got);
        } else {
            if (libdeflate_deflate_decompress_ex(d, def, dl, out, 65536, NULL, &got) !=
                LIBDEFLATE_SUCCESS)
                return 0;
            sink ^= libdeflate_crc32(0, out, got);
        }
        total += got;
        off += bsize;
    }
    return total + (sink == 0x12345678); /* keep the CRC from being optimised away */
}

static size_t gzip_pass(const uint8_t *c, size_t n, int lib, uint8_t *out, size_t cap)
{
    size_t total = 0;
    if (lib == 0) {
        z_stream zs = {0};
        inflateInit2(&zs, 31);
        zs.next_in = (uint8_t *)c;
        zs.avail_in = (uInt)n;
        for (;;) {
            zs.next_out = out;
            zs.avail_out = (uInt)cap;
            int r = inflate(&zs, Z_NO_FLUSH);
            total += cap - zs.avail_out;
            if (r == Z_STREAM_END) {
                if (zs.avail_in == 0)
                    break;
                inflateReset(&zs); /* next member */
            } else if (r != Z_OK)
                return 0;
        }
        inflateEnd(&zs);
        return total;
    }
    struct inflate_state st;
    isal_inflate_init(&st);
    st.crc_flag = ISAL_GZIP;
    st.next_in = (uint8_t *)c;
    st.avail_in = (uint32_t)n;
    for (;;) {
        st.next_out = out;
        st.avail_out = (uint32_t)cap;
        if (isal_inflate(&st) != ISAL_DECOMP_OK)
            return 0;
        total += cap - st.avail_out;
        if (st.block_state == ISAL_BLOCK_FINISH) {
            if (st.avail_in == 0)
                break;
            const uint8_t *rest = st.next_in;
            uint32_t left = st.avail_in;
            isal_inflate_reset(&st);
            st.crc_flag = ISAL_GZIP;
            st.next_in = (uint8_t *)rest;
            st.avail_in = left;
        }
    }
    return total;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE.bgz FILE.gz [runs]\n", argv[0]);
        return 1;
    }
    int runs = argc > 3 ? atoi(argv[3]) : 3;
    runs = runs < 1 ? 1 : runs > 64 ? 64 : runs;
    size_t nb, ng;
    uint8_t *b = slurp(argv[1], &nb), *g = slurp(argv[2], &ng);
    uint8_t *out = malloc(1 << 20);
    if (!b || !g || !out) {
        fprintf(stderr, "cannot read inputs\n");
        return 1;
    }
    const char *names[2][3] = {{"zlib", "libdeflate", "isa-l"}, {"zlib", "isa-l", NULL}};
    printf("| input | library | compressed MB | decompressed MB | median wall s | GB/s (out) | median CPU s | GB/CPU-s |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (int shape = 0; shape < 2; shape++)
        for (int lib = 0; lib < 3 && names[shape][lib]; lib++) {
            double wall[64], cpu[64];
            size_t got = 0;
            for (int r = 0; r < runs; r++) {
                double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
                got = shape == 0 ? bgzf_pass(b, nb, lib, out) : gzip_pass(g, ng, lib, out, 1 << 20);
                double t = clock_s(CLOCK_MONOTONIC) - t0, c = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
                wall[r] = t;
                cpu[r] = c;
            }
            if (got == 0) {
                fprintf(stderr, "%s: decompression failed\n", names[shape][lib]);
                return 2;
            }
            printf("| %s | %s | %.1f | %.1f | %.3f | %.2f | %.3f | %.2f |\n",
                   shape ? "gzip stream" : "BGZF", names[shape][lib], (shape ? ng : nb) / 1e6,
                   got / 1e6, median(wall, runs), got / median(wall, runs) / 1e9,
                   median(cpu, runs), got / median(cpu, runs) / 1e9);
        }
    return 0;
}
