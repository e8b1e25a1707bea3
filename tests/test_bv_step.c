/* test_bv_step.c - the bit-vector steps of bv_step.h, shared by the CPU
 * engine and the GPU kernels, against a plain DP, on the CPU.
 *
 * The GPU engine cannot be run here, so its logic is checked where it can
 * be: every word step it uses, the start DP it runs per hit, and the
 * schedules of bv.cuh replayed on the CPU with the same steps: one word per
 * key; the wavefront of G lanes of R words where lane l takes residue t - l
 * at step t with its upper neighbour's delta of step t - 1; pieces of text
 * whose DP starts m + K residues early (m - 1 for mismatches). Keys are
 * random base sets (IUPAC), texts random with N runs and lowercase.
 */
#include "match/approx.h"
#include "match/bv_step.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECKF(cond, ...)                                                          \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: ", __FILE__, __LINE__);          \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
            gs_test_failures++;                                                    \
        }                                                                          \
    } while (0)

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* A key of base sets, mostly single bases. */
static void random_key(uint8_t *key, uint32_t m)
{
    for (uint32_t i = 0; i < m; i++)
        key[i] = rnd(8) == 0 ? (uint8_t)(1 + rnd(15)) : (uint8_t)(1u << rnd(4));
}

/* Text over ACGT (2 letters when two), some lowercase, N runs. */
static void random_text(uint8_t *t, size_t n, int two)
{
    static const char up[] = "ACGT", low[] = "acgt";
    for (size_t i = 0; i < n; i++) {
        uint32_t c = two ? rnd(2) : rnd(4);
        t[i] = (uint8_t)(rnd(10) == 0 ? low[c] : up[c]);
    }
    for (int r = 0; r < 3 && n > 8; r++) {
        size_t at = rnd((uint32_t)n), len = rnd(6);
        for (size_t i = at; i < at + len && i < n; i++)
            t[i] = rnd(2) ? 'N' : '-';
    }
}

/* best[e - 1]: the semi-global edit distance of the key at end e. */
static void dp_best(const uint8_t *key, uint32_t m, const uint8_t *bits, size_t n, uint32_t *best)
{
    uint32_t *col = malloc((m + 1) * sizeof *col);
    for (uint32_t i = 0; i <= m; i++)
        col[i] = i;
    for (size_t j = 0; j < n; j++) {
        uint32_t diag = col[0];
        col[0] = 0;
        for (uint32_t i = 1; i <= m; i++) {
            uint32_t up = col[i], v = diag + ((key[i - 1] & bits[j]) ? 0u : 1u);
            if (up + 1 < v)
                v = up + 1;
            if (col[i - 1] + 1 < v)
                v = col[i - 1] + 1;
            diag = up;
            col[i] = v;
        }
        best[j] = col[m];
    }
    free(col);
}

static void make_peq(const uint8_t *key, uint32_t m, uint64_t *wpeq, uint64_t *rpeq)
{
    memset(wpeq, 0, 4 * ((m + 63) / 64) * sizeof *wpeq);
    if (rpeq)
        memset(rpeq, 0, 4 * sizeof *rpeq);
    for (uint32_t i = 0; i < m; i++)
        for (int c = 0; c < 4; c++)
            if (key[i] >> c & 1) {
                wpeq[4 * (i / 64) + c] |= 1ull << (i % 64);
                if (rpeq && m <= 64)
                    rpeq[c] |= 1ull << (m - 1 - i);
            }
}

/* bv.cuh's wavefront, lanes and steps replayed in order: scores of ends
 * [st, en) of a piece whose DP starts at w0. */
static void wavefront(const uint64_t *wpeq, uint32_t m, const uint8_t *text, uint32_t w0,
                      uint32_t st, uint32_t en, uint32_t G, uint32_t R, uint32_t *score_at)
{
    enum { MAXL = 32, MAXR = 8 };
    const uint32_t nw = (m + 63) / 64, lastw = nw - 1, last_lane = lastw / R;
    const uint64_t hb_last = 1ull << ((m - 1) & 63), top = 1ull << 63;
    uint64_t pv[MAXL][MAXR], mv[MAXL][MAXR];
    int hprev[MAXL] = {0}, hnext[MAXL];
    for (uint32_t l = 0; l < G; l++)
        for (uint32_t r = 0; r < R; r++)
            pv[l][r] = ~0ull, mv[l][r] = 0;
    const uint32_t n = en - w0;
    uint32_t score = m;
    for (uint32_t t = 0; t < n + G - 1; t++) {
        for (uint32_t lane = 0; lane < G; lane++) {
            int hin = lane == 0 ? 0 : hprev[lane - 1]; /* __shfl_up_sync */
            uint32_t idx = t - lane;
            int h = 0;
            if (t >= lane && idx < n) {
                uint32_t j = w0 + idx, c = gs_bv_code(text[j]);
                h = hin;
                for (uint32_t r = 0; r < R; r++) {
                    uint32_t w = lane * R + r;
                    if (w <= lastw)
                        h = gs_bv_edit_step64(gs_bv_eq64(wpeq + 4 * w, c), &pv[lane][r],
                                              &mv[lane][r], h, w == lastw ? hb_last : top);
                }
                if (lane == last_lane) {
                    score += (uint32_t)h;
                    if (j >= st)
                        score_at[j] = score;
                }
            }
            hnext[lane] = h;
        }
        memcpy(hprev, hnext, sizeof hprev);
    }
}

static void check_edits(uint32_t m, size_t n, int two)
{
    uint8_t *key = malloc(m), *text = malloc(n), *bits = malloc(n);
    uint32_t *best = malloc(n * sizeof *best), *got = malloc(n * sizeof *got);
    uint32_t *col = malloc((m + 1) * sizeof *col);
    uint64_t *wpeq = malloc(4 * ((m + 63) / 64) * sizeof *wpeq), rpeq[4];
    random_key(key, m);
    random_text(text, n, two);
    if (rnd(2)) { /* plant a copy with a few edits, so that small distances occur */
        size_t at = rnd((uint32_t)(n > m ? n - m : 1));
        for (uint32_t i = 0; i < m && at + i < n; i++)
            text[at + i] = "ACGT"[__builtin_ctz(key[i])];
        for (int e = 0; e < 2 && at + m < n; e++)
            text[at + rnd(m)] = "ACGT"[rnd(4)];
    }
    gs_approx_text_bits(text, n, bits);
    dp_best(key, m, bits, n, best);
    make_peq(key, m, wpeq, rpeq);

    /* one word over the whole text, 32- and 64-bit */
    if (m <= 64) {
        uint64_t pv = ~0ull, mv = 0;
        uint32_t pv32 = ~0u, mv32 = 0, p32[4] = {0}, s = m, s32 = m;
        for (int c = 0; c < 4; c++)
            p32[c] = (uint32_t)wpeq[c];
        int ok = 1, ok32 = 1;
        for (size_t j = 0; j < n; j++) {
            uint32_t c = gs_bv_code(text[j]);
            s += gs_bv_edit_step64(gs_bv_eq64(wpeq, c), &pv, &mv, 0, 1ull << (m - 1));
            ok &= s == best[j];
            if (m <= 32) {
                s32 += gs_bv_edit_step32(gs_bv_eq32(p32, c), &pv32, &mv32, 0, 1u << (m - 1));
                ok32 &= s32 == best[j];
            }
        }
        CHECKF(ok, "one 64-bit word, m = %u", m);
        CHECKF(ok32, "one 32-bit word, m = %u", m);
        /* the start of every end, against the CPU's backward DP */
        int oks = 1;
        for (size_t e = 1; e <= n; e++) {
            uint32_t d = best[e - 1];
            uint32_t want = gs_approx_edit_len(key, m, bits, e, d, col);
            oks &= gs_bv_edit_len64(rpeq, m, text, e, d) == want;
        }
        CHECKF(oks, "start DP, m = %u", m);
    }

    /* the kernels' pieces: ends [st, en) from a DP begun m + K early; equal
     * where the true distance is <= K, above K elsewhere */
    const uint32_t nw = (m + 63) / 64;
    uint32_t R = nw <= 32 ? 1 : nw <= 64 ? 2 : nw <= 128 ? 4 : 8, G = 1;
    while (G * R < nw)
        G *= 2;
    for (uint32_t K = 0; K <= 8; K += 2 + rnd(3)) {
        int ok = 1;
        for (uint32_t i = 0; i < n; i++)
            got[i] = UINT32_MAX;
        for (uint32_t st = 0; st < n;) {
            uint32_t en = st + 1 + rnd(3 * m + 10);
            en = en > n ? (uint32_t)n : en;
            uint32_t w0 = st >= m + K ? st - (m + K) : 0;
            wavefront(wpeq, m, text, w0, st, en, G, R, got);
            st = en;
        }
        for (uint32_t j = 0; j < n; j++)
            ok &= best[j] <= K ? got[j] == best[j] : got[j] > K;
        CHECKF(ok, "wavefront of %u lanes x %u words, m = %u, K = %u", G, R, m, K);
    }
    free(key);
    free(text);
    free(bits);
    free(best);
    free(got);
    free(col);
    free(wpeq);
}

static void check_mismatches(uint32_t m, size_t n)
{
    uint8_t *key = malloc(m), *text = malloc(n), *bits = malloc(n);
    uint64_t peq[4];
    random_key(key, m);
    random_text(text, n, rnd(2));
    gs_approx_text_bits(text, n, bits);
    make_peq(key, m, peq, NULL);
    uint32_t p32[4];
    for (int c = 0; c < 4; c++)
        p32[c] = (uint32_t)peq[c];
    for (uint32_t K = 0; K <= 15; K += 1 + rnd(4)) {
        int ok = 1;
        for (uint32_t st = 0; st < n;) { /* pieces from m - 1 early, as the kernel */
            uint32_t en = st + 1 + rnd(2 * m + 10), sh = m - 1;
            en = en > n ? (uint32_t)n : en;
            uint64_t c64[5] = {0};
            uint32_t c32[5] = {0};
            for (uint32_t j = st >= sh ? st - sh : 0; j < en; j++) {
                uint32_t c = gs_bv_code(text[j]);
                gs_bv_ham_step64(~gs_bv_eq64(peq, c), c64);
                if (m <= 32)
                    gs_bv_ham_step32(~gs_bv_eq32(p32, c), c32);
                if (j >= st && j >= sh) {
                    uint32_t want = 0;
                    for (uint32_t i = 0; i < m; i++)
                        want += !(key[i] & bits[j + 1 - m + i]);
                    uint32_t d = gs_bv_ham_read64(c64, sh);
                    ok &= want <= K ? d == want : d > K;
                    if (m <= 32) {
                        d = gs_bv_ham_read32(c32, sh);
                        ok &= want <= K ? d == want : d > K;
                    }
                }
            }
            st = en;
        }
        CHECKF(ok, "mismatch counters, m = %u, K = %u", m, K);
    }
    free(key);
    free(text);
    free(bits);
}

int main(void)
{
    for (int b = 0; b < 256; b++) /* the code arithmetic is gs_dna_code */
        CHECKF(gs_bv_code((uint32_t)b) == gs_dna_code[b], "code of byte %d", b);
    for (uint32_t m = 1; m <= 70; m++)
        for (int rep = 0; rep < 3; rep++) {
            check_edits(m, 200 + rnd(200), rep == 2);
            if (m <= 64) /* longer keys are counted per start */
                check_mismatches(m, 300);
        }
    const uint32_t longer[] = {100, 127, 128, 129, 191, 300, 700, 1024, 2100, 4200, 9000};
    for (size_t i = 0; i < sizeof longer / sizeof *longer; i++)
        check_edits(longer[i], longer[i] * 3, (int)(i & 1));
    return gs_test_done("test_bv_step");
}
