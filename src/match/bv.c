/* bv.c - bit-vector engines for approximate matching (contract §1).
 *
 * Edits: Myers' bit-parallel DP (J. ACM 1999, in Hyyrö's formulation) with
 * one 64-bit word per key of up to 64 residues, so a text residue costs a
 * dozen word operations per key whatever K is. Its column gives the best
 * distance at every end; the smallest start that reaches it is found by one
 * backward DP per reported end (gs_approx_edit_len), which costs nothing
 * when hits are rare, as they are for primers. Mismatches: the same word per
 * key holds four bit-sliced counters planes and an overflow plane, i.e. one
 * saturating 4-bit mismatch counter per alignment in flight, added to with a
 * ripple carry of four ANDs/XORs per residue. IUPAC positions are base sets
 * in the match masks (Peq), so degenerate keys cost the same as plain ones.
 *
 * Keys longer than 64 fall back to one column DP (Sellers) or a direct count
 * per start; both are O(m) a residue. Keys are scanned one after the other
 * over the whole segment, so each one's state stays in registers.
 */
#include "approx.h"

#include <stdlib.h>
#include <string.h>

void gs_approx_text_bits(const uint8_t *text, size_t len, uint8_t *bits)
{
    for (size_t i = 0; i < len; i++) {
        uint8_t c = gs_dna_code[text[i]];
        bits[i] = c == GS_NONBASE ? 0 : (uint8_t)(1u << c);
    }
}

uint32_t gs_approx_edit_len(const uint8_t *key, uint32_t m, const uint8_t *bits, size_t e,
                            uint32_t d, uint32_t *col)
{
    size_t lmax = (size_t)m + d < e ? (size_t)m + d : e;
    uint32_t best = 0;
    for (uint32_t i = 0; i <= m; i++)
        col[i] = i; /* l = 0: the empty text against a pattern suffix */
    if (col[m] == d)
        best = 0;
    for (size_t l = 1; l <= lmax; l++) {
        uint8_t t = bits[e - l];
        uint32_t diag = col[0];
        col[0] = (uint32_t)l;
        for (uint32_t i = 1; i <= m; i++) {
            uint32_t up = col[i]; /* B[i][l - 1] */
            uint32_t v = diag + ((key[m - i] & t) ? 0u : 1u);
            if (up + 1 < v)
                v = up + 1;
            if (col[i - 1] + 1 < v)
                v = col[i - 1] + 1;
            diag = up;
            col[i] = v;
        }
        if (col[m] == d)
            best = (uint32_t)l;
    }
    return best;
}

typedef struct bv {
    const gs_keyset *ks; /* borrowed: outlives the compiled engine */
    uint64_t (*peq)[5];  /* [n_keys][base 0..3, non-base] for keys of <= 64 */
    uint32_t max_len;
} bv;

static void bv_destroy(void *p)
{
    bv *b = p;
    if (b == NULL)
        return;
    free(b->peq);
    free(b);
}

static gs_status bv_compile(const gs_keyset *ks, void **compiled, gs_error *err)
{
    bv *b = gs_calloc(1, sizeof *b, err, "bv engine");
    if (b == NULL)
        return GS_ESYS;
    b->ks = ks;
    b->max_len = ks->max_len;
    b->peq = gs_calloc(ks->n_keys ? ks->n_keys : 1, sizeof *b->peq, err, "bv engine");
    if (b->peq == NULL) {
        bv_destroy(b);
        return GS_ESYS;
    }
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        uint32_t m = gs_key_len(ks, k);
        if (m > 64)
            continue;
        for (uint32_t i = 0; i < m; i++)
            for (int c = 0; c < 4; c++)
                if (gs_key(ks, k)[i] & (1u << c))
                    b->peq[k][c] |= 1ull << i;
    }
    *compiled = b;
    return GS_OK;
}

/* Per-scan state shared by the per-key loops. */
typedef struct scan_ctx {
    const uint8_t *bits;
    size_t len, own, span;
    uint32_t K;
    uint32_t *col; /* m + 1 scratch */
    gs_match_out *out;
} scan_ctx;

static inline int base_index(uint8_t bit)
{
    /* 1,2,4,8 -> 0..3; 0 (non-base) -> 4 */
    static const int8_t ix[9] = {4, 0, 1, 4, 2, 4, 4, 4, 3};
    return ix[bit];
}

/* An end e (one past the last residue) with distance d of key k. */
static void report_edit(scan_ctx *c, uint32_t k, const uint8_t *key, uint32_t m, size_t e,
                        uint32_t d)
{
    uint32_t l = gs_approx_edit_len(key, m, c->bits, e, d, c->col);
    if (gs_keyhits_push_approx(c->out->hits, k, e - l, l, (uint8_t)d))
        c->out->oom = 1;
}

static void edits_word(scan_ctx *c, uint32_t k, const uint64_t *peq, const uint8_t *key, uint32_t m)
{
    const uint64_t high = 1ull << (m - 1);
    uint64_t pv = ~0ull, mv = 0;
    uint32_t score = m;
    size_t stop = c->own + c->span - 1 < c->len ? c->own + c->span - 1 : c->len;
    for (size_t j = 0; j < stop; j++) {
        uint64_t eq = peq[base_index(c->bits[j])];
        uint64_t xv = eq | mv;
        uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
        uint64_t ph = mv | ~(xh | pv);
        uint64_t mh = pv & xh;
        if (ph & high)
            score++;
        else if (mh & high)
            score--;
        ph <<= 1;
        mh <<= 1;
        pv = mh | ~(xv | ph);
        mv = ph & xv;
        if (score <= c->K)
            report_edit(c, k, key, m, j + 1, score);
    }
}

/* Sellers' column DP for keys longer than a word. */
static void edits_long(scan_ctx *c, uint32_t k, const uint8_t *key, uint32_t m, uint32_t *col)
{
    size_t stop = c->own + c->span - 1 < c->len ? c->own + c->span - 1 : c->len;
    for (uint32_t i = 0; i <= m; i++)
        col[i] = i;
    for (size_t j = 0; j < stop; j++) {
        uint8_t t = c->bits[j];
        uint32_t diag = col[0];
        col[0] = 0; /* a match may start anywhere */
        for (uint32_t i = 1; i <= m; i++) {
            uint32_t up = col[i];
            uint32_t v = diag + ((key[i - 1] & t) ? 0u : 1u);
            if (up + 1 < v)
                v = up + 1;
            if (col[i - 1] + 1 < v)
                v = col[i - 1] + 1;
            diag = up;
            col[i] = v;
        }
        if (col[m] <= c->K)
            report_edit(c, k, key, m, j + 1, col[m]);
    }
}

static void mismatches_word(scan_ctx *c, uint32_t k, const uint64_t *peq, uint32_t m)
{
    uint64_t p0 = 0, p1 = 0, p2 = 0, p3 = 0, ov = 0;
    const unsigned top = m - 1;
    size_t stop = c->own + c->span - 1 < c->len ? c->own + c->span - 1 : c->len;
    for (size_t j = 0; j < stop; j++) {
        uint64_t x = ~peq[base_index(c->bits[j])];
        p0 <<= 1;
        p1 <<= 1;
        p2 <<= 1;
        p3 <<= 1;
        ov <<= 1;
        uint64_t c0 = p0 & x;
        p0 ^= x;
        uint64_t c1 = p1 & c0;
        p1 ^= c0;
        uint64_t c2 = p2 & c1;
        p2 ^= c1;
        ov |= p3 & c2;
        p3 ^= c2;
        if (j < top || (ov >> top) & 1)
            continue;
        uint32_t d = (uint32_t)((p0 >> top & 1) | (p1 >> top & 1) << 1 | (p2 >> top & 1) << 2 |
                                (p3 >> top & 1) << 3);
        if (d <= c->K && gs_keyhits_push_approx(c->out->hits, k, j + 1 - m, m, (uint8_t)d))
            c->out->oom = 1;
    }
}

static void mismatches_long(scan_ctx *c, uint32_t k, const uint8_t *key, uint32_t m)
{
    size_t stop = c->own + c->span - 1 < c->len ? c->own + c->span - 1 : c->len;
    for (size_t s = 0; s + m <= stop; s++) {
        uint32_t d = 0;
        for (uint32_t i = 0; i < m && d <= c->K; i++)
            d += !(key[i] & c->bits[s + i]);
        if (d <= c->K && gs_keyhits_push_approx(c->out->hits, k, s, m, (uint8_t)d))
            c->out->oom = 1;
    }
}

static void bv_scan(const void *compiled, const uint8_t *text, size_t len, size_t own,
                    gs_match_out *out)
{
    const bv *b = compiled;
    const gs_keyset *ks = b->ks;
    if (own > len)
        own = len;
    if (len == 0 || own == 0 || out->hits == NULL)
        return;
    uint8_t *bits = malloc(len);
    uint32_t *col = malloc(2 * ((size_t)b->max_len + 1) * sizeof *col); /* hits, Sellers */
    if (bits == NULL || col == NULL) {
        out->oom = 1;
        goto done;
    }
    gs_approx_text_bits(text, len, bits);
    scan_ctx c = {.bits = bits, .len = len, .own = own, .span = ks->span, .K = ks->max_dist,
                  .col = col, .out = out};
    for (uint32_t k = 0; k < ks->n_keys && !out->oom; k++) {
        uint32_t m = gs_key_len(ks, k);
        const uint8_t *key = gs_key(ks, k);
        if (ks->mode == GS_MATCH_EDITS)
            m <= 64 ? edits_word(&c, k, b->peq[k], key, m) : edits_long(&c, k, key, m, col + b->max_len + 1);
        else
            m <= 64 ? mismatches_word(&c, k, b->peq[k], m) : mismatches_long(&c, k, key, m);
    }
done:
    free(bits);
    free(col);
}

const gs_engine gs_engine_bv = {
    .name = "bv",
    .summary = "bit-vector DP (Myers edits, bit-sliced Hamming): approximate matching",
    .caps = GS_CAP_APPROX,
    .gpu = NULL,
    .compile = bv_compile,
    .scan = bv_scan,
    .destroy = bv_destroy};
