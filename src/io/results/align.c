/* align.c - an approximate hit as an aligned target and a CIGAR (align.h).
 *
 * Edits: the full (m + 1) x (n + 1) table of edit distances between
 * prefixes, then one walk back from the corner; bulges: the same with a
 * third index, the bulge residues used. Hits are short (a pattern plus K),
 * so the table is small; it is kept between hits.
 */
#include "align.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/gs_iupac.h"

static const uint8_t base_bit[256] = {['A'] = 1, ['C'] = 2, ['G'] = 4, ['T'] = 8,
                                      ['a'] = 1, ['c'] = 2, ['g'] = 4, ['t'] = 8};

int gs_iupac_matches(uint8_t q, char c)
{
    return (gs_iupac_mask(q) & base_bit[(uint8_t)c]) != 0;
}

void gs_aligner_free(gs_aligner *a)
{
    free(a->d);
    a->d = NULL;
    a->cap = 0;
}

/* One column of the alignment: its CIGAR letter and the target byte shown. */
typedef struct col {
    char op, shown;
} col;

/* The CIGAR of cols[0, k) (in order) into cigar, run-length coded. */
static void write_cigar(const col *cols, size_t k, char *cigar)
{
    char *c = cigar;
    for (size_t i = 0; i < k;) {
        size_t j = i;
        while (j < k && cols[j].op == cols[i].op)
            j++;
        c += sprintf(c, "%zu%c", j - i, cols[i].op);
        i = j;
    }
    *c = '\0';
}

static char show(char t, int match)
{
    return match ? (char)toupper((unsigned char)t) : (char)tolower((unsigned char)t);
}

/* --exact-3p in the drawing: pattern positions from zl on (the zone, its
 * last residues; zl = m without one) are matched columns, and no target
 * residue stands after one of them. The three moves into (i, j): */
static int diag_ok(size_t zl, size_t i, int eq) { return i - 1 < zl || eq; }
static int lack_ok(size_t zl, size_t i) { return i - 1 < zl; } /* the target lacks p[i - 1] */
static int extra_ok(size_t zl, size_t i) { return i <= zl; }   /* the pattern lacks t[j - 1] */

enum { NONE = UINT32_MAX / 4 }; /* no alignment: far above any distance, no overflow */

/* The walk back through the table d (n + 1 columns) from (m, n): columns
 * are found last first into cols[*k ..) from the end of a buffer of m + n. */
static size_t walk_back(const uint32_t *d, const uint8_t *p, size_t m, const char *t, size_t n,
                        size_t zl, col *cols)
{
    size_t i = m, j = n, k = m + n;
    const size_t w = n + 1;
    while (i > 0 || j > 0) {
        uint32_t here = d[i * w + j];
        if (i > 0 && j > 0) {
            int eq = gs_iupac_matches(p[i - 1], t[j - 1]);
            if (diag_ok(zl, i, eq) && here == d[(i - 1) * w + j - 1] + (eq ? 0u : 1u)) {
                cols[--k] = (col){eq ? '=' : 'X', show(t[j - 1], eq)};
                i--, j--;
                continue;
            }
        }
        if (i > 0 && lack_ok(zl, i) && here == d[(i - 1) * w + j] + 1) {
            cols[--k] = (col){'I', '-'};
            i--;
            continue;
        }
        cols[--k] = (col){'D', show(t[j - 1], 0)}; /* the pattern lacks t[j - 1] */
        j--;
    }
    return k;
}

/* Bulges: D(i, j, b) = the fewest mismatches of p[0, i) against t[0, j)
 * with b bulge residues (UINT32_MAX: none), B + 1 cells a pair. */
static void fill_bulges(uint32_t *d, const uint8_t *p, size_t m, const char *t, size_t n,
                        uint32_t B, size_t zl)
{
#define D(i, j, b) d[((i) * (n + 1) + (j)) * (B + 1) + (b)]
    for (size_t i = 0; i <= m; i++)
        for (size_t j = 0; j <= n; j++)
            for (uint32_t b = 0; b <= B; b++) {
                uint32_t v = i == 0 && j == 0 && b == 0 ? 0 : UINT32_MAX;
                if (i > 0 && j > 0 && D(i - 1, j - 1, b) != UINT32_MAX) {
                    int eq = gs_iupac_matches(p[i - 1], t[j - 1]);
                    uint32_t x = D(i - 1, j - 1, b) + !eq;
                    v = diag_ok(zl, i, eq) && x < v ? x : v;
                }
                if (i > 0 && b > 0 && lack_ok(zl, i) && D(i - 1, j, b - 1) < v)
                    v = D(i - 1, j, b - 1);
                if (j > 0 && b > 0 && extra_ok(zl, i) && D(i, j - 1, b - 1) < v)
                    v = D(i, j - 1, b - 1);
                D(i, j, b) = v;
            }
}

/* The walk back through fill_bulges' table from (m, n, b): as walk_back. */
static size_t walk_back_bulges(const uint32_t *d, const uint8_t *p, size_t m, const char *t,
                               size_t n, uint32_t B, uint32_t b, size_t zl, col *cols)
{
    size_t i = m, j = n, k = m + n;
    while (i > 0 || j > 0) {
        uint32_t here = D(i, j, b);
        if (i > 0 && j > 0) {
            int eq = gs_iupac_matches(p[i - 1], t[j - 1]);
            if (diag_ok(zl, i, eq) && D(i - 1, j - 1, b) != UINT32_MAX &&
                here == D(i - 1, j - 1, b) + (eq ? 0u : 1u)) {
                cols[--k] = (col){eq ? '=' : 'X', show(t[j - 1], eq)};
                i--, j--;
                continue;
            }
        }
        if (i > 0 && b > 0 && lack_ok(zl, i) && here == D(i - 1, j, b - 1)) {
            cols[--k] = (col){'I', '-'};
            i--, b--;
            continue;
        }
        cols[--k] = (col){'D', show(t[j - 1], 0)};
        j--, b--;
    }
    return k;
#undef D
}

/* The table of need cells, kept in a. */
static uint32_t *table(gs_aligner *a, size_t need)
{
    if (need > a->cap) {
        uint32_t *g = realloc(a->d, need * sizeof *g);
        if (g == NULL)
            return NULL;
        a->d = g;
        a->cap = need;
    }
    return a->d;
}

gs_status gs_align_show(gs_aligner *a, const uint8_t *p, size_t m, const char *t, size_t n,
                        const gs_align_mode *mode, char *shown, char *cigar, uint32_t *dist,
                        uint32_t *gaps, gs_error *err)
{
    col *cols = malloc((m + n + 1) * sizeof *cols);
    if (cols == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (aligning a hit)");
    size_t first = 0, k = 0;
    const uint32_t B = mode->bulges;
    const size_t zl = mode->zone && mode->zone < m ? m - mode->zone : mode->zone ? 0 : m;
    *dist = 0;
    if (B) {
        uint32_t *d = table(a, (m + 1) * (n + 1) * (B + 1)), best = 0, total = UINT32_MAX;
        if (d == NULL) {
            free(cols);
            return gs_fail(err, GS_ESYS, "out of memory (aligning a hit)");
        }
        fill_bulges(d, p, m, t, n, B, zl);
        const uint32_t *end = d + (m * (n + 1) + n) * (B + 1);
        for (uint32_t b = 0; b <= B; b++) /* the hit's distance, the most bulges */
            if (end[b] != UINT32_MAX && (end[b] + b == mode->dist ||
                                         (total != mode->dist && end[b] + b <= total))) {
                best = b;
                total = end[b] + b;
            }
        if (total == UINT32_MAX) { /* none within B (and the zone): without the zone, or
                                    * position by position */
            free(cols);
            gs_align_mode h = {0, mode->zone ? B : 0, mode->dist, 0};
            return gs_align_show(a, p, m, t, n, &h, shown, cigar, dist, gaps, err);
        }
        *dist = total;
        first = walk_back_bulges(d, p, m, t, n, B, best, zl, cols);
        k = m + n;
    } else if (!mode->edits) {
        for (size_t i = 0; i < m && i < n; i++) {
            int eq = gs_iupac_matches(p[i], t[i]);
            cols[k++] = (col){eq ? '=' : 'X', show(t[i], eq)};
            *dist += !eq;
        }
    } else {
        const size_t w = n + 1;
        uint32_t *d = table(a, (m + 1) * w);
        if (d == NULL) {
            free(cols);
            return gs_fail(err, GS_ESYS, "out of memory (aligning a hit)");
        }
        for (size_t j = 0; j <= n; j++)
            d[j] = extra_ok(zl, 0) ? (uint32_t)j : j ? NONE : 0;
        for (size_t i = 1; i <= m; i++) {
            d[i * w] = lack_ok(zl, i) && d[(i - 1) * w] < NONE ? d[(i - 1) * w] + 1 : NONE;
            for (size_t j = 1; j <= n; j++) {
                int eq = gs_iupac_matches(p[i - 1], t[j - 1]);
                uint32_t best = diag_ok(zl, i, eq) ? d[(i - 1) * w + j - 1] + !eq : NONE;
                uint32_t up = lack_ok(zl, i) ? d[(i - 1) * w + j] + 1 : NONE;
                uint32_t left = extra_ok(zl, i) ? d[i * w + j - 1] + 1 : NONE;
                best = up < best ? up : best;
                best = left < best ? left : best;
                d[i * w + j] = best < NONE ? best : NONE;
            }
        }
        if (d[m * w + n] >= NONE) { /* no alignment keeps the zone: drawn without it */
            free(cols);
            gs_align_mode h = {1, 0, mode->dist, 0};
            return gs_align_show(a, p, m, t, n, &h, shown, cigar, dist, gaps, err);
        }
        *dist = d[m * w + n];
        first = walk_back(d, p, m, t, n, zl, cols);
        k = m + n;
    }
    if (gaps)
        *gaps = 0;
    for (size_t i = first; i < k; i++) {
        shown[i - first] = cols[i].shown;
        if (gaps)
            *gaps += cols[i].op == 'I' || cols[i].op == 'D';
    }
    shown[k - first] = '\0';
    write_cigar(cols + first, k - first, cigar);
    free(cols);
    return GS_OK;
}
