/* align.c - an approximate hit as an aligned target and a CIGAR (align.h).
 *
 * Edits: the full (m + 1) x (n + 1) table of edit distances between
 * prefixes, then one walk back from the corner. Hits are short (a pattern
 * plus K), so the table is small; it is kept between hits.
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

/* The walk back through the table d (n + 1 columns) from (m, n): columns
 * are found last first into cols[*k ..) from the end of a buffer of m + n. */
static size_t walk_back(const uint32_t *d, const uint8_t *p, size_t m, const char *t, size_t n,
                        col *cols)
{
    size_t i = m, j = n, k = m + n;
    const size_t w = n + 1;
    while (i > 0 || j > 0) {
        uint32_t here = d[i * w + j];
        if (i > 0 && j > 0) {
            int eq = gs_iupac_matches(p[i - 1], t[j - 1]);
            if (here == d[(i - 1) * w + j - 1] + (eq ? 0u : 1u)) {
                cols[--k] = (col){eq ? '=' : 'X', show(t[j - 1], eq)};
                i--, j--;
                continue;
            }
        }
        if (i > 0 && here == d[(i - 1) * w + j] + 1) { /* the target lacks p[i - 1] */
            cols[--k] = (col){'I', '-'};
            i--;
            continue;
        }
        cols[--k] = (col){'D', show(t[j - 1], 0)}; /* the pattern lacks t[j - 1] */
        j--;
    }
    return k;
}

gs_status gs_align_show(gs_aligner *a, const uint8_t *p, size_t m, const char *t, size_t n,
                        int edits, char *shown, char *cigar, uint32_t *dist, gs_error *err)
{
    col *cols = malloc((m + n + 1) * sizeof *cols);
    if (cols == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (aligning a hit)");
    size_t first = 0, k = 0;
    *dist = 0;
    if (!edits) {
        for (size_t i = 0; i < m && i < n; i++) {
            int eq = gs_iupac_matches(p[i], t[i]);
            cols[k++] = (col){eq ? '=' : 'X', show(t[i], eq)};
            *dist += !eq;
        }
    } else {
        const size_t w = n + 1, need = (m + 1) * w;
        if (need > a->cap) {
            uint32_t *g = realloc(a->d, need * sizeof *g);
            if (g == NULL) {
                free(cols);
                return gs_fail(err, GS_ESYS, "out of memory (aligning a hit)");
            }
            a->d = g;
            a->cap = need;
        }
        uint32_t *d = a->d;
        for (size_t j = 0; j <= n; j++)
            d[j] = (uint32_t)j;
        for (size_t i = 1; i <= m; i++) {
            d[i * w] = (uint32_t)i;
            for (size_t j = 1; j <= n; j++) {
                uint32_t best = d[(i - 1) * w + j - 1] + !gs_iupac_matches(p[i - 1], t[j - 1]);
                uint32_t up = d[(i - 1) * w + j] + 1, left = d[i * w + j - 1] + 1;
                best = up < best ? up : best;
                d[i * w + j] = left < best ? left : best;
            }
        }
        *dist = d[m * w + n];
        first = walk_back(d, p, m, t, n, cols);
        k = m + n;
    }
    for (size_t i = first; i < k; i++)
        shown[i - first] = cols[i].shown;
    shown[k - first] = '\0';
    write_cigar(cols + first, k - first, cigar);
    free(cols);
    return GS_OK;
}
