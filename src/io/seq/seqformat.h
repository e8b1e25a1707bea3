/* seqformat.h - the rules every sequence reader shares: what a file is and
 * where its first record starts (sniffed once, on bytes already read), and
 * which bytes end a record's name.
 *
 * The streaming reader (fasta.c), the .fai builder (fai_build.c), the index
 * check (fai.c), the pattern reader (patterns.c) and the job's choice of a
 * read path all ask here, so a file is read the same way whichever of them
 * meets it first.
 */
#ifndef GS_SEQFORMAT_H
#define GS_SEQFORMAT_H

#include "core/gs_error.h"
#include "core/gs_types.h"
#include "io/stream/stream.h"

/* What the text of a file is. */
typedef enum gs_seq_format {
    GS_SEQ_EMPTY = 0, /* nothing but a BOM and blank bytes, and the data ends there */
    GS_SEQ_FASTA,     /* the first record opens with '>' */
    GS_SEQ_RAW,       /* other text: one record of all its bytes */
    GS_SEQ_FASTQ,     /* the first record opens with '@' (fastq.h) */
    GS_SEQ_UNDECIDED  /* nothing but blank bytes in the bytes looked at, and more follow */
} gs_seq_format;

/* What the first bytes of a file say. */
typedef struct gs_seq_head {
    gs_compression comp;  /* of the file's own bytes (gs_bgzf_sniff) */
    gs_seq_format format; /* of the decompressed text */
    size_t start;         /* first byte of the first record in the text: after an
                           * optional UTF-8 BOM and any ' ', '\t', '\r', '\n' */
} gs_seq_head;

/* The decompressed bytes the readers look at to decide (the first 1 MiB). */
enum { GS_SEQ_SNIFF = 1 << 20 };

/* The bytes of a UTF-8 byte order mark at text[0, n): 3, or 0 without one.
 * Every text gscan reads (corpus, pattern file) skips it. */
size_t gs_seq_bom(const uint8_t *text, size_t n);
/* Decide format and start from text[0, n), the first decompressed bytes;
 * at_end: they are all of the data. comp is copied into h. */
void gs_seq_sniff(gs_compression comp, const uint8_t *text, size_t n, int at_end,
                  gs_seq_head *h);
/* Peek at the first want decompressed bytes of s (nothing is consumed) and
 * sniff them. */
gs_status gs_seq_detect(gs_stream *s, size_t want, gs_seq_head *h, gs_error *err);
/* The same for a path, opened and closed here (GS_EINPUT when it cannot be). */
gs_status gs_seq_detect_path(const char *path, size_t want, gs_seq_head *h, gs_error *err);

/* The name rule: a record's name is the header's first word; these bytes
 * (C isspace but the line end, as htslib's faidx reads names) separate
 * words. */
static inline int gs_name_blank(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The name in a header line s[0, n) (after its '>', without its '\n'):
 * returns where it starts and sets *len (0: the header has no name). */
size_t gs_header_name(const uint8_t *s, size_t n, size_t *len);

/* The header rule: a header line (after its '>', without its '\n') may end
 * in '\r' (a CRLF file) but holds no other '\r' and no NUL. A '\r' inside
 * is a file with old Mac (CR-only) line ends, which would read as one header
 * and no sequence; a NUL would cut the name. s[0, n) is the line or, for a
 * reader that meets it in pieces, one piece; cr_before: the piece before
 * ended in '\r'. NULL when it is sound, else what is wrong with it. */
const char *gs_header_fault(const uint8_t *s, size_t n, int cr_before);

#endif
