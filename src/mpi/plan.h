/* plan.h - the partition plan: which rank owns which residues (contract §4).
 *
 * A pure function of the corpus layout, the number of ranks and the overlap,
 * so it is tested without MPI and every rank can check what rank 0 sent.
 * The residues of all records, concatenated in corpus order, are cut into
 * n_ranks contiguous ranges of floor(T*r/n) .. floor(T*(r+1)/n); a range is
 * split into pieces at record boundaries (no piece crosses a record). A rank
 * owns the hits that START in its pieces; it reads each piece extended by up
 * to `overlap` residues into the same record so those hits can finish (for
 * a circular record, on into its start: gs_read_end).
 *
 * The plan keeps only where each range starts and ends; its pieces are
 * walked on demand (gs_plan_next), by the thread that reads them. A corpus
 * of 2 M short records would otherwise cost a 68 MB array of pieces, built
 * and sent to every rank before the first byte is read.
 */
#ifndef GS_PLAN_H
#define GS_PLAN_H

#include "core/gs_error.h"
#include "core/gs_types.h"

typedef struct gs_piece {
    uint32_t record;
    uint64_t begin, end; /* owned starts [begin, end) of the record, begin < end */
    uint64_t read_end;   /* gs_read_end(end, overlap, record length, circular): what
                          * the rank reads; past the length for a circular record */
} gs_piece;

/* One rank's range [lo, hi) of the concatenated residues, and where its walk
 * starts: record rec, whose first residue is at rec_start (rec_start <= lo).
 * When lo < hi, rec holds residue lo and record last residue hi - 1. */
typedef struct gs_part {
    uint64_t lo, hi;
    uint64_t rec, rec_start, last;
} gs_part;

typedef struct gs_plan {
    gs_part *parts;      /* [n_ranks] */
    const uint64_t *len; /* [n_rec], borrowed: the record lengths cut */
    size_t n_rec;
    int n_ranks;
    uint64_t overlap;
    int circular;        /* every record is circular (--circular); set after the cut */
    uint64_t total;      /* residues in the corpus */
} gs_plan;

/* A walk over one rank's pieces, in corpus order: at is its part, with rec
 * and rec_start moved on to the next record to look at. */
typedef struct gs_plan_walk {
    const gs_plan *plan;
    gs_part at;
} gs_plan_walk;

/* rec_len must outlive the plan. */
gs_status gs_partition_plan(const uint64_t *rec_len, size_t n_rec, int n_ranks, uint64_t overlap,
                            gs_plan *plan, gs_error *err);
void gs_plan_walk_init(gs_plan_walk *w, const gs_plan *plan, int rank);
/* 1 and the next piece in *p, or 0 when the rank has no more. */
int gs_plan_next(gs_plan_walk *w, gs_piece *p);
void gs_plan_free(gs_plan *plan);

#endif
