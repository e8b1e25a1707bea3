/* job_internal.h - the state of one scan job, shared by its phases
 * (job.c, reduce.c, verify.c, output.c) and its read modes (mode.h).
 *
 * job.c runs the phases in order and owns this struct; each phase file
 * reads what the phases before it filled. The read mode's own state (its
 * layout, plan, open files) sits behind j->ms, owned and freed by the mode.
 */
#ifndef GS_JOB_INTERNAL_H
#define GS_JOB_INTERNAL_H

#include "core/gs_parallel.h"
#include "core/gs_patset.h"
#include "core/gs_result.h"
#include "core/gs_spill.h"
#include "job.h"
#include "match/engine.h"
#include "match/keyset.h"
#include "policy.h"
#include "progress.h"
#include "scan/pipeline.h"

struct gs_mode;
typedef struct gs_tally_state gs_tally_state; /* tally.c */

typedef struct gs_job {
    const gs_scan_opts *o;
    MPI_Comm comm;
    int rank, size;
    gs_patset ps;
    gs_keyset ks;
    const gs_engine *engine;
    int use_gpu, gpu_device, n_gpus, threads;
    size_t block;         /* residues per block: --block-size, else by device */
    size_t overlap;
    int readers;          /* reading threads per rank (sources of a pass) */
    const struct gs_mode *mode; /* how this job reads its corpus (mode.h) */
    void *ms;             /* the mode's state, freed by mode->free */
    uint64_t total;       /* residues of the corpus when known before the scan, else 0 */
    uint64_t bytes_read;  /* corpus bytes this rank read, every pass */
    double progress_t0, progress_last;
    gs_progress prog;     /* every rank's residues, summed on rank 0 */
    gs_tally_state *tally; /* --tally: the sheet, then the tally (tally.h) */
    gs_amplicons amp;     /* gscan pcr: the products (rank 0, pcr.c) */
    const gs_seqcap *seqcap; /* --seq, rank 0: the hits' residues (gs_job_gather_seq) */
    double t[GS_N_PHASES];
    uint64_t max_memory;  /* bytes a rank holds: --max-memory or its default (setup) */
    gs_spill *spill;      /* this rank's hits beyond it (NULL: they stay in memory) */
    gs_spill *ref_spill;  /* --verify: its reference pass's, beside spill */
    uint64_t ref_budget;  /* --verify: what the reference pass may hold */
    gs_hit_array_src held; /* the hits held, as a source */
    gs_hit_source hit_src; /* with streamed: the rank's hits for the writer */
    int streamed;
    uint64_t n_out_hits;  /* hits this rank writes */
} gs_job;

/* job_check.c, rank 0 before any work: -o would replace an input or a
 * non-file. */
gs_status gs_job_check_output(const gs_scan_opts *o, gs_error *err);

/* seq_gather.c, --seq: the residues every rank captured (finished) moved to
 * rank 0's *cap, finished there (every rank calls; the others give theirs
 * up). Apart from the hits' gather: a hit finds its text by coordinates. */
gs_status gs_job_gather_seq(const gs_job *j, gs_seqcap *cap, gs_error *err);

/* reduce.c: counts summed on rank 0 (*counts, rank 0 only); hits gathered
 * to rank 0 and merged in order (every rank calls; others give theirs up). */
gs_status gs_job_reduce_counts(const gs_job *j, const gs_scan_res *res, uint64_t **counts,
                               gs_error *err);
gs_status gs_job_gather_hits(const gs_job *j, gs_hits *hits, gs_error *err);

/* pcr.c, gscan pcr (collective): rank 0 pairs the primer sites of hits (all
 * of them there: approximate hits are gathered) into j->amp; --tally then
 * counts products per unit and pair (*tally_hits: rank 0's products as
 * hits, freed by the caller; empty elsewhere). */
gs_status gs_job_pcr(gs_job *j, const gs_hits *hits, gs_hits *tally_hits, gs_error *err);
/* hit_spill.c: the spill of hits beyond --max-memory (made where hits can
 * spill: written, counted or tallied from their sorted stream); what it
 * did, under --debug time; whether any rank spilled (collective); the
 * gather of every rank's spilled and held hits into one run of rank 0
 * (collective, in place of gs_job_gather_hits once any rank spilled; with
 * approximate hits, rank 0 keeps those reported, after --best-per-site,
 * and counts them into counts); this rank's hits as one sorted source (its
 * runs merged with *hits, read again from the start at each call); and the
 * writer's stream of them (collective). */
gs_status gs_job_spill_begin(gs_job *j, gs_error *err);
void gs_job_spill_report(const gs_job *j);
int gs_job_spilled(const gs_job *j);
gs_status gs_job_gather_spilled(gs_job *j, gs_hits *hits, uint64_t *counts, gs_error *err);
gs_status gs_job_own_stream(gs_job *j, const gs_hits *hits, gs_hit_source *src, gs_error *err);
gs_status gs_job_hit_stream(gs_job *j, gs_hits *hits, gs_error *err);

/* One pass over this rank's share (job.c); main: the pass whose records make
 * the layout (not --verify's); *t_send: seconds rank 0 spent dealing. */
gs_status gs_job_scan_pass(gs_job *j, const gs_engine *engine, int use_gpu, int main,
                           gs_scan_res *res, double *t_send, gs_error *err);

/* verify.c: --verify, a second pass with the reference engine compared. */
gs_status gs_job_verify(gs_job *j, gs_scan_res *main_res, const uint64_t *counts,
                        gs_job_summary *sum, gs_error *err);

/* output.c: the repeated-name check of rank 0 (beside the scan when the
 * layout is known before it) and the result file. */
typedef struct gs_dup_check {
    const gs_layout *l;
    size_t n;     /* records that repeat an earlier name */
    size_t a, b;  /* the first such pair */
    int started;  /* gs_job_dups_start ran: join before n, a, b are read */
    int threads;  /* threads the check may take */
    gs_task task;
} gs_dup_check;
/* The check of l's names on a task beside the caller, on `threads`. */
void gs_job_dups_start(gs_dup_check *d, const gs_layout *l, int threads);
void gs_job_dups_join(gs_dup_check *d);
void gs_job_dups_warn(gs_dup_check *d, const gs_layout *l, char *const *corpus);
/* Collective: counts (rank 0), hits and the layout into -o. */
gs_status gs_job_write(const gs_job *j, const uint64_t *counts, const gs_hits *hits,
                       double t_start, gs_error *err);

#endif
