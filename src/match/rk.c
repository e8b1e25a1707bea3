/* rk.c - Rabin-Karp: one rolling window per distinct key length.
 *
 * Keys are grouped by length; each group scans the text once with a window of
 * that length and looks the window up in a table of the group's keys:
 *  - direct: dna lengths <= 10 (4^L entries, 4 MiB at most) and bytes lengths
 *    1 and 2: the packed window is the index, one load per position;
 *  - packed: dna lengths <= 32 and bytes lengths <= 8: the window packed
 *    exactly into 64 bits (2 or 8 bits a symbol) is the hash-table key, so a
 *    table hit is a match and nothing is verified;
 *  - rolling: longer keys: a polynomial rolling hash (mod 2^64) finds
 *    candidates that are then compared with the key.
 * In dna mode a non-base restarts the window (a run counter says when it is
 * full again). The loads of one group do not depend on each other, so the
 * scan of a single-length k-mer set (the usual case) runs close to memory
 * speed; many distinct lengths cost one pass each, which is when ac wins.
 *
 * Each group scans ends up to own + L - 1, so every start it reports is < own.
 * Memory: direct 4 bytes * 4^L (or 256 / 65536), hashed 12 bytes per slot at
 * load <= 1/2, plus a copy of the keys for verification.
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define DIRECT_MAX_DNA 10

enum { K_DIRECT, K_PACKED, K_ROLL };

typedef struct group {
    uint32_t L;
    int kind;
    uint32_t *direct;  /* K_DIRECT: [1 << bits] key ids */
    uint64_t *present; /* K_DIRECT: one bit per entry, a filter 32 times smaller;
                        * otherwise a hashed filter of >= 16 bits a key (L2-sized
                        * for 10^5 keys where the table itself would miss cache) */
    int fshift;        /* hashed filter: 64 - log2(filter bits) */
    uint64_t *hkey;    /* K_PACKED: packed window; K_ROLL: rolling hash */
    uint32_t *hid;     /* key id per slot, NONE = empty */
    uint64_t hmask;    /* slots - 1 */
    int hshift;        /* 64 - log2(slots) */
    uint64_t pow;      /* K_ROLL: P^(L-1) */
} group;

typedef struct rk {
    int dna;
    uint32_t n_groups;
    group *g;
    uint64_t *key_off; /* a copy of the keys, for verification */
    uint8_t *key_bytes;
} rk;

static const uint64_t P = 0x100000001b3ULL * 2 + 1; /* odd: a unit mod 2^64 */

static inline uint64_t mix(uint64_t x) { return x * 0x9e3779b97f4a7c15ULL; }

static void rk_destroy(void *p)
{
    rk *r = p;
    if (r == NULL)
        return;
    for (uint32_t i = 0; i < r->n_groups; i++) {
        free(r->g[i].direct);
        free(r->g[i].present);
        free(r->g[i].hkey);
        free(r->g[i].hid);
    }
    free(r->g);
    free(r->key_off);
    free(r->key_bytes);
    free(r);
}

/* The value of key k as the group's window would see it. */
static uint64_t key_value(const rk *r, const group *gr, const uint8_t *key)
{
    uint64_t v = 0;
    if (gr->kind == K_ROLL) {
        for (uint32_t j = 0; j < gr->L; j++)
            v = v * P + key[j] + 1;
        return v;
    }
    for (uint32_t j = 0; j < gr->L; j++)
        v = r->dna ? (v << 2 | key[j]) : (v << 8 | key[j]);
    return v;
}

static gs_status rk_compile(const gs_keyset *ks, const gs_tune *tune, void **compiled,
                            gs_error *err)
{
    (void)tune;
    gs_status st = GS_ESYS;
    uint32_t *len_count = NULL, *len_group = NULL;
    rk *r = gs_calloc(1, sizeof *r, err, "rk engine");
    if (r == NULL)
        return GS_ESYS;
    r->dna = ks->alphabet == GS_ALPHA_DNA;
    size_t nb = ks->key_off[ks->n_keys], no = ((size_t)ks->n_keys + 1) * sizeof *ks->key_off;
    r->key_off = gs_malloc(no, err, "rk keys");
    r->key_bytes = gs_malloc(nb, err, "rk keys");
    len_count = gs_calloc((size_t)ks->max_len + 1, sizeof *len_count, err, "rk groups");
    len_group = gs_malloc(((size_t)ks->max_len + 1) * sizeof *len_group, err, "rk groups");
    if (!r->key_off || !r->key_bytes || !len_count || !len_group)
        goto fail;
    memcpy(r->key_off, ks->key_off, no);
    memcpy(r->key_bytes, ks->key_bytes, nb);
    for (uint32_t k = 0; k < ks->n_keys; k++)
        len_count[gs_key_len(ks, k)]++;
    for (uint32_t L = 1; L <= ks->max_len; L++)
        if (len_count[L])
            r->n_groups++;
    r->g = gs_calloc(r->n_groups ? r->n_groups : 1, sizeof *r->g, err, "rk groups");
    if (r->g == NULL)
        goto fail;
    uint32_t gi = 0;
    for (uint32_t L = 1; L <= ks->max_len; L++) {
        if (!len_count[L])
            continue;
        group *gr = &r->g[gi];
        len_group[L] = gi++;
        gr->L = L;
        if (r->dna)
            gr->kind = L <= DIRECT_MAX_DNA ? K_DIRECT : L <= 32 ? K_PACKED : K_ROLL;
        else
            gr->kind = L <= 2 ? K_DIRECT : L <= 8 ? K_PACKED : K_ROLL;
        if (gr->kind == K_DIRECT) {
            size_t size = (size_t)1 << (r->dna ? 2 * L : 8 * L);
            gr->direct = gs_malloc(size * sizeof *gr->direct, err, "rk table");
            gr->present = gs_calloc(size / 64 + 1, sizeof *gr->present, err, "rk table");
            if (gr->direct == NULL || gr->present == NULL)
                goto fail;
            memset(gr->direct, 0xff, size * sizeof *gr->direct);
        } else {
            uint64_t slots = 16;
            int bits = 4;
            while (slots < (uint64_t)len_count[L] * 2) {
                slots *= 2;
                bits++;
            }
            gr->hmask = slots - 1;
            gr->hshift = 64 - bits;
            gr->hkey = gs_malloc(slots * sizeof *gr->hkey, err, "rk table");
            gr->hid = gs_malloc(slots * sizeof *gr->hid, err, "rk table");
            uint64_t fb = 1u << 12;
            int fl = 12;
            while (fb < (uint64_t)len_count[L] * 16) {
                fb *= 2;
                fl++;
            }
            gr->fshift = 64 - fl;
            gr->present = gs_calloc(fb / 64, sizeof *gr->present, err, "rk filter");
            if (!gr->hkey || !gr->hid || !gr->present)
                goto fail;
            memset(gr->hid, 0xff, slots * sizeof *gr->hid);
            gr->pow = 1;
            for (uint32_t j = 1; j < L; j++)
                gr->pow *= P;
        }
    }
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        group *gr = &r->g[len_group[gs_key_len(ks, k)]];
        uint64_t v = key_value(r, gr, gs_key(ks, k));
        if (gr->kind == K_DIRECT) {
            gr->direct[v] = k;
            gr->present[v >> 6] |= 1ULL << (v & 63);
        } else {
            uint64_t f = mix(v) >> gr->fshift, h = mix(v) >> gr->hshift;
            gr->present[f >> 6] |= 1ULL << (f & 63);
            while (gr->hid[h] != NONE)
                h = (h + 1) & gr->hmask;
            gr->hkey[h] = v;
            gr->hid[h] = k;
        }
    }
    *compiled = r;
    r = NULL;
    st = GS_OK;
fail:
    free(len_count);
    free(len_group);
    rk_destroy(r);
    return st;
}

static inline void emit(gs_match_out *out, uint32_t k, size_t start)
{
    out->key_counts[k]++;
    if (out->hits && gs_keyhits_push(out->hits, k, start) != GS_OK)
        out->oom = 1;
}

static inline uint32_t packed_find(const group *gr, uint64_t v)
{
    uint64_t h = mix(v) >> gr->hshift;
    for (;; h = (h + 1) & gr->hmask) {
        uint32_t id = gr->hid[h];
        if (id == NONE || gr->hkey[h] == v)
            return id;
    }
}

/* One group's DNA scan, its table's kind a constant where it is inlined:
 * each kind gets a loop of its own, with no test of the kind a residue. A
 * run of bases shorter than L since the last non-base starts no hit. */
static inline __attribute__((always_inline)) void
scan_dna_kind(const group *gr, const uint8_t *t, size_t end, gs_match_out *out, const int direct)
{
    const uint32_t L = gr->L, shift = gr->fshift;
    const uint64_t mask = L == 32 ? ~0ULL : ((1ULL << (2 * L)) - 1);
    const uint64_t *bits = gr->present; /* held here: an emit's store may alias gr */
    const uint32_t *tab = gr->direct;
    uint64_t w = 0;
    size_t run = 0;
    for (size_t e = 0; e < end; e++) {
        uint32_t c = gs_dna_code[t[e]];
        if (__builtin_expect(c == GS_NONBASE, 0)) {
            run = 0;
            continue;
        }
        w = w << 2 | c;
        const uint64_t x = w & mask;
        if (++run < L)
            continue;
        if (direct) { /* its bit is a hit, rare */
            if (__builtin_expect(bits[x >> 6] >> (x & 63) & 1, 0))
                emit(out, tab[x], e + 1 - L);
        } else { /* its bit is a candidate */
            const uint64_t f = mix(x) >> shift;
            if (bits[f >> 6] >> (f & 63) & 1) {
                const uint32_t k = packed_find(gr, x);
                if (k != NONE)
                    emit(out, k, e + 1 - L);
            }
        }
    }
}

static void scan_dna_exact(const group *gr, const uint8_t *t, size_t end, gs_match_out *out)
{
    if (gr->kind == K_DIRECT)
        scan_dna_kind(gr, t, end, out, 1);
    else
        scan_dna_kind(gr, t, end, out, 0);
}

static void scan_bytes_exact(const group *gr, const uint8_t *t, size_t end, gs_match_out *out)
{
    const uint32_t L = gr->L;
    const uint64_t mask = L == 8 ? ~0ULL : ((1ULL << (8 * L)) - 1);
    uint64_t w = 0;
    for (size_t e = 0; e < end; e++) {
        w = w << 8 | t[e];
        uint64_t x = w & mask, f = gr->kind == K_DIRECT ? x : mix(x) >> gr->fshift;
        if (e + 1 >= L && (gr->present[f >> 6] >> (f & 63) & 1)) {
            uint32_t k = gr->kind == K_DIRECT ? gr->direct[x] : packed_find(gr, x);
            if (k != NONE)
                emit(out, k, e + 1 - L);
        }
    }
}

static void scan_roll(const rk *r, const group *gr, const uint8_t *t, size_t end,
                      gs_match_out *out)
{
    const uint32_t L = gr->L;
    uint64_t h = 0;
    size_t run = 0;
    for (size_t e = 0; e < end; e++) {
        uint32_t c = r->dna ? gs_dna_code[t[e]] : t[e];
        if (r->dna && c == GS_NONBASE) {
            run = 0;
            h = 0;
            continue;
        }
        if (run >= L) { /* drop the symbol leaving the window */
            uint32_t o = r->dna ? gs_dna_code[t[e - L]] : t[e - L];
            h -= gr->pow * (o + 1);
        }
        h = h * P + c + 1;
        if (++run < L)
            continue;
        size_t start = e + 1 - L;
        uint64_t f = mix(h) >> gr->fshift;
        if (!(gr->present[f >> 6] >> (f & 63) & 1))
            continue;
        for (uint64_t s = mix(h) >> gr->hshift;; s = (s + 1) & gr->hmask) {
            uint32_t k = gr->hid[s];
            if (k == NONE)
                break;
            if (gr->hkey[s] != h)
                continue;
            const uint8_t *key = r->key_bytes + r->key_off[k];
            uint32_t j = 0;
            if (r->dna)
                while (j < L && gs_dna_code[t[start + j]] == key[j])
                    j++;
            else
                while (j < L && t[start + j] == key[j])
                    j++;
            if (j == L)
                emit(out, k, start);
        }
    }
}

static void rk_scan(const void *compiled, const uint8_t *text, size_t len, size_t own,
                    gs_match_out *out)
{
    const rk *r = compiled;
    if (own > len)
        own = len;
    for (uint32_t i = 0; i < r->n_groups; i++) {
        const group *gr = &r->g[i];
        size_t end = own + gr->L - 1; /* ends past it start at or after own */
        if (end > len)
            end = len;
        if (own == 0)
            continue;
        if (gr->kind == K_ROLL)
            scan_roll(r, gr, text, end, out);
        else if (r->dna)
            scan_dna_exact(gr, text, end, out);
        else
            scan_bytes_exact(gr, text, end, out);
    }
}

const gs_engine gs_engine_rk = {
    .name = "rk",
    .summary = "Rabin-Karp, one window per key length: fastest for k-mer sets of one length",
    .caps = GS_CAP_EXACT,
    .gpu = "rk",
    .compile = rk_compile,
    .scan = rk_scan,
    .destroy = rk_destroy};
