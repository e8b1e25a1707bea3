/* parts_loose.h - the records of a part found in its bytes, for a device
 * that drops the line ends itself (parts.c, gs_parts_next_raw); private to
 * src/io/seq.
 *
 * The streaming reader copies every residue of a part out of its bytes,
 * line by line, into a batch; at 16 GiB of ESTs or reads that copy was the
 * readers' whole time. Here the host only finds where each record's
 * residues lie: FASTA, from a line opening with '>' to the next; FASTQ,
 * the line after the header. The residues are what those bytes hold but
 * line ends and blanks ('\n', '\r', ' ', '\t', as the reader drops them),
 * counted here and dropped by the device (src/gpu/raw.cu). Anything the
 * streaming reader must decide (a '>' inside a line, a blank line between
 * FASTQ records, a faulty header, a record longer than a segment, a quality
 * of another length, no line end at the end) makes the walk give up, and
 * the part is read by the streaming reader instead: its records, warnings
 * and messages are then the reader's own.
 */
#ifndef GS_PARTS_LOOSE_H
#define GS_PARTS_LOOSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/gs_error.h"
#include "core/gs_types.h"

/* One record, in offsets from the part's first byte. */
typedef struct gs_loose_rec {
    uint64_t seq, span;  /* its residues lie among bytes [seq, seq + span) */
    uint64_t residues;
    uint64_t name;       /* its name: bytes [name, name + name_len) */
    uint32_t name_len;
    uint32_t codes;      /* its residues laid as 2-bit codes (core/gs_dna2.h), not as
                          * its span's bytes: only where its part is packed
                          * (parts_map.c; 0 as the walk finds it) */
    uint64_t out;        /* packed (parts_map.c): where its text lies among the
                          * part's texts laid one after another */
} gs_loose_rec;

/* The bytes record x's text takes where it is given: its codes, or its
 * span (its bytes as read, or as its packed part copied them). */
static inline uint64_t gs_loose_bytes(const gs_loose_rec *x)
{
    return x->codes ? (x->residues + 3) / 4 : x->span;
}

typedef enum { GS_LOOSE_WALKING, GS_LOOSE_DONE, GS_LOOSE_GAVE_UP } gs_loose_state;

/* A walk over a part's records, fed its bytes as they are read (so that
 * each is looked at while the core's cache holds it). */
typedef struct gs_loose {
    gs_loose_rec *v;     /* the records found */
    size_t n, cap;
    size_t at, from;     /* the next record's first byte; where its search for
                          * the next header goes on */
    uint64_t lines;      /* line ends of the records found */
    size_t last;         /* FASTQ: the last sequence line's bytes */
    size_t pf;           /* bytes before it asked for (AHEAD, parts_loose.c) */
    int fastq;
    uint64_t max_residues;
    gs_loose_state state;
} gs_loose;

/* A fresh walk (lz's memory kept): FASTQ or FASTA, records of at most
 * max_residues residues (a longer one: GS_LOOSE_GAVE_UP). */
void gs_loose_begin(gs_loose *lz, int fastq, uint64_t max_residues);

/* The records of part b[0, n) (it starts at a record) that lie whole in
 * b[0, have), from where the last call stopped; with have == n the state
 * becomes GS_LOOSE_DONE where every record was found so, and
 * GS_LOOSE_GAVE_UP at the first one that was not (the part is then the
 * streaming reader's). */
gs_status gs_loose_feed(gs_loose *lz, const uint8_t *b, size_t have, size_t n, gs_error *err);

/* The records of lz as the streaming reader would have appended them to an
 * empty layout (names "" with drop_names), all in file. */
gs_status gs_loose_layout(const uint8_t *b, const gs_loose *lz, uint32_t file, int drop_names,
                          gs_layout *lay, gs_error *err);

void gs_loose_free(gs_loose *lz);

#endif
