/* replace_file.c - temporary name, fsync, rename (see replace_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "replace_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

gs_status gs_replace_open(gs_replace_file *r, const char *path, const char *what, gs_error *err)
{
    size_t n = strlen(path) + 32;
    *r = (gs_replace_file){.path = path};
    if ((r->tmp = gs_malloc(n, err, what)) == NULL)
        return GS_ESYS;
    snprintf(r->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    if ((r->f = fopen(r->tmp, "wb")) == NULL) {
        gs_fail(err, GS_ESYS, "cannot write %s: %s (%s)", what, strerror(errno), r->tmp);
        free(r->tmp);
        r->tmp = NULL;
        return GS_ESYS;
    }
    return GS_OK;
}

gs_status gs_replace_commit(gs_replace_file *r, const char *what, gs_error *err)
{
    gs_status st = GS_OK;
    if (ferror(r->f) || fflush(r->f) != 0 || fsync(fileno(r->f)) != 0)
        st = gs_fail(err, GS_ESYS, "cannot write %s: %s (%s)", what, strerror(errno), r->tmp);
    if (fclose(r->f) != 0 && st == GS_OK)
        st = gs_fail(err, GS_ESYS, "cannot write %s: %s (%s)", what, strerror(errno), r->tmp);
    if (st == GS_OK && rename(r->tmp, r->path) != 0)
        st = gs_fail(err, GS_ESYS, "cannot write %s: %s (%s)", what, strerror(errno), r->path);
    if (st != GS_OK)
        unlink(r->tmp);
    free(r->tmp);
    *r = (gs_replace_file){0};
    return st;
}
