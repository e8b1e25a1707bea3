/* align.h - an approximate hit shown as its users read it: the target
 * aligned to the pattern, matches in uppercase, mismatches in lowercase,
 * a '-' where the pattern has a residue the target lacks and a lowercase
 * residue where the target has one the pattern lacks (Cas-OFFinder's
 * convention for mismatches and bulges), and the same alignment as an
 * extended CIGAR (= match, X mismatch, I a pattern residue the target
 * lacks, D a target residue the pattern lacks: the pattern is the query,
 * the target the reference).
 *
 * The target is the hit's residues on the pattern's strand (reverse
 * complemented for '-' hits, as the matched column is). Pattern positions
 * are uppercase IUPAC codes (gs_pattern.bytes) and match the bases they
 * stand for; a non-base in the target matches nothing.
 */
#ifndef GS_ALIGN_H
#define GS_ALIGN_H

#include <stddef.h>
#include <stdint.h>

#include "core/gs_error.h"

/* A reusable DP table. */
typedef struct gs_aligner {
    uint32_t *d;
    size_t cap;
} gs_aligner;

/* How the hit was found: position by position (edits 0, bulges 0), with
 * edits (edits 1), or with mismatches and at most bulges bulge residues
 * (--max-bulges), the hit's distance being dist; zone: --exact-3p's N (the
 * pattern's last N positions drawn as matches, no gap in or after them;
 * 0: none; over m: the whole pattern). */
typedef struct gs_align_mode {
    int edits;
    uint32_t bulges, dist, zone;
} gs_align_mode;

/* Align pattern p[0, m) to target t[0, n): position by position (n == m,
 * Hamming), the alignment of least edit distance, or with bulges the one of
 * at most that many bulge residues whose distance is the hit's and whose
 * mismatches are the fewest (so it keeps within the hit's mismatch budget,
 * whatever it was; the least distance within B when none has the hit's).
 * With a zone, only alignments that keep it (drawn without it where none
 * does, which a hit's own residues never need). Ties: a match or mismatch
 * before a gap in the target before a gap in the pattern, from the end. Writes the shown target into shown (at most m + n
 * + 1 bytes with its NUL) and the CIGAR into cigar (at most 4 * (m + n) + 1
 * bytes), the distance into *dist and, where gaps is not NULL, its I and D
 * columns into *gaps. GS_ESYS when out of memory. */
gs_status gs_align_show(gs_aligner *a, const uint8_t *p, size_t m, const char *t, size_t n,
                        const gs_align_mode *mode, char *shown, char *cigar, uint32_t *dist,
                        uint32_t *gaps, gs_error *err);
void gs_aligner_free(gs_aligner *a);

/* Whether target residue c (any case) matches IUPAC pattern code q. */
int gs_iupac_matches(uint8_t q, char c);

#endif
