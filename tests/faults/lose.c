/* lose.c - an input lost on one node, or a node out of file descriptors:
 * loaded with LD_PRELOAD by tests/faults/inputs.sh. In the rank whose
 * PMI_RANK is GS_LOSE_RANK (0 for gscan alone), open() of a path containing
 * GS_LOSE_FILE fails with errno GS_LOSE_ERRNO (default ENOENT: a node's
 * mount of a shared file system lost the file while the other nodes read
 * it; EMFILE: the open-file limit reached, at the same open every run). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

typedef int (*open_fn)(const char *, int, ...);

int open(const char *path, int flags, ...)
{
    static open_fn real;
    if (real == NULL)
        real = (open_fn)dlsym(RTLD_NEXT, "open");
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    const char *lose = getenv("GS_LOSE_FILE"), *rank = getenv("GS_LOSE_RANK"),
               *me = getenv("PMI_RANK"), *code = getenv("GS_LOSE_ERRNO");
    if (lose && rank && strcmp(rank, me ? me : "0") == 0 && strstr(path, lose) != NULL) {
        errno = code ? atoi(code) : ENOENT;
        return -1;
    }
    return real(path, flags, mode);
}
