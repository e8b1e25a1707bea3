/* gs_parallel.h - the threading kit: a parallel-for over an array, and one
 * task running beside the caller.
 *
 * The readers, writers and checks that split their work into a few equal
 * shares all start threads the same way (gs_run_parallel); work that runs
 * beside the calling thread until it is joined (a check that overlaps a
 * scan, a device warm-up that overlaps start-up) is a gs_task. A stage that
 * must run beside the caller, such as the consumer of a queue the caller
 * fills, is a gs_task too, started with gs_task_spawn: it cannot fall back to
 * running first on the calling thread. No other part of gscan calls
 * pthread_create.
 */
#ifndef GS_PARALLEL_H
#define GS_PARALLEL_H

#include "gs_error.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* Run fn(args + t * size) for t in [0, n): t = 0 on the calling thread, the
 * others on threads of their own (on the calling thread when one cannot be
 * started, or beyond GS_PARALLEL_MAX); returns when all are done. */
enum { GS_PARALLEL_MAX = 256 };
void gs_run_parallel(void *(*fn)(void *), void *args, size_t size, int n);

/* fn(items + i * size) for every i in [0, n), on up to `threads` threads
 * (gs_parallel_threads), thread t taking items t, t + nt, ...: shares of
 * work more numerous than the threads. */
void gs_run_items(void *(*fn)(void *), void *items, size_t size, size_t n, int threads);

/* The threads to ask for: `threads`, at least 1, at most GS_PARALLEL_MAX
 * and at most `tasks` (work that splits into fewer shares). */
int gs_parallel_threads(int threads, size_t tasks);

/* The offsets of a parallel counting sort: the counts of (thread t, bucket
 * b) at c[t * nb + b] become where thread t's run of bucket b starts, the
 * buckets one after another and each bucket's runs in thread order (so the
 * items of a bucket keep their order when each thread's are in order);
 * start[b] is where bucket b starts, start[nb] the total. */
void gs_bucket_starts(uint64_t *c, int threads, size_t nb, uint64_t *start);

/* One function running beside the caller. gs_task_start returns 1 when it
 * runs on a thread of its own, 0 when no thread could be started: then fn
 * has already run on the calling thread, and gs_task_join only returns. */
typedef struct gs_task {
    pthread_t tid;
    int running;
} gs_task;
int gs_task_start(gs_task *t, void *(*fn)(void *), void *arg);
/* fn on a thread of its own, or GS_ESYS when none could be started (fn has
 * not run; gs_task_join then only returns; errno says why). No gs_error:
 * the caller names the thread, through gs_fail_spawn. */
gs_status gs_task_spawn(gs_task *t, void *(*fn)(void *), void *arg);
/* After gs_task_spawn (or gs_task_start) could not start a thread: GS_ESYS
 * "cannot start <what>: <why> (<where>)", where NULL leaving out the
 * parenthesis; out of processes also names the limit, as ulimit -u sets
 * it. */
gs_status gs_fail_spawn(gs_error *err, const char *what, const char *where);
void gs_task_join(gs_task *t);

#endif
