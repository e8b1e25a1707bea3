/* mkfasta.c - write a large plain FASTA file from a bare sequence file.
 *
 *   mkfasta SEQ OUT.fa TOTAL RECLEN [WIDTH]
 *
 * The whole-command benchmark of scripts/device.sh needs ~1 GiB of real DNA
 * as FASTA, and 64 MiB is all that travels to the GPU machine: the sequence
 * (genomes.seq, headers and newlines already dropped) is repeated until TOTAL
 * residues are written, as one record (RECLEN 0) or as records of RECLEN
 * residues (the many-record case: EST sets, contigs), in lines of WIDTH
 * (default 60) like any FASTA writer. Plain C and large writes, so building
 * the file takes about as long as the disk takes to absorb it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: mkfasta SEQ OUT.fa TOTAL RECLEN [WIDTH]\n");
        return 1;
    }
    uint64_t total = strtoull(argv[3], NULL, 10), reclen = strtoull(argv[4], NULL, 10);
    size_t width = argc > 5 ? strtoul(argv[5], NULL, 10) : 60;
    FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[2], "wb");
    if (in == NULL || out == NULL || width == 0) {
        perror("mkfasta");
        return 1;
    }
    fseek(in, 0, SEEK_END);
    long n = ftell(in);
    rewind(in);
    char *seq = malloc(n > 0 ? (size_t)n : 1);
    if (n <= 0 || seq == NULL || width > 1 << 20 || fread(seq, 1, (size_t)n, in) != (size_t)n) {
        fprintf(stderr, "mkfasta: cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(in);
    static char buf[1 << 22];
    size_t used = 0;
    uint64_t at = 0, rec = 0, in_rec = 0, in_line = 0;
    if (reclen == 0)
        reclen = total;
    for (uint64_t done = 0; done < total;) {
        if (used + width + 64 > sizeof buf) {
            fwrite(buf, 1, used, out);
            used = 0;
        }
        if (in_rec == 0) {
            if (done)
                buf[used++] = '\n';
            used += (size_t)sprintf(buf + used, ">r%llu\n", (unsigned long long)++rec);
            in_line = 0;
        } else if (in_line == width) {
            buf[used++] = '\n';
            in_line = 0;
        }
        /* the longest run that stays on one line, in one record, in seq */
        uint64_t c = width - in_line;
        c = c < reclen - in_rec ? c : reclen - in_rec;
        c = c < total - done ? c : total - done;
        c = c < (uint64_t)n - at ? c : (uint64_t)n - at;
        memcpy(buf + used, seq + at, c);
        used += c;
        done += c;
        in_line += c;
        at = at + c == (uint64_t)n ? 0 : at + c;
        in_rec = in_rec + c == reclen ? 0 : in_rec + c;
    }
    buf[used++] = '\n';
    fwrite(buf, 1, used, out);
    if (fclose(out) != 0) {
        perror("mkfasta");
        return 1;
    }
    free(seq);
    return 0;
}
