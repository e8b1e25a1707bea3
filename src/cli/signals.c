/* signals.c - how gscan ends on a signal: the temporary files of its outputs
 * removed, then the signal's default action, so the exit status is the
 * signal's (130 for SIGINT in a shell; mpiexec and Slurm report the signal).
 *
 * Why it is built this way:
 * - SIGXFSZ is ignored: past a file-size limit (`ulimit -f`, a batch
 *   system's) a write then fails with EFBIG and takes the path of every
 *   write error (exit 3, one message naming the file, the temporary file
 *   removed) instead of the signal killing the process without a word and
 *   leaving its temporary file.
 * - The handler of SIGINT, SIGTERM and SIGHUP only unlinks the registered
 *   names (async-signal-safe), restores the default action and raises the
 *   signal again; the outputs' writers register their temporary names
 *   before creating the files (replace_file.h, h5out.c), on every rank.
 * - UCX, MPICH's transport, takes SIGHUP for its debug handler when its
 *   library loads, before main: a hangup only raised UCX's log level and
 *   the run went on. UCX_DEBUG_SIGNO would have to be in the environment
 *   before the process starts, so instead UCX's own
 *   ucs_debug_disable_signal gives back the disposition it replaced; it is
 *   looked up at run time, so gscan builds and runs over any MPI.
 * - A signal that was ignored when gscan started (nohup, a background job
 *   of a shell without job control) stays ignored, as in other tools.
 */
#define _GNU_SOURCE
#include "signals.h"

#include <dlfcn.h>
#include <signal.h>
#include <string.h>

#include "core/gs_spill.h"
#include "io/stream/replace_file.h"

static void on_signal(int sig)
{
    gs_tmp_remove_all();
    gs_spill_remove_all();
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns (sa_mask blocks it until then) */
}

/* When sig's handler lives in UCX's libucs, give back the one it replaced. */
static void undo_ucx(int sig)
{
    struct sigaction now;
    Dl_info where;
    void (*disable)(int);
    if (sigaction(sig, NULL, &now) != 0 || now.sa_handler == SIG_DFL || now.sa_handler == SIG_IGN)
        return;
    if (dladdr((void *)now.sa_handler, &where) == 0 || where.dli_fname == NULL
        || strstr(where.dli_fname, "libucs") == NULL)
        return;
    *(void **)&disable = dlsym(RTLD_DEFAULT, "ucs_debug_disable_signal");
    if (disable)
        disable(sig);
}

void gs_signals_install(void)
{
    static const int ends[] = {SIGINT, SIGTERM, SIGHUP};
    signal(SIGXFSZ, SIG_IGN);
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
        struct sigaction was, sa;
        undo_ucx(ends[i]);
        if (sigaction(ends[i], NULL, &was) != 0
            || (!(was.sa_flags & SA_SIGINFO) && was.sa_handler == SIG_IGN))
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigfillset(&sa.sa_mask);
        sigaction(ends[i], &sa, NULL);
    }
}
