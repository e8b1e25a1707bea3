/* inject.c - faults that a cluster delivers to one process, loaded with
 * LD_PRELOAD by tests/faults/inputs.sh and cluster.sh. Each is off unless
 * its variables are set, so one library serves every case:
 *
 *   a file cut under its map   When the process maps the file named by
 *     GS_CUT_FILE (an absolute path), the file is cut to GS_CUT_SIZE bytes
 *     right after the map is made, so every page past the cut faults when
 *     it is read, as when a user truncates or rewrites an input under a
 *     running job. Deterministic where waiting for the map to show in
 *     /proc/PID/maps was not: a plain FASTA's map lasts 0.05 s (its index
 *     pass), which a loaded machine polling every few tens of ms missed.
 *     MPICH's UCX hooks mmap past any preload: set
 *     UCX_MEM_MMAP_HOOK_MODE=none.
 *
 *   an input lost on one node, or no file descriptor left   In the rank
 *     whose PMI_RANK is GS_LOSE_RANK (0 for gscan alone), open() of a path
 *     containing GS_LOSE_FILE fails with errno GS_LOSE_ERRNO (default
 *     ENOENT: a node's mount of a shared file system lost the file while
 *     the other nodes read it; EMFILE: the open-file limit reached, at the
 *     same open every run).
 *
 *   a file system mounted without locks   With GS_NO_FLOCK set, every
 *     flock() fails with ENOLCK, as NFS without lockd, or Lustre and GPFS
 *     set up without flock, give it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

/* the next definition of NAME past this library */
static void *next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (f == NULL) {
        fprintf(stderr, "inject: no %s past the preload\n", name);
        abort();
    }
    return f;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static void *(*real)(void *, size_t, int, int, int, off_t);
    if (real == NULL)
        real = (void *(*)(void *, size_t, int, int, int, off_t))next("mmap");
    void *m = real(addr, len, prot, flags, fd, off);
    const char *want = getenv("GS_CUT_FILE"), *size = getenv("GS_CUT_SIZE");
    if (m == MAP_FAILED || fd < 0 || want == NULL || size == NULL)
        return m;
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, path, sizeof path - 1);
    if (n > 0) {
        path[n] = 0;
        if (strcmp(path, want) == 0 && truncate(want, (off_t)strtoll(size, NULL, 10)) != 0)
            perror("inject: truncate");
    }
    return m;
}

int open(const char *path, int flags, ...)
{
    static int (*real)(const char *, int, ...);
    if (real == NULL)
        real = (int (*)(const char *, int, ...))next("open");
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

int flock(int fd, int op)
{
    static int (*real)(int, int);
    if (real == NULL)
        real = (int (*)(int, int))next("flock");
    if (getenv("GS_NO_FLOCK") != NULL) {
        errno = ENOLCK;
        return -1;
    }
    return real(fd, op);
}
