/* options.h - the command line and --config files of gscan (contract §2).
 *
 * Every command parses into a plain struct here, so the commands themselves
 * never see argv. A --config file holds "key = value" lines whose keys are the
 * long option names; the command line overrides it.
 */
#ifndef GS_OPTIONS_H
#define GS_OPTIONS_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "core/gs_error.h"
#include "core/gs_types.h"
#include "mpi/job.h"

/* Parse "gscan scan ..." (argv[0] is "scan"), --tune and --debug included
 * (o->tune). GS_EUSAGE for the command line, GS_EINPUT for a bad config
 * file (path:line). *help is set to 1 for -h/--help, 2 for --tune help. */
gs_status gs_scan_opts_parse(int argc, char **argv, gs_scan_opts *o, int *help, gs_error *err);
void gs_scan_opts_free(gs_scan_opts *o);
extern const char gs_scan_usage[]; /* a format: gs_scan_print_usage fills it in */
/* The scan usage with the engines of the engine table and the --tune keys. */
void gs_scan_print_usage(FILE *out);

/* Largest K of --max-mismatches / --max-edits (the distance is a uint8 and
 * bit-sliced mismatch counters hold 4 bits). */
#define GS_MAX_DIST 15
/* Largest --exact-3p: longer than any key an engine filters (a larger N
 * makes every pattern exact, as the largest does). */
#define GS_MAX_EXACT3P 4096

/* Parse a size with an optional K/M/G suffix (powers of 1024): GS_OK, or
 * GS_EUSAGE when s is not one (err is not touched: the caller names the
 * option, and a config file's caller makes it GS_EINPUT). */
gs_status gs_parse_size(const char *s, uint64_t *v);

#endif
