/* memory.h - what limits this node's memory, read from the system once
 * (memory.c): the default of --max-memory is computed from it below
 * (gs_policy_max_memory). */
#ifndef GS_CLI_MEMORY_H
#define GS_CLI_MEMORY_H

#include "mpi/policy.h"

/* Physical memory (sysconf), the cgroup limit of this process (v2
 * memory.max, v1 memory.limit_in_bytes; the lowest on its cgroup's path;
 * "max" or v1's huge "unlimited" is none) and RLIMIT_AS; 0 for each that
 * is unknown or unlimited; under RLIMIT_AS, the address space mapped now.
 * Read once MPI has started (its reservations count). */
void gs_memory_limits_read(gs_memory_limits *l);

#endif
