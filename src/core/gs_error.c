/* gs_error.c - located error messages and checked allocation. */
#include "gs_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

gs_status gs_fail(gs_error *err, gs_status code, const char *fmt, ...)
{
    if (err == NULL || err->code != GS_OK)
        return err ? err->code : code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->code = code;
    return code;
}

void *gs_malloc(size_t n, gs_error *err, const char *what)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        gs_fail(err, GS_ESYS, "out of memory (%s, %zu bytes)", what, n);
    return p;
}

void *gs_calloc(size_t n, size_t size, gs_error *err, const char *what)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p == NULL)
        gs_fail(err, GS_ESYS, "out of memory (%s, %zu x %zu bytes)", what, n, size);
    return p;
}

void *gs_realloc(void *p, size_t n, gs_error *err, const char *what)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL)
        gs_fail(err, GS_ESYS, "out of memory (%s, %zu bytes)", what, n);
    return q;
}
