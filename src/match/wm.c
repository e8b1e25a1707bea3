/* wm.c - Wu-Manber: skip through the text by blocks that occur in no key.
 *
 * The keys of length >= B ("long" keys) share a window of m symbols, m being
 * the shortest long key. For every block of B symbols, SHIFT says how far the
 * window may move when the block ends the window (m - B + 1 for a block found
 * in no key's first m symbols); a block with shift 0 selects a HASH bucket of
 * keys whose window ends with it, and a PREFIX value (the first few symbols)
 * filters the bucket before the full comparison with the text.
 *
 * B follows the usual rule B ~ log_sigma(2 * keys * m), kept within what a
 * direct table indexes: dna packs B residues into 2 bits each (4 <= B <= 8, so
 * SHIFT has at most 4^8 + 1 entries; the extra one is for a block holding a
 * non-base, which no key contains and so takes the full shift); bytes use B = 2
 * (a 65536-entry table) or, for large sets of long keys, B = 3 hashed into 2^18
 * entries. B never exceeds m.
 *
 * Keys shorter than B cannot be seen through a B-block and go to a small exact
 * path instead: one direct table per length (4^L entries for dna, 256 or 65536
 * for bytes) scanned with a rolling window, so any mix of lengths works.
 *
 * WM shines for few, long keys (primers, probes, byte strings): the window
 * jumps m - B + 1 symbols at a time. With many short keys nearly every block
 * has shift 0 and ac is faster (docs/engines.md).
 *
 * Memory: SHIFT 2 bytes a block value, buckets 4 bytes a block value, 8 bytes
 * a long key, short tables 4 bytes an entry, plus a copy of the keys.
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define BYTES_HASH_BITS 18

typedef struct wm {
    int dna;
    uint32_t B, m;        /* block size and window (both in symbols) */
    uint32_t pb;          /* prefix symbols compared first */
    uint32_t hsize;       /* block values; the last one means "contains a non-base" */
    uint16_t *shift;      /* [hsize] */
    uint32_t *bucket_off; /* [hsize + 1] */
    uint32_t *bucket_key; /* long keys, grouped by the block ending their window */
    uint32_t *bucket_pfx;
    uint32_t n_long;
    uint32_t short_max;   /* keys of length 1 .. short_max use the direct tables */
    uint32_t *short_tab[8];     /* [L]: 4^L (dna) or 256^L (bytes) key ids */
    uint64_t *key_off;    /* a copy of the keys */
    uint8_t *key_bytes;
} wm;

static void wm_destroy(void *p)
{
    wm *w = p;
    if (w == NULL)
        return;
    free(w->shift);
    free(w->bucket_off);
    free(w->bucket_key);
    free(w->bucket_pfx);
    for (int i = 0; i < 8; i++)
        free(w->short_tab[i]);
    free(w->key_off);
    free(w->key_bytes);
    free(w);
}

/* Block value of the B symbols s[0..B) (dna codes or bytes). */
static inline uint32_t block_of_key(const wm *w, const uint8_t *s)
{
    uint32_t v = 0;
    if (w->dna) {
        for (uint32_t j = 0; j < w->B; j++)
            v = v << 2 | s[j];
        return v;
    }
    if (w->B == 2)
        return (uint32_t)s[0] << 8 | s[1];
    return (((uint32_t)s[0] << 16 | (uint32_t)s[1] << 8 | s[2]) * 0x9e3779b1u) >>
           (32 - BYTES_HASH_BITS);
}

/* The same for text ending at t[pos] (t[pos - B + 1 .. pos]). */
static inline uint32_t block_of_text(const wm *w, const uint8_t *t, size_t pos)
{
    if (w->dna) {
        uint32_t v = 0, bad = 0;
        for (uint32_t j = 0; j < w->B; j++) {
            uint32_t c = gs_dna_code[t[pos + 1 - w->B + j]];
            bad |= c;
            v = v << 2 | (c & 3);
        }
        return bad & 4 ? w->hsize - 1 : v;
    }
    return block_of_key(w, t + pos + 1 - w->B);
}

static inline uint32_t prefix_of(const wm *w, const uint8_t *s, int text)
{
    uint32_t v = 0;
    for (uint32_t j = 0; j < w->pb; j++) {
        uint32_t c = text && w->dna ? gs_dna_code[s[j]] : s[j];
        if (c == GS_NONBASE && text && w->dna)
            return NONE;
        v = w->dna ? (v << 2 | c) : (v << 8 | c);
    }
    return v;
}

/* The exact path for keys shorter than a block: a table per length. */
static gs_status short_keys(const gs_keyset *ks, wm *w, gs_error *err)
{
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        uint32_t n = gs_key_len(ks, k);
        if (n >= w->B)
            continue;
        if (w->short_tab[n] == NULL) {
            size_t size = (size_t)1 << ((w->dna ? 2 : 8) * n);
            w->short_tab[n] = gs_malloc(size * sizeof(uint32_t), err, "wm short keys");
            if (w->short_tab[n] == NULL)
                return GS_ESYS;
            memset(w->short_tab[n], 0xff, size * sizeof(uint32_t));
        }
        uint64_t v = 0;
        for (uint32_t j = 0; j < n; j++)
            v = w->dna ? (v << 2 | gs_key(ks, k)[j]) : (v << 8 | gs_key(ks, k)[j]);
        w->short_tab[n][v] = k;
    }
    return GS_OK;
}

static gs_status wm_compile(const gs_keyset *ks, const gs_tune *tune, void **compiled,
                            gs_error *err)
{
    (void)tune;
    gs_status st = GS_ESYS;
    uint32_t *fill = NULL;
    wm *w = gs_calloc(1, sizeof *w, err, "wm engine");
    if (w == NULL)
        return GS_ESYS;
    w->dna = ks->alphabet == GS_ALPHA_DNA;
    size_t nb = ks->key_off[ks->n_keys], no = ((size_t)ks->n_keys + 1) * sizeof *ks->key_off;
    w->key_off = gs_malloc(no, err, "wm keys");
    w->key_bytes = gs_malloc(nb, err, "wm keys");
    if (!w->key_off || !w->key_bytes)
        goto fail;
    memcpy(w->key_off, ks->key_off, no);
    memcpy(w->key_bytes, ks->key_bytes, nb);

    /* Block size: keys of length >= bmin are long; m is the shortest of them. */
    uint32_t bmin = w->dna ? 4 : 2, m = UINT32_MAX, n_long = 0;
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        uint32_t n = gs_key_len(ks, k);
        if (n >= bmin) {
            n_long++;
            if (n < m)
                m = n;
        }
    }
    uint32_t B = bmin;
    if (n_long) {
        double want = 2.0 * n_long * m;
        if (w->dna)
            while (B < 8 && B < m && (double)(1u << (2 * B)) < want)
                B++;
        else if (m >= 6 && want > 65536.0 / 4)
            B = 3;
    } else {
        m = B;
    }
    w->B = B;
    w->m = m;
    w->n_long = n_long;
    w->short_max = B - 1;
    w->pb = m < (w->dna ? 4u : 2u) ? m : (w->dna ? 4u : 2u);
    w->hsize = w->dna ? (1u << (2 * B)) + 1 : (B == 2 ? 65536u : (1u << BYTES_HASH_BITS)) + 1;

    w->shift = gs_malloc((size_t)w->hsize * sizeof *w->shift, err, "wm shift");
    w->bucket_off = gs_calloc((size_t)w->hsize + 1, sizeof *w->bucket_off, err, "wm buckets");
    w->bucket_key = gs_malloc((size_t)(n_long ? n_long : 1) * sizeof *w->bucket_key, err, "wm buckets");
    w->bucket_pfx = gs_malloc((size_t)(n_long ? n_long : 1) * sizeof *w->bucket_pfx, err, "wm buckets");
    fill = gs_malloc(((size_t)w->hsize + 1) * sizeof *fill, err, "wm buckets");
    if (!w->shift || !w->bucket_off || !w->bucket_key || !w->bucket_pfx || !fill)
        goto fail;
    uint32_t full = m - B + 1 > 65535 ? 65535 : m - B + 1;
    for (uint32_t h = 0; h < w->hsize; h++)
        w->shift[h] = (uint16_t)full;
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        const uint8_t *key = gs_key(ks, k);
        uint32_t n = gs_key_len(ks, k);
        if (n < B)
            continue;
        for (uint32_t j = B - 1; j < m; j++) {
            uint32_t h = block_of_key(w, key + j + 1 - B), s = m - 1 - j;
            if (s < w->shift[h])
                w->shift[h] = (uint16_t)s;
        }
        w->bucket_off[block_of_key(w, key + m - B) + 1]++;
    }
    for (uint32_t h = 0; h < w->hsize; h++)
        w->bucket_off[h + 1] += w->bucket_off[h];
    memcpy(fill, w->bucket_off, ((size_t)w->hsize + 1) * sizeof *fill);
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        const uint8_t *key = gs_key(ks, k);
        if (gs_key_len(ks, k) < B)
            continue;
        uint32_t h = block_of_key(w, key + m - B);
        w->bucket_key[fill[h]] = k;
        w->bucket_pfx[fill[h]++] = prefix_of(w, key, 0);
    }

    if (short_keys(ks, w, err) != GS_OK)
        goto fail;
    *compiled = w;
    w = NULL;
    st = GS_OK;
fail:
    free(fill);
    wm_destroy(w);
    return st;
}

static inline void emit(gs_match_out *out, uint32_t k, size_t start)
{
    out->key_counts[k]++;
    if (out->hits && gs_keyhits_push(out->hits, k, start) != GS_OK)
        out->oom = 1;
}

static void scan_short(const wm *w, const uint8_t *t, size_t len, size_t own, gs_match_out *out)
{
    size_t end = own + w->short_max - 1;
    if (end > len)
        end = len;
    uint64_t win = 0;
    size_t run = 0;
    for (size_t e = 0; e < end; e++) {
        uint32_t c = w->dna ? gs_dna_code[t[e]] : t[e];
        if (w->dna && c == GS_NONBASE) {
            run = 0;
            continue;
        }
        win = w->dna ? (win << 2 | c) : (win << 8 | c);
        run++;
        for (uint32_t L = 1; L <= w->short_max; L++) {
            if (w->short_tab[L] == NULL || run < L || e + 1 - L >= own)
                continue;
            uint32_t k = w->short_tab[L][win & ((1ULL << ((w->dna ? 2 : 8) * L)) - 1)];
            if (k != NONE)
                emit(out, k, e + 1 - L);
        }
    }
}

static void wm_scan(const void *compiled, const uint8_t *text, size_t len, size_t own,
                    gs_match_out *out)
{
    const wm *w = compiled;
    if (own > len)
        own = len;
    if (own == 0)
        return;
    for (uint32_t L = 1; L <= w->short_max; L++)
        if (w->short_tab[L]) {
            scan_short(w, text, len, own, out);
            break;
        }
    if (w->n_long == 0 || len < w->m)
        return;
    const uint32_t m = w->m;
    const uint16_t *shift = w->shift;
    /* window end pos; its start pos - m + 1 must stay below own */
    size_t stop = own + m - 1 < len ? own + m - 1 : len;
    for (size_t pos = m - 1; pos < stop;) {
        uint32_t h = block_of_text(w, text, pos);
        uint32_t sh = shift[h];
        if (sh) {
            pos += sh;
            continue;
        }
        size_t start = pos + 1 - m;
        uint32_t pfx = prefix_of(w, text + start, 1);
        for (uint32_t b = w->bucket_off[h]; b < w->bucket_off[h + 1]; b++) {
            if (w->bucket_pfx[b] != pfx)
                continue;
            uint32_t k = w->bucket_key[b];
            uint32_t n = (uint32_t)(w->key_off[k + 1] - w->key_off[k]);
            const uint8_t *key = w->key_bytes + w->key_off[k];
            if (n > len - start)
                continue;
            uint32_t j = w->pb;
            if (w->dna)
                while (j < n && gs_dna_code[text[start + j]] == key[j])
                    j++;
            else
                while (j < n && text[start + j] == key[j])
                    j++;
            if (j == n)
                emit(out, k, start);
        }
        pos++;
    }
}

const gs_engine gs_engine_wm = {
    .name = "wm",
    .summary = "Wu-Manber block skipping: fastest for few, long keys",
    .caps = GS_CAP_EXACT,
    .gpu = "wm",
    .compile = wm_compile,
    .scan = wm_scan,
    .destroy = wm_destroy};
