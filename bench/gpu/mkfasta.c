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
 *
 * An OUT ending in .fq writes FASTQ instead: reads of RECLEN residues (150
 * for short reads), each "@rN", the sequence, "+" and a quality line of the
 * same length in Illumina's binned letters (F : , and some G-free noise).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int write_fastq(const char *seq, uint64_t n, FILE *out, uint64_t total, uint64_t len,
                       char *buf, size_t cap)
{
    static const char qual[] = "FFFF:FFF,FFFFF:FFFFFFF#F:FF,FFFFFFFF:FF";
    size_t used = 0;
    uint64_t at = 0, rec = 0;
    if (len + 64 > cap / 2)
        return 1;
    for (uint64_t done = 0; done < total; done += len) {
        if (used + 2 * len + 64 > cap) {
            fwrite(buf, 1, used, out);
            used = 0;
        }
        used += (size_t)sprintf(buf + used, "@r%llu\n", (unsigned long long)++rec);
        for (uint64_t i = 0; i < len; i++, at = at + 1 == n ? 0 : at + 1)
            buf[used + i] = seq[at];
        used += len;
        memcpy(buf + used, "\n+\n", 3);
        used += 3;
        for (uint64_t i = 0; i < len; i++)
            buf[used + i] = qual[(rec + i) % (sizeof qual - 1)];
        used += len;
        buf[used++] = '\n';
    }
    fwrite(buf, 1, used, out);
    return fclose(out) != 0;
}

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
    size_t lo = strlen(argv[2]);
    if (lo > 3 && !strcmp(argv[2] + lo - 3, ".fq"))
        return write_fastq(seq, (uint64_t)n, out, total, reclen ? reclen : 150, buf, sizeof buf);
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
