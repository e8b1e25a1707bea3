/* pipeline.h - one rank's scan: read segments, match them on CPU threads or
 * a GPU, collect per-key counts and hits.
 *
 * Where the segments come from (a streamed file, index-addressed ranges, or
 * blocks sent by rank 0) is hidden behind gs_source, so the same pipeline
 * serves one process and every MPI rank. The calling thread reads the first
 * source, and is the only one that may make MPI calls (MPI_THREAD_FUNNELED
 * is enough); further sources (indexed ranges) are read by threads of their
 * own. Worker threads only match, and on a GPU one feeding thread makes
 * every CUDA call.
 */
#ifndef GS_PIPELINE_H
#define GS_PIPELINE_H

#include "core/gs_clock.h"
#include "core/gs_error.h"
#include "core/gs_tally.h"
#include "core/gs_seqcap.h"
#include "core/gs_spill.h"
#include "core/gs_tune.h"
#include "core/gs_types.h"
#include "match/engine.h"
#include "match/keyset.h"

typedef struct gs_source {
    /* Fill buf (capacity block + overlap) with the next segment, whose
     * text is buf itself (seg->text == buf), an iterator as gs_error.h
     * describes: *more = 1 with a segment, 0 at the end. */
    gs_status (*next)(void *ctx, uint8_t *buf, gs_segment *seg, int *more, gs_error *err);
    /* Optional (NULL where the source has none): the same segment as the
     * file's own bytes, line ends kept, described by *raw, in at most room
     * bytes of buf (seg->text == buf), or as residues (raw->lb == 0) where
     * they cannot be given so; for a GPU that parses them (gs_gpu_submit_raw). */
    gs_status (*next_raw)(void *ctx, uint8_t *buf, size_t room, gs_segment *seg, gs_raw_text *raw,
                          int *more, gs_error *err);
    /* Optional, with next_raw: the next segments at once where they are
     * whole loose texts of consecutive records lying one after another
     * from buf on, laid into *run as its limits allow (gs_laid_run), the
     * device's table of a batch filled without a call a read; run->n 0
     * where next_raw must give the next one. */
    gs_status (*next_run)(void *ctx, uint8_t *buf, gs_laid_run *run, gs_error *err);
    void *ctx;
} gs_source;

typedef struct gs_scan_cfg {
    const gs_keyset *ks;
    const gs_engine *engine; /* CPU engine (use_gpu == 0) */
    int use_gpu;             /* 1: the GPU engine of the same name */
    int gpu_device;
    int threads;             /* CPU workers, >= 1 */
    int want_hits;
    int tally_runs;          /* with want_hits: the hits are wanted only for a
                              * per-record tally of exact hits, so res->tally
                              * is made from the runs and res->hits stays empty */
    int tally_files;         /* with tally_runs: by file, not record (res->tally's
                              * units are files); a GPU counts each batch's keys
                              * as they land and keeps no runs */
    int want_seq;            /* with want_hits: each hit's residues into res->seq
                              * (core/gs_seqcap.h; text rows with --seq) */
    size_t block, overlap;   /* buffer capacity is block + overlap */
    /* Called from the calling thread after each of its batches with the
     * residues all readers have read (may be NULL). */
    void (*progress)(void *ctx, uint64_t residues);
    void *progress_ctx;
    const gs_tune *tune;     /* match.*, gpu.* and --debug; NULL: the defaults */
    /* With spill: the CPU workers' hits beyond hit_budget bytes (counted at
     * GS_HIT_HELD_BYTES a hit, the peak of turning keys into records) go
     * to it as sorted runs; res->hits is then the rest, and the rank's
     * hits are the merge of both (gs_spill_stream). */
    gs_spill *spill;
    size_t hit_budget;
} gs_scan_cfg;

/* Bytes a hit takes at most while a rank holds it: its 8-byte key, and the
 * 32-byte record it becomes. */
enum { GS_HIT_HELD_BYTES = 8 + sizeof(gs_hit) };

typedef struct gs_scan_res {
    uint64_t *key_counts; /* [n_keys] */
    uint64_t *counts;     /* NULL, or [patterns x strands] already folded (index scans) */
    gs_hits hits;         /* sorted in contract §3 order */
    gs_tally tally;       /* with cfg->tally_runs: rows by record (by file with
                           * cfg->tally_files), normalized */
    gs_seqcap seq;        /* want_seq: the hits' residues, finished (any order of hits
                           * finds its text by its coordinates) */
    uint64_t residues;    /* owned residues scanned */
    double t_read;        /* seconds in src->next: the longest of the readers */
    double t_transfer;    /* GPU copies */
    double t_scan;        /* wall time of the whole pipeline */
    double t_hits;        /* of t_scan: turning the runs into hit records at the end */
} gs_scan_res;

/* Scan the segments of n_src sources (n_src >= 1; with more than one, each
 * is read by a thread of its own and their segments may interleave, so
 * src[1..] must not make MPI calls). */
gs_status gs_scan_run(const gs_scan_cfg *cfg, gs_source *src, int n_src, gs_scan_res *res,
                      gs_error *err);
void gs_scan_res_free(gs_scan_res *res);

#endif
