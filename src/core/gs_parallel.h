/* gs_parallel.h - one call that runs a function over an array on threads.
 *
 * The readers, writers and checks that split their work into a few equal
 * shares all start threads the same way; this is that one way.
 */
#ifndef GS_PARALLEL_H
#define GS_PARALLEL_H

#include <stddef.h>

/* Run fn(args + t * size) for t in [0, n): t = 0 on the calling thread, the
 * others on threads of their own (on the calling thread when one cannot be
 * started, or beyond GS_PARALLEL_MAX); returns when all are done. */
enum { GS_PARALLEL_MAX = 256 };
void gs_run_parallel(void *(*fn)(void *), void *args, size_t size, int n);

/* The threads to ask for: `threads`, at least 1, at most GS_PARALLEL_MAX
 * and at most `tasks` (work that splits into fewer shares). */
int gs_parallel_threads(int threads, size_t tasks);

#endif
