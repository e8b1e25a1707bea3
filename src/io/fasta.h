/* fasta.h - stream a corpus (FASTA or raw; plain, gzip, multi-member gzip or
 * BGZF) as bounded blocks of residues.
 *
 * Reading rules (contract §1): a record starts at a line beginning with '>'; its
 * name is the header's first whitespace-delimited word; sequence lines are
 * joined with '\r', ' ' and '\t' dropped. Records never join. A file that does
 * not start with '>' (after decompression) is raw: all its bytes unchanged form
 * one record named after the file's base name; --input-format forces either.
 *
 * Memory is bounded: the reader holds one decompression buffer and the
 * overlap tail; the caller supplies the block buffer.
 */
#ifndef GS_FASTA_H
#define GS_FASTA_H

#include "../core/gs_error.h"
#include "../core/gs_types.h"

typedef enum gs_input_format {
    GS_INPUT_AUTO = 0,
    GS_INPUT_FASTA = 1, /* a file that does not start with '>' is GS_EINPUT */
    GS_INPUT_RAW = 2
} gs_input_format;

typedef struct gs_reader gs_reader;

typedef struct gs_reader_opts {
    gs_input_format format;
    size_t block;   /* owned residues per segment (> 0) */
    size_t overlap; /* residues each segment extends into the next: max_len - 1 */
} gs_reader_opts;

/* Open the files in order. Records are appended to *layout as they are met
 * (the layout is complete once gs_reader_next returned 0); layout->files is
 * filled at open. Missing/unreadable files fail here (GS_EINPUT, path). */
gs_status gs_reader_open(const char *const *files, size_t n_files, const gs_reader_opts *o,
                         gs_layout *layout, gs_reader **r, gs_error *err);

/* Fill buf (capacity >= block + overlap) with the next segment of residues.
 * Returns 1 with *seg set (seg->text == buf), 0 at the end of the corpus, or
 * -1 on error (truncated/corrupt gzip: GS_EINPUT naming the file; I/O: GS_ESYS).
 * Empty records yield no segment but are in the layout. */
int gs_reader_next(gs_reader *r, uint8_t *buf, gs_segment *seg, gs_error *err);

/* Bytes read from the files so far (compressed bytes for gzip). */
uint64_t gs_reader_bytes_in(const gs_reader *r);

void gs_reader_close(gs_reader *r);

/* Base name of a path, for raw records ("dir/x.bin.gz" -> "x.bin.gz"). */
const char *gs_path_base(const char *path);

#endif
