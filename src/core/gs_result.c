/* gs_result.c - the names of the timed phases (/timing/<phase>). */
#include "gs_result.h"

const char *const gs_phase_names[GS_N_PHASES] = {"read", "transfer", "scan", "reduce", "write",
                                                 "init", "setup", "plan", "total"};
