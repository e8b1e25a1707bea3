/* gs_lines.h - the lines of a text read whole (a samples sheet, a pairs
 * file): each cut out in place, the CR of a CRLF ending dropped. */
#ifndef GS_LINES_H
#define GS_LINES_H

#include <stddef.h>
#include <string.h>

#include "gs_error.h"

/* The whole of the small text file path (a samples sheet, a pairs file),
 * NUL-terminated, in *text (the caller frees it), its bytes in *len (a NUL
 * inside makes strlen shorter). what names the file in errors: "cannot
 * open <what>" (gs_fail_open), "cannot read <what>" (GS_EINPUT), out of
 * memory (GS_ESYS). */
gs_status gs_text_read(const char *path, const char *what, char **text, size_t *len,
                       gs_error *err);

/* The line at *p, NUL-terminated in place, its length in *len; *p moves
 * past it. NULL at the end of the text. */
static inline char *gs_line_next(char **p, size_t *len)
{
    char *s = *p, *nl = strchr(s, '\n');
    if (*s == '\0')
        return NULL;
    *p = nl ? nl + 1 : s + strlen(s);
    if (nl)
        *nl = '\0';
    *len = strlen(s);
    if (*len && s[*len - 1] == '\r')
        s[--*len] = '\0';
    return s;
}

/* A line of spaces and tabs only, or a '#' comment. */
static inline int gs_line_skip(const char *s, size_t len)
{
    return strspn(s, " \t") == len || s[0] == '#';
}

#endif
