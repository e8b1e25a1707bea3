/* job_check.c - what rank 0 refuses before any work is done (see
 * job_internal.h): checking early says what is wrong before a long scan,
 * not after it. */
#define _POSIX_C_SOURCE 200809L
#include "job_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/stream/replace_file.h"

/* Refuse an output that would replace something other than a regular
 * file, or an input of the run (a corpus file or its indexes, the pattern
 * file, the config, the --index file): the writers check again when they
 * rename. */
gs_status gs_job_check_output(const gs_scan_opts *o, gs_error *err)
{
    if (!strcmp(o->out, "-"))
        return GS_OK;
    size_t n = 0, len = 0;
    for (size_t f = 0; f < o->n_corpus; f++)
        len += 2 * (strlen(o->corpus[f]) + 5); /* FILE.fai and FILE.gzi */
    const char **in = gs_malloc((3 * o->n_corpus + 4) * sizeof *in, err, "inputs");
    char *names = gs_malloc(len + 1, err, "inputs"), *p = names;
    if (in == NULL || names == NULL) {
        free(in);
        free(names);
        return GS_ESYS;
    }
    for (size_t f = 0; f < o->n_corpus; f++) {
        in[n++] = o->corpus[f];
        for (int k = 0; k < 2; k++) {
            in[n++] = p;
            p += sprintf(p, "%s.%s", o->corpus[f], k ? "gzi" : "fai") + 1;
        }
    }
    in[n++] = o->patterns;
    in[n++] = o->config;
    in[n++] = o->index;
    in[n++] = o->pairs;
    gs_status st = gs_out_check(o->out, in, n, err);
    free(in);
    free(names);
    return st;
}
