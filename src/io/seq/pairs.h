/* pairs.h - read a primer-pairs file (gscan pcr -p).
 *
 * Lines "name<TAB>A<TAB>B" or "name<TAB>A<TAB>B<TAB>min<TAB>max" (a product
 * window of its own, in residues, inclusive); '#' lines and blank lines are
 * skipped, a CR before the newline is dropped. A and B are IUPAC nucleotide
 * codes (either case, U as T). The distinct primers (case aside) are listed
 * once, in order of first appearance, so a primer of several pairs is
 * scanned once.
 */
#ifndef GS_PAIRS_H
#define GS_PAIRS_H

#include <stddef.h>
#include <stdint.h>

#include "core/gs_amplicon.h"
#include "core/gs_error.h"

typedef struct gs_pcr_pairs {
    gs_pcr_pair *v;   /* the pairs, in file order; a, b index primers */
    char **names;     /* their names */
    size_t n;
    char **primers;   /* distinct primer sequences, uppercase, U as T */
    uint32_t n_primers;
    char *text;       /* the file's bytes: names point into it */
} gs_pcr_pairs;

/* Read path; pairs without a window of their own get [min, max].
 * GS_EINPUT naming the file and line: a line of another shape, an empty
 * name, a primer with a symbol that is no IUPAC code, a window that is no
 * pair of integers with 1 <= min <= max; a file without pairs. */
gs_status gs_pcr_pairs_read(const char *path, uint64_t min, uint64_t max, gs_pcr_pairs *pp,
                            gs_error *err);
void gs_pcr_pairs_free(gs_pcr_pairs *pp);

#endif
