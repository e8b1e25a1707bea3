/* gs_error.h - status codes and located error messages shared by every stage.
 *
 * Library code never prints or exits: it fills a gs_error and returns its code.
 * Only the command layer (src/cli) prints "gscan: error: <what> (<where>)" and
 * chooses the exit status, so the MPI layer can end every rank exactly once.
 *
 * One convention for success: a function that can fail returns gs_status
 * (GS_OK or the code gs_fail recorded in err). Its results go through out
 * parameters. An iterator fills the next item and sets *more:
 *     gs_status next(..., item *out, int *more, gs_error *err);
 * GS_OK with *more = 1: *out holds an item; GS_OK with *more = 0: the end;
 * any other code: an error (err set, *more = 0). Loops read
 *     while ((st = next(..., &more, err)) == GS_OK && more) { ... }
 * A few return gs_status and take no gs_error: steps that run on worker
 * threads (growing an array, decoding a chunk of an index), trial decodes
 * that fail by design (gs_dchunk_find), and steps whose caller alone knows
 * what the message names (an option, a dataset's group). Their caller
 * fills the error, naming what and where.
 * Functions that cannot fail return what they compute: truth values
 * (is_x, has_x), counts and lengths, qsort comparisons.
 */
#ifndef GS_ERROR_H
#define GS_ERROR_H

#include <stddef.h>

/* Exit statuses of contract §5; a function's return value is one of these. */
typedef enum gs_status {
    GS_OK = 0,      /* success */
    GS_EUSAGE = 1,  /* bad command line */
    GS_EINPUT = 2,  /* bad input: corpus, patterns, index, config */
    GS_ESYS = 3     /* the system failed: I/O, GPU, MPI, out of memory */
} gs_status;

typedef struct gs_error {
    gs_status code; /* GS_OK until the first gs_fail */
    char msg[1024]; /* "<what> (<where>)", no prefix, no newline */
} gs_error;

/* Record the first failure (later ones are ignored) and return its code.
 * fmt should read "<what> (<where>)", e.g. "invalid symbol 'Z' (patterns.txt:12)". */
gs_status gs_fail(gs_error *err, gs_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A file that could not be opened (open, fopen or stat just failed; errno
 * as they left it): "cannot open <what>: <why> (<path>)". The one rule for
 * whose fault it is: GS_EINPUT where the file is (missing, unreadable, not a
 * file: ENOENT, ENOTDIR, EACCES, EPERM, EISDIR, ENAMETOOLONG, ELOOP, ENXIO),
 * GS_ESYS where the system is (out of file descriptors or memory, an I/O
 * error); out of descriptors also names the open-file limit, as ulimit -n
 * sets it. */
gs_status gs_fail_open(gs_error *err, const char *what, const char *path);

/* Allocation that records GS_ESYS "out of memory (<what>)" on failure. */
void *gs_malloc(size_t n, gs_error *err, const char *what);
void *gs_calloc(size_t n, size_t size, gs_error *err, const char *what);
void *gs_realloc(void *p, size_t n, gs_error *err, const char *what);

/* Wait (at most a second) until whoever reads stderr's pipe, an MPI
 * launcher's proxy, has taken what was written to it. MPI_Abort has the
 * launcher end the job at once, and a message still in the pipe was then
 * lost (a run in fifty on a busy machine): gs_mpi_abort (comm/mpi_check.h)
 * waits here first. Not a pipe: nothing to wait for. */
void gs_stderr_drain(void);

#endif
