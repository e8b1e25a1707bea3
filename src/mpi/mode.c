/* mode.c - the table of read modes and the choice among them (see mode.h).
 *
 * Rank 0 alone looks at the corpus (one reader of the shared file system,
 * not N) and sends the choice; an LZ77 index (--index) is given on every
 * rank's command line and needs no look.
 */
#include "mode.h"

#include "comm/comm.h"
#include "gpu/gpu.h"

static const gs_mode *const modes[GS_N_MODES] = {
    [GS_MODE_LOCAL] = &gs_mode_local,
    [GS_MODE_RANGES] = &gs_mode_ranges,
    [GS_MODE_STREAMED] = &gs_mode_streamed,
    [GS_MODE_LZ] = &gs_mode_lz,
};

gs_status gs_mode_choose(gs_job *j, gs_error *err)
{
    int by_ranges = 0, pick[2] = {(int)gs_policy_mode(j->o->index != NULL, 0, j->size), 1};
    if (j->o->index == NULL) { /* pick: the mode and the readers per rank */
        if (j->rank == 0 && gs_ranges_probe(j, &by_ranges, err) == GS_OK) {
            pick[0] = (int)gs_policy_mode(0, by_ranges, j->size);
            /* the GPU takes the readers' batches as they lie (raw bytes
             * through an index; text packed by the parts readers; the
             * segments of approximate keys, in place) */
            const int laid = j->use_gpu && gs_gpu_in_place(&j->ks, j->o->with_seq);
            if (laid && (by_ranges || pick[0] == GS_MODE_LOCAL))
                pick[1] = gs_policy_laid_readers(j->o->readers, j->threads);
            else if (by_ranges)
                pick[1] = gs_policy_readers(j->o->readers, j->threads, j->use_gpu, 0);
            else if (pick[0] == GS_MODE_LOCAL)
                pick[1] = gs_policy_part_readers(j->o->readers, j->threads, j->use_gpu);
        }
        j->mode = modes[pick[0]]; /* rank 0's state (j->ms) is then the mode's to free */
        if (gs_mpi_agree(j->comm, err) != GS_OK)
            return err->code;
        GS_MPI_CHECK(MPI_Bcast(pick, 2, MPI_INT, 0, j->comm));
    }
    j->mode = modes[pick[0]];
    j->readers = pick[1];
    return GS_OK;
}
