/* cmd_scan.c - "gscan scan": the options parsed before MPI_Init, then the
 * job on every rank, and what it reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "memory.h"
#include "comm/mpi_check.h"
#include "mpi/job.h"
#include "options.h"
#include "tune.h"

gs_status gs_cmd_scan_parse(gs_cli *c, gs_error *err)
{
    gs_status st = gs_scan_opts_parse(c->argc, c->argv, &c->scan, &c->help, err);
    c->tune = c->scan.tune;
    if (st == GS_OK && !c->help && c->scan.out_format == GS_OUT_FASTA)
        return gs_fail(err, GS_EUSAGE, "FASTA output holds the products of gscan pcr: gscan scan "
                                       "writes h5, tsv, bed or cas");
    /* here, not in the parser: gscan pcr parses the same options and is
     * always in mismatch mode */
    if (st == GS_OK && !c->help && c->scan.exact3p && c->scan.match == GS_MATCH_EXACT)
        return gs_fail(err, GS_EUSAGE,
                       "--exact-3p needs --max-mismatches or --max-edits (gscan scan)");
    return st;
}

/* One line on stderr: what was written, what it holds, what ran. */
static void summary_line(const gs_scan_opts *o, const gs_job_summary *s)
{
    const char *what = o->out_format == GS_OUT_H5 ? "HDF5" : o->report_hits ? "hits" : "counts";
    fprintf(stderr,
            "gscan: wrote %s (%s): %llu hit%s of %u pattern%s in %llu record%s (%llu residues)%s; "
            "%s on the %s, %d rank%s, %.2f s\n",
            strcmp(o->out, "-") ? o->out : "standard output", what,
            (unsigned long long)s->total_hits, s->total_hits == 1 ? "" : "s", s->n_patterns,
            s->n_patterns == 1 ? "" : "s", (unsigned long long)s->n_records,
            s->n_records == 1 ? "" : "s", (unsigned long long)s->residues,
            o->report_hits ? "" : ", counts only", s->engine, s->device, s->n_ranks,
            s->n_ranks == 1 ? "" : "s", s->t_total);
}

gs_status gs_cmd_job(gs_cli *c, MPI_Comm comm, gs_job_summary *sum, int *rank, gs_error *err)
{
    gs_memory_limits_read(&c->scan.node_memory);
    GS_MPI_CHECK(MPI_Comm_rank(comm, rank));
    return gs_scan_job(&c->scan, comm, sum, err);
}

gs_status gs_cmd_scan_run(gs_cli *c, MPI_Comm comm, gs_error *err)
{
    const gs_scan_opts *o = &c->scan;
    int rank;
    gs_job_summary sum;
    gs_status st = gs_cmd_job(c, comm, &sum, &rank, err);
    if (o->verify && sum.verified && rank == 0)
        fprintf(stderr, "gscan: verify: %s on the %s (%.3f s) and %s on the cpu (%.3f s) agree "
                        "on every count and hit\n",
                sum.engine, sum.device, sum.t_main, sum.ref_engine, sum.t_ref);
    if (st == GS_OK && rank == 0 && !o->quiet)
        summary_line(o, &sum);
    if (o->tune.debug & GS_DEBUG_IO)
        fprintf(stderr, "gscan: rank %d read %llu bytes (%s)\n", rank,
                (unsigned long long)sum.bytes_read, sum.reading ? sum.reading : "-");
    return st;
}
