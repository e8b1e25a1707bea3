/* job.c - the phases of one scan over MPI (see job.h).
 *
 * setup (patterns, engine, device), plan (the read mode: mode.h), scan,
 * reduce (counts to rank 0, hits gathered where the mode's hits interleave
 * across ranks: reduce.c), --verify (verify.c), write (output.c). After each
 * phase the ranks agree on success (gs_mpi_agree), so an error on any rank
 * ends every rank with one message. How the corpus is read is the mode's
 * business: this file never names one. The rules behind each choice are in
 * policy.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm/comm.h"
#include "gpu/gpu.h"
#include "io/seq/patterns.h"
#include "match/sites.h"
#include "host.h"
#include "mode.h"
#include "tally.h"

/* ---- phase 1: patterns, engine, device --------------------------------- */

/* Whether node-local rank me of n is the first of its node on its GPU,
 * told by the GPUs' names (id[GPU_ID]: PCI address, "" without a GPU)
 * gathered over the node. */
enum { GPU_ID = 32 };
static int first_on_gpu(MPI_Comm node, int me, int n, const char *id)
{
    char *ids = malloc((size_t)n * GPU_ID);
    if (ids == NULL) /* the node's ranks all take this road or none: a collective */
        gs_mpi_die(MPI_ERR_NO_MEM, "malloc of the node's GPU addresses", __FILE__, __LINE__);
    GS_MPI_CHECK(MPI_Allgather(id, GPU_ID, MPI_CHAR, ids, GPU_ID, MPI_CHAR, node));
    int first = gs_policy_gpu_first(ids, GPU_ID, n, me);
    free(ids);
    return first;
}

/* The GPU is used when the engine (auto: ac, or bv when approximate) has a
 * GPU counterpart in the engine table; each rank of a node takes the next. */
static gs_status setup_device(gs_job *j, gs_error *err)
{
    const gs_scan_opts *o = j->o;
    int local_rank, local_size;
    MPI_Comm node = gs_mpi_node_comm(j->comm);
    GS_MPI_CHECK(MPI_Comm_rank(node, &local_rank));
    GS_MPI_CHECK(MPI_Comm_size(node, &local_size));
    const gs_engine *cand = gs_policy_gpu_candidate(o->engine, o->match != GS_MATCH_EXACT);
    int seen = gs_policy_wants_gpu(o->device, cand) ? gs_gpu_device_count() : 0;
    j->use_gpu = seen > 0;
    j->gpu_device = seen ? gs_gpu_for_rank(local_rank, seen) : 0;
    char bus[GPU_ID] = "";
    if (j->use_gpu && gs_gpu_bus_id(j->gpu_device, bus, sizeof bus) != 0)
        snprintf(bus, sizeof bus, "device %d", j->gpu_device);
    int mine = first_on_gpu(node, local_rank, local_size, bus);
    GS_MPI_CHECK(MPI_Comm_free(&node));
    GS_MPI_CHECK(MPI_Allreduce(&mine, &j->n_gpus, 1, MPI_INT, MPI_SUM, j->comm));
    gs_host_share share;
    gs_host_share_take(j->comm, mine ? j->gpu_device : -1, o->tune.host_numa, o->threads, &share);
    j->threads = share.threads;
    char where[40] = "";
    if (share.numa_node >= 0)
        snprintf(where, sizeof where, " on NUMA node %d", share.numa_node);
    if (o->tune.debug & GS_DEBUG_TIME)
        fprintf(stderr, "gscan: rank %d: %d threads, a share of %ld cores%s%s%s\n", j->rank,
                share.threads, share.cores, where, bus[0] ? ", GPU " : "", bus);
    j->block = (size_t)gs_policy_block(o->block, j->use_gpu);
    j->max_memory = gs_policy_max_memory(o->max_memory, &o->node_memory, local_size);
    if ((o->report_hits || o->match != GS_MATCH_EXACT) && !j->use_gpu) /* hits may spill */
        j->block = (size_t)gs_policy_block_memory(j->block, o->block, j->max_memory, j->threads);
    if (gs_policy_gpu_engine(o->device, cand, o->match != GS_MATCH_EXACT, err) != GS_OK)
        return err->code;
    for (size_t f = 0; o->verify && j->rank == 0 && f < o->n_corpus; f++)
        if (!gs_input_seekable(o->corpus[f]))
            return gs_fail(err, GS_EUSAGE,
                           "--verify reads the corpus twice, a pipe or stdin only once: "
                           "write it to a file first (%s)",
                           o->corpus[f]);
    return gs_policy_gpu_found(o->device, seen, j->rank, err);
}

/* The collective steps come first, so that a rank whose pattern file fails
 * still takes part in them and reaches the agreement after this phase. */
static gs_status setup(gs_job *j, gs_error *err)
{
    const gs_scan_opts *o = j->o;
    if (setup_device(j, err) != GS_OK)
        return err->code;
    if (j->rank == 0 && gs_job_check_output(o, err) != GS_OK)
        return err->code;
    if (gs_job_tally_setup(j, err) != GS_OK)
        return err->code;
    gs_status st = gs_patset_load(o->patterns, o->seqs, o->n_seqs, o->alphabet, &j->ps, err);
    for (uint32_t p = 0; st == GS_OK && o->match == GS_MATCH_EXACT && p < j->ps.n; p++)
        if (j->ps.v[p].has_max_dist || j->ps.v[p].has_exact3p)
            st = gs_fail(err, GS_EUSAGE,
                         "pattern %s has its own %s: give --max-mismatches or --max-edits, "
                         "which say what K counts (%s:%u)",
                         j->ps.v[p].name, j->ps.v[p].has_max_dist ? "K" : "exact_3p", o->patterns,
                         j->ps.v[p].line);
    if (st == GS_OK && o->match != GS_MATCH_EXACT) {
        st = gs_keyset_build_approx(&j->ps, o->both_strands, o->match, o->max_dist, &j->ks, err);
        if (st == GS_OK)
            st = gs_keyset_set_exact3p(&j->ks, &j->ps, o->exact3p, err);
        if (st == GS_OK)
            st = gs_keyset_set_bulges(&j->ks, &j->ps, o->bulges, err);
    } else if (st == GS_OK)
        st = gs_keyset_build(&j->ps, o->alphabet, o->both_strands, o->max_expansions, &j->ks, err);
    if (st != GS_OK)
        return st;
    j->overlap = gs_keyset_overlap(&j->ks);
    return gs_policy_engine(o->engine, j->use_gpu, &j->ks, &j->engine, err);
}

/* ---- phase 2: the read mode and its plan -------------------------------- */

static gs_status make_plan(gs_job *j, gs_error *err)
{
    if (gs_mode_choose(j, err) != GS_OK)
        return err->code;
    return j->mode->plan ? j->mode->plan(j, err) : GS_OK;
}

/* ---- phase 3: scan ------------------------------------------------------ */

static void print_progress(const gs_job *j, uint64_t all, double now)
{
    double mb = (double)all / 1e6, rate = mb / (now - j->progress_t0 + 1e-9);
    if (j->total) { /* known before the scan: a share of it */
        double pct = 100.0 * (double)all / (double)j->total;
        fprintf(stderr, "\rgscan: %5.1f%% (%.1f M residues, %d rank%s, %.0f M/s)   ",
                pct < 100.0 ? pct : 100.0, mb, j->size, j->size > 1 ? "s" : "", rate);
    } else {
        fprintf(stderr, "\rgscan: %.1f M residues scanned (%d rank%s, %.0f M/s)   ", mb, j->size,
                j->size > 1 ? "s" : "", rate);
    }
}

/* Every rank reports its residues (at most every 0.2 s); rank 0 prints the
 * whole job's. */
static void show_progress(void *ctx, uint64_t residues)
{
    gs_job *j = ctx;
    double now = gs_now();
    if (now - j->progress_last < 0.2)
        return;
    j->progress_last = now;
    uint64_t all = gs_progress_update(&j->prog, residues);
    if (j->rank == 0)
        print_progress(j, all, now);
}

/* Rank 0's stderr decides whether progress is shown: it is the one that
 * prints. */
static int progress_begin(gs_job *j, gs_scan_cfg *cfg)
{
    const gs_scan_opts *o = j->o;
    int show = j->rank == 0 && (o->progress > 0 || (o->progress < 0 && isatty(2)));
    GS_MPI_CHECK(MPI_Bcast(&show, 1, MPI_INT, 0, j->comm));
    if (show) {
        gs_error ignored = {0};
        cfg->progress = show_progress;
        cfg->progress_ctx = j;
        j->progress_t0 = gs_now();
        j->progress_last = 0;
        gs_progress_start(&j->prog, j->comm, &ignored); /* without it: rank 0's share only */
    }
    return show;
}

/* The last state, whenever the last report was. */
static void progress_end(gs_job *j, gs_status st, uint64_t residues)
{
    uint64_t all = gs_progress_finish(&j->prog, st == GS_OK ? residues : 0);
    if (j->rank == 0) {
        if (st == GS_OK)
            print_progress(j, all, gs_now());
        fprintf(stderr, "\n");
    }
}

gs_status gs_job_scan_pass(gs_job *j, const gs_engine *engine, int use_gpu, int main,
                           gs_scan_res *res, double *t_send, gs_error *err)
{
    const gs_mode *m = j->mode;
    gs_scan_cfg cfg = {.ks = &j->ks, .engine = engine, .use_gpu = use_gpu,
                       .gpu_device = j->gpu_device, .threads = j->threads,
                       .want_hits = j->o->report_hits || j->o->match != GS_MATCH_EXACT ||
                                    m->needs_hits || j->o->tally,
                       .tally_runs = gs_job_tally_from_runs(j),
                       .tally_files = gs_job_tally_files(j),
                       .want_seq = main && j->o->with_seq,
                       .block = j->block, .overlap = j->overlap, .tune = &j->o->tune,
                       .spill = main ? j->spill : j->ref_spill,
                       .hit_budget = (size_t)(main ? j->max_memory : j->ref_budget)};
    *res = (gs_scan_res){0};
    const int show = progress_begin(j, &cfg);
    gs_pass p = {.main = main, .want_hits = cfg.want_hits};
    gs_status st = m->open(j, &p, err);
    if (st == GS_OK)
        st = gs_scan_run(&cfg, p.src, p.n_src, res, err);
    st = m->close(j, &p, st, err);
    if (st == GS_OK && m->after_scan)
        st = m->after_scan(j, res, err);
    j->bytes_read += p.bytes_read;
    *t_send += p.t_send;
    if (show)
        progress_end(j, st, res->residues);
    return st;
}

/* ---- phase 4: counts and hits ------------------------------------------ */

/* Approximate hits are gathered in every mode and counted on rank 0 from
 * what is reported (after --best-per-site; as the gather merges them once
 * any rank spilled); exact ones where the mode or the output needs them on
 * rank 0 (gs_policy_gather). --tally counts what each rank then holds; hits
 * kept only for it go as soon as it is made. */
static gs_status finish_hits(gs_job *j, gs_scan_res *res, uint64_t *counts, gs_error *err)
{
    gs_hits *hits = &res->hits;
    const gs_scan_opts *o = j->o;
    const int approx = o->match != GS_MATCH_EXACT;
    const int gather = gs_policy_gather(approx, o->report_hits, j->mode->gathers_hits,
                                        o->out_format != GS_OUT_H5, j->size);
    const int spilled = gather && gs_job_spilled(j);
    if (gather && (spilled ? gs_job_gather_spilled(j, hits, counts, err)
                           : gs_job_gather_hits(j, hits, err)) != GS_OK)
        return err->code;
    if (approx && !spilled && j->rank == 0 &&
        (!o->best_per_site || gs_hits_best_per_site(hits, j->ps.n, err) == GS_OK)) {
        size_t n_counts = (size_t)j->ps.n * (size_t)j->ks.n_strands;
        memset(counts, 0, n_counts * sizeof *counts);
        gs_hits_count(hits, j->ks.n_strands, n_counts, counts, j->threads);
    }
    if (approx && gs_mpi_agree(j->comm, err) != GS_OK)
        return err->code;
    gs_hits products = {0};
    if (o->pcr && gs_job_pcr(j, hits, &products, err) != GS_OK)
        return err->code;
    gs_status st = o->tally ? gs_job_tally(j, o->pcr ? &products : hits, &res->tally, err) : GS_OK;
    gs_hits_free(&products);
    if (st != GS_OK)
        return err->code;
    if (!o->report_hits)
        gs_hits_free(hits);
    return GS_OK;
}

/* ---- the job ------------------------------------------------------------ */

/* Rank 0: what the run found, for the summary line. */
static void summarize(const gs_job *j, const uint64_t *counts, gs_job_summary *sum)
{
    const gs_layout *l = j->mode->layout(j);
    size_t n = (size_t)j->ps.n * (size_t)j->ks.n_strands;
    sum->n_patterns = j->ps.n;
    sum->n_ranks = j->size;
    for (size_t i = 0; i < n; i++)
        sum->total_hits += counts[i];
    sum->residues = l ? gs_layout_scan(l, j->threads, 0).residues : 0;
    sum->n_records = l ? l->n_rec : 0;
}

/* --debug time: when rank 0 reached a step of the job (docs/performance.md) */
static void mark(const gs_job *j, const char *step)
{
    if (j->rank == 0 && (j->o->tune.debug & GS_DEBUG_TIME))
        fprintf(stderr, "gscan: rank 0: %s at %.3f s since exec\n", step, gs_process_age());
}

static void job_free(gs_job *j)
{
    gs_patset_free(&j->ps);
    gs_keyset_free(&j->ks);
    gs_job_tally_free(j);
    gs_amplicons_free(&j->amp);
    gs_spill_free(j->spill);
    gs_spill_free(j->ref_spill);
    if (j->mode)
        j->mode->free(j);
}

gs_status gs_scan_job(const gs_scan_opts *o, MPI_Comm comm, gs_job_summary *sum, gs_error *err)
{
    gs_job j = {.o = o, .comm = comm, .readers = 1};
    gs_dup_check dups = {0};
    gs_scan_res res = {0};
    uint64_t *counts = NULL;
    memset(sum, 0, sizeof *sum);
    GS_MPI_CHECK(MPI_Comm_rank(comm, &j.rank));
    GS_MPI_CHECK(MPI_Comm_size(comm, &j.size));
    double t_start = gs_now(), t_send = 0;
    j.t[GS_T_INIT] = gs_process_age();

    setup(&j, err);
    if (gs_mpi_agree(comm, err) != GS_OK)
        goto fail;
    j.t[GS_T_SETUP] = gs_now() - t_start;
    if (make_plan(&j, err) == GS_OK) /* a rank whose plan failed still takes part in the agreement */
        gs_job_spill_begin(&j, err);
    if (gs_mpi_agree(comm, err) != GS_OK)
        goto fail;
    j.t[GS_T_PLAN] = gs_now() - t_start - j.t[GS_T_SETUP];

    /* beside the scan on a quarter of the threads; after it, beside the
     * reduction on all of them */
    if (j.rank == 0 && j.mode->names == GS_NAMES_BESIDE)
        gs_job_dups_start(&dups, j.mode->layout(&j), (j.threads + 3) / 4);
    if (gs_job_scan_pass(&j, j.engine, j.use_gpu, 1, &res, &t_send, err) == GS_OK &&
        j.rank == 0 && j.mode->names == GS_NAMES_AFTER) /* the layout is whole */
        gs_job_dups_start(&dups, j.mode->layout(&j), j.threads);
    mark(&j, "scan pass done");
    if (gs_mpi_agree(comm, err) != GS_OK)
        goto fail;
    j.t[GS_T_READ] = res.t_read;
    j.t[GS_T_TRANSFER] = res.t_transfer + t_send;
    j.t[GS_T_SCAN] = res.t_scan;
    gs_job_spill_report(&j);
    sum->engine = j.engine->name;
    sum->device = j.use_gpu ? "gpu" : "cpu";
    sum->t_main = res.t_scan;

    double t0 = gs_now();
    gs_job_reduce_counts(&j, &res, &counts, err);
    if (gs_mpi_agree(comm, err) != GS_OK)
        goto fail;
    if (o->verify && gs_job_verify(&j, &res, counts, sum, err) != GS_OK)
        goto fail;
    if (finish_hits(&j, &res, counts, err) != GS_OK ||
        (o->with_seq && gs_job_gather_seq(&j, &res.seq, err) != GS_OK))
        goto fail;
    j.seqcap = &res.seq;
    j.t[GS_T_REDUCE] = gs_now() - t0;
    mark(&j, "reduced");
    sum->bytes_read = j.bytes_read;
    sum->reading = j.mode->name;

    /* the names' check, started after the scan, goes on beside the write */
    if (gs_job_hit_stream(&j, &res.hits, err) == GS_OK)
        gs_job_write(&j, counts, &res.hits, t_start, err);
    mark(&j, "written");
    if (j.rank == 0 && j.mode->names != GS_NAMES_NONE)
        gs_job_dups_warn(&dups, j.mode->layout(&j), o->corpus);
    mark(&j, "names checked");
    if (gs_mpi_agree(comm, err) == GS_OK && j.rank == 0)
        summarize(&j, counts, sum);
    sum->n_hits = j.n_out_hits;
    sum->n_products = j.amp.n;
    sum->t_total = j.t[GS_T_INIT] + gs_now() - t_start;
fail:;
    const double t_done = gs_process_age();
    gs_job_dups_join(&dups);
    free(counts);
    gs_scan_res_free(&res);
    job_free(&j);
    if (j.rank == 0 && (o->tune.debug & GS_DEBUG_TIME)) /* the end of a run, docs/performance.md */
        fprintf(stderr, "gscan: rank 0: job done %.3f s since exec, its memory freed by %.3f s\n",
                t_done, gs_process_age());
    return err->code;
}
