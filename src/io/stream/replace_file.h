/* replace_file.h - write a file under a temporary name and rename it into
 * place only when every byte reached the disk, so a reader never sees a
 * half-written index (the HDF5 result file follows the same rule in
 * h5out.c, through MPI-IO); and decide whether a path may be replaced at all.
 */
#ifndef GS_REPLACE_FILE_H
#define GS_REPLACE_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "core/gs_error.h"

typedef struct gs_replace_file {
    FILE *f;          /* write here */
    char *tmp;        /* gs_tmp_name(path) */
    const char *path; /* the final name */
} gs_replace_file;

/* May path be replaced by an output? Only a regular file or a name that does
 * not exist yet: never a symbolic link (it is not followed, and replacing it
 * silently would surprise), a directory, a character or block device (such
 * as /dev/null or the /dev/stdout link), a FIFO or a socket, and never one
 * of the n_inputs files of the run (compared by device and inode, so another
 * path or a hard link to an input is caught too; inputs that do not exist
 * are skipped). GS_EUSAGE naming the path and, for an input, which one. */
gs_status gs_out_check(const char *path, const char *const *inputs, size_t n_inputs,
                       gs_error *err);

/* The temporary name of an output, the one rule of every file gscan writes
 * (this file's and the HDF5 result's): "<path>.tmp.<pid>", in path's
 * directory. When that name would pass NAME_MAX (a valid output name of 247
 * bytes or more), path's last component is cut so that it fits and a count
 * of such names in this process is added, "<cut>.tmp.<pid>.<n>", so two cut
 * names never meet. Allocated; NULL and GS_ESYS when out of memory. */
char *gs_tmp_name(const char *path, gs_error *err);

/* The temporary files being written, removed by gs_tmp_remove_all when a
 * signal ends the run (src/cli/signals.c). Register a name before the file
 * is created, forget it once the file was renamed or removed; any thread.
 * A name that cannot be held (PATH_MAX or longer, or GS_TMP_MAX names at
 * once) is not registered: a signal then leaves that file behind. */
enum { GS_TMP_MAX = 16 };
void gs_tmp_register(const char *tmp);
void gs_tmp_forget(const char *tmp);
/* Unlink every registered name: async-signal-safe (unlink only). */
void gs_tmp_remove_all(void);

/* Open gs_tmp_name(path) for writing (created afresh, never through a link;
 * GS_ESYS naming it on failure), after gs_out_check(path) without inputs. */
gs_status gs_replace_open(gs_replace_file *r, const char *path, const char *what, gs_error *err);
/* Flush, fsync, close and rename (after checking the target once more); on
 * any failure remove the temporary file and report the error naming the
 * path. Always releases r. */
gs_status gs_replace_commit(gs_replace_file *r, const char *what, gs_error *err);
/* Give up: close and remove the temporary file; releases r. */
void gs_replace_abort(gs_replace_file *r);

#endif
