/* gs_patset.c - release a pattern set. */
#include <stdlib.h>
#include <string.h>

#include "gs_patset.h"

void gs_patset_free(gs_patset *ps)
{
    for (uint32_t i = 0; i < ps->n; i++) {
        free(ps->v[i].name);
        free(ps->v[i].text);
        free(ps->v[i].bytes);
    }
    free(ps->v);
    free(ps->path);
    memset(ps, 0, sizeof *ps);
}
