/* test_amplicon.c - the PCR products of gs_amplicons_find against a brute
 * force over every (forward site, reverse site, pair, kind): random sites
 * of a few primers of varied lengths in several records, pairs that share
 * primers, a pair of one primer twice, narrow and wide windows, records
 * shorter than products, sites at record ends, linear and circular. */
#include <stdlib.h>
#include <string.h>

#include "core/gs_amplicon.h"
#include "testlib.h"

enum { N_PRIMERS = 5, MAX_PAIRS = 6 };

/* Every product by definition, sorted. */
static void brute(const gs_hit *h, size_t n, const gs_pcr_pair *pairs, size_t n_pairs,
                  const uint64_t *len, gs_amplicons *out)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            const gs_hit *f = &h[i], *r = &h[j];
            if (f->strand != 1 || r->strand != -1 || f->record != r->record)
                continue;
            for (int turn = 0; turn < (len ? 2 : 1); turn++) {
                uint64_t L = len ? len[f->record] : 0, t = r->start + turn * L,
                         e = r->end + turn * L;
                if (t < f->start || (len && e - f->start > L))
                    continue;
                for (size_t p = 0; p < n_pairs; p++)
                    for (int k = 0; k < GS_AMP_N_KINDS; k++) {
                        uint32_t x = k == 0 || k == 2 ? pairs[p].a : pairs[p].b;
                        uint32_t y = k == 1 || k == 2 ? pairs[p].a : pairs[p].b;
                        uint64_t size = e - f->start;
                        if (f->pattern != x || r->pattern != y || size < pairs[p].min ||
                            size > pairs[p].max)
                            continue;
                        CHECK(gs_grow(&out->v, &out->cap, out->n, sizeof *out->v, 64) == GS_OK);
                        out->v[out->n++] = (gs_amplicon){f->start, e, f->record, (uint32_t)p,
                                                         (uint8_t)k, f->distance, r->distance};
                    }
            }
        }
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, gs_amplicon_cmp);
}

static void one_case(uint64_t *rng, int circular)
{
    static const uint32_t plen[N_PRIMERS] = {5, 8, 12, 3, 20};
    uint32_t n_rec = 1 + (uint32_t)gs_test_below(rng, 4);
    uint64_t len[4];
    for (uint32_t r = 0; r < n_rec; r++)
        len[r] = 20 + gs_test_below(rng, 200);
    gs_hits hits = {0};
    size_t n_sites = gs_test_below(rng, 60);
    for (size_t i = 0; i < n_sites; i++) {
        uint32_t r = (uint32_t)gs_test_below(rng, n_rec), p = (uint32_t)gs_test_below(rng, N_PRIMERS);
        if (!circular && len[r] < plen[p])
            continue;
        uint64_t room = circular ? len[r] : len[r] - plen[p] + 1;
        uint64_t s = gs_test_below(rng, 4) == 0 ? (gs_test_below(rng, 2) ? 0 : room - 1)
                                                : gs_test_below(rng, room);
        gs_hit h = {.start = s, .end = s + plen[p], .record = r, .pattern = p,
                    .strand = gs_test_below(rng, 2) ? 1 : -1,
                    .distance = (uint8_t)gs_test_below(rng, 3)};
        int dup = 0; /* one site per (record, start, strand, pattern), as a scan reports */
        for (size_t k = 0; k < hits.n; k++)
            dup |= hits.v[k].record == r && hits.v[k].start == s && hits.v[k].strand == h.strand &&
                   hits.v[k].pattern == p;
        if (!dup)
            CHECK(gs_hits_push(&hits, &h) == GS_OK);
    }
    if (hits.n)
        qsort(hits.v, hits.n, sizeof *hits.v, gs_hit_cmp);
    gs_pcr_pair pairs[MAX_PAIRS];
    size_t n_pairs = 1 + gs_test_below(rng, MAX_PAIRS);
    for (size_t p = 0; p < n_pairs; p++) {
        pairs[p].a = (uint32_t)gs_test_below(rng, N_PRIMERS);
        pairs[p].b = gs_test_below(rng, 5) ? (uint32_t)gs_test_below(rng, N_PRIMERS) : pairs[p].a;
        pairs[p].min = gs_test_below(rng, 40);
        pairs[p].max = pairs[p].min + gs_test_below(rng, 3) * gs_test_below(rng, 150);
    }
    gs_amplicons got = {0}, want = {0};
    gs_error err = {0};
    CHECK(gs_amplicons_find(hits.v, hits.n, pairs, n_pairs, N_PRIMERS, circular ? len : NULL,
                            &got, &err) == GS_OK);
    brute(hits.v, hits.n, pairs, n_pairs, circular ? len : NULL, &want);
    CHECK_EQ_U64(got.n, want.n);
    for (size_t i = 0; i < got.n && i < want.n; i++)
        CHECK(!memcmp(&got.v[i], &want.v[i], sizeof *got.v) ||
              gs_amplicon_cmp(&got.v[i], &want.v[i]) == 0);
    for (size_t i = 0; i < got.n && i < want.n; i++) {
        CHECK_EQ_U64(got.v[i].mismatches_5, want.v[i].mismatches_5);
        CHECK_EQ_U64(got.v[i].mismatches_3, want.v[i].mismatches_3);
    }
    gs_amplicons_free(&got);
    gs_amplicons_free(&want);
    gs_hits_free(&hits);
}

/* A hand-made case: A = 0 (len 5), B = 1 (len 8) in a record of 100. */
static void fixed_case(void)
{
    gs_hit h[] = {
        {.start = 10, .end = 15, .record = 0, .pattern = 0, .strand = 1, .distance = 1},
        {.start = 40, .end = 48, .record = 0, .pattern = 1, .strand = -1, .distance = 2},
        {.start = 60, .end = 65, .record = 0, .pattern = 0, .strand = -1, .distance = 0},
        {.start = 95, .end = 100, .record = 0, .pattern = 0, .strand = 1, .distance = 0},
    };
    gs_pcr_pair pair = {.a = 0, .b = 1, .min = 1, .max = 60};
    gs_amplicons got = {0};
    gs_error err = {0};
    CHECK(gs_amplicons_find(h, 4, &pair, 1, 2, NULL, &got, &err) == GS_OK);
    CHECK_EQ_U64(got.n, 2); /* [10, 48) forward, [10, 65) single_A */
    CHECK(got.n == 2 && got.v[0].end == 48 && got.v[0].kind == GS_AMP_FORWARD &&
          got.v[0].mismatches_5 == 1 && got.v[0].mismatches_3 == 2);
    CHECK(got.n == 2 && got.v[1].end == 65 && got.v[1].kind == GS_AMP_SINGLE_A);
    got.n = 0;
    uint64_t len = 100; /* circular: [95, 148) across the origin too ([95, 165) is too long) */
    CHECK(gs_amplicons_find(h, 4, &pair, 1, 2, &len, &got, &err) == GS_OK);
    CHECK_EQ_U64(got.n, 3);
    CHECK(got.n == 3 && got.v[2].start == 95 && got.v[2].end == 148);
    gs_amplicons_free(&got);
}

int main(void)
{
    uint64_t rng = 25;
    fixed_case();
    for (int i = 0; i < 3000; i++)
        one_case(&rng, i % 2);
    return gs_test_done("test_amplicon");
}
