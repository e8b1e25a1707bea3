/* replace_file.h - write a file under a temporary name and rename it into
 * place only when every byte reached the disk, so a reader never sees a
 * half-written index (the HDF5 result file follows the same rule in
 * h5out.c, through MPI-IO). */
#ifndef GS_REPLACE_FILE_H
#define GS_REPLACE_FILE_H

#include <stdio.h>

#include "../core/gs_error.h"

typedef struct gs_replace_file {
    FILE *f;          /* write here */
    char *tmp;        /* "<path>.tmp.<pid>" */
    const char *path; /* the final name */
} gs_replace_file;

/* Open "<path>.tmp.<pid>" for writing (GS_ESYS naming it on failure). */
gs_status gs_replace_open(gs_replace_file *r, const char *path, const char *what, gs_error *err);
/* Flush, fsync, close and rename; on any failure remove the temporary file
 * and report GS_ESYS naming the path. Always releases r. */
gs_status gs_replace_commit(gs_replace_file *r, const char *what, gs_error *err);

#endif
