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
 * residues and the most of them, against a recursion of its own; with a
 * zone (--exact-3p) the least distance that keeps it, drawn keeping it.
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
        const gs_align_mode mode = {edits, 0, 0, 0};
        CHECK(gs_align_show(&a, (const uint8_t *)p, m, t, n, &mode, shown, cigar, &dist, NULL,
                            &err) == GS_OK);
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
    const gs_align_mode mode = {edits > 0, edits < 0 ? (uint32_t)-edits : 0, dist, 0};
    CHECK(gs_align_show(&a, (const uint8_t *)p, strlen(p), t, strlen(t), &mode, s, c, &d, NULL,
                        &err) == GS_OK);
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
        const gs_align_mode mode = {0, B, d, 0};
        CHECK(gs_align_show(&a, (const uint8_t *)p, m, t, n, &mode, shown, cigar, &dist, NULL,
                            &err) == GS_OK);
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

/* --exact-3p in the drawing: the fewest mismatches of p[0, i) against
 * t[0, j) with b gaps when the last z pattern positions must be matched
 * columns with no target residue after the first of them, as a table
 * filled from the definition (UINT32_MAX: none). */
enum { ZM = 14, ZN = 32, ZB = 24 };
static uint32_t zt[ZM + 1][ZN + 1][ZB + 1];
static void zone_table(const char *p, size_t m, const char *t, size_t n, size_t z)
{
    for (size_t i = 0; i <= m; i++)
        for (size_t j = 0; j <= n; j++)
            for (size_t b = 0; b <= ZB; b++) {
                uint32_t v = i == 0 && j == 0 && b == 0 ? 0 : UINT32_MAX;
                int in_zone = i > 0 && i - 1 + z >= m; /* p[i - 1] is a zone position */
                if (i && j && zt[i - 1][j - 1][b] != UINT32_MAX) {
                    int eq = gs_iupac_matches((uint8_t)p[i - 1], t[j - 1]);
                    if (eq || !in_zone)
                        v = zt[i - 1][j - 1][b] + !eq < v ? zt[i - 1][j - 1][b] + !eq : v;
                }
                if (i && b && !in_zone && zt[i - 1][j][b - 1] < v)
                    v = zt[i - 1][j][b - 1];
                if (j && b && !(z && i + z > m) && zt[i][j - 1][b - 1] < v)
                    v = zt[i][j - 1][b - 1]; /* t[j - 1] after p[i - 1]: not after a zone one */
                zt[i][j][b] = v;
            }
}

/* Whether a drawing keeps the zone: its last z pattern columns are '=', and
 * no D follows the first of them. */
static int keeps_zone(const char *cigar, size_t m, size_t z)
{
    size_t used = 0;
    for (const char *c = cigar; *c;) {
        char *e;
        unsigned long len = strtoul(c, &e, 10);
        for (unsigned long r = 0; r < len; r++) {
            if (*e == 'D' ? used > m - z : used >= m - z && *e != '=')
                return 0; /* a D at m - z stands before the zone */
            used += *e != 'D';
        }
        c = e + 1;
    }
    return 1;
}

/* Random hits drawn with a zone (edits, and bulges): the distance is the
 * least that keeps the zone (within B bulges), and the drawing keeps it. */
static void test_zone(void)
{
    static const char codes[] = "ACGTACGTRN";
    static const char bases[] = "ACGTacgtN";
    uint64_t rng = 33;
    gs_aligner a = {0};
    for (int round = 0; round < 3000; round++) {
        size_t m = 5 + gs_test_below(&rng, ZM - 4), z = 1 + gs_test_below(&rng, 4), n = 0;
        uint32_t B = (uint32_t)gs_test_below(&rng, 4); /* 0: edits */
        char p[ZM + 1], t[ZN + 1], shown[64], cigar[256];
        for (size_t i = 0; i < m; i++)
            p[i] = codes[gs_test_below(&rng, sizeof codes - 1)];
        const int spare = round % 2; /* every other round, changes in the zone too */
        for (size_t i = 0; i < m && n + 2 <= ZN; i++) {
            unsigned r = (unsigned)gs_test_below(&rng, 7);
            int free_here = spare || i + z < m;
            if (r == 0 && free_here)
                continue;
            if (r == 1 && free_here)
                t[n++] = bases[gs_test_below(&rng, sizeof bases - 1)];
            t[n++] = r == 2 && free_here ? bases[gs_test_below(&rng, sizeof bases - 1)]
                                         : (strchr("ACGT", p[i]) ? p[i] : 'C');
        }
        zone_table(p, m, t, n, z);
        uint32_t want = UINT32_MAX;
        for (uint32_t b = 0; b <= (B ? B : ZB); b++)
            if (zt[m][n][b] != UINT32_MAX && zt[m][n][b] + b < want)
                want = zt[m][n][b] + b;
        if (want == UINT32_MAX)
            continue;
        gs_error err = {0};
        uint32_t dist;
        const gs_align_mode mode = {B == 0, B, want, (uint32_t)z};
        CHECK(gs_align_show(&a, (const uint8_t *)p, m, t, n, &mode, shown, cigar, &dist, NULL,
                            &err) == GS_OK);
        CHECK(dist == want);
        check_consistent(p, m, t, n, shown, cigar, dist);
        if (!keeps_zone(cigar, m, z)) {
            fprintf(stderr, "zone %zu of %.*s vs %.*s: %s\n", z, (int)m, p, (int)n, t, cigar);
            gs_test_failures++;
        }
    }
    gs_aligner_free(&a);
}

int main(void)
{
    test_cases();
    test_random();
    test_bulges();
    test_zone();
    return gs_test_done("test_align");
}
