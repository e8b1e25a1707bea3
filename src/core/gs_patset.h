/* gs_patset.h - a pattern set as every stage sees it: names, the text as
 * given, the bytes matched, and the longest and shortest pattern.
 *
 * The readers of pattern files (io/seq/patterns.h) fill it; the keysets and
 * engines (src/match) and the writers (src/io/results) only read it, so it
 * lives here, below all of them, with no file format attached.
 */
#ifndef GS_PATSET_H
#define GS_PATSET_H

#include <stdint.h>

typedef struct gs_pattern {
    char *name;     /* as given, or p<N> */
    char *text;     /* the sequence as written in the file (before expansion/escapes) */
    uint8_t *bytes; /* dna: uppercase IUPAC with U as T; bytes: escapes decoded */
    uint32_t len;   /* residues in bytes[] (the length of every hit) */
    uint32_t line;  /* 1-based line in the file where the pattern starts */
    /* the pattern file's own K and exact_3p columns (text format); a value
     * is used only where its has_ flag is set, else the run's */
    uint8_t has_max_dist, has_exact3p;
    uint32_t max_dist, exact3p;
} gs_pattern;

typedef struct gs_patset {
    gs_pattern *v;
    uint32_t n;
    uint32_t min_len, max_len;
    char *path;
} gs_patset;

/* The pattern's K: its own, else the run's (option_k). */
static inline uint32_t gs_pattern_k(const gs_pattern *p, uint32_t option_k)
{
    return p->has_max_dist ? p->max_dist : option_k;
}

/* The pattern's --exact-3p zone: its own, else the run's, at most its length. */
static inline uint32_t gs_pattern_zone(const gs_pattern *p, uint32_t option_zone)
{
    const uint32_t z = p->has_exact3p ? p->exact3p : option_zone;
    return z < p->len ? z : p->len;
}

/* Frees every pattern and the set's own arrays; leaves *ps zeroed. */
void gs_patset_free(gs_patset *ps);

#endif
