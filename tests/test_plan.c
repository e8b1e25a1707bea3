/* test_plan.c - properties of the partition plan over many random layouts:
 * every start position of every record is owned by exactly one rank, no piece
 * crosses a record, each piece reads far enough for every hit that starts in
 * it, and ranks are balanced to within one residue of ideal. Circular
 * records: a piece reads on into its record's start as far as a hit of one
 * turn at most needs, and never reads a residue a third time. */
#include <string.h>

#include "mpi/plan.h"
#include "testlib.h"

static void check_layout(const uint64_t *len, size_t n, int ranks, uint64_t overlap,
                         int circular)
{
    gs_plan plan;
    gs_error err = {0};
    if (gs_partition_plan(len, n, ranks, overlap, &plan, &err) != GS_OK) {
        fprintf(stderr, "plan failed: %s\n", err.msg);
        gs_test_failures++;
        return;
    }
    plan.circular = circular;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += len[i];
    CHECK_EQ_U64(plan.total, total);
    /* Walk each rank's pieces in rank order: together they must tile every
     * record's starts exactly once. */
    size_t rec = 0;
    uint64_t pos = 0;
    for (int r = 0; r < ranks; r++) {
        const gs_part *part = &plan.parts[r];
        CHECK(part->lo <= part->hi && part->hi <= total);
        uint64_t owned = 0, pieces = 0, last = 0;
        gs_plan_walk w;
        gs_piece piece;
        gs_plan_walk_init(&w, &plan, r);
        while (gs_plan_next(&w, &piece)) {
            const gs_piece *p = &piece;
            while (rec < n && pos == len[rec]) {
                rec++;
                pos = 0;
            }
            CHECK(p->record == rec);
            CHECK(pieces > 0 || p->record == part->rec);
            CHECK(p->begin == pos);
            CHECK(p->begin < p->end);
            CHECK(p->end <= len[p->record]);
            const uint64_t l = len[p->record];
            if (!circular) {
                uint64_t want_read = p->end + overlap < l ? p->end + overlap : l;
                CHECK(p->read_end == want_read);
            } else { /* the last start's hit of overlap + 1 residues, or of one turn */
                uint64_t need = p->end - 1 + (overlap + 1 < l ? overlap + 1 : l);
                CHECK(p->read_end >= need && p->read_end <= p->end + overlap);
                CHECK(p->read_end < 2 * l);
            }
            pos = p->end;
            owned += p->end - p->begin;
            last = p->record;
            pieces++;
        }
        CHECK(pieces == 0 || last == part->last); /* the files a rank opens come from these */
        CHECK(owned == part->hi - part->lo);
        uint64_t ideal_lo = total / (uint64_t)ranks, ideal_hi = ideal_lo + 1;
        CHECK(owned >= ideal_lo && owned <= ideal_hi);
    }
    while (rec < n && pos == len[rec]) {
        rec++;
        pos = 0;
    }
    CHECK(rec == n);
    gs_plan_free(&plan);
}

int main(void)
{
    uint64_t rng = 42;
    /* random layouts, including empty records */
    for (int iter = 0; iter < 3000; iter++) {
        size_t n = 1 + gs_test_below(&rng, 40);
        uint64_t len[40];
        for (size_t i = 0; i < n; i++)
            len[i] = gs_test_below(&rng, 4) == 0 ? 0 : gs_test_below(&rng, 1000);
        int ranks = 1 + (int)gs_test_below(&rng, 16);
        check_layout(len, n, ranks, gs_test_below(&rng, 70), iter % 2);
    }
    /* more ranks than residues */
    uint64_t tiny[] = {1, 0, 2};
    check_layout(tiny, 3, 64, 5, 0);
    /* all records empty */
    uint64_t empty[] = {0, 0, 0};
    check_layout(empty, 3, 4, 3, 0);
    /* one huge record */
    uint64_t huge[] = {3ULL << 40};
    check_layout(huge, 1, 7, 63, 0);
    /* 100k tiny records */
    static uint64_t many[100000];
    for (size_t i = 0; i < 100000; i++)
        many[i] = 1 + i % 5;
    check_layout(many, 100000, 7, 31, 0);
    check_layout(many, 100000, 1, 0, 0);
    check_layout(many, 100000, 7, 31, 1);
    check_layout(tiny, 3, 64, 5, 1);
    return gs_test_done("test_plan");
}
