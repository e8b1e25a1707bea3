/* lz_index.c - the index in memory, whether built (lz_build.c) or read
 * (lz_file_read.c): releasing it. A read index's kernel chunks point into
 * the mapped file, so the map goes with it. */
#include "lz.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void gs_lz_free(gs_lz_index *ix)
{
    gs_layout_free(&ix->layout);
    free(ix->rec_off);
    free(ix->ph_start);
    free(ix->ph_src);
    free(ix->lit);
    free(ix->pc_rec);
    free(ix->pc_pos);
    free(ix->pc_koff);
    free(ix->kernel);
    for (size_t i = 0; ix->kchunks && i < ix->n_kchunks; i++) {
        free(ix->kchunks[i].own);
        free(ix->kchunks[i].runs);
    }
    free(ix->kchunks);
    if (ix->map && ix->map_is_mmap)
        munmap(ix->map, ix->map_len);
    else
        free(ix->map);
    free(ix->cp_start);
    free(ix->cp_target);
    free(ix->cp_tree);
    free(ix->path);
    free(ix->sc_own);
    memset(ix, 0, sizeof *ix);
}
