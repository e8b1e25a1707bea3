/* gs_mapguard.c - SIGBUS on a mapped file turned into an error (gs_mapguard.h).
 *
 * The handler runs with SA_NODEFER and an empty mask, so a siglongjmp out of
 * it leaves the thread's signal mask as it was at the fault and sigsetjmp
 * need not save it (no system call per guard). The armed guards of a thread
 * are a stack in thread-local storage; the handler only reads it. */
#define _GNU_SOURCE
#include "gs_mapguard.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

static __thread gs_mapguard *top;
static struct sigaction before; /* the SIGBUS action replaced */
static pthread_mutex_t install_mu = PTHREAD_MUTEX_INITIALIZER;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    const unsigned char *a = si->si_addr;
    for (gs_mapguard *g = top; g; g = g->prev)
        if (a >= g->lo && a < g->hi) {
            top = g; /* guards armed inside g are gone with their frames */
            siglongjmp(g->env, 1);
        }
    /* not ours: hand it on. Restoring the action makes the faulting access
     * fault again under it, as if this handler had never been there. */
    if ((before.sa_flags & SA_SIGINFO) && before.sa_sigaction) {
        before.sa_sigaction(sig, si, ctx);
        return;
    }
    sigaction(SIGBUS, &before, NULL);
}

/* Install the handler unless it is there (a library may have put its own
 * in since the last guard). */
static void install(void)
{
    struct sigaction cur;
    if (sigaction(SIGBUS, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
        cur.sa_sigaction == on_sigbus)
        return;
    pthread_mutex_lock(&install_mu);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, NULL, &cur) == 0 &&
        !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigbus))
        sigaction(SIGBUS, &sa, &before);
    pthread_mutex_unlock(&install_mu);
}

void gs_mapguard_arm(gs_mapguard *g, const void *p, size_t n)
{
    install();
    g->lo = p;
    g->hi = g->lo + n;
    g->prev = top;
    top = g;
}

void gs_mapguard_disarm(gs_mapguard *g)
{
    top = g->prev;
}

gs_status gs_mapguard_fail(gs_error *err, const char *file)
{
    return gs_fail(err, GS_EINPUT,
                   "changed while being read: the file is shorter than when it was opened (%s)",
                   file);
}
