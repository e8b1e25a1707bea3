/* fai.h - the samtools .fai index: NAME LENGTH OFFSET LINEBASES LINEWIDTH.
 *
 * Residue i of a record lies at byte OFFSET + i / LINEBASES * LINEWIDTH +
 * i % LINEBASES of the FASTA text. That lets each rank seek straight to its
 * range. Plain FASTA is indexed in file bytes; BGZF in uncompressed bytes, as
 * `samtools faidx file.fa.gz` does, and read through its .gzi (bgzf.h). Plain
 * gzip cannot be indexed. Like htslib, a record whose lines (but the last)
 * differ in length, or that has a blank line inside its sequence, cannot be
 * indexed.
 */
#ifndef GS_FAI_H
#define GS_FAI_H

#include "core/gs_error.h"
#include "core/gs_tune.h"
#include "core/gs_types.h"
#include "io/stream/bgzf.h"

typedef struct gs_fai_entry {
    char *name;
    uint64_t length;    /* residues */
    uint64_t offset;    /* byte of the first residue */
    uint32_t linebases; /* residues per full line */
    uint32_t linewidth; /* bytes per full line, newline included */
} gs_fai_entry;

typedef struct gs_fai {
    gs_fai_entry *v;
    size_t n;
    char *names;      /* gs_fai_load: one block holding every name, NUL-terminated
                       * one after another in record order, that v[i].name points
                       * into (a 2 M-record EST index is one allocation, not 2 M);
                       * NULL (gs_fai_build): each name is its own allocation */
    size_t names_len; /* bytes of names, NULs included */
    int omits_dups; /* gs_fai_load: the file holds a record, named like an
                     * earlier one, that the index leaves out (samtools faidx
                     * keeps only the first of a name): n is 0, the index is
                     * not used, and the caller says so */
    int changed;    /* gs_fai_build: GS_EINPUT because the file was cut while
                     * it was read, which streaming it would not cure */
} gs_fai;

/* Build the index of a plain or BGZF FASTA file on `threads` threads
 * (fai_build.c; 1: on the caller's), the text cut into parts of
 * tune->io_fai_split bytes (tune NULL or 0: one part a thread). Like the
 * streaming reader it skips a UTF-8 BOM and blank lines before the first
 * header. GS_EINPUT with file:line when a record cannot be indexed (the
 * job streams such a file instead), when the file is plain gzip, not FASTA,
 * or not a regular file, or when the file was cut while it was read
 * (fai->changed); GS_ESYS when out of memory. A plain file is mapped, or
 * read a window at a time where it cannot be (an address-space limit). */
gs_status gs_fai_build(const char *fasta, int threads, const gs_tune *tune, gs_fai *fai,
                       gs_error *err);
/* The same from the whole of a plain file already in memory, m[0, size)
 * (a small file read once by its caller); fasta names it in messages. */
gs_status gs_fai_build_bytes(const char *fasta, const uint8_t *m, uint64_t size, gs_fai *fai,
                             gs_error *err);
/* Write "<fasta>.fai" text exactly as samtools faidx does. */
gs_status gs_fai_write(const char *fai_path, const gs_fai *fai, gs_error *err);
/* Read "<fasta>.fai" if it exists: returns GS_OK with fai->n > 0, or GS_OK with
 * fai->n == 0 when there is none or when it omits a repeated name
 * (fai->omits_dups). A malformed or stale index (one that does not
 * fit the FASTA: size, offsets, header positions) is GS_EINPUT naming it. A
 * BGZF FASTA is checked through its .gzi, which must exist then. With
 * tune->debug & GS_DEBUG_TIME the steps' times go to stderr (tune may be NULL). */
gs_status gs_fai_load(const char *fasta, const gs_tune *tune, gs_fai *fai, gs_error *err);

/* A FASTA file open for reading ranges: plain (fd) or BGZF (bgzf, through
 * "<path>.gzi"). Closed: fd < 0 and bgzf NULL. */
typedef struct gs_seqfile {
    const char *path; /* borrowed: for messages */
    int fd;           /* plain FASTA, else -1 */
    gs_bgzf *bgzf;    /* BGZF, else NULL */
    /* Plain FASTA: short reads (a 500-residue record, the bytes between two
     * records) are served from text bytes [ahead_at, ahead_at + ahead_len)
     * read ahead in one pread of up to 1 MiB, not one system call each. */
    uint8_t *ahead;   /* NULL until the first short read */
    uint64_t ahead_at;
    size_t ahead_len, ahead_cap;
} gs_seqfile;

/* Open path (borrowed, must outlive f) as plain or BGZF FASTA. Plain gzip is
 * GS_EINPUT; BGZF needs its .gzi (see gs_bgzf_open). */
gs_status gs_seqfile_open(const char *path, gs_seqfile *f, gs_error *err);
/* Close f if open and mark it closed (safe on a closed one). */
void gs_seqfile_close(gs_seqfile *f);
/* Free f's read-ahead buffer (a reader done with this file; f stays open and
 * makes it again on the next short read). */
void gs_seqfile_drop_ahead(gs_seqfile *f);

/* Read residues [begin, end) of entry e from f into out (end - begin bytes).
 * Checks that no line end, '\r', space, tab or line-opening '>' sits where a
 * residue should be, and that every line end between residues of the range,
 * and the one right after its last residue, is where the index says (a stale
 * index is GS_EINPUT naming the record and position). The file bytes read
 * (compressed bytes for BGZF) are added to *bytes_read. */
gs_status gs_fai_read_range(gs_seqfile *f, const gs_fai_entry *e, uint64_t begin, uint64_t end,
                            uint8_t *out, uint64_t *bytes_read, gs_error *err);
/* The same for a circular record: positions length, length + 1, ... are its
 * residues 0, 1, ... read again (begin < length and end < 2 x length: the
 * range reads no residue three times); without a wrap, gs_fai_read_range. */
gs_status gs_fai_read_circular(gs_seqfile *f, const gs_fai_entry *e, uint64_t begin,
                               uint64_t end, uint8_t *out, uint64_t *bytes_read, gs_error *err);
/* The same range as the file's own bytes, line ends included, for a device
 * that parses and checks them (gs_raw_text, *raw filled): from the first
 * residue's byte to the last one's, and the line end after it where the
 * range ends a line inside the record (a BGZF file's blocks inflated
 * straight into out). Only where those bytes fit in room and hold no wrap;
 * else the residues, read and checked by gs_fai_read_circular (raw->lb == 0). A file that ends first is
 * GS_EINPUT here; the rest of the checks are the device's. */
gs_status gs_fai_read_raw(gs_seqfile *f, const gs_fai_entry *e, uint64_t begin, uint64_t end,
                          uint8_t *out, size_t room, gs_raw_text *raw, uint64_t *bytes_read,
                          gs_error *err);

void gs_fai_free(gs_fai *fai);

#endif
