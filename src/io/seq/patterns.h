/* patterns.h - read a pattern file (FASTA or one pattern a line).
 *
 * Formats (contract §2): FASTA (">name" then sequence lines, joined), or text with
 * one pattern a line, optionally "name<TAB>sequence", with dna optionally
 * "name<TAB>sequence<TAB>K[<TAB>exact_3p]" (gs_pattern's own K and exact-3p,
 * "-" for the run's value; a malformed one is GS_EINPUT naming file:line); '#' starts a comment in
 * the text form; blank lines are skipped. Unnamed patterns are named p<N>
 * (N = 1-based pattern number, i.e. its id + 1). The file is validated against the alphabet here so
 * every later stage can trust it.
 */
#ifndef GS_PATTERNS_H
#define GS_PATTERNS_H

#include "core/gs_error.h"
#include "core/gs_patset.h"
#include "core/gs_types.h"


/* Read and validate. Errors (GS_EINPUT unless noted): missing/unreadable file
 * (GS_EINPUT, names the path), no pattern at all, an empty pattern (file:line),
 * a symbol outside the alphabet (symbol, file:line), a bad escape (bytes). */
/* Largest K and exact_3p a pattern file may give (the distance is 4 bits). */
enum { GS_PATTERN_MAX_K = 15, GS_PATTERN_MAX_EXACT3P = 4096 };

gs_status gs_patset_read(const char *path, gs_alphabet alpha, gs_patset *ps, gs_error *err);
/* The patterns of a scan: those of the file path (NULL: none), then each of
 * seqs[0 .. n_seqs) (-s/--pattern, in command-line order), named after the
 * sequence itself as seqkit names them. A bad one is named with its place,
 * "(--pattern:N)". */
gs_status gs_patset_load(const char *path, char *const *seqs, size_t n_seqs, gs_alphabet alpha,
                         gs_patset *ps, gs_error *err);

#endif
