/* gs_amplicon.h - in-silico PCR: the products of primer pairs, made from the
 * binding sites of their primers (the hits of a mismatch-mode scan).
 *
 * A product of pair (A, B) in one record is a site of primer X on the
 * forward strand at [s, s + |X|) and a site of primer Y on the reverse
 * strand at [t, e) with s <= t and min <= e - s <= max: the product is
 * [s, e). Its kind names (X, Y): forward (A, B), revcomp (B, A), single_A
 * (A, A), single_B (B, B), as ipcress names them. Every such combination is
 * a product, not only the longest. In a circular record a reverse site may
 * also count one turn later (t + L, e + L), so a product may run across the
 * origin; a product never spans more than one turn (e - s <= L). Pure code:
 * no MPI, no HDF5.
 */
#ifndef GS_AMPLICON_H
#define GS_AMPLICON_H

#include <stddef.h>
#include <stdint.h>

#include "gs_error.h"
#include "gs_types.h"

typedef enum gs_amp_kind {
    GS_AMP_FORWARD = 0,  /* A forward, B reverse */
    GS_AMP_REVCOMP = 1,  /* B forward, A reverse */
    GS_AMP_SINGLE_A = 2, /* A on both strands */
    GS_AMP_SINGLE_B = 3, /* B on both strands */
    GS_AMP_N_KINDS = 4
} gs_amp_kind;

/* "forward", "revcomp", "single_A", "single_B" by kind. */
extern const char *const gs_amp_kind_names[GS_AMP_N_KINDS];

/* One pair: its primers (pattern ids of the scan) and product window. */
typedef struct gs_pcr_pair {
    uint32_t a, b;     /* primer ids (a == b is allowed: all four kinds then) */
    uint64_t min, max; /* product sizes e - s allowed, inclusive */
} gs_pcr_pair;

/* One product, [start, end) on the forward strand of record (end > the
 * record's length: across the origin of a circular record). */
typedef struct gs_amplicon {
    uint64_t start, end;
    uint32_t record, pair;
    uint8_t kind;         /* gs_amp_kind */
    uint8_t mismatches_5; /* of the forward-strand site */
    uint8_t mismatches_3; /* of the reverse-strand site */
} gs_amplicon;

typedef struct gs_amplicons {
    gs_amplicon *v;
    size_t n, cap;
} gs_amplicons;

/* Order of the output: record, start, end, pair, kind. */
int gs_amplicon_cmp(const void *a, const void *b);

/* Every product of pairs[0 .. n_pairs) among the sites h[0 .. n) (hits in
 * contract order: record, start, strand, ...; pattern ids < n_primers),
 * appended to out and sorted. circular: records are circular, of the
 * lengths len[record] (NULL when linear). Memory: the reverse sites of one
 * record at a time (twice when circular) besides the products. */
gs_status gs_amplicons_find(const gs_hit *h, size_t n, const gs_pcr_pair *pairs, size_t n_pairs,
                            uint32_t n_primers, const uint64_t *len, gs_amplicons *out,
                            gs_error *err);

/* Product-of-pair hits for a per-unit tally (core/gs_tally.h): one hit per
 * product, pattern = pair, strand +1, distance = both sites' mismatches
 * (saturating). *h is allocated (n rows); free it. */
gs_status gs_amplicons_as_hits(const gs_amplicons *a, gs_hit **h, gs_error *err);

void gs_amplicons_free(gs_amplicons *a);

#endif
