/* parts_internal.h - the state of the parts reader, shared by parts.c
 * (lanes and their parts) and parts_count.c (where a part starts, its
 * counts); private to src/io/seq.
 */
#ifndef GS_PARTS_INTERNAL_H
#define GS_PARTS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "parts.h"
#include "parts_loose.h"
#include "seq_cursor.h"

/* PART: default part_bytes. PEEK: bytes a lane looks at to find a part's
 * start (no more than a part's). MAX_FILES: a corpus of more files is
 * streamed (each is sniffed at open, on one thread). COUNT: bytes read and
 * counted at a time, while they are in the core's cache. */
enum { PART = 8 << 20, PEEK = 64 << 10, MAX_FILES = 1024, COUNT = 256 << 10 };

typedef struct pfile {
    const char *path;
    int fastq;
    uint64_t start, size; /* the first record's byte (after a BOM, blank lines); bytes */
    uint64_t line0;       /* the number of start's line */
    size_t part0, n_parts;
} pfile;

typedef enum { P_NEW, P_COUNTING, P_COUNTED, P_FAILED } pstate;

typedef struct part {
    uint32_t file;
    pstate state;
    uint64_t cut;          /* where the file was cut: the part starts at or after it */
    uint64_t begin, end;   /* counted: its bytes */
    uint64_t recs, lines;  /* counted: its records and line ends */
    uint64_t rec_id0, rec_in_file, line0; /* set once the parts before it are counted */
    gs_layout lay;         /* its records, once parsed */
    uint32_t *lens;        /* or, given loose with their names dropped, only their
                            * residues (recs of them): the join lays their rows */
    char *warning;
    gs_error err;          /* P_FAILED */
} part;

typedef struct lane {
    gs_parts *ps;
    size_t cur;        /* the part being parsed (r), or given loose (lz) */
    gs_reader *r;
    gs_seq_range range;
    uint8_t *hold;     /* where a lane's own part is read to be counted: range.buf, or
                        * the caller's batch (gs_parts_next_raw) */
    size_t hold_cap;
    size_t held_part;  /* hold held this part's bytes whole (SIZE_MAX: none) */
    const uint8_t *held_at;
    gs_loose lz;       /* the walk over part lz_part's records, given loose
                        * from lz_next on */
    size_t lz_part, lz_next;
    int lz_on;
    const uint8_t *lz_at; /* where part byte lz_off lies (packed: byte lz_off of
                           * the part's sequences laid one after another) */
    uint64_t lz_off;
    const uint8_t *lz_end; /* where the last loose text given ends */
    /* a FASTQ part given loose from its file's pages (parts_map.c): the
     * lane's map of file map_file, whole, and the part's bytes in it
     * (lz_src), set only while the part's texts are packed (at
     * gs_loose_rec.out; where it is NULL, at .seq of the part's bytes as
     * read) */
    void *map;
    size_t map_len;
    uint32_t map_file;
    const uint8_t *lz_src;
    size_t lz_src_n;   /* the part's bytes at lz_src */
    int codes;         /* how its reads are coded (gs_dna2_how; GS_DNA2_OFF: as bytes) */
    double t[GS_PARTS_TIMES]; /* seconds (gs_parts_times) */
    uint32_t fd_file;  /* range.fd is open on this file (-1 fd: none) */
    uint8_t *pk;       /* a window on the file: pk[0, pk_n) are bytes pk_at on */
    uint8_t *scratch;  /* COUNT bytes: another lane's part passes through it */
    size_t pk_cap, pk_n;
    uint64_t pk_at, bytes;
} lane;

struct gs_parts {
    gs_reader_opts o;
    gs_layout *layout;
    pfile *files;
    size_t n_files;
    part *parts;
    size_t n_parts;
    size_t prefix;     /* parts [0, prefix) are counted: ids known through part prefix */
    size_t failed;     /* the first part whose count failed (n_parts: none) */
    atomic_size_t next; /* the first part no lane has taken */
    size_t peek;       /* bytes a lane reads to look at a file (PEEK or a part) */
    lane *lanes;
    int n_lanes;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* pread n bytes at `at` of the lane's file into out (counted, timed). */
gs_status gs_parts_read_at(lane *ln, uint8_t *out, size_t n, uint64_t at, gs_error *err);
/* The lane's fd on file f. */
gs_status gs_parts_lane_file(lane *ln, uint32_t f, gs_error *err);
/* gs_loose_feed on the lane's walk, timed. */
gs_status gs_parts_feed(lane *ln, const uint8_t *b, size_t have, size_t n, gs_error *err);
/* The loose road from the file's pages (parts_map.c), for FASTQ: bytes
 * [at, at + n) of the lane's file mapped, their records found by the walk
 * (ln->lz, begun here) and their sequence lines packed into out, one after
 * another (gs_loose_rec.out): *done 1, the part packed until
 * gs_parts_unpack. *done 0 where the system would not map them or the
 * walk gave up (not packed: the caller reads them the usual way). GS_EINPUT
 * where the file is shorter than when it was opened. */
gs_status gs_parts_walk_mapped(lane *ln, uint64_t at, size_t n, uint8_t *out, int *done,
                               gs_error *err);
/* Records [from, lz.n) of the packed part again into out (a fresh batch),
 * record from's text at out[0]. */
gs_status gs_parts_pack_from(lane *ln, size_t from, uint8_t *out, gs_error *err);
/* gs_loose_layout of the lane's loose part: names from the map where it is
 * packed, else from buf (the part's bytes as read). */
gs_status gs_parts_loose_layout(lane *ln, const uint8_t *buf, uint32_t file, int drop_names,
                                gs_layout *lay, gs_error *err);
/* The lane's part no longer packed (its map of the file is kept). */
void gs_parts_unpack(lane *ln);
/* Let the lane's map go (none: nothing). */
void gs_parts_unmap(lane *ln);
/* Find part k's bytes and count them (its records and line ends); with
 * hold (the lane's own part) its bytes stay in ln->hold when they fit, and
 * where ln->hold is a caller's batch the lane's walk finds its records as
 * they are read (the loose road). */
gs_status gs_parts_count_part(lane *ln, size_t k, int hold, gs_error *err);

#endif
