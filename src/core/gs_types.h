/* gs_types.h - the data every stage shares: alphabet, records, hits.
 *
 * These are plain structs passed between stages (read -> compile -> scan ->
 * reduce -> write); each stage's own state stays behind an opaque handle in
 * its own header.
 */
#ifndef GS_TYPES_H
#define GS_TYPES_H

#include "gs_error.h"

#include <stddef.h>
#include <stdint.h>

typedef enum gs_alphabet {
    GS_ALPHA_DNA = 0,  /* ACGT either case are bases, everything else a non-base */
    GS_ALPHA_BYTES = 1 /* all 256 byte values, exact, forward strand only */
} gs_alphabet;

/* DNA codes used for keys and by engines: A=0 C=1 G=2 T=3; GS_NONBASE for the
 * rest. gs_dna_code[] maps a text byte to its code (either case). */
enum { GS_NONBASE = 4 };
extern const uint8_t gs_dna_code[256];

/* Strand index: column of /counts and the order of hits at one position. */
enum { GS_FWD = 0, GS_REV = 1 };

/* One record of the corpus, in corpus order (files in command-line order). */
typedef struct gs_record {
    char *name;      /* header's first whitespace-delimited word, or file base name (raw) */
    uint64_t length; /* residues */
    uint32_t file;   /* index into gs_layout.files */
} gs_record;

/* The corpus layout: every record and the files they came from. */
typedef struct gs_layout {
    gs_record *rec;
    size_t n_rec, cap_rec;
    char **files;    /* paths as given on the command line */
    size_t n_files;
    char *names;     /* NULL: each rec[i].name is its own allocation; else one
                      * block of every name, NUL-terminated one after another
                      * in record order, that rec[i].name points into (indexed
                      * corpora: millions of EST names in one allocation) */
    size_t names_len; /* bytes of names, NULs included */
} gs_layout;

void gs_layout_free(gs_layout *l);
/* What one pass over l's records finds, on up to `threads` threads (a read
 * set's table is a hundred million records): their residues, and with
 * names the longest record name's bytes (else 0: the names are not read,
 * which was most of the pass over 2 * 10^7 reads' table). */
typedef struct gs_layout_stats {
    uint64_t residues;
    size_t name_max;
} gs_layout_stats;
gs_layout_stats gs_layout_scan(const gs_layout *l, int threads, int names);
/* Point rec[0 .. n_rec).name at the successive names of l->names. */
void gs_layout_point_names(gs_layout *l);

/* A block of one record's residues handed to an engine. Hits that start at
 * text[0 .. own) belong to this segment; text[own .. len) is the overlap
 * (at most max_pattern_length - 1 residues) that lets them finish. */
typedef struct gs_segment {
    uint32_t record;     /* index into the layout */
    uint64_t base;       /* record position of text[0] */
    const uint8_t *text; /* residues, as read (case kept) */
    size_t len;          /* residues in text, overlap included */
    size_t own;          /* owned start positions, own <= len */
    uint64_t turn;       /* a circular record's length when text runs past its
                          * end into its start (text[turn - base] is residue 0
                          * again), else 0: hits start before turn and span at
                          * most turn residues */
    uint32_t file;       /* the record's file: index into the layout's files */
} gs_segment;

/* A segment's text as its FASTA file holds it, line ends included, for a
 * device that drops them itself (src/scan, src/gpu/raw.cu): with c = col +
 * r, residue r lies at byte (c / lb) * lw + c % lb - col of the text. The
 * bytes are checked there as the host's reader checks them (io/seq/fai.h):
 * every residue byte, every line end between two residues, and with tail
 * the line end after the last one. lb == 0: the text holds the residues
 * themselves (a segment read the usual way, in the same batch). */
typedef struct gs_raw_text {
    size_t bytes;       /* of the text (loose: of the buffer, from where the segment
                         * was asked to lie to the text's end) */
    uint32_t lb, lw;    /* residues of a full line; bytes of a line, its end included */
    uint32_t col;       /* column of the first residue */
    int tail;
    const char *record; /* the record's name and its file, for a message */
    const char *path;
    size_t span;        /* > 0: a loose text (unindexed FASTA, a FASTQ sequence line,
                         * io/seq/parts.h): its span bytes hold the residues among
                         * line ends and blanks ('\n', '\r', ' ', '\t') anywhere,
                         * which the device drops; lb, lw, col, tail unused */
    int codes;          /* a loose text of 2-bit codes (core/gs_dna2.h): its span bytes
                         * hold its residues four a byte */
} gs_raw_text;

/* A whole segment of a batch as its reader laid it (gs_gpu_submit_laid):
 * its len residues lie among bytes [at, at + span) of the batch's buffer
 * with line ends and blanks ('\n', '\r', ' ', '\t'), which the device
 * drops (a loose text, gs_raw_text.span; span == len: residues as read),
 * or, span 0, as 2-bit codes in gs_laid_bytes of them (core/gs_dna2.h),
 * for text[out, out + len) of the batch's packed text, each followed by a
 * separator (out: the lengths of those before, plus one each). */
typedef struct gs_laid {
    uint32_t at, out, len, span;
} gs_laid;

/* The bytes of the buffer e's text takes. */
static inline uint64_t gs_laid_bytes(const gs_laid *e)
{
    return e->span ? e->span : ((uint64_t)e->len + 3) / 4;
}

/* A run of whole segments a source lays at once (gs_source.next_run): the
 * loose texts of consecutive records of one file, one after another in the
 * buffer it is given. */
typedef struct gs_laid_run {
    /* asked: room for max entries at v; the buffer's offset in the batch's
     * (at0) and the next entry's out (out0); texts are laid while the
     * bytes before the next one are fewer than bytes_below and it ends
     * (out + len) within out_cap */
    gs_laid *v;
    size_t max;
    uint32_t at0, out0;
    size_t bytes_below;
    uint64_t out_cap;
    /* given: v[0, n), the first of record `record` (the others the records
     * after it) in file `file`; the buffer's bytes to the last text's end;
     * their residues; full: the next text does not end within out_cap */
    size_t n;
    uint32_t record, file;
    size_t bytes;
    uint64_t residues;
    int full;
} gs_laid_run;

/* The message of a FASTA index that no longer fits its file at residue
 * (record position) of record: a byte that is no residue where one should
 * be, or (line_end) no line end after it. GS_EINPUT. */
gs_status gs_raw_stale(gs_error *err, const char *record, const char *path, uint64_t residue,
                       int line_end);

/* Where the text of a segment whose owned starts end at own_end stops, for a
 * record of length residues: overlap residues further, but not past the
 * record's end, or for a circular record not past its first
 * min(length - 1, overlap) residues read again after its end (positions
 * length, length + 1, ... are residues 0, 1, ...). The one rule of the plan,
 * the range readers and the streaming reader. */
static inline uint64_t gs_read_end(uint64_t own_end, uint64_t overlap, uint64_t length,
                                   int circular)
{
    uint64_t limit = length;
    if (circular && length > 0)
        limit += length - 1 < overlap ? length - 1 : overlap;
    return own_end + overlap < limit ? own_end + overlap : limit;
}

/* What a hit means (contract §1): exact occurrences, or approximate ones
 * within K mismatches (Hamming) or K edits (Levenshtein, semi-global). */
typedef enum gs_match_mode {
    GS_MATCH_EXACT = 0,
    GS_MATCH_MISMATCHES = 1,
    GS_MATCH_EDITS = 2
} gs_match_mode;

/* "exact", "mismatches" or "edits" (the result file's match_mode). */
const char *gs_match_mode_name(gs_match_mode m);

/* One hit as it leaves a rank (contract §1, §3). Every stage from the engine
 * to the writer carries all of it, so a new attribute is a field here and a
 * row in the writer's column table, not a new path. */
typedef struct gs_hit {
    uint64_t start;   /* 0-based, leftmost position on the forward strand */
    uint32_t record;  /* index into the layout */
    uint32_t pattern; /* pattern id (line order in the pattern file) */
    int8_t strand;    /* +1 forward, -1 reverse */
    uint8_t distance; /* mismatches or edits (0 for exact hits) */
    uint64_t end;     /* one past the last residue (exact: start + pattern length) */
} gs_hit;

/* A growable vector of hits. */
typedef struct gs_hits {
    gs_hit *v;
    size_t n, cap;
} gs_hits;

/* Room for element n of the array *vp (a pointer to the array pointer, of
 * *cap elements of elem bytes): doubles the array, from first elements,
 * until it holds n (once, for an append: n == *cap). GS_ESYS (array and cap unchanged) when memory is short;
 * no gs_error: engines grow arrays on worker threads, and the caller says
 * what was short. gs_hits_push: append, the same way (h unchanged then). */
gs_status gs_grow(void *vp, size_t *cap, size_t n, size_t elem, size_t first);
gs_status gs_hits_push(gs_hits *h, const gs_hit *hit);
void gs_hits_free(gs_hits *h);

/* Contract §3 order: record, start, strand (forward before reverse), pattern,
 * end. */
int gs_hit_cmp(const void *a, const void *b);

#endif
