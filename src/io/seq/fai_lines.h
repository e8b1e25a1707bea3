/* fai_lines.h - what the .fai code shares inside src/io/seq (private): the
 * per-line rules of a record (the builder, fai_build.c), the offset
 * arithmetic, and the text reads of fai_range.c that the index check
 * (fai.c) makes too.
 */
#ifndef GS_FAI_LINES_H
#define GS_FAI_LINES_H

#include "fai.h"

/* Where a record is in its lines: before its first sequence line, among
 * full lines, or past its last (shorter or blank) line. */
enum { GS_SEQ_FIRST, GS_SEQ_FULL, GS_SEQ_ENDED };

/* What one line does to the record. */
typedef enum gs_fai_line {
    GS_LINE_OK,
    GS_LINE_TOO_LONG,   /* a first line wider than LINEWIDTH can hold */
    GS_LINE_AFTER_END,  /* residues after a blank or shorter line */
    GS_LINE_LONGER      /* wider, or more residues, than the first line */
} gs_fai_line;

/* Add one line of `width` bytes (its '\n' included) holding `lres` residues
 * to record e in *state: a blank line (lres 0) ends the sequence; the first
 * line sets LINEBASES and LINEWIDTH; a shorter one ends it. */
static inline gs_fai_line gs_fai_line_step(gs_fai_entry *e, int *state, uint64_t width,
                                           uint64_t lres)
{
    if (lres == 0) {
        *state = GS_SEQ_ENDED;
        return GS_LINE_OK;
    }
    if (*state == GS_SEQ_ENDED)
        return GS_LINE_AFTER_END;
    if (*state == GS_SEQ_FIRST) {
        if (width > UINT32_MAX)
            return GS_LINE_TOO_LONG;
        e->linebases = (uint32_t)lres;
        e->linewidth = (uint32_t)width;
        e->length += lres;
        *state = GS_SEQ_FULL;
        return GS_LINE_OK;
    }
    if (width > e->linewidth || lres > e->linebases)
        return GS_LINE_LONGER;
    if (width < e->linewidth || lres < e->linebases)
        *state = GS_SEQ_ENDED;
    e->length += lres;
    return GS_LINE_OK;
}

/* The smallest of n bytes (0xff when n == 0), in one loop the compiler
 * vectorises: above ' ' proves there is no line end, '\r', space or tab. */
static inline uint8_t gs_min_byte(const uint8_t *s, size_t n)
{
    uint8_t m = 0xff;
    for (size_t i = 0; i < n; i++)
        m = s[i] < m ? s[i] : m;
    return m;
}

/* Byte of residue i of e. */
static inline uint64_t gs_fai_residue_byte(const gs_fai_entry *e, uint64_t i)
{
    return e->offset + i / e->linebases * e->linewidth + i % e->linebases;
}

/* Bytes of the FASTA text (uncompressed for BGZF). */
uint64_t gs_seqfile_text_size(const gs_seqfile *f);
/* Text bytes [at, at + n) of f into out; *ended when the text ends first.
 * The bytes asked for are added to *bytes (compressed bytes for BGZF).
 * gs_seqfile_pread serves small reads from the read-ahead buffer (a range's
 * lines, read in order); gs_seqfile_pread_direct reads exactly the bytes
 * asked for, for reads far apart (an index check reads the gap before each
 * record: for records of 4 Mbp, through the read-ahead, 1 MiB a record, the
 * whole file; for records of 500 bp, direct, a read call a record). */
gs_status gs_seqfile_pread(gs_seqfile *f, uint8_t *out, size_t n, uint64_t at, uint64_t *bytes,
                           int *ended, gs_error *err);
gs_status gs_seqfile_pread_direct(gs_seqfile *f, uint8_t *out, size_t n, uint64_t at,
                                  uint64_t *bytes, int *ended, gs_error *err);

#endif
