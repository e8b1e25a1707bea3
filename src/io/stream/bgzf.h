/* bgzf.h - BGZF (blocked gzip) files: detection, the .gzi index samtools
 * writes, and random access by uncompressed offset.
 *
 * A BGZF file is a series of gzip members ("blocks") of at most 64 KiB each,
 * whose header carries the block's compressed size (the "BC" extra field).
 * The .gzi index lists where blocks start in both coordinates, so a rank can
 * inflate only the few blocks that hold its range instead of the whole file.
 */
#ifndef GS_BGZF_H
#define GS_BGZF_H

#include "core/gs_error.h"
#include "core/gs_parallel.h"
#include "core/gs_tune.h"
#include "core/gs_types.h"

/* What the first bytes of a file say it is. */
typedef enum gs_compression {
    GS_COMP_NONE = 0, /* not gzip (plain text, or too short to tell) */
    GS_COMP_GZIP = 1, /* gzip that is not BGZF */
    GS_COMP_BGZF = 2  /* gzip whose first member has a BGZF header */
} gs_compression;

/* Classify the first n bytes of a file (n >= 18 is needed to see BGZF). */
gs_compression gs_bgzf_sniff(const uint8_t *head, size_t n);
/* htslib's EOF marker, the empty block every BGZF file ends with: a file
 * without it was cut short at a block boundary (a bgzip that was killed). */
enum { GS_BGZF_EOF_LEN = 28 };
extern const uint8_t gs_bgzf_eof[GS_BGZF_EOF_LEN];
/* pread all of [at, at + n) of fd (the file path, for messages): *ended
 * when the file ends first; GS_ESYS on a read error. Shared by the BGZF and
 * the .fai readers. */
gs_status gs_pread_full(int fd, uint8_t *out, size_t n, uint64_t at, const char *path, int *ended,
                        gs_error *err);

/* Open path and classify its first bytes (GS_EINPUT when it cannot be opened). */
gs_status gs_bgzf_detect(const char *path, gs_compression *c, gs_error *err);
/* The same on an open file (read with pread from its start). */
gs_status gs_bgzf_detect_fd(int fd, const char *path, gs_compression *c, gs_error *err);

/* One .gzi entry: a block starts at byte coff of the file and uoff of the
 * uncompressed data. */
typedef struct gs_gzi_entry {
    uint64_t coff;
    uint64_t uoff;
} gs_gzi_entry;

/* The .gzi as samtools (bgzip -i / -r) writes it: a little-endian uint64
 * count, then (coff, uoff) pairs for every block holding data but the first;
 * empty blocks (the EOF marker, members of concatenated files) are not listed. */
typedef struct gs_gzi {
    gs_gzi_entry *v;
    size_t n;
} gs_gzi;

/* Build the index of a BGZF file from its block headers and ISIZE trailers
 * (nothing is inflated). GS_EINPUT naming the file and offset when it is not
 * BGZF or a block is truncated. */
gs_status gs_gzi_build(const char *bgzf_path, gs_gzi *gzi, gs_error *err);
/* Write gzi to gzi_path (through a temporary file, renamed when complete). */
gs_status gs_gzi_write(const char *gzi_path, const gs_gzi *gzi, gs_error *err);
/* Read a .gzi; a missing or malformed one is GS_EINPUT naming it. */
gs_status gs_gzi_load(const char *gzi_path, gs_gzi *gzi, gs_error *err);
void gs_gzi_free(gs_gzi *gzi);

/* A BGZF file open for random access through "<path>.gzi". */
typedef struct gs_bgzf gs_bgzf;

/* Open path and load "<path>.gzi". Checks that the index fits the file where
 * that is cheap (entries in order and inside the file, the last listed block
 * and the blocks after it); a missing or stale .gzi is GS_EINPUT naming it.
 * Blocks read later are checked against the index as they are met. */
gs_status gs_bgzf_open(const char *path, gs_bgzf **b, gs_error *err);
/* Uncompressed size of the whole file. */
uint64_t gs_bgzf_size(const gs_bgzf *b);
/* Read up to n uncompressed bytes from offset at into out; *got < n only at
 * the end of the data. Each block is inflated with its CRC32 and ISIZE
 * checked (a corrupt block is GS_EINPUT naming the file and offset). The
 * compressed bytes read from the file are added to *bytes_read; the last
 * block inflated is kept, so consecutive reads do not read it twice. */
gs_status gs_bgzf_read(gs_bgzf *b, uint64_t at, uint8_t *out, size_t n, size_t *got,
                       uint64_t *bytes_read, gs_error *err);
void gs_bgzf_close(gs_bgzf *b);

/* Most threads gs_bgzf_convert and a parallel gs_bgzf_read use. */
#define GS_BGZF_MAX_THREADS 256


/* Which library inflates the blocks (gs_bgzf_set_inflate): ISA-L (the
 * default) or libdeflate. The bytes, the checks and the errors are the same
 * whichever inflates. */
enum { GS_BGZF_INFLATE_ISAL = 0, GS_BGZF_INFLATE_LIBDEFLATE = 1 };
void gs_bgzf_set_inflate(gs_bgzf *b, int how);

/* Let reads of 128 KiB and more inflate their blocks on up to threads
 * threads (the caller's and threads - 1 started per read); 1 (the default)
 * reads block by block on the caller's thread. Results, errors and the bytes
 * read are the same either way. */
gs_status gs_bgzf_set_threads(gs_bgzf *b, int threads, gs_error *err);

/* Recompress in_path (plain or gzip, multi-member included) as BGZF into
 * out_path (through a temporary file renamed when complete, so out_path may
 * be in_path): blocks of at most 0xff00 input bytes, as htslib writes them,
 * deflated by threads (1..GS_BGZF_MAX_THREADS) with libdeflate at level
 * (1..12), then the EOF block. Corrupt input is GS_EINPUT naming in_path.
 * tune (NULL: defaults) sizes the regions of a parallel gzip inflate. */
gs_status gs_bgzf_convert(const char *in_path, const char *out_path, int level, int threads,
                          const gs_tune *tune, gs_error *err);

#endif
