/* seq_gather.c - --seq: every rank's captured residues to rank 0 (see
 * job_internal.h and core/gs_seqcap.h).
 *
 * The table travels beside the hits, not inside them: rank 0 finds a hit's
 * text by (record, start, end) whatever moved or sorted the hits, so this
 * gather knows nothing of theirs. As there, rank 0 makes room first and the
 * ranks agree on that before any byte moves.
 */
#include "job_internal.h"

#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"

gs_status gs_job_gather_seq(const gs_job *j, gs_seqcap *cap, gs_error *err)
{
    enum { TAG_SEQ_ENT = 84, TAG_SEQ_BYTES = 85 };
    uint64_t mine[2] = {cap->n, cap->n_bytes}, *all = NULL, n = 0, bytes = 0;
    if (j->size == 1)
        return GS_OK;
    if (j->rank == 0 && (all = gs_malloc((size_t)j->size * sizeof mine, err, "--seq")) == NULL)
        gs_mpi_abort(j->comm, GS_ESYS);
    GS_MPI_CHECK(MPI_Gather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, 0, j->comm));
    for (int r = 0; j->rank == 0 && r < j->size; r++) {
        n += all[2 * r];
        bytes += all[2 * r + 1];
    }
    if (j->rank == 0 && n > 0 &&
        (gs_grow(&cap->v, &cap->cap, n - 1, sizeof *cap->v, 256) != GS_OK ||
         gs_grow(&cap->bytes, &cap->cap_bytes, bytes, 1, 4096) != GS_OK))
        gs_fail(err, GS_ESYS, "out of memory (gathering the residues of %llu hits on rank 0)",
                (unsigned long long)n);
    if (gs_mpi_agree(j->comm, err) != GS_OK) {
        free(all);
        return err->code;
    }
    if (j->rank != 0) {
        if (cap->n > 0) { /* rank 0 knows the sizes: nothing is sent for none */
            gs_mpi_send_bytes(cap->v, cap->n * sizeof *cap->v, 0, TAG_SEQ_ENT, j->comm);
            gs_mpi_send_bytes(cap->bytes, cap->n_bytes, 0, TAG_SEQ_BYTES, j->comm);
        }
        gs_seqcap_free(cap);
        return GS_OK;
    }
    for (int r = 1; r < j->size; r++) {
        if (all[2 * r] == 0)
            continue;
        gs_seqcap_ent *v = cap->v + cap->n;
        gs_mpi_recv_bytes(v, all[2 * r] * sizeof *v, r, TAG_SEQ_ENT, j->comm);
        gs_mpi_recv_bytes(cap->bytes + cap->n_bytes, all[2 * r + 1], r, TAG_SEQ_BYTES, j->comm);
        for (uint64_t i = 0; i < all[2 * r]; i++)
            v[i].off += cap->n_bytes;
        cap->n += all[2 * r];
        cap->n_bytes += all[2 * r + 1];
    }
    free(all);
    cap->sorted = 0;
    gs_seqcap_finish(cap);
    return GS_OK;
}
