/* gs_parallel.c - the threading kit (gs_parallel.h). */
#define _POSIX_C_SOURCE 200809L
#include "gs_parallel.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

int gs_parallel_threads(int threads, size_t tasks)
{
    if (threads > GS_PARALLEL_MAX)
        threads = GS_PARALLEL_MAX;
    if ((size_t)threads > tasks)
        threads = (int)tasks;
    return threads < 1 ? 1 : threads;
}

void gs_run_parallel(void *(*fn)(void *), void *args, size_t size, int n)
{
    pthread_t tid[GS_PARALLEL_MAX];
    int made[GS_PARALLEL_MAX] = {0};
    char *arg = args;
    for (int t = 1; t < n && t < GS_PARALLEL_MAX; t++)
        made[t] = pthread_create(&tid[t], NULL, fn, arg + (size_t)t * size) == 0;
    fn(arg);
    for (int t = 1; t < n; t++) {
        if (t < GS_PARALLEL_MAX && made[t])
            pthread_join(tid[t], NULL);
        else
            fn(arg + (size_t)t * size); /* no thread: its share runs here */
    }
}

typedef struct items_share {
    void *(*fn)(void *);
    char *items;
    size_t size, n;
    int t, nt;
} items_share;

static void *items_main(void *arg)
{
    const items_share *w = arg;
    for (size_t i = (size_t)w->t; i < w->n; i += (size_t)w->nt)
        w->fn(w->items + i * w->size);
    return NULL;
}

void gs_run_items(void *(*fn)(void *), void *items, size_t size, size_t n, int threads)
{
    items_share w[GS_PARALLEL_MAX];
    const int nt = gs_parallel_threads(threads, n);
    for (int t = 0; t < nt; t++)
        w[t] = (items_share){fn, items, size, n, t, nt};
    gs_run_parallel(items_main, w, sizeof *w, nt);
}

gs_status gs_task_spawn(gs_task *t, void *(*fn)(void *), void *arg)
{
    const int rc = pthread_create(&t->tid, NULL, fn, arg);
    t->running = rc == 0;
    if (rc != 0)
        errno = rc;
    return t->running ? GS_OK : GS_ESYS;
}

gs_status gs_fail_spawn(gs_error *err, const char *what, const char *where)
{
    const int e = errno;
    char limit[96] = "", at[4200] = "";
    struct rlimit r;
    if (e == EAGAIN && getrlimit(RLIMIT_NPROC, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
        snprintf(limit, sizeof limit, "; the process limit (ulimit -u) is %llu",
                 (unsigned long long)r.rlim_cur);
    if (where)
        snprintf(at, sizeof at, " (%s)", where);
    return gs_fail(err, GS_ESYS, "cannot start %s: %s%s%s", what, strerror(e), limit, at);
}

int gs_task_start(gs_task *t, void *(*fn)(void *), void *arg)
{
    if (gs_task_spawn(t, fn, arg) != GS_OK)
        fn(arg);
    return t->running;
}

void gs_task_join(gs_task *t)
{
    if (t->running)
        pthread_join(t->tid, NULL);
    t->running = 0;
}

void gs_bucket_starts(uint64_t *c, int threads, size_t nb, uint64_t *start)
{
    uint64_t at = 0;
    for (size_t b = 0; b < nb; b++) {
        start[b] = at;
        for (int t = 0; t < threads; t++) {
            uint64_t n = c[(size_t)t * nb + b];
            c[(size_t)t * nb + b] = at;
            at += n;
        }
    }
    start[nb] = at;
}
