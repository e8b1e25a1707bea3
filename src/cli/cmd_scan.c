/* cmd_scan.c - "gscan scan": the options parsed before MPI_Init, then the
 * job on every rank, and what it reports. */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "comm/mpi_check.h"
#include "mpi/job.h"
#include "options.h"
#include "tune.h"

gs_status gs_cmd_scan_parse(gs_cli *c, gs_error *err)
{
    gs_status st = gs_scan_opts_parse(c->argc, c->argv, &c->scan, &c->help, err);
    c->tune = c->scan.tune;
    return st;
}

gs_status gs_cmd_scan_run(gs_cli *c, MPI_Comm comm, gs_error *err)
{
    const gs_scan_opts *o = &c->scan;
    int rank;
    GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    gs_job_summary sum;
    gs_status st = gs_scan_job(o, comm, &sum, err);
    if (o->verify && sum.verified && rank == 0)
        fprintf(stderr, "gscan: verify: %s on the %s (%.3f s) and %s on the cpu (%.3f s) agree "
                        "on every count and hit\n",
                sum.engine, sum.device, sum.t_main, sum.ref_engine, sum.t_ref);
    if (o->tune.debug & GS_DEBUG_IO)
        fprintf(stderr, "gscan: rank %d read %llu bytes (%s)\n", rank,
                (unsigned long long)sum.bytes_read, sum.reading ? sum.reading : "-");
    return st;
}
