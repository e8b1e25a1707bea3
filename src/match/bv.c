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
 * per start; both are O(m) a residue. Keys advance four at a time over the
 * segment, so their state stays in registers and their chains overlap.
 *
 * Most primer-like keys never take that scan: a pigeonhole filter (K + 1
 * exact seeds per key, planned, seeds.h; degenerate seeds by expansion) finds the
 * few places worth verifying, which is 5-10x less work on a genome
 * (docs/engines.md has the numbers).
 */
#include "approx.h"
#include "bulge.h"
#include "seeds.h"
#include "zones.h"

#include <stdlib.h>
#include <string.h>

void gs_approx_text_bits(const uint8_t *text, size_t len, uint8_t *bits)
{
    _Static_assert(GS_NONBASE == 4, "a non-base's bit falls off the four");
    for (size_t i = 0; i < len; i++) /* no branch: N runs are common */
        bits[i] = (uint8_t)((1u << gs_dna_code[text[i]]) & 15u);
}

/* One column of the edit-distance DP: col[i] (rows 0..m) becomes the next
 * column for text residue t, whose row 0 is top. Row i compares key[i - 1]
 * (or key[m - i] when reversed: the DP runs backwards over pattern suffixes). */
static inline void dp_column(uint32_t *col, uint32_t m, uint32_t top, const uint8_t *key,
                             int reversed, uint8_t t)
{
    uint32_t diag = col[0];
    col[0] = top;
    for (uint32_t i = 1; i <= m; i++) {
        uint32_t up = col[i];
        uint32_t v = diag + ((key[reversed ? m - i : i - 1] & t) ? 0u : 1u);
        if (up + 1 < v)
            v = up + 1;
        if (col[i - 1] + 1 < v)
            v = col[i - 1] + 1;
        diag = up;
        col[i] = v;
    }
}

uint32_t gs_approx_edit_len(const uint8_t *key, uint32_t m, const uint8_t *bits, size_t e,
                            uint32_t d, uint32_t *col)
{
    size_t lmax = (size_t)m + d < e ? (size_t)m + d : e;
    uint32_t best = 0;
    for (uint32_t i = 0; i <= m; i++)
        col[i] = i; /* l = 0: the empty text against a pattern suffix */
    for (size_t l = 1; l <= lmax; l++) {
        dp_column(col, m, (uint32_t)l, key, 1, bits[e - l]); /* pattern suffixes */
        if (col[m] == d)
            best = (uint32_t)l;
    }
    return best;
}

/* Whether z[0 .. n) matches the text bits t[0 .. n) position by position. */
static int zone_at(const uint8_t *z, uint32_t n, const uint8_t *t)
{
    for (uint32_t i = 0; i < n; i++)
        if (!(z[i] & t[i]))
            return 0;
    return 1;
}

uint32_t gs_approx_zone_end(const uint8_t *key, uint32_t m, uint32_t n, int front,
                            const uint8_t *bits, size_t e, uint32_t K, uint32_t *col,
                            uint32_t *len)
{
    const uint32_t c = m - n; /* the core, aligned beside the zone */
    const uint8_t *core = key + (front ? n : 0), *zone = key + (front ? 0 : c);
    if (e < n || (!front && !zone_at(zone, n, bits + e - n)))
        return K + 1;
    const size_t ce = front ? e : e - n; /* where the core's text ends */
    const size_t lmax = (size_t)c + K < e - n ? (size_t)c + K : e - n;
    uint32_t best = K + 1, bl = 0;
    for (uint32_t i = 0; i <= c; i++)
        col[i] = i; /* l = 0: the core against no text */
    for (size_t l = 0; l <= lmax; l++) {
        if (l > 0)
            dp_column(col, c, (uint32_t)l, core, 1, bits[ce - l]);
        /* the zone ends where the core's text begins (front) */
        if (col[c] <= best && (!front || zone_at(zone, n, bits + ce - l - n))) {
            best = col[c];
            bl = (uint32_t)l;
        }
    }
    *len = bl + n;
    return best;
}

typedef struct bv {
    const gs_keyset *ks; /* borrowed: outlives the compiled engine */
    uint64_t (*peq)[5];  /* [n_keys][base 0..3, non-base] for keys of <= 64 */
    uint32_t max_len;
    gs_seeds seeds;      /* the pigeonhole filter (seeds.h), shared with the GPU */
    gs_zones zones;      /* keys scanned from their zone (zones.h, scan_zoned) */
    /* presence bits of the seed tables, small enough for L1 (seed_bits):
     * any[c] for an 8-mer c whose last q residues are some seed of length
     * q, and has[q][x] for a q-mer x that is a seed */
    uint64_t *any, *has[GS_SEED_MAX + 1];
} bv;

static void bv_destroy(void *p)
{
    bv *b = p;
    if (b == NULL)
        return;
    free(b->peq);
    gs_zones_free(&b->zones);
    free(b->any);
    for (int q = 0; q <= GS_SEED_MAX; q++)
        free(b->has[q]);
    gs_seeds_free(&b->seeds);
    free(b);
}

/* The presence bits of the seed tables. Seeds of 5-8 residues occur every
 * few thousand text positions, so most positions find nothing; the tables'
 * offsets (4^8 of them for q = 8, L2 at best) cost a cache miss at each
 * position all the same. Bits (a bit an 8-mer: 8 KiB) answer "nothing"
 * from L1 first; a position then reads only the tables whose q-mer is a
 * seed. */
static gs_status seed_bits(bv *b, gs_error *err)
{
    const gs_seeds *s = &b->seeds;
    if (s->n_filtered == 0)
        return GS_OK;
    const uint32_t Q = GS_SEED_MAX;
    if ((b->any = gs_calloc((size_t)1 << (2 * Q - 6), 8, err, "bv seed bits")) == NULL)
        return GS_ESYS;
    for (uint32_t q = GS_SEED_MIN; q <= Q; q++) {
        if (s->off[q] == NULL)
            continue;
        size_t n_codes = (size_t)1 << 2 * q;
        if ((b->has[q] = gs_calloc(n_codes > 64 ? n_codes / 64 : 1, 8, err, "bv seed bits")) ==
            NULL)
            return GS_ESYS;
        for (size_t x = 0; x < n_codes; x++) {
            if (s->off[q][x] == s->off[q][x + 1])
                continue;
            b->has[q][x >> 6] |= 1ull << (x & 63);
            for (size_t p = 0; p < (size_t)1 << 2 * (Q - q); p++) { /* the residues before */
                size_t c = p << 2 * q | x;
                b->any[c >> 6] |= 1ull << (c & 63);
            }
        }
    }
    return GS_OK;
}

static gs_status bv_compile(const gs_keyset *ks, const gs_tune *tune, void **compiled,
                            gs_error *err)
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
    if (gs_seeds_build_planned(ks, tune, &b->seeds, err) != GS_OK || seed_bits(b, err) != GS_OK ||
        gs_zones_build(ks, &b->seeds, UINT32_MAX, tune, &b->zones, err) != GS_OK) {
        bv_destroy(b);
        return GS_ESYS;
    }
    *compiled = b;
    return GS_OK;
}

/* Per-scan state shared by the per-key loops. */
typedef struct scan_ctx {
    const gs_keyset *ks;
    const uint8_t *bits;
    size_t len, own, span;
    uint32_t K;
    uint32_t *col; /* m + 1 scratch */
    const gs_seeds *seeds;
    gs_match_out *out;
} scan_ctx;

static inline int base_index(uint8_t bit)
{
    /* 1,2,4,8 -> 0..3; 0 (non-base) -> 4 */
    static const int8_t ix[9] = {4, 0, 1, 4, 2, 4, 4, 4, 3};
    return ix[bit];
}

/* An end e (one past the last residue) with distance d of key k (within
 * the run's K, which may be over the key's own). With a zone (--exact-3p)
 * or bulges d is the best of any alignment, a lower bound: the end's
 * distance under the zone and the two budgets is found here, and may be
 * over K. */
static void report_edit(scan_ctx *c, uint32_t k, const uint8_t *key, uint32_t m, size_t e,
                        uint32_t d)
{
    int front;
    const uint32_t n = gs_key_zone(c->ks, k, &front), K = gs_key_k(c->ks, k), B = c->ks->bulges;
    uint32_t l;
    if (B)
        d = gs_bulge_end(key, m, n, front, c->bits, 0, e, K - B, B, &l);
    else if (n)
        d = gs_approx_zone_end(key, m, n, front, c->bits, e, K, c->col, &l);
    if (d > K)
        return;
    if (n == 0 && B == 0)
        l = gs_approx_edit_len(key, m, c->bits, e, d, c->col);
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
            score[g] += (uint32_t)gs_bv_edit_step64(peq[g][t], &pv[g], &mv[g], 0, high[g]);
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
        dp_column(col, m, 0, key, 0, c->bits[j]); /* row 0 is 0: a match may start anywhere */
        if (col[m] <= c->K)
            report_edit(c, k, key, m, j + 1, col[m]);
    }
}

/* A window of key k at text start s within the run's K mismatches:
 * reported when within the key's own K and its zone (--exact-3p) matches. */
static void report_mismatches(scan_ctx *c, uint32_t k, size_t s, uint32_t m, uint32_t d)
{
    int front;
    uint32_t n = gs_key_zone(c->ks, k, &front);
    if (d > gs_key_k(c->ks, k) ||
        (n && !gs_approx_zone_ok(gs_key(c->ks, k), m, n, front, c->bits + s)))
        return;
    if (gs_keyhits_push_approx(c->out->hits, k, s, m, (uint8_t)d))
        c->out->oom = 1;
}

static void mismatches_group(scan_ctx *c, const bv *b, const uint32_t *ids, uint32_t n)
{
    const gs_keyset *ks = b->ks;
    uint64_t peq[G][5] = {{0}}, cnt[G][5] = {{0}}; /* bv_step.h's counter planes */
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
            gs_bv_ham_step64(~peq[g][t], cnt[g]);
            unsigned sh = top[g];
            d[g] = gs_bv_ham_read64(cnt[g], sh);
            hit |= (uint32_t)(d[g] <= K && j >= sh) << g;
        }
        if (hit)
            for (uint32_t g = 0; g < n; g++)
                if (hit >> g & 1)
                    report_mismatches(c, ids[g], j + 1 - (top[g] + 1), top[g] + 1, d[g]);
    }
}

static void mismatches_long(scan_ctx *c, uint32_t k, const uint8_t *key, uint32_t m)
{
    size_t stop = c->own + c->span - 1 < c->len ? c->own + c->span - 1 : c->len;
    for (size_t s = 0; s + m <= stop; s++) {
        uint32_t d = 0;
        for (uint32_t i = 0; i < m && d <= c->K; i++)
            d += !(key[i] & c->bits[s + i]);
        if (d <= c->K)
            report_mismatches(c, k, s, m, d);
    }
}

/* An end found through a seed: (key, end, distance), deduplicated later. */
typedef struct cand {
    uint64_t end;
    uint32_t key, d;
} cand;

typedef struct cands {
    cand *v;
    size_t n, cap;
} cands;

static int cand_cmp(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Mismatches: the window of the seed, reported by its first exact seed only. */
static void verify_mismatches(scan_ctx *c, const gs_keyset *ks, const gs_seed *sd, size_t at,
                              size_t stop)
{
    const uint32_t K = gs_key_k(ks, sd->key), m = gs_key_len(ks, sd->key);
    if (at < sd->off || at - sd->off + m > stop)
        return;
    size_t s = at - sd->off;
    const uint8_t *key = gs_key(ks, sd->key);
    int front;
    uint32_t n = gs_key_zone(ks, sd->key, &front);
    if (n && !gs_approx_zone_ok(key, m, n, front, c->bits + s))
        return; /* the exact zone first: it rejects most seed occurrences */
    const uint32_t *piece = c->seeds->piece + c->seeds->at[sd->key];
    for (uint32_t r = 0; r < sd->rank; r++) { /* an earlier exact seed reports it */
        uint32_t o = piece[r] & 0xFFFF, q = piece[r] >> 16;
        if (gs_approx_matches(key + o, c->bits + s + o, q) == q)
            return;
    }
    uint32_t d = m - gs_approx_matches(key, c->bits + s, m);
    if (d <= K && gs_keyhits_push_approx(c->out->hits, sd->key, s, m, (uint8_t)d))
        c->out->oom = 1; /* the zone matched above */
}

/* Edits: the window of gs_seed_window. One window is one chain of
 * dependent steps, so up to G windows (of any keys) advance together, as in
 * edits_group; a lane past its window steps on a non-base and is ignored. */
typedef struct window {
    uint32_t key;
    size_t w0, lo, hi; /* steps from w0, ends lo + 1 .. hi are reported */
} window;

static window edit_window(const bv *b, const gs_seed *sd, size_t at, size_t stop)
{
    window w = {.key = sd->key};
    uint64_t w0, lo, hi;
    gs_seed_window(at, sd->off, gs_key_len(b->ks, sd->key), gs_key_k(b->ks, sd->key), stop, &w0,
                   &lo, &hi);
    w.w0 = (size_t)w0;
    w.lo = (size_t)lo;
    w.hi = (size_t)hi;
    return w;
}

static void verify_edits(scan_ctx *c, const bv *b, const window *w, uint32_t n, cands *out)
{
    enum { MAXW = 64 + 3 * 64 }; /* m + 3K, K < m <= 64 */
    uint64_t eq[MAXW][G], high[G], pv[G], mv[G];
    uint32_t score[G], K[G];
    size_t steps = 0;
    for (uint32_t g = 0; g < n; g++)
        steps = w[g].hi - w[g].w0 > steps ? w[g].hi - w[g].w0 : steps;
    for (uint32_t g = 0; g < G; g++) {
        uint32_t m = g < n ? gs_key_len(b->ks, w[g].key) : 64;
        size_t len = g < n ? w[g].hi - w[g].w0 : 0;
        const uint64_t *peq = g < n ? b->peq[w[g].key] : NULL;
        for (size_t s = 0; s < steps; s++)
            eq[s][g] = s < len ? peq[base_index(c->bits[w[g].w0 + s])] : 0;
        high[g] = 1ull << (m - 1);
        pv[g] = ~0ull;
        mv[g] = 0;
        score[g] = m;
        K[g] = g < n ? gs_key_k(b->ks, w[g].key) : 0; /* the window's, from that K */
    }
    for (size_t s = 0; s < steps; s++) {
        uint32_t hit = 0;
        for (uint32_t g = 0; g < G; g++) {
            score[g] += (uint32_t)gs_bv_edit_step64(eq[s][g], &pv[g], &mv[g], 0, high[g]);
            hit |= (uint32_t)(score[g] <= K[g]) << g;
        }
        for (uint32_t g = 0; hit && g < n; g++) {
            size_t j = w[g].w0 + s;
            if ((hit >> g & 1) && j >= w[g].lo && j < w[g].hi) {
                if (gs_grow(&out->v, &out->cap, out->n, sizeof *out->v, 256) != GS_OK) {
                    c->out->oom = 1;
                    return;
                }
                out->v[out->n++] = (cand){j + 1, w[g].key, score[g]};
            }
        }
    }
}

/* Every exact seed occurrence, verified; edit ends are deduplicated and
 * given their starts at the end. */
static void scan_filtered(scan_ctx *c, const bv *b)
{
    const gs_keyset *ks = b->ks;
    const int edits = ks->mode == GS_MATCH_EDITS;
    size_t stop = c->own + c->span - 1 < c->len ? c->own + c->span - 1 : c->len;
    uint32_t code = 0, valid = 0;
    cands cv = {0};
    window pend[G];
    uint32_t n_pend = 0;
    for (size_t j = 0; j < stop && !c->out->oom; j++) {
        int t = base_index(c->bits[j]);
        if (t == 4) {
            valid = 0;
            continue;
        }
        code = code << 2 | (uint32_t)t; /* the last 16 bases */
        valid++;
        if (valid >= GS_SEED_MAX) { /* an 8-mer: its bit says whether any seed ends here */
            uint32_t c8 = code & ((1u << 2 * GS_SEED_MAX) - 1);
            if (!(b->any[c8 >> 6] >> (c8 & 63) & 1))
                continue;
        }
        for (uint32_t q = GS_SEED_MIN; q <= GS_SEED_MAX && q <= valid; q++) {
            const uint32_t *off = b->seeds.off[q];
            uint32_t cq = code & (uint32_t)(((uint64_t)1 << (2 * q)) - 1);
            if (off == NULL || !(b->has[q][cq >> 6] >> (cq & 63) & 1))
                continue;
            for (uint32_t i = off[cq]; i < off[cq + 1]; i++) {
                const gs_seed *sd = &b->seeds.seeds[q][i];
                if (edits) {
                    pend[n_pend++] = edit_window(b, sd, j + 1 - q, stop);
                    if (n_pend == G) {
                        verify_edits(c, b, pend, n_pend, &cv);
                        n_pend = 0;
                    }
                } else
                    verify_mismatches(c, ks, sd, j + 1 - q, stop);
            }
        }
    }
    if (n_pend && !c->out->oom)
        verify_edits(c, b, pend, n_pend, &cv);
    if (cv.n > 1)
        qsort(cv.v, cv.n, sizeof *cv.v, cand_cmp);
    for (size_t i = 0; i < cv.n && !c->out->oom; i++)
        if (i == 0 || cv.v[i].key != cv.v[i - 1].key || cv.v[i].end != cv.v[i - 1].end)
            report_edit(c, cv.v[i].key, gs_key(ks, cv.v[i].key), gs_key_len(ks, cv.v[i].key),
                        cv.v[i].end, cv.v[i].d);
    free(cv.v);
}

/* The keys of one zone group at a text position p where their zone
 * matches: each counts the mismatches of the window that puts its zone
 * there, leaving off past its K. */
static void zoned_at(scan_ctx *c, const uint32_t *keys, uint32_t nk, uint32_t n, int front,
                     size_t p, size_t stop)
{
    const gs_keyset *ks = c->ks;
    for (uint32_t x = 0; x < nk; x++) {
        const uint32_t k = keys[x], m = gs_key_len(ks, k), K = gs_key_k(ks, k);
        const uint32_t lo = front ? n : 0, hi = front ? m : m - n; /* the core */
        const uint32_t before = front ? 0 : m - n;                 /* window start to zone */
        if (p < before || p - before + m > stop)
            continue; /* the window would leave the text */
        const size_t s = p - before;
        uint32_t d = hi - lo - gs_approx_matches(gs_key(ks, k) + lo, c->bits + s + lo, hi - lo);
        if (d <= K && gs_keyhits_push_approx(c->out->hits, k, s, m, (uint8_t)d))
            c->out->oom = 1;
    }
}

/* The keys of zones.h, a walk over the text per group. The zone's
 * first h <= 3 residues are tested as one code against a 64-bit mask of
 * the codes they stand for, so a position costs a shift and a bit test
 * (a byte-by-byte test mispredicts at one position in four); the rest of
 * the zone is tested only where they match. */
static void scan_zoned(scan_ctx *c, const bv *b)
{
    const gs_keyset *ks = b->ks;
    const size_t stop = c->own + c->span - 1 < c->len ? c->own + c->span - 1 : c->len;
    const gs_zones *zs = &b->zones;
    for (uint32_t r = 0; r < zs->n_runs && !c->out->oom; r++) {
        const uint32_t *keys = zs->keys + zs->run[r], nk = zs->run[r + 1] - zs->run[r];
        int front;
        const uint32_t n = gs_key_zone(ks, keys[0], &front), h = n < 3 ? n : 3;
        const uint8_t *z = gs_key(ks, keys[0]) + (front ? 0 : gs_key_len(ks, keys[0]) - n);
        uint64_t mask = 0; /* code x (first residue highest) of h residues z[0 .. h) takes */
        for (uint32_t x = 0; x < 1u << 2 * h; x++) {
            uint32_t i = 0;
            while (i < h && (z[i] >> (x >> 2 * (h - 1 - i) & 3) & 1))
                i++;
            mask |= (uint64_t)(i == h) << x;
        }
        uint32_t code = 0, valid = 0;
        for (size_t j = 0; j < stop && !c->out->oom; j++) { /* zone start p = j + 1 - h */
            int t = base_index(c->bits[j]);
            code = (code << 2 | (uint32_t)(t & 3)) & ((1u << 2 * h) - 1);
            valid = t == 4 ? 0 : valid + 1;
            if (valid < h || !(mask >> code & 1))
                continue;
            size_t p = j + 1 - h;
            uint32_t i = h;
            while (i < n && p + i < stop && (z[i] & c->bits[p + i]))
                i++;
            if (i == n)
                zoned_at(c, keys, nk, n, front, p, stop);
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
    scan_ctx c = {.ks = ks, .bits = bits, .len = len, .own = own, .span = ks->span, .K = ks->max_dist,
                  .col = col, .seeds = &b->seeds, .out = out};
    /* keys of <= 64 in groups of G (in key order: a group may skip a long key) */
    uint32_t group[G], n = 0;
    for (uint32_t k = 0; k < ks->n_keys && !out->oom; k++) {
        uint32_t m = gs_key_len(ks, k);
        const uint8_t *key = gs_key(ks, k);
        if ((b->seeds.filtered && b->seeds.filtered[k]) || (b->zones.zoned && b->zones.zoned[k]))
            continue; /* found through the seeds or the zones below */
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
    if (b->seeds.n_filtered && !out->oom)
        scan_filtered(&c, b);
    if (b->zones.n_runs && !out->oom)
        scan_zoned(&c, b);
done:
    free(bits);
    free(col);
}

const gs_engine gs_engine_bv = {
    .name = "bv",
    .summary = "bit-vector DP (Myers edits, bit-sliced Hamming): approximate matching",
    .caps = GS_CAP_APPROX,
    .gpu = "bv",
    .compile = bv_compile,
    .scan = bv_scan,
    .destroy = bv_destroy};
