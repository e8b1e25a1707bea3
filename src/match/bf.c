/* bf.c - brute force: the reference engine the tests trust.
 *
 * For every start, every key is compared symbol by symbol. The only
 * refinement is that keys are listed by their first symbol so a start only
 * tries the keys that can begin there; that keeps the tests with thousands of
 * keys quick without making the engine any less obviously right. Memory: one
 * key id per key.
 *
 * Approximate keysets: for every key and every start s, the full DP of the
 * key against the text from s gives the distance of every substring starting
 * there; each end keeps the smallest distance met and, walking starts upward,
 * the first start that met it (contract §1's definition, read literally).
 * Mismatches count every window. Nothing is shared with the fast engines but
 * the text's base bits.
 */
#include "approx.h"

#include <stdlib.h>
#include <string.h>

typedef struct bf {
    gs_match_mode mode;
    uint32_t max_dist, span, bulges;
    gs_keyset ks;         /* a private copy of the keys (offsets, bytes, zones only) */
    uint32_t first[257];  /* keys whose first symbol is c: ids[first[c] .. first[c+1]) */
    uint32_t *ids;
} bf;

static void bf_destroy(void *p)
{
    bf *b = p;
    if (b == NULL)
        return;
    free(b->ids);
    free(b->ks.key_off);
    free(b->ks.key_bytes);
    free(b->ks.zone);
    free(b->ks.key_k);
    free(b);
}

static gs_status bf_compile(const gs_keyset *ks, const gs_tune *tune, void **compiled,
                            gs_error *err)
{
    (void)tune;
    bf *b = gs_calloc(1, sizeof *b, err, "bf engine");
    if (b == NULL)
        return GS_ESYS;
    b->mode = ks->mode;
    b->max_dist = ks->max_dist;
    b->bulges = ks->bulges;
    b->span = ks->span;
    b->ks.alphabet = ks->alphabet;
    b->ks.n_keys = ks->n_keys;
    size_t nb = ks->key_off[ks->n_keys], no = ((size_t)ks->n_keys + 1) * sizeof *ks->key_off;
    b->ks.key_off = gs_malloc(no, err, "bf engine");
    b->ks.key_bytes = gs_malloc(nb, err, "bf engine");
    b->ids = gs_malloc((size_t)(ks->n_keys ? ks->n_keys : 1) * sizeof *b->ids, err, "bf engine");
    if (ks->zone && (b->ks.zone = gs_malloc(ks->n_keys * sizeof *ks->zone, err, "bf engine")))
        memcpy(b->ks.zone, ks->zone, ks->n_keys * sizeof *ks->zone);
    if (ks->key_k && (b->ks.key_k = gs_malloc(ks->n_keys, err, "bf engine")))
        memcpy(b->ks.key_k, ks->key_k, ks->n_keys);
    b->ks.max_dist = ks->max_dist;
    if (b->ids == NULL || b->ks.key_off == NULL || b->ks.key_bytes == NULL ||
        (ks->zone && b->ks.zone == NULL) || (ks->key_k && b->ks.key_k == NULL)) {
        bf_destroy(b);
        return GS_ESYS;
    }
    memcpy(b->ks.key_off, ks->key_off, no);
    memcpy(b->ks.key_bytes, ks->key_bytes, nb);
    uint32_t fill[257] = {0};
    for (uint32_t k = 0; k < ks->n_keys && ks->mode == GS_MATCH_EXACT; k++)
        b->first[gs_key(ks, k)[0] + 1]++;
    for (int c = 0; c < 256; c++)
        b->first[c + 1] += b->first[c];
    memcpy(fill, b->first, sizeof fill);
    for (uint32_t k = 0; k < ks->n_keys && ks->mode == GS_MATCH_EXACT; k++)
        b->ids[fill[gs_key(ks, k)[0]]++] = k;
    *compiled = b;
    return GS_OK;
}

/* --max-bulges, read literally: from start s, D[i][l][b] = the fewest
 * mismatches of key[0 .. i) against text[s .. s + l) with b bulge residues,
 * forwards (bulge.h runs backwards from the end); a zone's residues are
 * matched columns and no text residue lies inside the zone or before
 * (front) or after (else) it. Each end keeps its smallest distance
 * (mismatches + b) and the first start that met it. dp: (m + 1) x (m + B +
 * 1) x (B + 1) bytes. */
static void bf_bulges_from(const uint8_t *key, uint32_t m, uint32_t z, int front, uint32_t K,
                           uint32_t B, const uint8_t *bits, size_t s, size_t stop, uint8_t *dp,
                           uint8_t *best, size_t *from)
{
    const uint32_t L = m + B, zlo = front ? 0 : m - z;
    enum { NO = 0xff };
#define D(i, l, b) dp[((size_t)(i) * (L + 1) + (l)) * (B + 1) + (b)]
    memset(dp, NO, (size_t)(m + 1) * (L + 1) * (B + 1));
    D(0, 0, 0) = 0;
    for (uint32_t i = 0; i <= m; i++)
        for (uint32_t l = 0; l <= L && s + l <= stop; l++)
            for (uint32_t b = 0; b <= B; b++) {
                uint32_t v = i == 0 && l == 0 && b == 0 ? 0 : NO;
                int inzone = i > 0 && z > 0 && i - 1 >= zlo && i - 1 < zlo + z;
                if (i > 0 && l > 0 && D(i - 1, l - 1, b) != NO) {
                    uint32_t x = (key[i - 1] & bits[s + l - 1]) == 0;
                    if (!(inzone && x) && D(i - 1, l - 1, b) + x < v)
                        v = D(i - 1, l - 1, b) + x;
                }
                if (i > 0 && b > 0 && !inzone && D(i - 1, l, b - 1) < v)
                    v = D(i - 1, l, b - 1); /* key[i - 1] against no text */
                /* text[s + l - 1] against no key residue, between key[i - 1] and key[i] */
                int gap_ok = z == 0 || (front ? i >= z : i <= m - z);
                if (l > 0 && b > 0 && gap_ok && D(i, l - 1, b - 1) < v)
                    v = D(i, l - 1, b - 1);
                D(i, l, b) = (uint8_t)(v <= K ? v : NO);
            }
    for (uint32_t l = 0; l <= L && s + l <= stop; l++)
        for (uint32_t b = 0; b <= B; b++)
            if (D(m, l, b) != NO && D(m, l, b) + b < best[s + l]) {
                best[s + l] = (uint8_t)(D(m, l, b) + b);
                from[s + l] = s;
            }
#undef D
}

/* The hits of key k: each end within K, from its first start. 1: out of memory. */
static int push_best(gs_match_out *out, uint32_t k, const uint8_t *best, const size_t *from,
                     size_t stop, uint32_t K)
{
    for (size_t e = 1; e <= stop; e++)
        if (best[e] <= K &&
            gs_keyhits_push_approx(out->hits, k, from[e], (uint32_t)(e - from[e]), best[e]))
            return 1;
    return 0;
}

/* Ends e <= len with e - span < own (engine.h). */
static void bf_scan_approx(const bf *b, const uint8_t *text, size_t len, size_t own,
                           gs_match_out *out)
{
    const gs_keyset *ks = &b->ks;
    size_t stop = own + b->span - 1 < len ? own + b->span - 1 : len;
    uint8_t *bits = malloc(len + 1), *best = malloc(stop + 1);
    size_t *from = malloc((stop + 1) * sizeof *from);
    uint32_t *col = NULL;
    if (bits == NULL || best == NULL || from == NULL)
        goto oom;
    gs_approx_text_bits(text, len, bits);
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        const uint8_t *key = gs_key(ks, k);
        const uint32_t m = gs_key_len(ks, k), K = gs_key_k(ks, k);
        int front;
        const uint32_t z = gs_key_zone(ks, k, &front), zlo = front ? 0 : m - z;
        if (b->mode == GS_MATCH_MISMATCHES) {
            for (size_t s = 0; s + m <= stop; s++) {
                uint32_t d = 0, zbad = 0;
                for (uint32_t i = 0; i < m; i++) {
                    d += (key[i] & bits[s + i]) == 0;
                    zbad |= i >= zlo && i < zlo + z && (key[i] & bits[s + i]) == 0;
                }
                if (d <= K && !zbad && gs_keyhits_push_approx(out->hits, k, s, m, (uint8_t)d))
                    goto oom;
            }
            continue;
        }
        free(col);
        if ((col = malloc(((size_t)m + 1) * sizeof *col)) == NULL)
            goto oom;
        memset(best, 0xff, stop + 1);
        if (b->bulges) { /* the key's K is K + B: its mismatches are K */
            uint8_t *dp = malloc((size_t)(m + 1) * (m + b->bulges + 1) * (b->bulges + 1));
            if (dp == NULL)
                goto oom;
            for (size_t s = 0; s < stop; s++)
                bf_bulges_from(key, m, z, front, K - b->bulges, b->bulges, bits, s, stop, dp,
                               best, from);
            free(dp);
            if (push_best(out, k, best, from, stop, K))
                goto oom;
            continue;
        }
        /* With a zone of z residues (--exact-3p) an alignment is the zone
         * matched residue by residue beside the rest of the key (the core,
         * key[cb .. cb + c)), which aligns to the text between: before the
         * zone's text when it ends the key, after it when it leads. */
        const uint32_t c = m - z, cb = front ? z : 0, pre = front ? z : 0, post = front ? 0 : z;
        for (size_t s = 0; s < stop; s++) {
            uint32_t zi = 0;
            while (front && zi < z && s + zi < stop && (key[zi] & bits[s + zi]))
                zi++;
            if (front && zi < z)
                continue; /* the zone does not lead here */
            /* D[i][l] = distance of core[0 .. i) to text[s + pre .. s + pre + l), by columns l */
            for (uint32_t i = 0; i <= c; i++)
                col[i] = i;
            for (size_t l = 0; s + pre + l + post <= stop && l <= (size_t)c + K; l++) {
                if (l > 0) {
                    uint32_t diag = col[0];
                    col[0] = (uint32_t)l;
                    for (uint32_t i = 1; i <= c; i++) {
                        uint32_t v = diag + ((key[cb + i - 1] & bits[s + pre + l - 1]) == 0);
                        if (col[i] + 1 < v)
                            v = col[i] + 1;
                        if (col[i - 1] + 1 < v)
                            v = col[i - 1] + 1;
                        diag = col[i];
                        col[i] = v;
                    }
                }
                size_t e = s + pre + l + post;
                uint32_t zj = 0;
                while (zj < post && (key[c + zj] & bits[e - post + zj]))
                    zj++;
                if (zj == post && col[c] <= K && col[c] < best[e]) {
                    best[e] = (uint8_t)col[c];
                    from[e] = s;
                }
            }
        }
        if (push_best(out, k, best, from, stop, K))
            goto oom;
    }
    goto done;
oom:
    out->oom = 1;
done:
    free(bits);
    free(best);
    free(from);
    free(col);
}

static void bf_scan(const void *compiled, const uint8_t *text, size_t len, size_t own,
                    gs_match_out *out)
{
    const bf *b = compiled;
    const gs_keyset *ks = &b->ks;
    if (b->mode != GS_MATCH_EXACT) {
        if (own > len)
            own = len;
        if (own > 0 && out->hits)
            bf_scan_approx(b, text, len, own, out);
        return;
    }
    int dna = ks->alphabet == GS_ALPHA_DNA;
    if (own > len)
        own = len;
    for (size_t i = 0; i < own; i++) {
        unsigned c0 = dna ? gs_dna_code[text[i]] : text[i];
        if (dna && c0 == GS_NONBASE)
            continue;
        for (uint32_t j = b->first[c0]; j < b->first[c0 + 1]; j++) {
            uint32_t k = b->ids[j], n = gs_key_len(ks, k);
            const uint8_t *key = gs_key(ks, k);
            if (n > len - i)
                continue;
            uint32_t x = 0;
            if (dna)
                while (x < n && gs_dna_code[text[i + x]] == key[x])
                    x++;
            else
                while (x < n && text[i + x] == key[x])
                    x++;
            if (x < n)
                continue;
            out->key_counts[k]++;
            if (out->hits && gs_keyhits_push(out->hits, k, i) != GS_OK)
                out->oom = 1;
        }
    }
}

const gs_engine gs_engine_bf = {
    .name = "bf",
    .summary = "brute force, the test reference (slow)",
    .caps = GS_CAP_EXACT | GS_CAP_APPROX,
    .gpu = NULL,
    .for_tests = 1,
    .compile = bf_compile,
    .scan = bf_scan,
    .destroy = bf_destroy};
