/* fastq.h - the FASTQ records of a streamed file (private to src/io/seq:
 * the streaming reader, fasta.c, calls it for a file sniffed or forced as
 * FASTQ).
 *
 * A record is four lines: "@name ...", the sequence, "+" (anything after it
 * is ignored), the quality, as long as the sequence (a '\r' before a line's
 * '\n' is not counted: CRLF files read as LF ones). The header line is read
 * by the reader's header code (the name rule of seqformat.h is FASTA's);
 * here are the other three. The sequence is one line whose residues are
 * kept as FASTA's are ('\r', ' ' and '\t' dropped); the '+' and quality
 * lines are passed over and never copied, so no pattern can hit a quality.
 * Blank lines between records are skipped. A malformed record (a header not
 * opening with '@', no '+' line, a quality of another length, a file that
 * ends inside a record) is GS_EINPUT naming the file and the line.
 */
#ifndef GS_FASTQ_H
#define GS_FASTQ_H

#include "seq_cursor.h"

/* Where a FASTQ file's reading is. */
typedef struct gs_fastq {
    const char *path;   /* for messages */
    uint64_t line;      /* number of the line the cursor is in, from 1 */
    int in_seq;         /* the sequence line is being copied */
    uint64_t seq_bytes; /* its bytes so far */
    int seq_cr;         /* and whether the last of them is '\r' */
    size_t last_len;    /* bytes of the last sequence line read in one piece:
                         * reads of a run mostly have one length */
} gs_fastq;

/* A file whose text starts with the bytes head[0, start) skipped by the
 * sniff (BOM, blank lines): q counts their lines. */
void gs_fastq_begin(gs_fastq *q, const char *path, const uint8_t *head, size_t start);

/* At a record boundary: skip blank lines; *open = 0 at the end of the
 * file, else 1 with the cursor on the header's '@'. */
gs_status gs_fastq_start(gs_seq_cursor *c, gs_fastq *q, int *open, gs_error *err);

/* The header line was read (the cursor is past its '\n'): the sequence
 * follows. */
void gs_fastq_header_read(gs_fastq *q);

/* Append the sequence's residues to out[*n, cap). When its line ends, the
 * '+' and quality lines are read and checked too and *done is set; out
 * full first leaves *done 0. name: the record's, for messages. */
gs_status gs_fastq_fill(gs_seq_cursor *c, gs_fastq *q, const char *name, uint8_t *out, size_t *n,
                        size_t cap, int *done, gs_error *err);

#endif
