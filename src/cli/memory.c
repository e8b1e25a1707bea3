/* memory.c - the node's memory limits, from sysconf, /proc/self/cgroup with
 * /sys/fs/cgroup, and getrlimit (see memory.h).
 *
 * Slurm's --mem is a cgroup limit on the job's cgroup, and a step runs in a
 * cgroup below it, so every cgroup from the process's own up to the root
 * is read and the lowest limit kept. Inside a container the cgroup path of
 * /proc/self/cgroup may not exist under /sys/fs/cgroup (its root is the
 * container's): the root's files are read then.
 */
#define _GNU_SOURCE
#include "memory.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The number in file path; 0 when absent, "max" or past 2^60 (v1's
 * unlimited is 2^63 rounded down to a page). */
static uint64_t read_limit(const char *path)
{
    FILE *f = fopen(path, "r");
    char buf[64] = "";
    if (f == NULL)
        return 0;
    if (fgets(buf, sizeof buf, f) == NULL)
        buf[0] = 0;
    fclose(f);
    char *end;
    unsigned long long v = strtoull(buf, &end, 10);
    if (end == buf || v >= (1ULL << 60))
        return 0;
    return v;
}

static uint64_t least(uint64_t a, uint64_t b)
{
    return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

/* The lowest limit of file `name` in root/cg and every folder above it up
 * to root. */
static uint64_t along_path(const char *root, const char *cg, const char *name)
{
    char path[2 * PATH_MAX], dir[PATH_MAX];
    uint64_t low = 0;
    snprintf(dir, sizeof dir, "%s", cg);
    for (;;) {
        snprintf(path, sizeof path, "%s%s/%s", root, dir, name);
        low = least(low, read_limit(path));
        char *slash = strrchr(dir, '/');
        if (slash == NULL || dir[0] == 0)
            break;
        *slash = 0;
    }
    return low;
}

static uint64_t cgroup_limit(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[PATH_MAX + 64];
    uint64_t low = 0;
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (c2 == NULL)
            continue;
        *c2 = 0;
        const char *ctrl = c1 + 1, *cg = c2 + 1;
        if (!strcmp(line, "0") && ctrl[0] == 0) /* v2 */
            low = least(low, along_path("/sys/fs/cgroup", cg, "memory.max"));
        else if (strstr(ctrl, "memory"))
            low = least(low, along_path("/sys/fs/cgroup/memory", cg, "memory.limit_in_bytes"));
    }
    fclose(f);
    return low;
}

/* VmSize of /proc/self/status in bytes, 0 when unknown. */
static uint64_t mapped_now(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return (uint64_t)kb << 10;
}

void gs_memory_limits_read(gs_memory_limits *l)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    struct rlimit as;
    l->physical = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    l->cgroup = cgroup_limit();
    l->rlimit_as = getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY
                       ? (uint64_t)as.rlim_cur : 0;
    l->as_mapped = l->rlimit_as ? mapped_now() : 0;
}
