/* read_speed.c - the corpus reader alone (io/seq: FASTA, FASTQ, raw; plain,
 * gzip, BGZF): every segment of the given files drained, no matching, no
 * MPI, no HDF5; prints residues, records, wall and CPU seconds (the
 * process's: decompression threads included) and nanoseconds per residue.
 * It answers "does FASTQ read as fast as EST-like FASTA per residue"
 * without the scan's cost on top (docs/performance.md §3).
 *
 *   cc -O2 -Isrc bench/inputs/read_speed.c build/libgs_seq.a build/libgs_stream.a \
 *      build/libgs_core.a -lz -lisal -ldeflate -lpthread -o /tmp/read_speed
 *   /tmp/read_speed THREADS FILE...
 */
#define _POSIX_C_SOURCE 200809L
#include "io/seq/fasta.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec +
           (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: read_speed THREADS FILE...\n");
        return 1;
    }
    enum { BLOCK = 256 << 10, OVERLAP = 31 };
    gs_reader_opts o = {.block = BLOCK, .overlap = OVERLAP, .threads = atoi(argv[1]),
                        .drop_read_names = 1};
    gs_layout l = {0};
    gs_error err = {0};
    gs_reader *r;
    uint8_t *buf = malloc(BLOCK + OVERLAP);
    gs_segment seg;
    int more = 1;
    uint64_t residues = 0;
    double w0 = now(), c0 = cpu();
    gs_status st = gs_reader_open((const char *const *)argv + 2, (size_t)argc - 2, &o, &l, &r, &err);
    while (st == GS_OK && more && (st = gs_reader_next(r, buf, &seg, &more, &err)) == GS_OK && more)
        residues += seg.own;
    double w = now() - w0, c = cpu() - c0;
    if (st != GS_OK) {
        fprintf(stderr, "read_speed: %s\n", err.msg);
        return 2;
    }
    printf("%s: %llu residues, %zu records, wall %.3f s, cpu %.3f s, %.2f ns/residue (wall), "
           "%.2f ns/residue (cpu)\n",
           argv[2], (unsigned long long)residues, l.n_rec, w, c, 1e9 * w / (double)residues,
           1e9 * c / (double)residues);
    gs_reader_close(r);
    gs_layout_free(&l);
    free(buf);
    return 0;
}
