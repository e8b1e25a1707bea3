/* host.h - each rank's share of its node: the cores its threads run on,
 * and the one GPU its CUDA sees.
 *
 * The ranks of a node divide the cores the job may use there (the union
 * of their affinity masks: what mpiexec, Slurm's cgroup or taskset left
 * them), not the host's count, so a job given 8 cores of 64 starts 8
 * threads. With two or more GPU ranks on a node each rank keeps its
 * threads on its GPU's NUMA node (policy.h, gs_policy_numa_bind): the
 * pinned buffers its threads first touch are then on the socket whose
 * PCIe root the GPU hangs from, and the ranks' page-cache copies use their
 * own socket's memory instead of crossing each other's.
 */
#ifndef GS_HOST_H
#define GS_HOST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t */
#endif
#include <mpi.h>
#include <sched.h>

#include "core/gs_error.h"

typedef struct gs_host_share {
    int threads;   /* worker threads: -t, else the share's cores */
    long cores;    /* cores of the share */
    int numa_node; /* the NUMA node the rank's threads were bound to, or -1 */
} gs_host_share;

/* A sysfs cpulist ("0-15,32-47", or empty) into *set: 0, or -1 when it is
 * not one. */
int gs_cpulist_parse(const char *s, cpu_set_t *set);

/* Collective over comm: this rank's share, its GPU being device (-1: none),
 * host.numa being mode (policy.h), -t being asked (0: none). Binds the
 * calling thread (and so the threads it starts later) when the policy
 * says so; a node whose facts cannot be read is shared as if it had one
 * NUMA node. */
void gs_host_share_take(MPI_Comm comm, int device, int mode, int asked, gs_host_share *out);

/* Before CUDA starts (it reads CUDA_VISIBLE_DEVICES once): narrows this
 * process's CUDA_VISIBLE_DEVICES to the one GPU its node-local rank takes
 * (gs_policy_gpu_view; mode: host.visible), its value as it was, else the
 * node's GPUs as the driver lists them (/dev/nvidiaN, when
 * /proc/driver/nvidia/gpus lists as many). Returns the GPUs the process
 * would have seen, 0 when it left the view alone. */
int gs_host_gpu_view(int local_rank, int mode);

#endif
