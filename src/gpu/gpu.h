/* gpu.h - the CUDA engines as seen from C: a plain interface, no CUDA types.
 *
 * One gs_gpu per rank drives one device through a pipeline of pinned host
 * buffers and streams: gs_gpu_submit copies a segment into a pinned buffer and
 * queues its transfer and scan; gs_gpu_finish waits for all of them and hands
 * back the per-key counts and the hits. Each batch's hits are compacted and
 * sorted on the device and come back as runs of packed keys (gs_hitsort.h),
 * 8 bytes a hit, which the caller turns into records on all its threads
 * (gs_hit_runs_expand); the feeding thread never makes a record. Without a
 * CUDA build (gpu_none.c) every call reports that no GPU is available.
 *
 * Batching: with the dna alphabet, consecutive segments share one transfer
 * and one scan (joined by a non-base byte) until a block's worth of text is
 * packed or a segment with an overlap (own < len) arrives, so short records
 * cost a memcpy, not a launch each. With the bytes alphabet every segment is
 * scanned on its own. A submit may therefore return before anything of the
 * segment reached the device; the caller's text may be reused at once all
 * the same (it has been copied).
 */
#ifndef GS_GPU_H
#define GS_GPU_H

#include "core/gs_error.h"
#include "core/gs_hitsort.h"
#include "core/gs_seqcap.h"
#include "core/gs_tally.h"
#include "core/gs_tune.h"
#include "core/gs_types.h"
#include "match/keyset.h"

/* Number of visible CUDA devices; 0 without a CUDA build or without a device. */
int gs_gpu_device_count(void);

/* The PCI bus id of a device ("0000:3b:00.0", lowercase as sysfs names
 * it) into id (cap bytes): 0, or -1 without one. */
int gs_gpu_bus_id(int device, char *id, size_t cap);

/* The device of the rank that is local_rank-th on its node, of n_devices
 * visible ones, -1 for none: the one rule that both the start-up warm-up
 * (main) and the job use, so that the context warmed is the one used. */
static inline int gs_gpu_for_rank(int local_rank, int n_devices)
{
    return n_devices > 0 && local_rank >= 0 ? local_rank % n_devices : -1;
}

/* Create the device's primary context now (driver start-up, context),
 * ignoring any error: a later gs_gpu_open on the same device finds it made.
 * Blocking; meant for a thread of its own at process start, so that the
 * CUDA start-up overlaps MPI's and the reading of the patterns. */
void gs_gpu_warm(int device);

typedef struct gs_gpu gs_gpu;

typedef struct gs_gpu_times {
    double transfer; /* seconds of host<->device copies (event-timed, summed) */
    double kernel;   /* seconds of scan kernels (event-timed, summed) */
    double hits;     /* seconds the feeding thread spent taking hits back (waiting
                      * for their sort on the device, copying keys into runs) */
    double keep;     /* seconds spent making runs of the sorted keys: on CUDA's
                      * host thread as each queued batch's keys land, else in hits */
    double tables;   /* seconds the feeding thread spent copying readers' tables
                      * (gs_gpu_submit_laid: entries, and whose hits they hold) */
    unsigned long batches, redone; /* batches with hits; of them, those whose
                                    * hits were made again once their scan was
                                    * done (key hits past the room, or more sort
                                    * keys than a queued batch made room for) */
    double slot;     /* seconds the host waited for a batch slot's last batch to
                      * finish on the device before reusing the slot */
} gs_gpu_times;

/* What to open. */
typedef struct gs_gpu_args {
    int device;
    /* "ac", "wm" or "rk" for exact keysets, "bv" for approximate ones (K <= 15;
     * segments are then scanned one a launch, and key counts stay zero: the
     * counts of approximate modes come from the hits) */
    const char *engine;
    int want_hits;
    /* with want_hits, exact keys: the hits are wanted only for a tally by
     * file, whose units the runs' tables hold (gs_run_owner): each batch's
     * keys are counted as they land (gs_tally_count_keys) and no runs are
     * kept; gs_gpu_take_tally hands the rows over */
    int tally_files;
    /* the largest seg->own that will be submitted (text is at most
     * block + ks->max_len - 1, below 2^32) */
    size_t block;
    const gs_tune *tune; /* gpu.* and match.* knobs; NULL: the defaults */
    /* tests: N + 1 makes rk's dna bitmap windows reach N residues past their
     * group's shortest key, as far as its keys do (0: the cost model picks) */
    int rk_ext;
} gs_gpu_args;

/* Whether consecutive segments share a batch (the dna alphabet, exact keys):
 * the batches that raw bytes may fill (gs_gpu_submit_raw). */
static inline int gs_gpu_packs(const gs_keyset *ks)
{
    return ks->alphabet == GS_ALPHA_DNA && ks->mode == GS_MATCH_EXACT;
}

gs_status gs_gpu_open(const gs_gpu_args *a, const gs_keyset *ks, gs_gpu **g, gs_error *err);
gs_status gs_gpu_submit(gs_gpu *g, const gs_segment *seg, gs_error *err);
/* Whether the GPU takes the readers' batches as they lie, from their own
 * buffers (raw bytes, or packed text in place): where batches pack and no
 * --seq capture needs the GPU's host copy of each. The readers' default
 * (src/mpi/policy.c) and the feeding path (src/scan) follow this one rule. */
static inline int gs_gpu_takes_laid(const gs_keyset *ks, int want_seq)
{
    return gs_gpu_packs(ks) && !want_seq;
}

/* Whether the GPU may copy batches straight from the caller's buffers
 * (gs_gpu_submit_run with a ticket): the dna alphabet, exact keys (runs of
 * segments) or approximate ones (a segment a batch), and no --seq capture,
 * which needs the GPU's host copy of each batch. */
static inline int gs_gpu_in_place(const gs_keyset *ks, int want_seq)
{
    return ks->alphabet == GS_ALPHA_DNA && !want_seq;
}

/* The byte between the segments of a packed batch (gs_gpu_packs). */
enum { GS_GPU_SEPARATOR = 'N' };
/* Submit n segments laid out as a packed batch lays them: each text right
 * after the one before and a GS_GPU_SEPARATOR (many ESTs or reads from one
 * buffer: one copy a batch, not one a segment). A segment out of that
 * layout, or not whole, is submitted alone (gs_gpu_submit). With a ticket
 * the batches lie in place: the device copies them from the caller's
 * buffer (pinned: gs_gpu_pin), which may be reused once gs_gpu_wait(ticket)
 * has returned, and the host copies nothing; only where gs_gpu_in_place
 * (approximate keys: each segment a batch of its own, in place). Without
 * one they are copied into the GPU's own pinned batches before this
 * returns. */
gs_status gs_gpu_submit_run(gs_gpu *g, const gs_segment *seg, size_t n, unsigned *ticket,
                            gs_error *err);
/* Page-lock host memory that raw segments will be submitted from, so that
 * their copies go straight to the device (a few GB/s of pinning on the
 * feeding thread); 0 when it cannot be (the copies are then staged). Unpin
 * before the memory is freed, once gs_gpu_finish has returned. Host memory
 * must be pinned on the thread that opened the gpu. */
int gs_gpu_pin(void *p, size_t bytes);
void gs_gpu_unpin(void *p);
/* Submit n segments whose seg[i].text is raw[i].bytes of FASTA text, line
 * ends included (gs_raw_text), laid out one after another in one host
 * buffer (gaps allowed, in order), pinned or not: the device copies the
 * bytes, drops the line ends, checks them as the host reader would
 * (GS_EINPUT naming record, residue and index) and packs the residues into
 * batches as gs_gpu_submit does. Returns at once with a ticket: the
 * buffer may be reused once gs_gpu_wait(ticket) has returned (copies
 * complete in submit order, so a later ticket's wait covers it too). A
 * fault is reported by a later submit or by gs_gpu_finish. Only where
 * gs_gpu_packs and no --seq capture is set. */
gs_status gs_gpu_submit_raw(gs_gpu *g, const gs_segment *seg, const gs_raw_text *raw, size_t n,
                            unsigned *ticket, gs_error *err);
/* Submit the n segments of v[] (in the order of out) from buf: the table
 * goes to the device as it is and one kernel packs the texts, a batch for
 * as many as fit, so the feeding thread does nothing per segment (107 M
 * reads of 150 bp took 3.7 s through the per-segment calls). Where the
 * gpu keeps hits, (*hit)[] says whose hits each text holds (hit[i].off:
 * v[i].out, from 0), copied a batch at a time; else hit is NULL. Where the
 * whole table is one batch, the array itself is taken, not copied (with
 * the entries' own copy, 40 bytes a read: 0.5 s of the feeding thread's
 * 1.3 s for 5 * 10^7 reads), and one of the gpu's given back in its place
 * (*hit and its gs_grow capacity *hit_cap; NULL and 0 at first). v_pinned:
 * v lies in pinned memory that stays until the ticket's fence (the batch's
 * own buffer), and goes to the device from there, not through a copy of the
 * feeding thread's. A ticket as gs_gpu_submit_raw; only where
 * gs_gpu_takes_laid. */
gs_status gs_gpu_submit_laid(gs_gpu *g, const uint8_t *buf, const gs_laid *v, int v_pinned,
                             gs_run_seg **hit, size_t *hit_cap, size_t n, unsigned *ticket,
                             gs_error *err);
/* Wait until the buffer of the submit that gave ticket (gs_gpu_submit_raw,
 * gs_gpu_submit_run) may be reused. */
gs_status gs_gpu_wait(gs_gpu *g, unsigned ticket, gs_error *err);
/* Threads (the submitting one included) that copy a submitted segment into
 * the pinned buffer, and a batch's hit keys out of it; 1 until set. One
 * thread copying was most of the scan phase of a large indexed corpus. */
void gs_gpu_set_copy_threads(gs_gpu *g, int threads);
/* From then on, the residues of each batch's hits go into *cap as the hits
 * come back (gs_seqcap_add_keys, from the batch's pinned host copy of its
 * text, which stays until the batch is retired); NULL (the default): none. */
void gs_gpu_set_seqcap(gs_gpu *g, gs_seqcap *cap);
/* Adds to key_counts[n_keys]; moves the hits found since the last finish
 * (pattern, strand and length from the keyset's outputs, record and start
 * from the segments) into *runs, or drops them when runs is NULL. Any
 * submission order gives the same hits once expanded. */
gs_status gs_gpu_finish(gs_gpu *g, uint64_t *key_counts, gs_hit_runs *runs, gs_gpu_times *t,
                        gs_error *err);
/* Moves the hits of the batches retired so far into *runs (the rest come
 * with gs_gpu_finish), so that a caller bounding its memory can spill them
 * as they come (src/scan). */
gs_status gs_gpu_take_runs(gs_gpu *g, gs_hit_runs *runs, gs_error *err);
/* With tally_files, after gs_gpu_finish: the rows of the hits found since
 * the last take, by file, appended to *t (a file's rows repeat where its
 * batches came between other files': gs_tally_remap combines them). */
gs_status gs_gpu_take_tally(gs_gpu *g, gs_tally *t, gs_error *err);
void gs_gpu_close(gs_gpu *g);

#endif
