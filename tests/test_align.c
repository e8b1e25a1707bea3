/* test_align.c - the aligned target and CIGAR of an approximate hit
 * (io/results/align.h) against what they must say.
 *
 * For random patterns (IUPAC codes included) and targets made from them by
 * random substitutions, insertions and deletions, and for targets of
 * non-bases: the distance equals an independent edit distance (Hamming for
 * mismatches); the CIGAR's columns add up to the pattern and the target
 * (= X I consume the pattern, = X D the target), its X I D count the
 * distance; the shown target, read without its '-', is the target, uppercase
 * exactly at '=' columns. A few hand-made cases pin the tie rule. Under
 * --max-bulges the alignment shown has the hit's distance, at most B bulge
 * residues and the most of them, against a recursion of its own.
 */
#include "io/results/align.h"
#include "testlib.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static size_t edit_distance(const char *p, size_t m, const char *t, size_t n)
{
    size_t *prev = malloc((n + 1) * sizeof *prev), *cur = malloc((n + 1) * sizeof *cur);
    for (size_t j = 0; j <= n; j++)
        prev[j] = j;
    for (size_t i = 1; i <= m; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= n; j++) {
            size_t sub = prev[j - 1] + !gs_iupac_matches((uint8_t)p[i - 1], t[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        size_t *x = prev;
        prev = cur;
        cur = x;
    }
    size_t d = prev[n];
    free(prev);
    free(cur);
    return d;
}

/* The alignment's columns must fit p, t and the distance. */
static void check_consistent(const char *p, size_t m, const char *t, size_t n, const char *shown,
                             const char *cigar, uint32_t dist)
{
    size_t used_p = 0, used_t = 0, edits = 0, at = 0;
    for (const char *c = cigar; *c;) {
        char *end;
        unsigned long len = strtoul(c, &end, 10);
        char op = *end;
        c = end + 1;
        for (unsigned long r = 0; r < len; r++, at++) {
            char s = shown[at];
            if (op == 'I') {
                CHECK(s == '-');
                used_p++;
                edits++;
                continue;
            }
            CHECK(used_t < n && toupper((unsigned char)s) == toupper((unsigned char)t[used_t]));
            if (op == '=') {
                CHECK(used_p < m && gs_iupac_matches((uint8_t)p[used_p], t[used_t]));
                CHECK(!islower((unsigned char)s));
            } else {
                CHECK(op == 'X' || op == 'D');
                CHECK(!isupper((unsigned char)s));
                edits++;
            }
            if (op != 'D')
                used_p++;
            used_t++;
        }
    }
    CHECK(shown[at] == '\0');
    CHECK(used_p == m && used_t == n && edits == dist);
}

static void test_random(void)
{
    static const char codes[] = "ACGTACGTACGTRYN";
    static const char bases[] = "ACGTacgtN";
    uint64_t rng = 20261126;
    gs_aligner a = {0};
    for (int round = 0; round < 3000; round++) {
        size_t m = 1 + gs_test_below(&rng, 30);
        char p[64], t[128], shown[256], cigar[1024];
        for (size_t i = 0; i < m; i++)
            p[i] = codes[gs_test_below(&rng, sizeof codes - 1)];
        int edits = round % 2;
        size_t n = 0;
        for (size_t i = 0; i < m; i++) { /* a copy of p with changes */
            unsigned r = (unsigned)gs_test_below(&rng, 10);
            if (edits && r == 0)
                continue; /* deleted */
            if (edits && r == 1 && n < 120)
                t[n++] = bases[gs_test_below(&rng, sizeof bases - 1)]; /* inserted */
            char c = p[i];
            if (r == 2 || !strchr("ACGT", c))
                c = bases[gs_test_below(&rng, sizeof bases - 1)];
            t[n++] = c;
        }
        if (!edits) /* a Hamming hit has the pattern's length */
            n = m;
        gs_error err = {0};
        uint32_t dist;
        const gs_align_mode mode = {edits, 0, 0};
        CHECK(gs_align_show(&a, (const uint8_t *)p, m, t, n, &mode, shown, cigar, &dist, &err) ==
              GS_OK);
        size_t want = 0;
        if (edits)
            want = edit_distance(p, m, t, n);
        else
            for (size_t i = 0; i < m; i++)
                want += !gs_iupac_matches((uint8_t)p[i], t[i]);
        CHECK(dist == want);
        check_consistent(p, m, t, n, shown, cigar, dist);
    }
    gs_aligner_free(&a);
}

/* edits: 0 Hamming, 1 edits, -B mismatches and B bulges at distance dist */
static void expect(const char *p, const char *t, int edits, const char *shown, const char *cigar,
                   uint32_t dist)
{
    gs_aligner a = {0};
    gs_error err = {0};
    char s[256], c[256];
    uint32_t d;
    const gs_align_mode mode = {edits > 0, edits < 0 ? (uint32_t)-edits : 0, dist};
    CHECK(gs_align_show(&a, (const uint8_t *)p, strlen(p), t, strlen(t), &mode, s, c, &d, &err) ==
          GS_OK);
    if (strcmp(s, shown) || strcmp(c, cigar) || d != dist) {
        fprintf(stderr, "%s vs %s: got %s %s %u, want %s %s %u\n", p, t, s, c, d, shown, cigar,
                dist);
        gs_test_failures++;
    }
    gs_aligner_free(&a);
}

static void test_cases(void)
{
    expect("ACGTACGT", "ACGTACGT", 0, "ACGTACGT", "8=", 0);
    expect("ACGTACGT", "acGAACGT", 0, "ACGaACGT", "3=1X4=", 1);
    expect("ACGNACGT", "ACGTNCGT", 0, "ACGTnCGT", "4=1X3=", 1);   /* N in the text matches nothing */
    expect("ACGTACGT", "ACGACGT", 1, "ACG-ACGT", "3=1I4=", 1);    /* a base the target lacks */
    expect("ACGTACGT", "ACGTTACGT", 1, "ACGtTACGT", "3=1D5=", 1); /* one the pattern lacks: */
    /* ties go to the match from the end, so a gap stands as far left as it can */
    expect("GGGG", "GGAGG", 1, "GGaGG", "2=1D2=", 1);
    expect("RYRY", "AcGt", 1, "ACGT", "4=", 0);                   /* IUPAC codes */
    /* bulges: the hit's distance with the most bulges (fewest mismatches) */
    expect("ACGTACGTAC", "ACGTCGTAC", -1, "ACGT-CGTAC", "4=1I5=", 1);
    expect("ACGTACGTAC", "ACGTAACGTAC", -1, "ACGTaACGTAC", "4=1D6=", 1);
    /* GGGAAA against GGAAAA: one mismatch, or a bulge each way (2) */
    expect("GGGAAA", "GGAAAA", -2, "GGaAAA", "2=1X3=", 1);
    expect("GGGAAA", "GGAAAA", -2, "GGa-AAA", "2=1D1I3=", 2); /* matches from the end first */
}

/* The fewest mismatches of p[i, m) against t[j, n) with exactly b bulges,
 * by recursion from the front (align.c fills its table from the back). */
static uint32_t rest(const char *p, size_t m, const char *t, size_t n, size_t i, size_t j,
                     uint32_t b)
{
    if (i == m && j == n)
        return b == 0 ? 0 : UINT32_MAX;
    uint32_t best = UINT32_MAX, v;
    if (i < m && j < n && (v = rest(p, m, t, n, i + 1, j + 1, b)) != UINT32_MAX) {
        v += !gs_iupac_matches((uint8_t)p[i], t[j]);
        best = v < best ? v : best;
    }
    if (b > 0 && i < m && (v = rest(p, m, t, n, i + 1, j, b - 1)) < best)
        best = v;
    if (b > 0 && j < n && (v = rest(p, m, t, n, i, j + 1, b - 1)) < best)
        best = v;
    return best;
}

/* Random hits under --max-bulges: the alignment shown has at most B bulge
 * residues (I and D columns), the hit's distance, and the most bulges of
 * any alignment at that distance. */
static void test_bulges(void)
{
    static const char codes[] = "ACGTACGTACGTRN";
    static const char bases[] = "ACGTacgtN";
    uint64_t rng = 424242;
    gs_aligner a = {0};
    for (int round = 0; round < 1500; round++) {
        size_t m = 4 + gs_test_below(&rng, 9), n = 0;
        uint32_t B = 1 + (uint32_t)gs_test_below(&rng, 3);
        char p[32], t[64], shown[128], cigar[512];
        for (size_t i = 0; i < m; i++)
            p[i] = codes[gs_test_below(&rng, sizeof codes - 1)];
        for (size_t i = 0; i < m; i++) {
            unsigned r = (unsigned)gs_test_below(&rng, 8);
            if (r == 0)
                continue;
            if (r == 1)
                t[n++] = bases[gs_test_below(&rng, sizeof bases - 1)];
            t[n++] = r == 2 ? bases[gs_test_below(&rng, sizeof bases - 1)] : p[i];
        }
        uint32_t sub[8], most = UINT32_MAX, want = UINT32_MAX, wb = 0;
        for (uint32_t b = 0; b <= B; b++) {
            sub[b] = rest(p, m, t, n, 0, 0, b);
            if (sub[b] != UINT32_MAX && sub[b] + b < most)
                most = sub[b] + b;
        }
        if (most == UINT32_MAX)
            continue; /* no alignment within B: not a hit */
        /* the hit's distance: the least, or one above it where some b reaches it */
        uint32_t d = most + (uint32_t)gs_test_below(&rng, 2);
        for (uint32_t b = 0; b <= B; b++)
            if (sub[b] != UINT32_MAX && sub[b] + b == d)
                want = d, wb = b;
        if (want == UINT32_MAX)
            want = most, wb = 0, d = most;
        for (uint32_t b = 0; b <= B; b++) /* the most bulges at the least distance */
            if (want == most && sub[b] != UINT32_MAX && sub[b] + b == most)
                wb = b;
        gs_error err = {0};
        uint32_t dist;
        const gs_align_mode mode = {0, B, d};
        CHECK(gs_align_show(&a, (const uint8_t *)p, m, t, n, &mode, shown, cigar, &dist, &err) ==
              GS_OK);
        CHECK(dist == want);
        check_consistent(p, m, t, n, shown, cigar, dist);
        uint32_t gaps = 0;
        for (const char *c = cigar; *c;) {
            char *e;
            unsigned long len = strtoul(c, &e, 10);
            gaps += (*e == 'I' || *e == 'D') ? (uint32_t)len : 0;
            c = e + 1;
        }
        CHECK(gaps == wb);
    }
    gs_aligner_free(&a);
}

int main(void)
{
    test_cases();
    test_random();
    test_bulges();
    return gs_test_done("test_align");
}
