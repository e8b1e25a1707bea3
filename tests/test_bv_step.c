/* test_bv_step.c - the bit-vector steps of bv_step.h, shared by the CPU
 * engine and the GPU kernels, against a plain DP, on the CPU.
 *
 * The GPU engine cannot be run here, so its logic is checked where it can
 * be: every word step it uses, the start DP it runs per hit, and the
 * schedules of bv.cuh replayed on the CPU with the same steps: one word per
 * key; the wavefront of G lanes of R words where lane l takes residue t - l
 * at step t with its upper neighbour's delta of step t - 1; pieces of text
 * whose DP starts m + K residues early (m - 1 for mismatches); the seed
 * filter kernel (gs_bv_filter): chunks with their margins, per-thread
 * cursors through the flat tables, a small queue that overflows, windows
 * verified with seeds.h's steps, duplicates removed as the device does.
 * The GPU's end DP under --exact-3p (gs_bv_zone_end64) against the CPU
 * engine's scalar one (gs_approx_zone_end), whose results test_approx
 * checks against the brute force. Keys are random base sets (IUPAC),
 * texts random with N runs and lowercase.
 */
#include "match/approx.h"
#include "match/bv_step.h"
#include "match/keyset.h"
#include "match/seeds.h"
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

/* ---- the seed filter kernel, replayed ------------------------------------ */

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct raw {
    uint64_t *v;
    size_t n, cap;
} raw;

static void raw_push(raw *r, uint32_t e, uint32_t d, uint32_t k)
{
    if (gs_grow(&r->v, &r->cap, r->n, sizeof *r->v, 256))
        abort();
    r->v[r->n++] = (uint64_t)e << 32 | d << 27 | k; /* gs_bv_hit's raw hit */
}

/* gs_bv_filter over ends 1 .. stop of text, blocks of `threads` threads,
 * a queue of qcap candidates (the kernel: GS_BV_QCAP, 256 threads); the
 * threads of a round take their turns in order, one order atomics allow. */
static void replay_filter(const gs_keyset *ks, const gs_seeds *sd, const uint32_t *tab,
                          const uint32_t *ent, const uint8_t *text, uint32_t stop, uint32_t chunk,
                          uint32_t threads, uint32_t qcap, raw *out)
{
    enum { MAXT = 64 };
    const uint32_t K = ks->max_dist, edits = ks->mode == GS_MATCH_EDITS;
    const uint32_t pre = sd->max_len - 1 + 2 * K;
    const uint32_t post = sd->max_len + K > GS_SEED_MAX ? sd->max_len + K : GS_SEED_MAX;
    uint32_t (*queue)[2] = malloc(qcap * sizeof *queue);
    uint8_t *tx = malloc((size_t)chunk + pre + post);
    for (uint32_t c0 = 0; c0 < stop; c0 += chunk) {
        const uint32_t c1 = c0 + chunk < stop ? c0 + chunk : stop;
        const uint32_t t0 = c0 > pre ? c0 - pre : 0, t1 = c1 + post < stop ? c1 + post : stop;
        for (uint32_t i = t0; i < t1; i++)
            tx[i - t0] = (uint8_t)gs_bv_code(text[i]);
        uint32_t p[MAXT];
        gs_seed_cursor cur[MAXT];
        int have[MAXT] = {0};
        for (uint32_t t = 0; t < threads; t++)
            p[t] = c0 + t;
        for (;;) {
            uint32_t qn = 0, n;
            for (;;) {
                for (uint32_t t = 0; t < threads; t++) {
                    int full = 0;
                    while (p[t] < c1 && !full) {
                        if (!have[t]) {
                            gs_seed_start(&cur[t], tx + (p[t] - t0), t1 - p[t]);
                            have[t] = 1;
                        }
                        if (!gs_seed_next(&cur[t], tab)) {
                            p[t] += threads;
                            have[t] = 0;
                            break;
                        }
                        uint32_t want = cur[t].e - cur[t].i, slot = qn;
                        qn += want;
                        uint32_t take = slot < qcap ? (want < qcap - slot ? want : qcap - slot) : 0;
                        for (uint32_t j = 0; j < take; j++) {
                            queue[slot + j][0] = p[t];
                            queue[slot + j][1] = cur[t].i + j;
                        }
                        cur[t].i += take;
                        full = take < want;
                    }
                }
                int more = 0;
                for (uint32_t t = 0; t < threads; t++)
                    more |= p[t] < c1;
                n = qn < qcap ? qn : qcap;
                if (!more || n >= qcap / 2)
                    break;
            }
            for (uint32_t i = 0; i < n; i++) { /* gs_bv_verify */
                const uint32_t at = queue[i][0], k = ent[2 * queue[i][1]];
                const uint32_t off = ent[2 * queue[i][1] + 1] & 0xFFFF;
                const uint32_t rank = ent[2 * queue[i][1] + 1] >> 16, m = gs_key_len(ks, k);
                if (!edits) {
                    if (at < off || at - off + m > stop)
                        continue;
                    uint32_t s = at - off;
                    CHECKF(s >= t0 && s + m <= t1, "mismatch window outside the block's text");
                    uint32_t d = gs_seed_mismatches(gs_key(ks, k), m, K, rank, tx + (s - t0));
                    if (d <= K)
                        raw_push(out, s + m, d, k);
                    continue;
                }
                uint64_t w0, lo, hi, pq[4];
                gs_seed_window(at, off, m, K, stop, &w0, &lo, &hi);
                CHECKF(w0 >= t0 && hi <= t1 && lo >= w0, "edit window %llu..%llu outside %u..%u",
                       (unsigned long long)w0, (unsigned long long)hi, t0, t1);
                make_peq(gs_key(ks, k), m, pq, NULL);
                gs_seed_ends r;
                if (m <= 32) {
                    uint32_t p32[4] = {(uint32_t)pq[0], (uint32_t)pq[1], (uint32_t)pq[2],
                                       (uint32_t)pq[3]};
                    r = gs_seed_edits32(p32, m, K, tx + (w0 - t0), (uint32_t)(hi - w0),
                                        (uint32_t)(lo - w0));
                } else {
                    r = gs_seed_edits64(pq, m, K, tx + (w0 - t0), (uint32_t)(hi - w0),
                                        (uint32_t)(lo - w0));
                }
                while (r.mask) {
                    uint32_t b = (uint32_t)__builtin_ctz(r.mask);
                    r.mask &= r.mask - 1;
                    raw_push(out, (uint32_t)lo + 1 + b, gs_seed_end_dist(&r, b), k);
                }
            }
            int more = 0;
            for (uint32_t t = 0; t < threads; t++)
                more |= p[t] < c1;
            if (!more)
                break;
        }
    }
    free(queue);
    free(tx);
}

/* The filter's hits (sorted, duplicates removed) against every end of every
 * filtered key by the plain DP or a direct count. */
static void check_filter(gs_match_mode mode, uint32_t K, int degenerate)
{
    gs_patset ps = {0};
    const uint32_t n_pat = 6 + rnd(6), n = 1200 + rnd(900);
    uint8_t *text = malloc(n), *bits = malloc(n);
    random_text(text, n, 0);
    for (uint32_t i = 0; i < n_pat; i++) {
        uint32_t m = 4 * (K + 1) + rnd(mode == GS_MATCH_EDITS ? 65 - 4 * (K + 1) : 90);
        char s[160];
        for (uint32_t j = 0; j < m; j++)
            s[j] = degenerate && rnd(6) == 0 ? "RYSWKMN"[rnd(7)] : "ACGT"[rnd(4)];
        if (i == 0) /* a common seed: many entries at many positions */
            memset(s, 'A', m < 12 ? m : 12);
        gs_test_add_pattern(&ps, s, m, 0);
        for (int c = 0; c < 3; c++) { /* planted with 0 .. K + 1 changes */
            uint8_t cp[200];
            uint32_t l = 0, changes = rnd(K + 2);
            for (uint32_t j = 0; j < m; j++) {
                static const char *const sets[] = {"AG", "CT", "GC", "AT", "GT", "AC", "ACGT"};
                const char *base = strchr("ACGT", s[j]);
                cp[l++] = base ? (uint8_t)*base
                               : (uint8_t)sets[strchr("RYSWKMN", s[j]) - "RYSWKMN"][rnd(2)];
            }
            for (uint32_t x = 0; x < changes; x++) {
                uint32_t at = rnd(l), kind = mode == GS_MATCH_EDITS ? rnd(3) : 0;
                if (kind == 0)
                    cp[at] = (uint8_t)"ACGT"[rnd(4)];
                else if (kind == 1 && l > 1)
                    memmove(cp + at, cp + at + 1, --l - at);
                else if (kind == 2) {
                    memmove(cp + at + 1, cp + at, l++ - at);
                    cp[at] = (uint8_t)"ACGT"[rnd(4)];
                }
            }
            memcpy(text + rnd(n - l), cp, l);
        }
    }
    for (uint32_t i = 100; i < 160; i++) /* a poly-A run for the common seed */
        text[i] = 'A';
    gs_keyset ks;
    gs_seeds sd;
    gs_error err = {0};
    uint32_t *tab = NULL, *ent = NULL;
    size_t n_tab, n_ent;
    if (gs_keyset_build_approx(&ps, 1, mode, K, &ks, &err) != GS_OK ||
        gs_seeds_build(&ks, NULL, &sd, &err) != GS_OK) {
        CHECKF(0, "keyset: %s", err.msg);
        exit(1);
    }
    if (sd.n_filtered == 0 || gs_seeds_flatten(&sd, &tab, &n_tab, &ent, &n_ent, &err) != GS_OK) {
        CHECKF(0, "no key filtered (%s)", mode == GS_MATCH_EDITS ? "edits" : "mismatches");
        gs_seeds_free(&sd);
        gs_keyset_free(&ks);
        gs_patset_free(&ps);
        free(text);
        free(bits);
        return;
    }
    /* the reference */
    raw want = {0};
    gs_approx_text_bits(text, n, bits);
    const uint32_t stop = n - rnd(ks.span); /* a segment's stop: own + span - 1 */
    uint32_t *best = malloc(n * sizeof *best);
    for (uint32_t k = 0; k < ks.n_keys; k++) {
        if (!sd.filtered[k])
            continue;
        const uint8_t *key = gs_key(&ks, k);
        uint32_t m = gs_key_len(&ks, k);
        if (mode == GS_MATCH_EDITS) {
            dp_best(key, m, bits, stop, best);
            for (uint32_t j = 0; j < stop; j++)
                if (best[j] <= K)
                    raw_push(&want, j + 1, best[j], k);
        } else {
            for (uint32_t s = 0; s + m <= stop; s++) {
                uint32_t d = 0;
                for (uint32_t x = 0; x < m; x++)
                    d += !(key[x] & bits[s + x]);
                if (d <= K)
                    raw_push(&want, s + m, d, k);
            }
        }
    }
    qsort(want.v, want.n, sizeof *want.v, u64_cmp);

    static const uint32_t chunks[] = {1, 7, 64, 4096}, thr[] = {1, 5, 32, 64}, qc[] = {2, 7, 64};
    for (int c = 0; c < 4; c++) {
        raw got = {0};
        replay_filter(&ks, &sd, tab, ent, text, stop, chunks[c], thr[(c + rnd(4)) % 4], qc[rnd(3)],
                      &got);
        qsort(got.v, got.n, sizeof *got.v, u64_cmp);
        size_t u = 0; /* DeviceSelect::Unique */
        for (size_t i = 0; i < got.n; i++)
            if (i == 0 || got.v[i] != got.v[i - 1])
                got.v[u++] = got.v[i];
        if (mode == GS_MATCH_MISMATCHES)
            CHECKF(u == got.n, "mismatch hits reported twice (%zu of %zu)", got.n - u, got.n);
        int ok = u == want.n && (u == 0 || memcmp(got.v, want.v, u * 8) == 0);
        CHECKF(ok, "filter %s K=%u chunk %u: %zu hits, expected %zu",
               mode == GS_MATCH_EDITS ? "edits" : "mismatches", K, chunks[c], u, want.n);
        free(got.v);
    }
    free(want.v);
    free(best);
    free(tab);
    free(ent);
    gs_seeds_free(&sd);
    gs_keyset_free(&ks);
    gs_patset_free(&ps);
    free(text);
    free(bits);
}

/* gs_bv_zone_end64 = gs_approx_zone_end at every end, both zone sides,
 * zones of 1 .. m residues. */
static void check_zone(uint32_t m, size_t n, int two)
{
    uint8_t key[64], *t = malloc(n), *bits = malloc(n);
    uint64_t wpeq[4], rpeq[4];
    uint32_t col[65];
    random_key(key, m);
    make_peq(key, m, wpeq, rpeq);
    random_text(t, n, two);
    for (size_t i = 0; i + m <= n && i < n / 2; i += 1 + rnd(8)) /* copies of the key */
        for (uint32_t j = 0; j < m; j++)
            if (rnd(5))
                t[i + j] = "ACGT"[__builtin_ctz(key[j])];
    gs_approx_text_bits(t, n, bits);
    for (uint32_t K = 0; K < m && K <= 4; K++)
        for (uint32_t z = 1; z <= m; z += 1 + z / 3)
            for (int front = 0; front <= 1; front++)
                for (size_t e = 0; e <= n; e++) {
                    uint32_t la = 0, lb = 0;
                    uint32_t a = gs_approx_zone_end(key, m, z, front, bits, e, K, col, &la);
                    uint32_t b = gs_bv_zone_end64(rpeq, key, m, z, front, t, e, K, &lb);
                    CHECKF(a == b && (a > K || la == lb),
                           "zone m=%u z=%u front=%d K=%u e=%zu: %u/%u, expected %u/%u", m, z,
                           front, K, e, b, lb, a, la);
                }
    free(t);
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
    for (int rep = 0; rep < 6; rep++)
        for (uint32_t K = 0; K <= 4; K++) {
            check_filter(GS_MATCH_EDITS, K, rep & 1);
            check_filter(GS_MATCH_MISMATCHES, K, rep & 1);
        }
    for (uint32_t m = 1; m <= 64; m += 1 + m / 4)
        check_zone(m, 150, m & 1);
    return gs_test_done("test_bv_step");
}
