/* mpi_check.h - GS_MPI_CHECK: every MPI call of gscan goes through it.
 *
 * gscan sets MPI_ERRORS_RETURN on MPI_COMM_WORLD (main.c; communicators made
 * from it inherit it), so a failing call returns a code instead of ending
 * the process inside the library. A failed MPI call cannot be agreed on
 * with the other ranks (they may be waiting in that very collective, or be
 * gone), so the one answer is IOR's: print the call, its place and
 * MPI_Error_string once, from the rank that saw it, and end the whole job
 * with MPI_Abort (exit 3, contract §5). Header-only, so src/io (the HDF5
 * writer) can use it without linking the MPI stage.
 */
#ifndef GS_MPI_CHECK_H
#define GS_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#include "core/gs_error.h"

/* MPI_Abort once what this rank printed has left it (gs_stderr_drain): the
 * one way gscan ends a job from one rank. */
static inline void gs_mpi_abort(MPI_Comm comm, int code)
{
    gs_stderr_drain();
    MPI_Abort(comm, code);
}

static inline void gs_mpi_die(int rc, const char *call, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "unknown MPI error";
    int len = 0, rank = -1;
    if (MPI_Error_string(rc, msg, &len) == MPI_SUCCESS && len >= 0 && len < MPI_MAX_ERROR_STRING)
        msg[len] = '\0';
    for (char *p = msg; *p; p++) /* one line: MPICH's strings hold a stack */
        if (*p == '\n')
            *p = ' ';
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "gscan: error: MPI call failed on rank %d: %s: %s (%s:%d)\n", rank, call, msg,
            file, line);
    gs_mpi_abort(MPI_COMM_WORLD, GS_ESYS);
    _exit(GS_ESYS); /* MPI_Abort should not return; if it does, still end */
}

#define GS_MPI_CHECK(call)                                                       \
    do {                                                                         \
        int rc_ = (call);                                                        \
        if (rc_ != MPI_SUCCESS)                                                  \
            gs_mpi_die(rc_, #call, __FILE__, __LINE__);                          \
    } while (0)

#endif
