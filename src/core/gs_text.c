/* gs_text.c - a small text file read whole (gs_lines.h). */
#define _POSIX_C_SOURCE 200809L
#include "gs_lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_types.h"

gs_status gs_text_read(const char *path, const char *what, char **text, size_t *len,
                       gs_error *err)
{
    *text = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return gs_fail_open(err, what, path);
    size_t n = 0, cap = 0;
    char *s = NULL;
    gs_status st = GS_OK;
    for (size_t got = 1; got > 0; n += got) {
        if (gs_grow(&s, &cap, n + 4096, 1, 8192) != GS_OK) {
            st = gs_fail(err, GS_ESYS, "out of memory (%s %s)", what, path);
            break;
        }
        got = fread(s + n, 1, cap - n - 1, f);
    }
    if (st == GS_OK && ferror(f))
        st = gs_fail(err, GS_EINPUT, "cannot read %s: %s (%s)", what, strerror(errno), path);
    fclose(f);
    if (st != GS_OK) {
        free(s);
        return st;
    }
    s[n] = '\0';
    *text = s;
    *len = n;
    return GS_OK;
}
