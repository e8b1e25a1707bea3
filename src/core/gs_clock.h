/* gs_clock.h - the clocks every stage times itself with.
 *
 * A whole gscan process is what users time, so the job reports the seconds
 * before its first phase too (exec, dynamic loading, MPI start-up): the
 * kernel records when a process started, and gs_process_age reads it.
 */
#ifndef GS_CLOCK_H
#define GS_CLOCK_H

/* Wall-clock seconds (monotonic). */
double gs_now(void);

/* Seconds since this process started (exec), to the kernel's clock tick
 * (10 ms on most systems); 0 where /proc cannot tell. */
double gs_process_age(void);

#endif
