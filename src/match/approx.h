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

#include <string.h>

/* bits[i] = base bit of text[i]; bits must hold len bytes. */
void gs_approx_text_bits(const uint8_t *text, size_t len, uint8_t *bits);

/* Edits: the length of the longest text bits[e - l .. e) (l <= e) whose
 * edit distance to key[0 .. m) is d, where d is the smallest distance of any
 * substring ending at e (the caller found it): the smallest start of contract
 * §1 is then e - l. col is scratch of m + 1 ints. One backward DP of
 * O(m (m + d)) cells, paid only per hit. */
uint32_t gs_approx_edit_len(const uint8_t *key, uint32_t m, const uint8_t *bits, size_t e,
                            uint32_t d, uint32_t *col);

/* --exact-3p (keyset.h's zone): whether the zone of n residues of key[0 ..
 * m) (its first n when front, else its last n) matches the text bits of
 * the window w[0 .. m) position by position. */
static inline int gs_approx_zone_ok(const uint8_t *key, uint32_t m, uint32_t n, int front,
                                    const uint8_t *w)
{
    uint32_t o = front ? 0 : m - n;
    for (uint32_t i = o; i < o + n; i++)
        if (!(key[i] & w[i]))
            return 0;
    return 1;
}

/* How many of the positions i < n have key[i] & t[i] (base sets against
 * text bits): eight a word, without a branch a position. A byte of key &
 * text is at most 8, so adding 0x7f sets its top bit exactly when it is
 * not 0, and no carry crosses into the next byte; the eight top bits, moved
 * to the bottom of their bytes, are summed by one multiply into the top
 * byte (a popcount instruction is not in baseline x86-64, and the library
 * call cost more). Mismatches are n minus this; a seed is exact where it
 * is q. */
static inline uint32_t gs_approx_matches(const uint8_t *key, const uint8_t *t, uint32_t n)
{
    uint32_t got = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t a, b;
        memcpy(&a, key + i, 8);
        memcpy(&b, t + i, 8);
        uint64_t top = ((a & b) + 0x7f7f7f7f7f7f7f7full) & 0x8080808080808080ull;
        got += (uint32_t)((top >> 7) * 0x0101010101010101ull >> 56);
    }
    for (; i < n; i++)
        got += (key[i] & t[i]) != 0;
    return got;
}

/* Edits with a zone: the best distance at end e of an alignment of key[0 ..
 * m) whose zone of n residues (front: the first n, else the last n) is n
 * matched columns, i.e. the zone matches text exactly and the rest of the
 * key (the core) aligns to the text beside it; *len gets the length of the
 * longest such text ending at e (the smallest start). Returns K + 1 when no
 * such alignment is within K. Backward DP over the core from the zone's
 * edge, O((m - n) (m - n + K)) cells, paid per candidate end. col: m + 1. */
uint32_t gs_approx_zone_end(const uint8_t *key, uint32_t m, uint32_t n, int front,
                            const uint8_t *bits, size_t e, uint32_t K, uint32_t *col,
                            uint32_t *len);

#endif
