/* gs_iupac.h - the IUPAC nucleotide codes as sets of bases, the one table
 * the keysets (match/keyset.c) and the alignment display (io/results/align.c)
 * read. */
#ifndef GS_IUPAC_H
#define GS_IUPAC_H

#include <stdint.h>

/* IUPAC code (either case, U as T) -> set of bases as bits A=1 C=2 G=4 T=8;
 * 0 = not a code. */
static inline uint8_t gs_iupac_mask(uint8_t c)
{
    switch (c) {
    case 'A': case 'a': return 1;
    case 'C': case 'c': return 2;
    case 'G': case 'g': return 4;
    case 'T': case 't': case 'U': case 'u': return 8;
    case 'R': case 'r': return 1 | 4;
    case 'Y': case 'y': return 2 | 8;
    case 'S': case 's': return 2 | 4;
    case 'W': case 'w': return 1 | 8;
    case 'K': case 'k': return 4 | 8;
    case 'M': case 'm': return 1 | 2;
    case 'B': case 'b': return 2 | 4 | 8;
    case 'D': case 'd': return 1 | 4 | 8;
    case 'H': case 'h': return 1 | 2 | 8;
    case 'V': case 'v': return 1 | 2 | 4;
    case 'N': case 'n': return 15;
    default: return 0;
    }
}

#endif
