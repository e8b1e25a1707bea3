/* keyset.h - a pattern set compiled into the distinct concrete strings
 * ("keys") that engines search for.
 *
 * Each degenerate pattern is expanded into the ACGT strings it stands for and,
 * with both strands, their reverse complements. Equal strings are merged into
 * one key that lists every (pattern, strand) it reports as an "output". Engines
 * only find key occurrences; the expansion back to patterns is done once,
 * outside the hot loop. Because expansions are deduplicated per (pattern,
 * strand), one text position can never report the same (pattern, strand) twice
 * (contract §1: expansions at the same start make one hit).
 *
 * Approximate modes (gs_keyset_build_approx) do not expand: each (pattern,
 * strand) is one key whose bytes are IUPAC base sets (bits A=1 C=2 G=4 T=8),
 * the reverse strand holding the reverse complement, and has exactly one
 * output. Engines compare a text base with a position by testing its bit.
 */
#ifndef GS_KEYSET_H
#define GS_KEYSET_H

#include "core/gs_error.h"
#include "core/gs_types.h"
#include "core/gs_patset.h"

typedef struct gs_keyset {
    gs_alphabet alphabet;
    uint32_t n_keys;
    uint64_t *key_off;  /* [n_keys + 1] offsets into key_bytes */
    uint8_t *key_bytes; /* dna: codes 0..3 (gs_dna_code); bytes: raw bytes */
    uint32_t *out_off;  /* [n_keys + 1] offsets into outputs */
    uint32_t *outputs;  /* pattern * 2 + strand (GS_FWD / GS_REV) */
    uint32_t min_len, max_len; /* over keys */
    uint32_t n_patterns;
    int n_strands;      /* 1 (forward) or 2 (forward, reverse) */
    gs_match_mode mode; /* exact: codes; approximate: base-set keys */
    uint32_t max_dist;  /* K of --max-mismatches / --max-edits (0 when exact); with
                         * per-pattern K (key_k), the largest */
    /* The longest text one hit may span: max_len, plus K with edits. Every
     * overlap (plan, blocks, GPU chunks) is span - 1, read from here only. */
    uint32_t span;
    /* --exact-3p: per key, how many residues at the pattern's 3' end must
     * align without mismatch or indel (the zone), clamped to the key's
     * length, with GS_ZONE_FRONT set when they are the key's first residues
     * (a reverse-strand key is the reverse complement, its 3' end in front).
     * NULL when no key has a zone: matching is then exactly as without. */
    uint32_t *zone;
    /* Per key, its K where the pattern file gives patterns their own K
     * (then max_dist is the largest), or NULL: max_dist for every key. A
     * key's hits are its ends (starts) whose distance is within its K. */
    uint8_t *key_k;
    /* --max-bulges B (0: none): keys of --max-mismatches K searched as edit
     * keys of K + B (mode, max_dist, key_k and span say so); an end is a hit
     * when an alignment within K mismatches and B bulge residues ends there
     * (bulge.h). A key's mismatch budget is gs_key_k - bulges. */
    uint32_t bulges;
} gs_keyset;

/* K of key k. */
static inline uint32_t gs_key_k(const gs_keyset *ks, uint32_t k)
{
    return ks->key_k ? ks->key_k[k] : ks->max_dist;
}

enum { GS_ZONE_FRONT = 1u << 31 };

/* Residues of key k's zone (0: none); *front: whether they lead the key. */
static inline uint32_t gs_key_zone(const gs_keyset *ks, uint32_t k, int *front)
{
    uint32_t z = ks->zone ? ks->zone[k] : 0;
    *front = (z & GS_ZONE_FRONT) != 0;
    return z & ~(uint32_t)GS_ZONE_FRONT;
}

/* Residues of overlap a block needs so that no hit is lost at its end. */
static inline uint32_t gs_keyset_overlap(const gs_keyset *ks)
{
    return ks->span ? ks->span - 1 : 0;
}

static inline uint32_t gs_key_len(const gs_keyset *ks, uint32_t k)
{
    return (uint32_t)(ks->key_off[k + 1] - ks->key_off[k]);
}
static inline const uint8_t *gs_key(const gs_keyset *ks, uint32_t k)
{
    return ks->key_bytes + ks->key_off[k];
}

/* Expand and merge. both_strands is ignored (forward only) for bytes.
 * A pattern with more than max_expansions concrete strings is GS_EINPUT
 * naming the pattern and its line; max_expansions 0 means the default, 4096.
 * On failure *ks is left zeroed (nothing to free). */
gs_status gs_keyset_build(const gs_patset *ps, gs_alphabet alpha, int both_strands,
                          uint32_t max_expansions, gs_keyset *ks, gs_error *err);
/* Approximate modes (dna only): one base-set key per (pattern, strand), no
 * expansion. K is max_dist, or a pattern's own (gs_pattern.has_max_dist);
 * it must be below the pattern's length (GS_EUSAGE otherwise). */
gs_status gs_keyset_build_approx(const gs_patset *ps, int both_strands, gs_match_mode mode,
                                 uint32_t max_dist, gs_keyset *ks, gs_error *err);
/* Give every key of an approximate keyset its zone: exact3p residues, or
 * the pattern's own exact_3p where its file gives one; a zone longer than
 * the pattern is the whole pattern. GS_ESYS when out of memory. */
gs_status gs_keyset_set_exact3p(gs_keyset *ks, const gs_patset *ps, uint32_t exact3p,
                                gs_error *err);
/* --max-bulges: turn a --max-mismatches keyset into edit keys of K + B
 * whose ends bulge.h then settles (see bulges above). K + B must be below
 * every pattern's length (GS_EUSAGE naming the pattern otherwise). */
gs_status gs_keyset_set_bulges(gs_keyset *ks, const gs_patset *ps, uint32_t bulges,
                               gs_error *err);
void gs_keyset_free(gs_keyset *ks);

/* counts[p * n_strands + s] += key_counts[k] for every output of every key. */
void gs_keyset_fold_counts(const gs_keyset *ks, const uint64_t *key_counts, uint64_t *counts);

#endif
