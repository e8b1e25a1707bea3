/* signals.h - how gscan ends on a signal (signals.c). */
#ifndef GS_SIGNALS_H
#define GS_SIGNALS_H

/* Ignore SIGXFSZ, and make SIGINT, SIGTERM and SIGHUP remove the temporary
 * files being written (replace_file.h) before they end the process with the
 * signal's own status. A signal ignored when gscan started stays ignored.
 * Call first thing in main, and again after MPI_Init (an MPI that loads
 * UCX there lets it take SIGHUP); calling it again changes nothing else. */
void gs_signals_install(void);

#endif
