/* gs_error.c - located error messages and checked allocation. */
#define _POSIX_C_SOURCE 200809L
#include "gs_error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

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

gs_status gs_fail_open(gs_error *err, const char *what, const char *path)
{
    const int e = errno;
    struct rlimit r;
    switch (e) {
    case ENOENT: case ENOTDIR: case EACCES: case EPERM: case EISDIR: case ENAMETOOLONG:
    case ELOOP: case ENXIO:
        return gs_fail(err, GS_EINPUT, "cannot open %s: %s (%s)", what, strerror(e), path);
    case EMFILE:
        if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
            return gs_fail(err, GS_ESYS,
                           "cannot open %s: %s; the open-file limit (ulimit -n) is %llu (%s)",
                           what, strerror(e), (unsigned long long)r.rlim_cur, path);
        break;
    default:
        break;
    }
    return gs_fail(err, GS_ESYS, "cannot open %s: %s (%s)", what, strerror(e), path);
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

void gs_stderr_drain(void)
{
    const struct timespec tick = {0, 10 * 1000 * 1000}, pass_on = {0, 20 * 1000 * 1000};
    int unread = 0;
    fflush(stderr);
    for (int i = 0; i < 100 && ioctl(STDERR_FILENO, FIONREAD, &unread) == 0 && unread > 0; i++)
        nanosleep(&tick, NULL);
    nanosleep(&pass_on, NULL); /* and passed it on */
}
