/* gs_copy.c - memcpy of large buffers on several threads (gs_copy.h).
 *
 * Threads are started per call: a call moves megabytes (a GPU batch is a
 * block of 16 MiB or more), so the tens of microseconds a thread costs are
 * small beside the copy, and no pool outlives the call.
 */
#define _POSIX_C_SOURCE 200809L
#include "gs_copy.h"

#include <pthread.h>
#include <string.h>

enum { MAX_THREADS = 16 };

typedef struct piece {
    char *dst;
    const char *src;
    size_t n;
} piece;

static void *copy_piece(void *arg)
{
    piece *p = arg;
    memcpy(p->dst, p->src, p->n);
    return NULL;
}

void gs_copy(void *dst, const void *src, size_t n, int threads)
{
    size_t most = n / GS_COPY_SLICE;
    int t = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    if ((size_t)t > most)
        t = most ? (int)most : 1;
    if (t == 1) {
        memcpy(dst, src, n);
        return;
    }
    /* slices of whole cache lines; the caller copies the first */
    size_t step = ((n + (size_t)t - 1) / (size_t)t + 63) & ~(size_t)63;
    piece p[MAX_THREADS];
    pthread_t id[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int i = 0; i < t; i++) {
        size_t at = (size_t)i * step;
        p[i].dst = (char *)dst + at;
        p[i].src = (const char *)src + at;
        p[i].n = at >= n ? 0 : n - at < step ? n - at : step;
    }
    for (int i = 1; i < t; i++)
        started[i] = p[i].n && pthread_create(&id[i], NULL, copy_piece, &p[i]) == 0;
    copy_piece(&p[0]);
    for (int i = 1; i < t; i++)
        if (started[i])
            pthread_join(id[i], NULL);
        else
            copy_piece(&p[i]);
}
