/* gs_clock.c - monotonic time and the age of the process (see gs_clock.h).
 *
 * The age comes from /proc/self/stat's start time (clock ticks since boot)
 * against CLOCK_BOOTTIME, the clock that start time is kept in, so the
 * seconds before main() (exec, the dynamic loader, static constructors of
 * the MPI and CUDA libraries) are counted too.
 */
#define _GNU_SOURCE
#include "gs_clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double gs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double gs_process_age(void)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    if (f == NULL)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    /* field 2 (the command name) may hold spaces and ')': fields after it
     * are counted from its last ')'; start time is field 22 */
    char *p = strrchr(buf, ')');
    unsigned long long start = 0;
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    long hz = sysconf(_SC_CLK_TCK);
    struct timespec ts;
    if (p == NULL || sscanf(p + 1, "%llu", &start) != 1 || hz <= 0 ||
        clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
        return 0;
    double age = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - (double)start / (double)hz;
    return age > 0 ? age : 0;
}
