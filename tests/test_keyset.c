/* test_keyset.c - pattern expansion, strands, merging and the expansion cap.
 *
 * Pattern sets are built here directly (gs_pattern values), so the test does
 * not depend on the pattern-file reader. Expected keys are written out by hand
 * or counted independently (a sorted list of expanded strings).
 */
#define _DEFAULT_SOURCE
#include "match/keyset.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A line number that is not the pattern index, so messages are seen to
 * name the line. */
static void add(gs_patset *ps, const char *seq, size_t len)
{
    gs_test_add_pattern(ps, seq, len, ps->n * 2 + 3);
}

static void clear(gs_patset *ps)
{
    for (uint32_t i = 0; i < ps->n; i++) {
        free(ps->v[i].name);
        free(ps->v[i].text);
        free(ps->v[i].bytes);
    }
    free(ps->v);
    memset(ps, 0, sizeof *ps);
}

/* The key equal to the ACGT string s (dna) or the raw bytes (bytes); -1 if none. */
static long find_key(const gs_keyset *ks, const char *s, size_t n)
{
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        if (gs_key_len(ks, k) != n)
            continue;
        const uint8_t *key = gs_key(ks, k);
        size_t j = 0;
        for (; j < n; j++) {
            uint8_t want = ks->alphabet == GS_ALPHA_BYTES ? (uint8_t)s[j]
                                                          : (uint8_t)(strchr("ACGT", s[j]) - "ACGT");
            if (key[j] != want)
                break;
        }
        if (j == n)
            return k;
    }
    return -1;
}

/* Outputs of the key for s, as a string like "0,2" ("" when no key). */
static const char *outs(const gs_keyset *ks, const char *s)
{
    static char buf[256];
    buf[0] = 0;
    long k = find_key(ks, s, strlen(s));
    if (k < 0)
        return "none";
    for (uint32_t i = ks->out_off[k]; i < ks->out_off[k + 1]; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%u", i > ks->out_off[k] ? "," : "",
                 ks->outputs[i]);
    return buf;
}

#define CHECK_OUTS(ks, s, want)                                                          \
    do {                                                                                 \
        const char *got_ = outs(ks, s);                                                  \
        if (strcmp(got_, want) != 0) {                                                   \
            fprintf(stderr, "%s:%d: outputs of %s = %s, expected %s\n", __FILE__, __LINE__, \
                    s, got_, want);                                                      \
            gs_test_failures++;                                                          \
        }                                                                                \
    } while (0)

static gs_status build(gs_patset *ps, gs_alphabet a, int both, uint32_t cap, gs_keyset *ks,
                       gs_error *err)
{
    memset(err, 0, sizeof *err);
    return gs_keyset_build(ps, a, both, cap, ks, err);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    gs_patset ps = {0};
    gs_keyset ks;
    gs_error err;
    ps.path = "pats.txt";

    /* N -> 4; RN -> 8 forward; with both strands RN and its reverse
     * complement NY share {A,G}x{C,T}: 8 + 8 - 4 = 12 keys, 16 outputs. */
    add(&ps, "N", 1);
    CHECK(build(&ps, GS_ALPHA_DNA, 0, 4096, &ks, &err) == GS_OK);
    CHECK_EQ_U64(ks.n_keys, 4);
    CHECK_EQ_U64(ks.n_strands, 1);
    gs_keyset_free(&ks);
    clear(&ps);
    ps.path = "pats.txt";
    add(&ps, "RN", 2);
    CHECK(build(&ps, GS_ALPHA_DNA, 0, 4096, &ks, &err) == GS_OK);
    CHECK_EQ_U64(ks.n_keys, 8);
    CHECK_OUTS(&ks, "GT", "0");
    CHECK_OUTS(&ks, "CA", "none");
    gs_keyset_free(&ks);
    CHECK(build(&ps, GS_ALPHA_DNA, 1, 4096, &ks, &err) == GS_OK);
    CHECK_EQ_U64(ks.n_keys, 12);
    CHECK_EQ_U64(ks.out_off[ks.n_keys], 16);
    CHECK_EQ_U64(ks.n_strands, 2);
    CHECK_OUTS(&ks, "GT", "0,1"); /* GT is in RN and, as AC's complement, in NY */
    CHECK_OUTS(&ks, "GA", "0");
    CHECK_OUTS(&ks, "CT", "1");   /* revcomp of AG */
    gs_keyset_free(&ks);
    clear(&ps);

    /* U means T; two patterns with one key give one key with two outputs;
     * reverse complement; palindrome reports both strands. */
    ps.path = "pats.txt";
    add(&ps, "ACGU", 4);   /* p0: palindrome once U is T */
    add(&ps, "ACGT", 4);   /* p1: the same key */
    add(&ps, "AACG", 4);   /* p2: reverse CGTT */
    add(&ps, "GATTACA", 7);
    add(&ps, "GATTACA", 7); /* p4: duplicate entry, its own id */
    CHECK(build(&ps, GS_ALPHA_DNA, 1, 4096, &ks, &err) == GS_OK);
    CHECK_OUTS(&ks, "ACGT", "0,1,2,3");
    CHECK_OUTS(&ks, "AACG", "4");
    CHECK_OUTS(&ks, "CGTT", "5");
    CHECK_OUTS(&ks, "GATTACA", "6,8");
    CHECK_OUTS(&ks, "TGTAATC", "7,9");
    CHECK_EQ_U64(ks.n_keys, 5);
    CHECK_EQ_U64(ks.min_len, 4);
    CHECK_EQ_U64(ks.max_len, 7);
    CHECK_EQ_U64(ks.n_patterns, 5);
    {   /* fold: counts[p * 2 + s] */
        uint64_t kc[5] = {0}, counts[10] = {0};
        kc[find_key(&ks, "ACGT", 4)] = 3;
        kc[find_key(&ks, "CGTT", 4)] = 2;
        gs_keyset_fold_counts(&ks, kc, counts);
        CHECK_EQ_U64(counts[0], 3);
        CHECK_EQ_U64(counts[1], 3);
        CHECK_EQ_U64(counts[2], 3);
        CHECK_EQ_U64(counts[3], 3);
        CHECK_EQ_U64(counts[4], 0);
        CHECK_EQ_U64(counts[5], 2);
        CHECK_EQ_U64(counts[6] + counts[7] + counts[8] + counts[9], 0);
    }
    gs_keyset_free(&ks);
    CHECK(build(&ps, GS_ALPHA_DNA, 0, 4096, &ks, &err) == GS_OK);
    CHECK_OUTS(&ks, "ACGT", "0,2");
    CHECK_OUTS(&ks, "CGTT", "none");
    CHECK_OUTS(&ks, "GATTACA", "6,8");
    CHECK_EQ_U64(ks.n_keys, 3);
    gs_keyset_free(&ks);
    clear(&ps);

    /* NN: 16 keys, each both forward and reverse, no output twice. */
    ps.path = "pats.txt";
    add(&ps, "NN", 2);
    CHECK(build(&ps, GS_ALPHA_DNA, 1, 4096, &ks, &err) == GS_OK);
    CHECK_EQ_U64(ks.n_keys, 16);
    CHECK_EQ_U64(ks.out_off[ks.n_keys], 32);
    CHECK_OUTS(&ks, "AT", "0,1");
    CHECK_OUTS(&ks, "AC", "0,1");
    gs_keyset_free(&ks);
    clear(&ps);

    /* The cap: 4^6 = 4096 is allowed, 4^7 is not, and the message names the
     * pattern, the cap and the file:line. */
    ps.path = "pats.txt";
    add(&ps, "ANNNNNNA", 8);
    CHECK(build(&ps, GS_ALPHA_DNA, 0, 4096, &ks, &err) == GS_OK);
    CHECK_EQ_U64(ks.n_keys, 4096);
    gs_keyset_free(&ks);
    add(&ps, "NNNNNNN", 7);
    CHECK(build(&ps, GS_ALPHA_DNA, 1, 4096, &ks, &err) == GS_EINPUT);
    CHECK(strcmp(err.msg, "pattern p2 expands to more than 4096 strings (pats.txt:5)") == 0);
    if (strcmp(err.msg, "pattern p2 expands to more than 4096 strings (pats.txt:5)") != 0)
        fprintf(stderr, "message: %s\n", err.msg);
    CHECK(ks.n_keys == 0 && ks.key_off == NULL);
    CHECK(build(&ps, GS_ALPHA_DNA, 1, 100, &ks, &err) == GS_EINPUT);
    CHECK(strstr(err.msg, "pattern p1 expands to more than 100 strings (pats.txt:3)") != NULL);
    /* 64 Ns would overflow a 64-bit product if it were computed first */
    clear(&ps);
    ps.path = "pats.txt";
    char many[80];
    memset(many, 'N', 64);
    add(&ps, many, 64);
    CHECK(build(&ps, GS_ALPHA_DNA, 1, 4096, &ks, &err) == GS_EINPUT);
    clear(&ps);

    /* bytes: raw, case-sensitive, no expansion, forward only. */
    ps.path = "pats.txt";
    add(&ps, "NRa\0x", 5);
    add(&ps, "nra", 3);
    add(&ps, "NRa\0x", 5);
    CHECK(build(&ps, GS_ALPHA_BYTES, 1, 4096, &ks, &err) == GS_OK);
    CHECK_EQ_U64(ks.n_keys, 2);
    CHECK_EQ_U64(ks.n_strands, 1);
    {
        long k = find_key(&ks, "NRa\0x", 5);
        CHECK(k >= 0);
        if (k >= 0) {
            CHECK_EQ_U64(ks.out_off[k + 1] - ks.out_off[k], 2);
            CHECK_EQ_U64(ks.outputs[ks.out_off[k]], 0);
            CHECK_EQ_U64(ks.outputs[ks.out_off[k] + 1], 4);
        }
    }
    gs_keyset_free(&ks);
    clear(&ps);

    /* Many patterns: 300000 random 12-mers (some repeated) merge into exactly
     * the distinct strings and their reverse complements. */
    {
        uint64_t rs = 7;
        uint32_t P = 300000;
        char **all = malloc((size_t)P * 2 * sizeof *all);
        ps.path = "kmers.txt";
        ps.v = malloc((size_t)P * sizeof *ps.v);
        for (uint32_t p = 0; p < P; p++) {
            char s[13];
            for (int j = 0; j < 12; j++)
                s[j] = "ACGT"[gs_test_below(&rs, 4) & (p % 3 ? 3 : 1)];
            s[12] = 0;
            gs_pattern *pt = &ps.v[p];
            pt->name = NULL;
            pt->text = NULL;
            pt->bytes = (uint8_t *)strdup(s);
            pt->len = 12;
            pt->line = p + 1;
            char *r = malloc(13);
            for (int j = 0; j < 12; j++)
                r[j] = "TGCA"[strchr("ACGT", s[11 - j]) - "ACGT"];
            r[12] = 0;
            all[2 * p] = strdup(s);
            all[2 * p + 1] = r;
        }
        ps.n = P;
        qsort(all, (size_t)P * 2, sizeof *all, cmp_str);
        size_t distinct = 0;
        for (size_t i = 0; i < (size_t)P * 2; i++)
            if (i == 0 || strcmp(all[i], all[i - 1]) != 0)
                distinct++;
        CHECK(build(&ps, GS_ALPHA_DNA, 1, 4096, &ks, &err) == GS_OK);
        CHECK_EQ_U64(ks.n_keys, distinct);
        CHECK_EQ_U64(ks.out_off[ks.n_keys], (uint64_t)P * 2);
        int sorted = 1;
        for (uint32_t k = 0; k < ks.n_keys; k++)
            for (uint32_t i = ks.out_off[k] + 1; i < ks.out_off[k + 1]; i++)
                if (ks.outputs[i - 1] >= ks.outputs[i])
                    sorted = 0;
        CHECK(sorted);
        gs_keyset_free(&ks);
        for (size_t i = 0; i < (size_t)P * 2; i++)
            free(all[i]);
        free(all);
        for (uint32_t p = 0; p < P; p++)
            free(ps.v[p].bytes);
        free(ps.v);
        memset(&ps, 0, sizeof ps);
    }
    return gs_test_done("test_keyset");
}
