/* fasta.h - stream a corpus (FASTA or raw; plain, gzip, multi-member gzip or
 * BGZF) as bounded blocks of residues.
 *
 * Reading rules (contract §1): a record starts at a line beginning with '>'; its
 * name is the header's first whitespace-delimited word; sequence lines are
 * joined with '\r', ' ' and '\t' dropped. Records never join.
 *
 * Which reading (decided once per file, on its first 1 MiB after
 * decompression, bytes the reader then goes on from; "-" is stdin):
 *   - FASTA when, after an optional UTF-8 BOM and any spaces, tabs, '\r' and
 *     '\n', the first byte is '>' (those leading bytes are skipped);
 *   - otherwise, with --input-format auto, raw: all its bytes unchanged form
 *     one record named after the file's base name, but only when the bytes
 *     are plausibly text: xz, bzip2 or zstd data, or (in the dna alphabet,
 *     where a NUL byte has no place) a NUL byte in the first 1 MiB, is
 *     GS_EINPUT (--input-format raw scans such bytes);
 *   - --input-format raw reads every file raw; --input-format fasta makes a
 *     file that does not start with '>' GS_EINPUT (an empty or all-blank file
 *     is a FASTA file of no records).
 *
 * Memory is bounded: the reader holds one decompression buffer (or the
 * regions in flight of a gzip file decompressed on threads) and the
 * overlap tail; the caller supplies the block buffer.
 */
#ifndef GS_FASTA_H
#define GS_FASTA_H

#include "core/gs_error.h"
#include "core/gs_tune.h"
#include "core/gs_types.h"

typedef enum gs_input_format {
    GS_INPUT_AUTO = 0,
    GS_INPUT_FASTA = 1, /* a file that does not start with '>' is GS_EINPUT */
    GS_INPUT_RAW = 2,
    GS_INPUT_FASTQ = 3  /* a file that does not start with '@' is GS_EINPUT */
} gs_input_format;

typedef struct gs_reader gs_reader;

typedef struct gs_reader_opts {
    gs_input_format format;
    size_t block;   /* owned residues per segment (> 0) */
    size_t overlap; /* residues each segment extends into the next: max_len - 1 */
    int any_bytes;  /* --alphabet bytes: a file that is not FASTA is raw even when
                     * it is not text (a NUL byte in its first 1 MiB) */
    int threads;    /* threads that may decompress one gzip file
                     * (io/stream/stream.h); 0 or 1: one */
    const gs_tune *tune; /* io_gzip_region; NULL: defaults */
    int circular;   /* every record is circular: a segment that reaches its
                     * record's end goes on into the record's first residues
                     * (gs_read_end), with seg->turn set */
    int drop_read_names; /* FASTQ records get the name "" (docs/format.md: a
                          * counts-only run of 100 M reads keeps no names) */
} gs_reader_opts;

/* Open the files in order. Records are appended to *layout as they are met
 * (the layout is complete once gs_reader_next set *more = 0: only then do
 * the records' names point into layout->names, the block that holds them
 * all); layout->files is filled at open. Missing/unreadable files fail here (GS_EINPUT, path). */
gs_status gs_reader_open(const char *const *files, size_t n_files, const gs_reader_opts *o,
                         gs_layout *layout, gs_reader **r, gs_error *err);

/* layout->files: a copy of files[0, n_files), which gs_corpus_check
 * passes first (layout->n_files counts the copies made). */
gs_status gs_layout_set_files(gs_layout *layout, const char *const *files, size_t n_files,
                              gs_error *err);

/* Check the corpus before any work, without opening or reading a file (a
 * FIFO must be read once, by the reader): every file exists, is readable and
 * is not a directory (GS_EINPUT), and no stream (stdin, pipe, FIFO) is
 * given twice, under the same or another name ("-" and /dev/stdin are one;
 * GS_EUSAGE naming both arguments). A regular file may repeat: it is read
 * again. gs_reader_open calls it. */
gs_status gs_corpus_check(const char *const *files, size_t n_files, gs_error *err);

/* 1 when path is a regular file, which can be seeked and read again; 0 for
 * "-" (stdin), pipes, FIFOs, devices: those are read once, as a stream. */
int gs_input_seekable(const char *path);

/* Fill buf (capacity >= block + overlap) with the next segment of residues.
 * *more = 1 with *seg set (seg->text == buf), 0 at the end of the corpus;
 * errors: truncated/corrupt gzip GS_EINPUT naming the file, I/O GS_ESYS.
 * Empty records yield no segment but are in the layout. */
gs_status gs_reader_next(gs_reader *r, uint8_t *buf, gs_segment *seg, int *more, gs_error *err);

/* Bytes read from the files so far (compressed bytes for gzip). */
uint64_t gs_reader_bytes_in(const gs_reader *r);

/* The first thing worth a warning the reader met (a '>' inside a sequence
 * line, naming record, file and line), or NULL. */
const char *gs_reader_warning(const gs_reader *r);
void gs_reader_close(gs_reader *r);

/* Records whose name another record has too. Names need not be unique (a
 * .fai may list one twice, record ids tell hits apart), but a repeat is most
 * often a mistake worth a warning. Records with no name (a FASTQ read whose
 * name is not kept) are not compared. Sets *n to how many records repeat an
 * earlier name (0: all unique) and *a < *b to the first such pair in record
 * order of the second. On up to `threads` threads. GS_ESYS only when out
 * of memory. */
gs_status gs_layout_dup_names(const gs_layout *l, int threads, size_t *n, size_t *a, size_t *b,
                              gs_error *err);

/* The records of layouts piece[0, n) one after another into l (its files
 * set already), names in one block; piece k's records from file file[k]
 * where file is non-NULL (a piece read from one file on its own), and each
 * piece freed. Where lens and lens[k] are non-NULL, piece k has no table
 * (only its n_rec and names_len == n_rec set): its records are unnamed
 * ("") and of lens[k][i] residues, from file[k] (lens[k] freed and set
 * NULL). On up to `threads` threads
 * (layout_join.c). */
gs_status gs_layout_join(gs_layout *l, gs_layout *piece, size_t n, const uint32_t *file,
                         uint32_t **lens, int threads, gs_error *err);

/* Base name of a path, for raw records ("dir/x.bin.gz" -> "x.bin.gz"). */
const char *gs_path_base(const char *path);

#endif
