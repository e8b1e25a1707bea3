/* info.h - the summary "gscan info" prints of a result file. */
#ifndef GS_INFO_H
#define GS_INFO_H

#include <stdio.h>

#include "core/gs_error.h"
#include "io/results/h5read.h"

/* The run (its attributes), the files, records and patterns with their
 * totals, the patterns with the most hits, and the slowest rank of each
 * timed phase, as text on out. */
gs_status gs_info_result(gs_h5_file *f, FILE *out, gs_error *err);

#endif
