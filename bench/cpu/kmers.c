/* kmers.c - draw N distinct random k-mers from a FASTA file, one a line.
 *
 *   kmers [-n N] [-k K] [-s SEED] FASTA > PATTERNS
 *
 * The CPU benchmarks need probes that hit the way real probes do, so they are
 * cut from the corpus itself rather than generated: a random byte offset of
 * the file is taken when the K bytes from there are all bases (ACGTacgt, so a
 * window never crosses a line break, an N or a header) and the line it lies on
 * is not a header. The k-mer is written uppercase; duplicates are drawn again,
 * so the output holds N distinct keys and every tool compiles the same set.
 * The generator is splitmix64 on the seed, so a seed gives the same file on
 * every machine. No dependency but libc: both benchmark scripts use it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int is_base(unsigned char c)
{
    switch (c) {
    case 'A': case 'C': case 'G': case 'T':
    case 'a': case 'c': case 'g': case 't':
        return 1;
    default:
        return 0;
    }
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f)
        return NULL;
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : (size_t)1 << 24;
            char *nb = realloc(buf, ncap);
            if (!nb)
                goto fail;
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f))
        goto fail;
    fclose(f);
    *len = n;
    return buf;
fail:
    free(buf);
    fclose(f);
    return NULL;
}

int main(int argc, char **argv)
{
    long n_want = 1000, k = 8;
    uint64_t seed = 42;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            n_want = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-k") && i + 1 < argc)
            k = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf(stderr, "usage: kmers [-n N] [-k K] [-s SEED] FASTA\n");
            return 1;
        }
    }
    if (!path || n_want < 1 || k < 1 || k > 64) {
        fprintf(stderr, "usage: kmers [-n N] [-k K (1..64)] [-s SEED] FASTA\n");
        return 1;
    }
    rng_state = seed;

    size_t len;
    char *buf = slurp(path, &len);
    if (!buf) {
        perror(path);
        return 2;
    }
    char *keys = malloc((size_t)n_want * (size_t)k);
    if (!keys || len < (size_t)k) {
        fprintf(stderr, "kmers: %s: too small or out of memory\n", path);
        return 2;
    }
    long have = 0;
    uint64_t tries = 0, max_tries = (uint64_t)n_want * 100000u;
    while (have < n_want && tries++ < max_tries) {
        size_t at = (size_t)(rnd() % (uint64_t)(len - (size_t)k + 1));
        long j;
        for (j = 0; j < k && is_base((unsigned char)buf[at + (size_t)j]); j++)
            ;
        if (j < k)
            continue;
        size_t ls = at;
        while (ls > 0 && buf[ls - 1] != '\n')
            ls--;
        if (buf[ls] == '>')
            continue;
        char *key = keys + (size_t)have * (size_t)k;
        for (j = 0; j < k; j++)
            key[j] = (char)(buf[at + (size_t)j] & ~0x20); /* uppercase */
        long d;
        for (d = 0; d < have && memcmp(keys + (size_t)d * (size_t)k, key, (size_t)k); d++)
            ;
        if (d == have)
            have++;
    }
    if (have < n_want) {
        fprintf(stderr, "kmers: %s: found only %ld distinct %ld-mers\n", path, have, k);
        return 2;
    }
    for (long i = 0; i < have; i++)
        printf("%.*s\n", (int)k, keys + (size_t)i * (size_t)k);
    free(keys);
    free(buf);
    return fflush(stdout) == 0 ? 0 : 3;
}
