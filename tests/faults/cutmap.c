/* cutmap.c - a file cut under its map: loaded with LD_PRELOAD by
 * tests/faults/inputs.sh. When a process maps the file named by
 * GS_CUT_FILE (an absolute path), the file is cut to GS_CUT_SIZE bytes
 * right after the map is made, so every page past the cut faults when it
 * is read, as when a user truncates or rewrites an input under a running
 * job. Deterministic where waiting for the map to show in /proc/PID/maps
 * was not: a plain FASTA's map lasts 0.05 s (its index pass), which a
 * loaded machine polling every few tens of milliseconds missed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static mmap_fn real;
    if (real == NULL)
        real = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
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
            perror("cutmap: truncate");
    }
    return m;
}
