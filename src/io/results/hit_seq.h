/* hit_seq.h - the matched sequence of a hit: read back from the corpus
 * through its .fai (gscan export --seq), or found among the residues the
 * scan captured (gscan scan --seq: core/gs_seqcap.h).
 *
 * A result file keeps coordinates, not text; the text stays in the corpus,
 * which an index lets us seek into per hit. The records of the result file
 * are matched to the index entries in order, by name and length, so a
 * corpus that changed since the scan is an input error, never a wrong
 * sequence.
 */
#ifndef GS_HIT_SEQ_H
#define GS_HIT_SEQ_H

#include <stddef.h>
#include <stdint.h>

#include "core/gs_error.h"
#include "core/gs_seqcap.h"

typedef struct gs_hit_seq gs_hit_seq;

/* corpus: the n_files corpus files in the result's order (each needs its
 * .fai, and .gzi for BGZF); the result's records: name (stride bytes apart),
 * file index and length. dna: reverse hits are reverse-complemented. */
gs_status gs_hit_seq_open(char *const *corpus, size_t n_files, const char *names, size_t stride,
                          const uint32_t *file, const uint64_t *length, size_t n_rec, int dna,
                          gs_hit_seq **s, gs_error *err);
/* The residues a scan captured (a finished table, which must outlive s):
 * no file is read. */
gs_status gs_hit_seq_captured(const gs_seqcap *cap, int dna, gs_hit_seq **s, gs_error *err);
/* Residues [start, end) of record into out (end - start + 1 bytes, NUL
 * added): as on the forward strand, or reverse-complemented for strand -1.
 * end may pass the record's length (a hit of a circular record: the text
 * goes on at its residue 0) while end - start does not. */
gs_status gs_hit_seq_get(gs_hit_seq *s, uint32_t record, uint64_t start, uint64_t end, int strand,
                         char *out, gs_error *err);
void gs_hit_seq_close(gs_hit_seq *s);

#endif
