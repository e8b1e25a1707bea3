/* cmd_scan.c - "gscan scan": parse, run the job on every rank, report. */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "mpi/job.h"
#include "comm/mpi_check.h"
#include "options.h"

gs_status gs_cmd_scan(int argc, char **argv, MPI_Comm comm, gs_error *err)
{
    int rank, help = 0;
    GS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    gs_scan_opts o;
    gs_status st = gs_scan_opts_parse(argc, argv, &o, &help, err);
    if (help) {
        if (rank == 0)
            gs_scan_print_usage(stdout);
        gs_scan_opts_free(&o);
        return GS_OK;
    }
    if (st == GS_OK) {
        gs_job_summary sum;
        st = gs_scan_job(&o, comm, &sum, err);
        if (o.verify && sum.verified && rank == 0)
            fprintf(stderr, "gscan: verify: %s on the %s (%.3f s) and %s on the cpu (%.3f s) agree "
                            "on every count and hit\n",
                    sum.engine, sum.device, sum.t_main, sum.ref_engine, sum.t_ref);
        if (getenv("GS_DEBUG_IO"))
            fprintf(stderr, "gscan: rank %d read %llu bytes (%s)\n", rank,
                    (unsigned long long)sum.bytes_read, sum.reading ? sum.reading : "-");
    }
    gs_scan_opts_free(&o);
    return st;
}
