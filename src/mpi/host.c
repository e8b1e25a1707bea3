/* host.c - each rank's share of its node (host.h). */
#include "host.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm/comm.h"
#include "gpu/gpu.h"
#include "policy.h"

int gs_cpulist_parse(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    while (*s && *s != '\n') {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s || a < 0)
            return -1;
        if (*end == '-') {
            s = end + 1;
            b = strtol(s, &end, 10);
            if (end == s || b < a)
                return -1;
        }
        for (long c = a; c <= b && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, set);
        s = end;
        if (*s == ',')
            s++;
        else if (*s && *s != '\n')
            return -1;
    }
    return 0;
}

/* The first line of a small sysfs file into buf: 0, or -1. */
static int read_line(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    int ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    return ok ? 0 : -1;
}

/* The NUMA node of a GPU (its PCI device's), -1 when unknown. */
static int gpu_numa_node(int device)
{
    char id[64], path[128], line[32];
    if (device < 0 || gs_gpu_bus_id(device, id, sizeof id) != 0)
        return -1;
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/numa_node", id);
    return read_line(path, line, sizeof line) == 0 ? atoi(line) : -1;
}

/* The CPUs of NUMA node n into *set: 0, or -1. */
static int node_cpus(int n, cpu_set_t *set)
{
    char path[96], line[4096];
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", n);
    return read_line(path, line, sizeof line) == 0 ? gs_cpulist_parse(line, set) : -1;
}

void gs_host_share_take(MPI_Comm comm, int device, int mode, int asked, gs_host_share *out)
{
    MPI_Comm node = gs_mpi_node_comm(comm);
    int local_size, gpu_node = gpu_numa_node(device);
    GS_MPI_CHECK(MPI_Comm_size(node, &local_size));
    cpu_set_t mine, all;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0) {
        CPU_ZERO(&mine);
        for (long c = 0, n = sysconf(_SC_NPROCESSORS_ONLN); c < n && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, &mine);
    }
    GS_MPI_CHECK(MPI_Allreduce(&mine, &all, (int)sizeof mine, MPI_BYTE, MPI_BOR, node));
    /* how many of the node's ranks have a GPU on each NUMA node (the last
     * slot: on a node of a larger id) */
    enum { MAXN = 64 };
    int here[MAXN + 1] = {0}, count[MAXN + 1];
    if (gpu_node >= 0)
        here[gpu_node < MAXN ? gpu_node : MAXN] = 1;
    GS_MPI_CHECK(MPI_Allreduce(here, count, MAXN + 1, MPI_INT, MPI_SUM, node));
    int sharing = gpu_node >= 0 ? count[gpu_node < MAXN ? gpu_node : MAXN] : 0, gpu_ranks = 0;
    for (int n = 0; n <= MAXN; n++)
        gpu_ranks += count[n];
    /* every NUMA node with cores for the job has a rank's GPU */
    cpu_set_t online, cpus; /* node ids: a cpulist too */
    char line[256];
    int covered = count[MAXN] == 0;
    if (read_line("/sys/devices/system/node/online", line, sizeof line) != 0 ||
        gs_cpulist_parse(line, &online) != 0)
        CPU_ZERO(&online);
    for (int n = 0; covered && n < CPU_SETSIZE; n++) {
        if (!CPU_ISSET(n, &online) || node_cpus(n, &cpus) != 0)
            continue;
        CPU_AND(&cpus, &cpus, &all);
        covered = CPU_COUNT(&cpus) == 0 || (n < MAXN && count[n] > 0);
    }
    GS_MPI_CHECK(MPI_Comm_free(&node));
    cpu_set_t near;
    long near_cores = 0;
    if (gpu_node >= 0 && node_cpus(gpu_node, &near) == 0) {
        CPU_AND(&near, &near, &all);
        near_cores = CPU_COUNT(&near);
    }
    out->numa_node = -1;
    out->cores = CPU_COUNT(&all) / (local_size > 0 ? local_size : 1);
    if (gs_policy_numa_bind(mode, gpu_node, local_size, gpu_ranks, near_cores, sharing, covered) &&
        sched_setaffinity(0, sizeof near, &near) == 0) {
        out->numa_node = gpu_node;
        out->cores = near_cores / sharing;
    }
    if (out->cores < 1)
        out->cores = 1;
    out->threads = gs_policy_threads(asked, out->cores, 1);
}

/* Entries of directory dir named prefix and then a digit (an empty prefix:
 * every entry not starting with '.'); -1 when dir cannot be read. */
static int count_entries(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int n = 0;
    size_t len = strlen(prefix);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (len ? strncmp(e->d_name, prefix, len) == 0 && e->d_name[len] >= '0' &&
                      e->d_name[len] <= '9'
                : e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

int gs_host_gpu_view(int local_rank, int mode)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    int n_node = 0;
    if (visible == NULL) { /* the device files a container exposes, as the driver lists them */
        int dev = count_entries("/dev", "nvidia");
        int listed = count_entries("/proc/driver/nvidia/gpus", "");
        n_node = dev == listed ? dev : 0;
    }
    char keep[256];
    int n = gs_policy_gpu_view(mode, visible, n_node, local_rank, keep, sizeof keep);
    return n > 0 && setenv("CUDA_VISIBLE_DEVICES", keep, 1) == 0 ? n : 0;
}
