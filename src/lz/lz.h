/* lz.h - the LZ77 hybrid index of a repetitive collection (strain sets,
 * pangenomes): build, file, and the scan of the kernel string.
 *
 * The collection's residues, records concatenated in corpus order, are
 * parsed into LZ77 phrases: a literal (one residue with no earlier
 * occurrence) or a copy of an earlier substring (its source). Positions here
 * are "global": residue g of the concatenation, record r covering
 * [rec_off[r], rec_off[r + 1]). No phrase and no source crosses a record.
 *
 * An occurrence is secondary when it lies inside one copy phrase: then the
 * same string occurs inside the phrase's source, earlier. Every other
 * occurrence is primary, and lies inside one piece of the kernel string:
 * around each phrase start b the residues [b - (M - 1), b + (M - 1)) of its
 * record (plus the residue itself for a literal), overlapping windows merged.
 * Scanning the pieces with an ordinary engine finds every primary occurrence
 * exactly once (and some secondary ones, which are dropped); each
 * occurrence then yields one secondary occurrence for every copy phrase
 * whose source contains it, recursively (Ferrada, Gagie, Hirvola, Puglisi
 * 2014's hybrid index). Every secondary occurrence has exactly one parent
 * (the phrase holding it), so each is reported once, and sources lie
 * strictly before their phrases, so the recursion ends.
 *
 * A primary occurrence of m residues crosses a phrase start b (or is a
 * literal) and so lies in [b - (m - 1), b + (m - 1)): a scan whose patterns
 * span at most s < M residues reads only the windows of s inside the
 * pieces (gs_lz_trim), under half the kernel for primers of 18..30 with the
 * default M = 64.
 *
 * The copy phrases ordered by source start, with a max-tree over their
 * source ends, answer "which phrases' sources hold [g, g + m)". The order is
 * made once, when the index is built, and stored in the file (its sources
 * section replaces the sources in phrase order): every scan used to
 * radix-sort 10 M phrases for it, which was most of locate.
 *
 * docs/index-format.md describes the file.
 */
#ifndef GS_LZ_H
#define GS_LZ_H

#include <stdint.h>
#include <stdio.h>

#include "core/gs_error.h"
#include "core/gs_seqcap.h"
#include "core/gs_tune.h"
#include "core/gs_types.h"
#include "io/seq/fasta.h"
#include "io/seq/patterns.h"
#include "scan/pipeline.h"

#define GS_LZ_LITERAL UINT64_MAX /* ph_src of a literal phrase */
#define GS_LZ_DEFAULT_M 64       /* --max-pattern-length default */

typedef struct gs_lz_index {
    gs_layout layout;     /* record names, lengths, files (paths as given to index) */
    uint64_t *rec_off;    /* [n_rec + 1] global start of each record */
    uint64_t n_residues;  /* rec_off[n_rec] */
    uint32_t max_pat;     /* M: the longest pattern the kernel serves */
    uint64_t n_phrases;
    uint64_t *ph_start;   /* [n_phrases + 1] global start; ph_start[n_phrases] = n_residues */
    uint64_t *ph_src;     /* [n_phrases] source start, or GS_LZ_LITERAL */
    uint8_t *lit;         /* [n_phrases] the residue of each literal phrase (0 for copies) */
    uint64_t n_pieces;
    uint32_t *pc_rec;     /* [n_pieces] record of each kernel piece */
    uint64_t *pc_pos;     /* [n_pieces] global start of each piece */
    uint64_t *pc_koff;    /* [n_pieces + 1] offset of each piece in kernel */
    uint8_t *kernel;      /* the pieces' residues, concatenated (built; NULL when read:
                           * kchunks, gs_lz_kernel_copy) */
    uint64_t kernel_len;  /* pc_koff[n_pieces] */
    uint64_t file_bytes;  /* size of the index file (when read or written) */
    uint64_t n_copies;    /* copy phrases */
    uint64_t *cp_start;   /* [n_copies] source starts, ascending (ties in phrase order) */
    uint64_t *cp_target;  /* [n_copies] global start of each of those phrases */
    uint64_t *cp_tree;    /* max source end (exclusive) below each node, level by
                           * level from the root: level h (the last) holds the
                           * n_copies leaves, each level above half as many, rounded
                           * up, node i's children being 2i and 2i + 1 (when there)
                           * one level down; no padding to a power of two */
    int tree_h;           /* the leaves' level (0: one leaf or none) */
    uint64_t tree_off[65], tree_n[65]; /* each level's first node in cp_tree, its nodes */
    /* The pieces a scan reads (gs_lz_trim): the stored ones when its
     * patterns span M residues, else the windows of their span around the
     * phrase starts, merged as the stored ones are, each inside one stored
     * piece. Set before gs_lz_src_init and gs_lz_locate. */
    uint64_t n_scan;
    const uint64_t *sc_pos;  /* [n_scan] global start of each */
    const uint64_t *sc_koff; /* [n_scan + 1] offset of each in the scanned kernel */
    uint64_t sc_len;         /* sc_koff[n_scan]: the residues a scan reads */
    uint64_t *sc_own;        /* trimmed: sc_pos's and sc_koff's memory; else NULL
                              * (they are pc_pos and pc_koff) */
    size_t n_kchunks;
    struct gs_lz_kchunk *kchunks; /* read: the kernel's chunks, left packed */
    uint8_t *map;         /* read: the index file, mapped (or read), which kchunks use */
    size_t map_len;
    int map_is_mmap;
    char *path;           /* read: the file, for a fault on the map (the file cut
                           * while the scan reads it: gs_mapguard.h) */
} gs_lz_index;

/* A read index's kernel chunk, left as the file stores it (2 bits a
 * residue and runs of other bytes): a scan unpacks each segment from it on
 * its reader threads, where unpacking the whole kernel at load wrote and
 * page-faulted a byte a residue (651 MB for 1000 strains) before copying it
 * again into the segments. */
typedef struct gs_lz_kchunk {
    uint64_t first, count; /* kernel residues [first, first + count) */
    const uint8_t *packed; /* count residues, 4 a byte, low bits first (file or own) */
    uint8_t *own;          /* the inflated chunk, when it was stored deflated */
    uint64_t n_runs;
    uint64_t *runs;        /* [3 n_runs] per run of other bytes: its offset in the chunk,
                            * length, and the offset of its bytes in packed; ascending */
} gs_lz_kchunk;

/* Kernel residues [k, k + n) into dst: from the kernel, or unpacked from
 * the chunks of a read index. */
void gs_lz_kernel_copy(const gs_lz_index *ix, uint64_t k, uint64_t n, uint8_t *dst);

/* The kernel window of the phrase starting at b, inside [lo, hi) (its
 * record, or the stored piece holding it; lo <= b < hi): w residues either
 * side, and at least the residue itself for a literal (*src is the
 * phrase's source, read only when w = 0). Sets [*a, *e); 0 when it is
 * empty. The build cuts the kernel by it and a scan trims the kernel by it
 * (w = its span - 1), so that the two agree. */
static inline int gs_lz_window(uint64_t b, uint64_t lo, uint64_t hi, uint64_t w,
                               const uint64_t *src, uint64_t *a, uint64_t *e)
{
    *a = b - lo > w ? b - w : lo;
    *e = hi - b > w ? b + w : hi;
    if (*e == b && *src == GS_LZ_LITERAL)
        *e = b + 1;
    return *a < *e;
}

/* The last i < n with a[i] <= x in the ascending a[0 .. n), or n when none:
 * the record holding a global position (a = rec_off), the phrase (ph_start),
 * the kernel piece (pc_koff). */
static inline uint64_t gs_lz_last_le(const uint64_t *a, uint64_t n, uint64_t x)
{
    uint64_t lo = 0, hi = n; /* the answer + 1 lies in [lo, hi] */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (a[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : n;
}

/* How gs_lz_build builds an index. */
typedef struct gs_lz_build_opts {
    gs_input_format format; /* of the corpus files */
    uint32_t max_pat;       /* M (>= 1): the longest pattern the index serves */
    size_t ref_records;     /* the reference's records (0: see gs_lz_build) */
    int threads;            /* threads parsing records */
    const gs_tune *tune;    /* lz.batch (NULL: the defaults) */
} gs_lz_build_opts;

/* Read the corpus into memory and build its index for patterns of up to
 * o->max_pat residues. The first o->ref_records records (0: those of the
 * first file when there are several files, else up to the first non-empty
 * record) are the reference, parsed by LZ77 over themselves; every later
 * record is parsed greedily against the reference (relative LZ), on
 * o->threads threads, a batch of records at a time (tune lz.batch).
 * Memory: the collection (1 byte a residue) plus 13 bytes a reference
 * residue (suffix array, two neighbour arrays; 25 past 2^31), plus 17
 * bytes a phrase; then, the collection freed, the source order is sorted
 * (up to 80 bytes a copy phrase). GS_EINPUT when the corpus is empty or (bytes corpora)
 * uses all 256 byte values, which leaves no separator between records. */
gs_status gs_lz_build(const char *const *files, size_t n_files, const gs_lz_build_opts *o,
                      gs_lz_index *ix, gs_error *err);

/* Write under a temporary name and rename (no half-written index); the
 * chunks are encoded and deflated on `threads` threads, cut every tune
 * lz.chunk items (NULL or 0: the format's own sizes). */
gs_status gs_lz_write(const char *path, gs_lz_index *ix, int threads, const gs_tune *tune,
                      gs_error *err);

/* Read and check, the chunks inflated, decoded and checked on `threads`
 * threads: bad magic, version, checksum, truncation or an inconsistent
 * structure is GS_EINPUT naming the file and the section. With tune's
 * GS_DEBUG_TIME the load's steps are timed on stderr. */
gs_status gs_lz_read(const char *path, int threads, const gs_tune *tune, gs_lz_index *ix,
                     gs_error *err);

/* The format version this gscan writes and reads. */
int gs_lz_format_version(void);

/* True when the file is a regular file that starts with the index magic
 * (for "gscan info"; anything else, a FIFO included, is never opened). */
int gs_lz_is_index(const char *path);

void gs_lz_free(gs_lz_index *ix);

/* The pieces a scan of patterns spanning at most `span` residues reads
 * (sc_*), derived from the stored ones and the phrases on `threads`
 * threads, or the stored ones themselves when span >= M: memory 16 bytes a
 * trimmed piece (at most one a phrase). GS_ESYS when out of memory. With
 * tune's GS_DEBUG_TIME the trim is timed on stderr. */
gs_status gs_lz_trim(gs_lz_index *ix, uint32_t span, int threads, const gs_tune *tune,
                     gs_error *err);

/* A gs_source over the scanned kernel (gs_lz_trim), pieces joined by the
 * separator `sep` (a byte no pattern position matches, so no hit is made or
 * hidden by it) into segments of at most `block` owned positions: engines
 * pay per residue, not per piece (1000 strains: 4.4 M pieces of ~150
 * residues). The owned offsets [cur, end) of the scanned kernel are cut
 * into segments, the last owned piece of each extended by up to `overlap`
 * residues inside itself; each piece's residues are unpacked from the
 * stored piece that holds it. Positions are "joined": scanned offset k of
 * piece p is k + p (one separator after each piece), record 0;
 * gs_lz_locate maps them back. With sep < 0 (a bytes scan whose patterns
 * use all 256 values) each segment holds one piece. */
typedef struct gs_lz_src {
    const gs_lz_index *ix;
    uint64_t cur, end;  /* next owned scanned offset, end of the owned range */
    uint64_t piece;     /* scanned piece holding cur */
    uint64_t stored;    /* stored piece holding that one */
    size_t block, overlap;
    int sep;            /* the separator byte, or -1 */
} gs_lz_src;

/* The separator for a scan: N for dna (a non-base), for bytes the smallest
 * byte in no pattern, -1 when every byte is in some pattern. */
int gs_lz_separator(const gs_patset *ps, gs_alphabet alphabet);

/* Owned range of part r of n: scanned offsets split evenly. */
void gs_lz_src_init(gs_lz_src *s, const gs_lz_index *ix, int part, int n_parts, size_t block,
                    size_t overlap, int sep);
gs_source gs_source_lz(gs_lz_src *s);

/* The copy phrases in source order (cp_*), from ph_start and ph_src, on
 * `threads` threads: LSD radix sort, 11 bits a pass. The index build calls
 * it; a scan reads the order from the file. */
gs_status gs_lz_sources_sort(gs_lz_index *ix, int threads, gs_error *err);

/* The file's sources section decoded: cp_start[i] a source start, and
 * cp_target[i] (for now) its phrase's index. Check that every copy phrase
 * (ph_src[j] == GS_LZ_SOURCE_UNSET, n_copies of them) occurs exactly once,
 * that each source starts before its phrase and lies inside one record,
 * and fill ph_src, cp_target and cp_tree, on `threads` threads. GS_EINPUT
 * naming path when inconsistent (a corrupt index), GS_ESYS out of memory. */
gs_status gs_lz_sources_finish(gs_lz_index *ix, int threads, const char *path, gs_error *err);
#define GS_LZ_SOURCE_UNSET (UINT64_MAX - 1) /* ph_src of a copy before the sources section */

/* What gs_lz_locate derives from the kernel's hits, and how. */
typedef struct gs_lz_locate_opts {
    const gs_patset *ps;
    int n_strands;
    int want_hits;       /* every occurrence as a hit, not counts only */
    int threads;
    uint64_t *counts;    /* [n_patterns][n_strands], added to */
    const gs_tune *tune; /* GS_DEBUG_TIME times the steps (NULL: none) */
} gs_lz_locate_opts;

/* From the hits the pipeline found in this part of the scanned kernel (any
 * order, joined positions: gs_lz_src),
 * keep the primary ones and derive all their secondary occurrences on
 * o->threads threads. o->counts[p * n_strands + s] is added to for every
 * occurrence; with want_hits, *out receives them all, sorted in contract §3
 * order. kernel_hits is consumed (freed). */
gs_status gs_lz_locate(gs_lz_index *ix, const gs_lz_locate_opts *o, gs_hits *kernel_hits,
                       gs_hits *out, gs_error *err);

/* --seq: the residues of each located hit (exact: its pattern's length
 * from its start), read out of the index (lz_text.c), into cap (finished).
 * GS_EINPUT naming the index when it cannot give them. */
gs_status gs_lz_capture(const gs_lz_index *ix, const gs_patset *ps, const gs_hits *hits,
                        gs_seqcap *cap, gs_error *err);

#endif
