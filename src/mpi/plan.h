/* plan.h - the partition plan: which rank owns which residues (contract §4).
 *
 * A pure function of the corpus layout, the number of ranks and the overlap,
 * so it is tested without MPI and every rank can check what rank 0 sent.
 * The residues of all records, concatenated in corpus order, are cut into
 * n_ranks contiguous ranges of floor(T*r/n) .. floor(T*(r+1)/n); a range is
 * split into pieces at record boundaries (no piece crosses a record). A rank
 * owns the hits that START in its pieces; it reads each piece extended by up
 * to `overlap` residues into the same record so those hits can finish.
 */
#ifndef GS_PLAN_H
#define GS_PLAN_H

#include "../core/gs_error.h"
#include "../core/gs_types.h"

typedef struct gs_piece {
    uint32_t record;
    uint64_t begin, end; /* owned starts [begin, end) of the record, begin < end */
    uint64_t read_end;   /* min(end + overlap, record length): what the rank reads */
} gs_piece;

typedef struct gs_plan {
    gs_piece *pieces;   /* in corpus order; rank r has pieces[first[r] .. first[r+1]) */
    size_t n_pieces;
    size_t *first;      /* [n_ranks + 1] */
    int n_ranks;
    uint64_t overlap;
    uint64_t total;     /* residues in the corpus */
} gs_plan;

gs_status gs_partition_plan(const uint64_t *rec_len, size_t n_rec, int n_ranks, uint64_t overlap,
                            gs_plan *plan, gs_error *err);
void gs_plan_free(gs_plan *plan);

#endif
