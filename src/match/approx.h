/* approx.h - what the approximate engines (bv.c, bf.c) share (private).
 *
 * Text residues are turned into base bits (A=1 C=2 G=4 T=8, a non-base 0)
 * once per segment, so a pattern position, an IUPAC base set, matches a
 * residue exactly when their AND is non-zero, and a non-base matches
 * nothing (contract §1).
 */
#ifndef GS_APPROX_H
#define GS_APPROX_H

#include "engine.h"

/* bits[i] = base bit of text[i]; bits must hold len bytes. */
void gs_approx_text_bits(const uint8_t *text, size_t len, uint8_t *bits);

/* Edits: the length of the longest text bits[e - l .. e) (l <= e) whose
 * edit distance to key[0 .. m) is d, where d is the smallest distance of any
 * substring ending at e (the caller found it): the smallest start of contract
 * §1 is then e - l. col is scratch of m + 1 ints. One backward DP of
 * O(m (m + d)) cells, paid only per hit. */
uint32_t gs_approx_edit_len(const uint8_t *key, uint32_t m, const uint8_t *bits, size_t e,
                            uint32_t d, uint32_t *col);

#endif
