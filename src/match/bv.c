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

/* Mismatches, pigeonhole filter: K + 1 disjoint seeds of q residues per
 * key (one at the start of each of K + 1 equal pieces); a window with at
 * most K mismatches holds one seed without any, so only windows where some
 * seed occurs exactly are verified. seeds[code] lists (key, offset) pairs. */
typedef struct seed {
    uint32_t key, off, rank; /* rank: the seed's index in its key (0..K) */
} seed;

typedef struct bv {
    const gs_keyset *ks; /* borrowed: outlives the compiled engine */
    uint64_t (*peq)[5];  /* [n_keys][base 0..3, non-base] for keys of <= 64 */
    uint32_t max_len;
    uint32_t q;          /* seed length; 0: no filter */
    uint32_t *seed_off;  /* [4^q + 1] into seeds */
    seed *seeds;
    uint8_t *filtered;   /* [n_keys]: found through the seeds */
} bv;

static void bv_destroy(void *p)
{
    bv *b = p;
    if (b == NULL)
        return;
    free(b->peq);
    free(b->seed_off);
    free(b->seeds);
    free(b->filtered);
    free(b);
}

/* Seed q-mer code of key k at offset o, or -1 when a position is degenerate. */
static long seed_code(const uint8_t *key, uint32_t o, uint32_t q)
{
    long code = 0;
    for (uint32_t i = 0; i < q; i++) {
        int c = key[o + i] == 1 ? 0 : key[o + i] == 2 ? 1 : key[o + i] == 4 ? 2 : key[o + i] == 8 ? 3 : -1;
        if (c < 0)
            return -1;
        code = code << 2 | c;
    }
    return code;
}

/* The filter pays when seeds are long enough to be rare (docs/engines.md):
 * q = the shortest piece, capped at 8, and at least GS_BV_MIN_SEED. Keys with
 * a degenerate seed position keep the bit-vector scan. */
enum { GS_BV_MIN_SEED = 4, GS_BV_MAX_SEED = 8 };

static gs_status build_seeds(bv *b, const gs_keyset *ks, gs_error *err)
{
    uint32_t K = ks->max_dist, q = GS_BV_MAX_SEED;
    if (ks->n_keys == 0)
        return GS_OK;
    for (uint32_t k = 0; k < ks->n_keys; k++)
        if (gs_key_len(ks, k) / (K + 1) < q)
            q = gs_key_len(ks, k) / (K + 1);
    if (q < GS_BV_MIN_SEED || getenv("GS_BV_NOFILTER"))
        return GS_OK;
    size_t n_codes = (size_t)1 << (2 * q), n = 0;
    b->seed_off = gs_calloc(n_codes + 1, sizeof *b->seed_off, err, "bv seeds");
    b->filtered = gs_calloc(ks->n_keys, 1, err, "bv seeds");
    b->seeds = gs_malloc((size_t)ks->n_keys * (K + 1) * sizeof *b->seeds, err, "bv seeds");
    if (!b->seed_off || !b->filtered || !b->seeds)
        return GS_ESYS;
    for (int pass = 0; pass < 2; pass++) { /* count, then place */
        for (uint32_t k = 0; k < ks->n_keys; k++) {
            uint32_t m = gs_key_len(ks, k), ok = 1;
            for (uint32_t r = 0; r <= K && ok; r++)
                ok = seed_code(gs_key(ks, k), r * (m / (K + 1)), q) >= 0;
            if (!ok)
                continue;
            b->filtered[k] = 1;
            for (uint32_t r = 0; r <= K; r++) {
                uint32_t o = r * (m / (K + 1));
                long c = seed_code(gs_key(ks, k), o, q);
                if (pass == 0)
                    b->seed_off[c + 1]++;
                else
                    b->seeds[b->seed_off[c]++] = (seed){k, o, r};
            }
        }
        if (pass == 0)
            for (size_t c = 0; c < n_codes; c++)
                b->seed_off[c + 1] += b->seed_off[c];
    }
    for (size_t c = n_codes; c > 0; c--) /* placing advanced each start by its count */
        b->seed_off[c] = b->seed_off[c - 1];
    b->seed_off[0] = 0;
    for (uint32_t k = 0; k < ks->n_keys; k++)
        n += b->filtered[k];
    b->q = n ? q : 0;
    return GS_OK;
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
    if (ks->mode == GS_MATCH_MISMATCHES && build_seeds(b, ks, err) != GS_OK) {
        bv_destroy(b);
        return GS_ESYS;
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

/* G keys of <= 64 residues advance together over the text: each key's
 * update is a chain of a dozen dependent operations, so one key alone is
 * latency-bound; G independent chains fill the pipeline (about 3x faster on
 * x86-64 for G = 4). Missing keys (n < G) have empty masks and never hit. */
enum { G = 4 };

static void edits_group(scan_ctx *c, const bv *b, const uint32_t *ids, uint32_t n)
{
    const gs_keyset *ks = b->ks;
    uint64_t peq[G][5] = {{0}}, high[G], pv[G], mv[G];
    uint32_t score[G], m[G];
    for (uint32_t g = 0; g < G; g++) {
        m[g] = g < n ? gs_key_len(ks, ids[g]) : 64;
        if (g < n)
            memcpy(peq[g], b->peq[ids[g]], sizeof peq[g]);
        high[g] = 1ull << (m[g] - 1);
        pv[g] = ~0ull;
        mv[g] = 0;
        score[g] = m[g];
    }
    const uint32_t K = c->K;
    const uint8_t *bits = c->bits;
    size_t stop = c->own + c->span - 1 < c->len ? c->own + c->span - 1 : c->len;
    for (size_t j = 0; j < stop; j++) {
        const int t = base_index(bits[j]);
        uint32_t hit = 0;
        for (uint32_t g = 0; g < G; g++) {
            uint64_t eq = peq[g][t];
            uint64_t xv = eq | mv[g];
            uint64_t xh = (((eq & pv[g]) + pv[g]) ^ pv[g]) | eq;
            uint64_t ph = mv[g] | ~(xh | pv[g]);
            uint64_t mh = pv[g] & xh;
            score[g] += (ph & high[g]) != 0;
            score[g] -= (mh & high[g]) != 0;
            ph <<= 1;
            mh <<= 1;
            pv[g] = mh | ~(xv | ph);
            mv[g] = ph & xv;
            hit |= (uint32_t)(score[g] <= K) << g;
        }
        if (hit)
            for (uint32_t g = 0; g < n; g++)
                if (hit >> g & 1)
                    report_edit(c, ids[g], gs_key(ks, ids[g]), m[g], j + 1, score[g]);
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

static void mismatches_group(scan_ctx *c, const bv *b, const uint32_t *ids, uint32_t n)
{
    const gs_keyset *ks = b->ks;
    uint64_t peq[G][5] = {{0}}, p0[G] = {0}, p1[G] = {0}, p2[G] = {0}, p3[G] = {0}, ov[G] = {0};
    uint32_t top[G];
    for (uint32_t g = 0; g < G; g++) {
        top[g] = (g < n ? gs_key_len(ks, ids[g]) : 64) - 1;
        if (g < n)
            memcpy(peq[g], b->peq[ids[g]], sizeof peq[g]);
    }
    const uint32_t K = c->K;
    const uint8_t *bits = c->bits;
    size_t stop = c->own + c->span - 1 < c->len ? c->own + c->span - 1 : c->len;
    for (size_t j = 0; j < stop; j++) {
        const int t = base_index(bits[j]);
        uint32_t hit = 0, d[G];
        for (uint32_t g = 0; g < G; g++) {
            uint64_t x = ~peq[g][t];
            p0[g] <<= 1;
            p1[g] <<= 1;
            p2[g] <<= 1;
            p3[g] <<= 1;
            ov[g] <<= 1;
            uint64_t c0 = p0[g] & x;
            p0[g] ^= x;
            uint64_t c1 = p1[g] & c0;
            p1[g] ^= c0;
            uint64_t c2 = p2[g] & c1;
            p2[g] ^= c1;
            ov[g] |= p3[g] & c2;
            p3[g] ^= c2;
            unsigned sh = top[g];
            d[g] = (uint32_t)((p0[g] >> sh & 1) | (p1[g] >> sh & 1) << 1 | (p2[g] >> sh & 1) << 2 |
                              (p3[g] >> sh & 1) << 3 | (ov[g] >> sh & 1) << 4);
            hit |= (uint32_t)(d[g] <= K && j >= sh) << g;
        }
        if (hit)
            for (uint32_t g = 0; g < n; g++)
                if ((hit >> g & 1) &&
                    gs_keyhits_push_approx(c->out->hits, ids[g], j + 1 - (top[g] + 1), top[g] + 1,
                                           (uint8_t)d[g]))
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

/* Verify every window where a seed occurs exactly; a window is reported by
 * its first exact seed only, so once. */
static void mismatches_filtered(scan_ctx *c, const bv *b)
{
    const gs_keyset *ks = b->ks;
    const uint32_t q = b->q, K = c->K;
    const uint32_t mask = (uint32_t)(((uint64_t)1 << (2 * q)) - 1);
    size_t stop = c->own + c->span - 1 < c->len ? c->own + c->span - 1 : c->len;
    uint32_t code = 0, valid = 0;
    for (size_t j = 0; j < stop; j++) {
        int t = base_index(c->bits[j]);
        if (t == 4) {
            valid = 0;
            continue;
        }
        code = (code << 2 | (uint32_t)t) & mask;
        if (++valid < q)
            continue;
        size_t at = j + 1 - q; /* the seed's text position */
        for (uint32_t i = b->seed_off[code]; i < b->seed_off[code + 1]; i++) {
            const seed *sd = &b->seeds[i];
            uint32_t m = gs_key_len(ks, sd->key);
            if (at < sd->off || at - sd->off + m > stop)
                continue;
            size_t s = at - sd->off;
            const uint8_t *key = gs_key(ks, sd->key);
            uint32_t d = 0, step = m / (K + 1), first = 1;
            for (uint32_t r = 0; r < sd->rank && first; r++) { /* an earlier exact seed reports it */
                uint32_t x = 0;
                while (x < q && (key[r * step + x] & c->bits[s + r * step + x]))
                    x++;
                first = x < q;
            }
            if (!first)
                continue;
            for (uint32_t x = 0; x < m && d <= K; x++)
                d += !(key[x] & c->bits[s + x]);
            if (d <= K && gs_keyhits_push_approx(c->out->hits, sd->key, s, m, (uint8_t)d))
                c->out->oom = 1;
        }
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
    /* keys of <= 64 in groups of G (in key order: a group may skip a long key) */
    uint32_t group[G], n = 0;
    for (uint32_t k = 0; k < ks->n_keys && !out->oom; k++) {
        uint32_t m = gs_key_len(ks, k);
        const uint8_t *key = gs_key(ks, k);
        if (b->q && b->filtered[k])
            continue; /* found through the seeds below */
        if (m > 64) {
            if (ks->mode == GS_MATCH_EDITS)
                edits_long(&c, k, key, m, col + b->max_len + 1);
            else
                mismatches_long(&c, k, key, m);
            continue;
        }
        group[n++] = k;
        if (n == G) {
            (ks->mode == GS_MATCH_EDITS ? edits_group : mismatches_group)(&c, b, group, n);
            n = 0;
        }
    }
    if (n && !out->oom)
        (ks->mode == GS_MATCH_EDITS ? edits_group : mismatches_group)(&c, b, group, n);
    if (b->q && !out->oom)
        mismatches_filtered(&c, b);
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
