/* test_engines.c - every CPU engine against a direct pattern-level matcher.
 *
 * The reference never builds keys: for each pattern, start and strand it
 * checks IUPAC compatibility of the pattern (or its reverse complement,
 * computed here position by position) with the text, a non-base matching
 * nothing. Engines go through the whole keyset path (expansion, merging,
 * outputs, fold) and must give the same counts and the same sorted hit list,
 * for both strand modes, both report modes and both alphabets, on seeded
 * random workloads: planted and absent patterns, degenerate codes, duplicates,
 * palindromes, N runs, lowercase, repetitive text, and very long keys.
 *
 * Block edges: small texts are also scanned as segments of 1, 2, 3, 5 and 17
 * owned starts with max_len - 1 of overlap, each copied so that it ends
 * against an unmapped page; the folded hits must equal the whole-text ones.
 *
 * GS_TEST_QUICK=1 runs fewer workloads (for sanitizer builds).
 */
#define _DEFAULT_SOURCE
#include "match/engine.h"
#include "match/keyset.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct thit {
    uint64_t start;
    uint32_t pattern;
    uint32_t strand;
} thit;

typedef struct thits {
    thit *v;
    size_t n, cap;
} thits;

static void push(thits *h, uint64_t start, uint32_t p, uint32_t s)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 256;
        h->v = realloc(h->v, h->cap * sizeof *h->v);
        if (h->v == NULL)
            abort();
    }
    h->v[h->n++] = (thit){start, p, s};
}

static int thit_cmp(const void *a, const void *b)
{
    const thit *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->strand != y->strand)
        return x->strand < y->strand ? -1 : 1;
    if (x->pattern != y->pattern)
        return x->pattern < y->pattern ? -1 : 1;
    return 0;
}

/* IUPAC as sets of bases (A=1 C=2 G=4 T=8), written out independently of keyset.c. */
static const char *const CODES = "ACGTRYSWKMBDHVN";
static const uint8_t MASKS[] = {1, 2, 4, 8, 5, 10, 6, 9, 12, 3, 14, 13, 11, 7, 15};

static uint8_t mask_of(uint8_t c)
{
    const char *p = strchr(CODES, c);
    return p && c ? MASKS[p - CODES] : 0;
}

static uint8_t comp_mask(uint8_t m)
{
    return (uint8_t)((m & 1) << 3 | (m & 8) >> 3 | (m & 2) << 1 | (m & 4) >> 1);
}

static uint8_t text_bit(uint8_t c)
{
    switch (c) {
    case 'A': case 'a': return 1;
    case 'C': case 'c': return 2;
    case 'G': case 'g': return 4;
    case 'T': case 't': return 8;
    default: return 0;
    }
}

/* The whole-text reference: counts[p * S + s] and every hit. */
static void reference(const gs_patset *ps, gs_alphabet alpha, int both, const uint8_t *t,
                      size_t n, uint64_t *counts, thits *hits)
{
    int S = alpha == GS_ALPHA_DNA && both ? 2 : 1;
    uint8_t *tb = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        tb[i] = text_bit(t[i]);
    for (uint32_t p = 0; p < ps->n; p++) {
        const gs_pattern *pat = &ps->v[p];
        uint32_t L = pat->len;
        uint8_t fm[4096 + 64], rm[4096 + 64];
        for (uint32_t j = 0; j < L; j++)
            fm[j] = mask_of(pat->bytes[j]);
        for (uint32_t j = 0; j < L; j++)
            rm[j] = comp_mask(fm[L - 1 - j]);
        for (size_t i = 0; i + L <= n; i++) {
            if (alpha == GS_ALPHA_BYTES) {
                if (memcmp(t + i, pat->bytes, L) == 0) {
                    counts[p]++;
                    push(hits, i, p, 0);
                }
                continue;
            }
            for (int s = 0; s < S; s++) {
                const uint8_t *m = s ? rm : fm;
                uint32_t j = 0;
                while (j < L && (m[j] & tb[i + j]))
                    j++;
                if (j == L) {
                    counts[p * S + s]++;
                    push(hits, i, p, (uint32_t)s);
                }
            }
        }
    }
    free(tb);
    qsort(hits->v, hits->n, sizeof *hits->v, thit_cmp);
}

/* Key hits of one scan, as (pattern, strand, start + base). */
static void fold_hits(const gs_keyset *ks, const gs_keyhits *kh, uint64_t base, thits *out)
{
    for (size_t i = 0; i < kh->n; i++) {
        uint32_t k = kh->v[i].key;
        for (uint32_t o = ks->out_off[k]; o < ks->out_off[k + 1]; o++)
            push(out, kh->v[i].pos + base, ks->outputs[o] >> 1, ks->outputs[o] & 1);
    }
}

/* ---- workloads ---- */

typedef struct workload {
    gs_alphabet alpha;
    uint8_t *text;
    size_t n;
    gs_patset ps;
    char what[160];
} workload;

static void free_workload(workload *w)
{
    for (uint32_t i = 0; i < w->ps.n; i++) {
        free(w->ps.v[i].name);
        free(w->ps.v[i].bytes);
        free(w->ps.v[i].text);
    }
    free(w->ps.v);
    free(w->text);
}

static const char BASES[] = "ACGT";

static void make_dna_text(workload *w, uint64_t *rs, size_t n, int repetitive)
{
    w->text = malloc(n + 1);
    w->n = n;
    int lower = (int)gs_test_below(rs, 3); /* 0: none, 1: some, 2: runs of lowercase */
    for (size_t i = 0; i < n; i++) {
        uint8_t c = repetitive ? BASES[gs_test_below(rs, 2) ? (i & 1) : gs_test_below(rs, 4)]
                               : BASES[gs_test_below(rs, 4)];
        if ((lower == 1 && gs_test_below(rs, 10) == 0) || (lower == 2 && (i / 97) % 2))
            c = (uint8_t)(c | 0x20);
        w->text[i] = c;
    }
    /* N runs and other non-bases */
    size_t runs = n / 500 + gs_test_below(rs, 4);
    for (size_t r = 0; r < runs && n; r++) {
        size_t at = gs_test_below(rs, n), len = 1 + gs_test_below(rs, 40);
        static const char nb[] = "NNNNnnRY-*0";
        uint8_t c = (uint8_t)nb[gs_test_below(rs, sizeof nb - 1)];
        for (size_t i = at; i < at + len && i < n; i++)
            w->text[i] = c;
    }
}

static void make_dna_patterns(workload *w, uint64_t *rs, uint32_t P, uint32_t lmin, uint32_t lmax)
{
    uint8_t b[4096 + 8];
    for (uint32_t p = 0; p < P; p++) {
        uint32_t L = lmin + (uint32_t)gs_test_below(rs, lmax - lmin + 1);
        uint32_t kind = (uint32_t)gs_test_below(rs, 10);
        if (kind == 0 && w->ps.n) { /* duplicate of an earlier pattern */
            const gs_pattern *q = &w->ps.v[gs_test_below(rs, w->ps.n)];
            memcpy(b, q->bytes, q->len);
            gs_test_add_pattern(&w->ps, b, q->len, 0);
            continue;
        }
        if (kind == 1) { /* palindrome (odd lengths cannot be; they stay random) */
            for (uint32_t j = 0; j < L / 2; j++)
                b[j] = (uint8_t)BASES[gs_test_below(rs, 4)];
            for (uint32_t j = L / 2; j < L; j++) {
                uint8_t c = b[L - 1 - j];
                b[j] = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
            }
            if (L & 1)
                b[L / 2] = (uint8_t)BASES[gs_test_below(rs, 4)];
        } else if (kind <= 3 || w->n < L) { /* absent (most likely) */
            for (uint32_t j = 0; j < L; j++)
                b[j] = (uint8_t)BASES[gs_test_below(rs, 4)];
        } else { /* planted: cut from the text, uppercased; a non-base becomes N */
            size_t at = gs_test_below(rs, w->n - L + 1);
            int ns = 0;
            for (uint32_t j = 0; j < L; j++) {
                uint8_t c = w->text[at + j] & (uint8_t)~0x20;
                b[j] = strchr(BASES, c) && c ? c : ns++ < 2 ? 'N' : 'A';
            }
            if (kind == 9) { /* reverse complement of the cut */
                for (uint32_t j = 0; j < L / 2; j++) {
                    uint8_t x = b[j];
                    b[j] = b[L - 1 - j];
                    b[L - 1 - j] = x;
                }
                for (uint32_t j = 0; j < L; j++)
                    b[j] = b[j] == 'A' ? 'T' : b[j] == 'C' ? 'G' : b[j] == 'G' ? 'C' : b[j] == 'T' ? 'A' : b[j];
            }
        }
        if (gs_test_below(rs, 6) == 0) { /* degenerate codes at up to 3 positions */
            uint32_t d = 1 + (uint32_t)gs_test_below(rs, 3);
            for (uint32_t i = 0; i < d; i++)
                b[gs_test_below(rs, L)] = (uint8_t)CODES[gs_test_below(rs, 15)];
        }
        gs_test_add_pattern(&w->ps, b, L, 0);
    }
}

static void make_bytes(workload *w, uint64_t *rs, size_t n, uint32_t P, uint32_t lmin, uint32_t lmax)
{
    static const uint8_t small[] = {'a', 'b', 0, 0xff};
    int full = gs_test_below(rs, 2) == 0;
    w->text = malloc(n + 1);
    w->n = n;
    for (size_t i = 0; i < n; i++)
        w->text[i] = full ? (uint8_t)gs_test_rand(rs) : small[gs_test_below(rs, 4)];
    uint8_t b[4096 + 8];
    for (uint32_t p = 0; p < P; p++) {
        uint32_t L = lmin + (uint32_t)gs_test_below(rs, lmax - lmin + 1);
        uint32_t kind = (uint32_t)gs_test_below(rs, 10);
        if (kind == 0 && w->ps.n) {
            const gs_pattern *q = &w->ps.v[gs_test_below(rs, w->ps.n)];
            gs_test_add_pattern(&w->ps, q->bytes, q->len, 0);
            continue;
        }
        if (kind <= 3 || n < L) {
            for (uint32_t j = 0; j < L; j++)
                b[j] = full ? (uint8_t)gs_test_rand(rs) : small[gs_test_below(rs, 4)];
        } else {
            memcpy(b, w->text + gs_test_below(rs, n - L + 1), L);
        }
        gs_test_add_pattern(&w->ps, b, L, 0);
    }
}

/* ---- checks ---- */

static int n_checked;

static void check_one(const workload *w, const gs_engine *e, int both, int want_hits, int segmented)
{
    gs_keyset ks;
    gs_error err = {0};
    if (gs_keyset_build(&w->ps, w->alpha, both, 4096, &ks, &err) != GS_OK) {
        fprintf(stderr, "keyset: %s\n", err.msg);
        CHECK(0);
        return;
    }
    int S = ks.n_strands;
    uint64_t *ref_counts = calloc((size_t)w->ps.n * S, sizeof *ref_counts);
    uint64_t *counts = calloc((size_t)w->ps.n * S, sizeof *counts);
    uint64_t *kc = calloc(ks.n_keys + 1, sizeof *kc);
    thits ref = {0}, got = {0};
    gs_keyhits kh = {0};
    reference(&w->ps, w->alpha, both, w->text, w->n, ref_counts, &ref);

    void *c = NULL;
    if (e->compile(&ks, NULL, &c, &err) != GS_OK) {
        fprintf(stderr, "%s compile: %s\n", e->name, err.msg);
        CHECK(0);
        goto done;
    }
    gs_match_out out = {kc, want_hits ? &kh : NULL, 0};
    if (!segmented) {
        uint8_t *g = gs_guarded_alloc(w->n); /* a read past the end crashes */
        memcpy(g, w->text, w->n);
        e->scan(c, g, w->n, w->n, &out);
        fold_hits(&ks, &kh, 0, &got);
        gs_guarded_free(g, w->n);
    } else {
        size_t ov = ks.max_len ? ks.max_len - 1 : 0;
        size_t cap = (size_t)segmented + ov;
        uint8_t *g = gs_guarded_alloc(cap);
        for (size_t a = 0; a < w->n; a += (size_t)segmented) {
            size_t own = w->n - a < (size_t)segmented ? w->n - a : (size_t)segmented;
            size_t len = w->n - a < own + ov ? w->n - a : own + ov;
            uint8_t *seg = g + cap - len; /* ends right at the guard page */
            memcpy(seg, w->text + a, len);
            kh.n = 0;
            e->scan(c, seg, len, own, &out);
            fold_hits(&ks, &kh, a, &got);
        }
        gs_guarded_free(g, cap);
    }
    CHECK(out.oom == 0);
    e->destroy(c);
    gs_keyset_fold_counts(&ks, kc, counts);
    int bad = 0;
    for (size_t i = 0; i < (size_t)w->ps.n * S; i++)
        if (counts[i] != ref_counts[i]) {
            if (bad++ < 3)
                fprintf(stderr, "  counts[%zu] (pattern %s strand %zu) = %llu, reference %llu\n",
                        i, w->ps.v[i / S].bytes, i % S, (unsigned long long)counts[i],
                        (unsigned long long)ref_counts[i]);
        }
    if (want_hits) {
        qsort(got.v, got.n, sizeof *got.v, thit_cmp);
        if (got.n != ref.n) {
            bad++;
            fprintf(stderr, "  %zu hits, reference %zu\n", got.n, ref.n);
        } else {
            for (size_t i = 0; i < got.n; i++)
                if (thit_cmp(&got.v[i], &ref.v[i]) != 0) {
                    if (bad++ < 3)
                        fprintf(stderr, "  hit %zu: (%llu, p%u, s%u), reference (%llu, p%u, s%u)\n",
                                i, (unsigned long long)got.v[i].start, got.v[i].pattern,
                                got.v[i].strand, (unsigned long long)ref.v[i].start,
                                ref.v[i].pattern, ref.v[i].strand);
                    break;
                }
        }
    }
    if (bad) {
        fprintf(stderr, "FAIL %s engine=%s strand=%s report=%s segment=%d\n", w->what, e->name,
                both ? "both" : "forward", want_hits ? "hits" : "counts", segmented);
        CHECK(0);
    }
    n_checked++;
done:
    free(ref_counts);
    free(counts);
    free(kc);
    free(ref.v);
    free(got.v);
    free(kh.v);
    gs_keyset_free(&ks);
}

static void check_workload(const workload *w, int segments)
{
    static const int seg_sizes[] = {1, 2, 3, 5, 17};
    for (int ei = 0; gs_engines[ei]; ei++)
        for (int both = 0; both <= (w->alpha == GS_ALPHA_DNA) && (gs_engines[ei]->caps & GS_CAP_EXACT);
             both++)
            for (int hits = 0; hits <= 1; hits++) {
                check_one(w, gs_engines[ei], both, hits, 0);
                if (segments && hits) /* hits imply the counts; one segmented pass each */
                    for (int s = 0; s < 5; s++)
                        check_one(w, gs_engines[ei], both, 1, seg_sizes[s]);
            }
}

/* Hand-made cases whose answer is known without any matcher. */
static void check_known(void)
{
    workload w = {0};
    w.alpha = GS_ALPHA_DNA;
    w.text = (uint8_t *)strdup("ACGTNacgtAAAA");
    w.n = 13;
    gs_test_add_pattern(&w.ps, (const uint8_t *)"ACGT", 4, 0); /* palindrome: 2 places x 2 strands */
    gs_test_add_pattern(&w.ps, (const uint8_t *)"AA", 2, 0);   /* 3 forward, 0 reverse (TT absent) */
    gs_test_add_pattern(&w.ps, (const uint8_t *)"TNA", 3, 0);  /* t-A-A at 8; not T-N-a at 3 (text N) */
    gs_keyset ks;
    gs_error err = {0};
    CHECK(gs_keyset_build(&w.ps, GS_ALPHA_DNA, 1, 4096, &ks, &err) == GS_OK);
    for (int ei = 0; gs_engines[ei]; ei++) {
        if (!(gs_engines[ei]->caps & GS_CAP_EXACT))
            continue; /* approximate engines: test_approx */
        void *c;
        uint64_t kc[64] = {0}, counts[6] = {0};
        gs_match_out out = {kc, NULL, 0};
        CHECK(gs_engines[ei]->compile(&ks, NULL, &c, &err) == GS_OK);
        gs_engines[ei]->scan(c, w.text, w.n, w.n, &out);
        gs_engines[ei]->destroy(c);
        gs_keyset_fold_counts(&ks, kc, counts);
        CHECK_EQ_U64(counts[0], 2);
        CHECK_EQ_U64(counts[1], 2);
        CHECK_EQ_U64(counts[2], 3);
        CHECK_EQ_U64(counts[3], 0);
        CHECK_EQ_U64(counts[4], 1);
        CHECK_EQ_U64(counts[5], 1); /* TNA is its own reverse complement */
        /* own/len: starts 0..8 owned; "AAAA" at 9.. is not; len 12 cuts the last AA */
        memset(kc, 0, sizeof kc);
        memset(counts, 0, sizeof counts);
        CHECK(gs_engines[ei]->compile(&ks, NULL, &c, &err) == GS_OK);
        gs_engines[ei]->scan(c, w.text, 12, 10, &out);
        gs_engines[ei]->destroy(c);
        gs_keyset_fold_counts(&ks, kc, counts);
        CHECK_EQ_U64(counts[0], 2);
        CHECK_EQ_U64(counts[2], 1); /* only the AA at 9 */
        CHECK_EQ_U64(counts[4], 1);
    }
    gs_keyset_free(&ks);
    free_workload(&w);
}

int main(void)
{
    int quick = getenv("GS_TEST_QUICK") && atoi(getenv("GS_TEST_QUICK"));
    uint64_t rs = 20240601;
    int rounds = quick ? 12 : 40;

    check_known();
    for (int r = 0; r < rounds; r++) {
        workload w = {0};
        uint32_t cls = (uint32_t)gs_test_below(&rs, 10);
        int dna = gs_test_below(&rs, 10) < 7;
        size_t n;
        uint32_t P, lmin, lmax;
        int segments = 0;
        if (cls < 4) { /* small: also segmented */
            n = 200 + gs_test_below(&rs, quick ? 800 : 2500);
            P = 1 + (uint32_t)gs_test_below(&rs, 60);
            segments = 1;
        } else if (cls < 7) { /* long text */
            n = 20000 + gs_test_below(&rs, quick ? 30000 : 180000);
            P = 1 + (uint32_t)gs_test_below(&rs, 40);
        } else { /* thousands of patterns */
            n = 5000 + gs_test_below(&rs, quick ? 3000 : 15000);
            P = 1000 + (uint32_t)gs_test_below(&rs, quick ? 500 : 2000);
        }
        lmin = 1 + (uint32_t)gs_test_below(&rs, 16);
        lmax = lmin + (uint32_t)gs_test_below(&rs, 64 - lmin + 1);
        if (gs_test_below(&rs, 4) == 0)
            lmax = lmin; /* one length: k-mer sets */
        if (cls >= 7 && lmin < 4) /* thousands of tiny patterns would be nearly all duplicates */
            lmin = 4, lmax = lmax < 4 ? 4 : lmax;
        if (dna) {
            w.alpha = GS_ALPHA_DNA;
            make_dna_text(&w, &rs, n, gs_test_below(&rs, 5) == 0);
            make_dna_patterns(&w, &rs, P, lmin, lmax);
        } else {
            w.alpha = GS_ALPHA_BYTES;
            make_bytes(&w, &rs, n, P, lmin, lmax);
        }
        snprintf(w.what, sizeof w.what, "round %d (%s, n=%zu, %u patterns, lengths %u..%u)", r,
                 dna ? "dna" : "bytes", n, P, lmin, lmax);
        check_workload(&w, segments);
        free_workload(&w);
    }

    /* Very long keys (up to 4096), both alphabets, planted. */
    for (int a = 0; a < 2; a++) {
        workload w = {0};
        if (a == 0) {
            w.alpha = GS_ALPHA_DNA;
            make_dna_text(&w, &rs, 30000, 1);
            make_dna_patterns(&w, &rs, 12, 1000, 4096);
            make_dna_patterns(&w, &rs, 5, 1, 40);
        } else {
            w.alpha = GS_ALPHA_BYTES;
            make_bytes(&w, &rs, 30000, 12, 1000, 4096);
            gs_test_add_pattern(&w.ps, w.text + 7, 1, 0);
            gs_test_add_pattern(&w.ps, w.text + 100, 3, 0);
        }
        snprintf(w.what, sizeof w.what, "long keys (%s)", a ? "bytes" : "dna");
        check_workload(&w, 0);
        free_workload(&w);
    }
    printf("test_engines: %d engine runs compared\n", n_checked);
    return gs_test_done("test_engines");
}
