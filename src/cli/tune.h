/* tune.h - --tune KEY=VALUE and --debug WORDS: the knobs of core/gs_tune.h,
 * parsed once by the command line.
 *
 * One table holds every key (its name, the field it sets, its range and a
 * line of help), so the parser, `--tune help` and docs/usage.md read the same
 * list. Keys are namespaced by the layer they steer (io., lz., match., gpu.).
 */
#ifndef GS_CLI_TUNE_H
#define GS_CLI_TUNE_H

#include <stdio.h>

#include "core/gs_error.h"
#include "core/gs_tune.h"

/* --debug words that only src/cli acts on. They sit in the top bits of
 * gs_tune.debug, away from core/gs_tune.h's, which the stages read and
 * which count up from the lowest bit. */
enum {
    GS_DEBUG_IO = 1u << 30,        /* io: the bytes each rank read, and how */
    GS_DEBUG_NO_WARMUP = 1u << 31  /* no-warmup: no GPU context made at start-up */
};

/* Set one knob from "key=value" (a size takes K/M/G like --block-size).
 * An unknown key or a bad value is `bad` (GS_EUSAGE on the command line,
 * GS_EINPUT in a config file), naming the key and `where`. */
gs_status gs_tune_set(gs_tune *t, const char *kv, const char *where, gs_status bad,
                      gs_error *err);

/* Set --debug bits from comma-separated words (time, io, no-warmup). */
gs_status gs_debug_set(gs_tune *t, const char *words, const char *where, gs_status bad,
                       gs_error *err);

/* 1 for the value "help" (--tune help: list the keys instead of running). */
int gs_tune_wants_help(const char *v);

/* The keys, one a line, and the --debug words. */
void gs_tune_print_help(FILE *out);

/* Take --tune and --debug (and their --name=value forms) out of argv for a
 * command whose own parser does not know them, setting t; argv[0] is the
 * command, "--" ends the options. *help is set to 2 for --tune help. */
gs_status gs_tune_take(int *argc, char **argv, gs_tune *t, int *help, gs_error *err);

#endif
