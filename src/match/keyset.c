/* keyset.c - expand a pattern set into distinct concrete keys with outputs.
 *
 * Every pattern is expanded on its own (an odometer over the IUPAC choices of
 * each position) and each expansion, plus its reverse complement with both
 * strands, is merged into one open-addressing hash table of keys. The
 * (key, output) pairs are emitted in pattern order and bucketed by key at the
 * end with one counting sort, so the whole build is linear in the number of
 * expanded residues: a set of millions of k-mers compiles in seconds.
 *
 * Expansions of one pattern are distinct strings by construction (they differ
 * in the base chosen at some position), and so are their reverse complements,
 * so a (pattern, strand) can never land twice on one key: the per-(pattern,
 * strand) deduplication the header promises needs no extra work. A palindromic
 * expansion lands on the same key as forward and reverse output, and both are
 * kept (contract §1: a palindrome hits both strands).
 */
#include "keyset.h"

#include <stdlib.h>
#include <string.h>

#include "core/gs_iupac.h"

/* The build state: an arena of key strings, their hashes, a table of key ids,
 * and the (key, output) pairs in emission order. */
typedef struct builder {
    uint8_t *bytes;
    uint64_t n_bytes, cap_bytes;
    uint64_t *off;       /* [n_keys + 1] */
    uint64_t *hash;      /* [n_keys] */
    uint32_t n_keys, cap_keys;
    uint32_t *table;     /* key id + 1, 0 = empty */
    uint64_t table_mask;
    uint32_t *pair_key, *pair_out;
    uint64_t n_pairs, cap_pairs;
} builder;

static uint64_t hash_bytes(const uint8_t *s, uint32_t n)
{
    uint64_t h = 0x243f6a8885a308d3ULL ^ n;
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    for (uint32_t j = 0; i + j < n; j++)
        w |= (uint64_t)s[i + j] << (8 * j);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 29);
}

static gs_status grow_table(builder *b, gs_error *err)
{
    uint64_t size = b->table_mask ? (b->table_mask + 1) * 2 : 1024;
    uint32_t *t = gs_calloc(size, sizeof *t, err, "keyset hash table");
    if (t == NULL)
        return GS_ESYS;
    for (uint32_t k = 0; k < b->n_keys; k++) {
        uint64_t h = b->hash[k] & (size - 1);
        while (t[h])
            h = (h + 1) & (size - 1);
        t[h] = k + 1;
    }
    free(b->table);
    b->table = t;
    b->table_mask = size - 1;
    return GS_OK;
}

/* The id of key s[0..n), added when new; UINT32_MAX on failure (err set). */
static uint32_t intern(builder *b, const uint8_t *s, uint32_t n, gs_error *err)
{
    if ((uint64_t)b->n_keys * 2 >= b->table_mask && grow_table(b, err) != GS_OK)
        return UINT32_MAX;
    uint64_t hv = hash_bytes(s, n), h = hv & b->table_mask;
    for (; b->table[h]; h = (h + 1) & b->table_mask) {
        uint32_t k = b->table[h] - 1;
        if (b->hash[k] == hv && b->off[k + 1] - b->off[k] == n &&
            memcmp(b->bytes + b->off[k], s, n) == 0)
            return k;
    }
    if (b->n_keys == UINT32_MAX - 1) {
        gs_fail(err, GS_EINPUT, "more than 4294967294 distinct keys (pattern set)");
        return UINT32_MAX;
    }
    if (b->n_keys + 1 >= b->cap_keys) {
        uint32_t cap = b->cap_keys ? (b->cap_keys > UINT32_MAX / 2 ? UINT32_MAX : b->cap_keys * 2)
                                   : 1024;
        uint64_t *o = gs_realloc(b->off, ((size_t)cap + 1) * sizeof *o, err, "keyset offsets");
        if (o == NULL)
            return UINT32_MAX;
        b->off = o;
        uint64_t *hh = gs_realloc(b->hash, (size_t)cap * sizeof *hh, err, "keyset hashes");
        if (hh == NULL)
            return UINT32_MAX;
        b->hash = hh;
        b->cap_keys = cap;
    }
    if (b->n_bytes + n > b->cap_bytes) {
        uint64_t cap = b->cap_bytes ? b->cap_bytes * 2 : 4096;
        while (cap < b->n_bytes + n)
            cap *= 2;
        uint8_t *nb = gs_realloc(b->bytes, cap, err, "keyset key bytes");
        if (nb == NULL)
            return UINT32_MAX;
        b->bytes = nb;
        b->cap_bytes = cap;
    }
    uint32_t k = b->n_keys++;
    memcpy(b->bytes + b->n_bytes, s, n);
    b->off[k] = b->n_bytes;
    b->n_bytes += n;
    b->off[k + 1] = b->n_bytes;
    b->hash[k] = hv;
    b->table[h] = k + 1;
    return k;
}

static gs_status add_output(builder *b, const uint8_t *s, uint32_t n, uint32_t out,
                            gs_error *err)
{
    uint32_t k = intern(b, s, n, err);
    if (k == UINT32_MAX)
        return err->code;
    if (b->n_pairs == b->cap_pairs) {
        uint64_t cap = b->cap_pairs ? b->cap_pairs * 2 : 4096;
        uint32_t *pk = gs_realloc(b->pair_key, cap * sizeof *pk, err, "keyset outputs");
        if (pk == NULL)
            return GS_ESYS;
        b->pair_key = pk;
        uint32_t *po = gs_realloc(b->pair_out, cap * sizeof *po, err, "keyset outputs");
        if (po == NULL)
            return GS_ESYS;
        b->pair_out = po;
        b->cap_pairs = cap;
    }
    b->pair_key[b->n_pairs] = k;
    b->pair_out[b->n_pairs] = out;
    b->n_pairs++;
    return GS_OK;
}

/* Expand one dna pattern into the builder (forward, and reverse when asked). */
static gs_status expand_dna(builder *b, const gs_patset *ps, uint32_t p, int both,
                            uint32_t max_exp, gs_error *err)
{
    const gs_pattern *pat = &ps->v[p];
    uint32_t n = pat->len;
    const char *path = ps->path ? ps->path : "patterns";
    gs_status st = GS_ESYS;
    uint8_t *choice = NULL, *cur = NULL, *rc = NULL, *idx = NULL;
    uint8_t (*codes)[4] = NULL;
    uint64_t total = 1;

    if (n == 0)
        return gs_fail(err, GS_EINPUT, "empty pattern %s (%s:%u)", pat->name, path, pat->line);
    choice = gs_malloc(n, err, "pattern expansion");
    cur = gs_malloc(n, err, "pattern expansion");
    rc = gs_malloc(n, err, "pattern expansion");
    idx = gs_calloc(n, 1, err, "pattern expansion");
    codes = gs_malloc((size_t)n * sizeof *codes, err, "pattern expansion");
    if (!choice || !cur || !rc || !idx || !codes)
        goto fail;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t m = gs_iupac_mask(pat->bytes[i]);
        if (m == 0) {
            uint8_t c = pat->bytes[i];
            st = gs_fail(err, GS_EINPUT, "invalid symbol '%c' in pattern %s (%s:%u)",
                         c >= 0x20 && c < 0x7f ? c : '?', pat->name, path, pat->line);
            goto fail;
        }
        choice[i] = 0;
        for (uint8_t c = 0; c < 4; c++)
            if (m & (1u << c))
                codes[i][choice[i]++] = c;
        total *= choice[i];
        if (total > max_exp) { /* checked as we go: the product never overflows */
            st = gs_fail(err, GS_EINPUT, "pattern %s expands to more than %u strings (%s:%u)",
                         pat->name, max_exp, path, pat->line);
            goto fail;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        cur[i] = codes[i][0];
    for (;;) {
        if (add_output(b, cur, n, p * 2 + GS_FWD, err) != GS_OK)
            goto fail;
        if (both) {
            for (uint32_t i = 0; i < n; i++)
                rc[i] = (uint8_t)(3 - cur[n - 1 - i]);
            if (add_output(b, rc, n, p * 2 + GS_REV, err) != GS_OK)
                goto fail;
        }
        uint32_t i = n;
        while (i > 0 && ++idx[i - 1] == choice[i - 1]) { /* odometer step */
            idx[i - 1] = 0;
            cur[i - 1] = codes[i - 1][0];
            i--;
        }
        if (i == 0)
            break;
        cur[i - 1] = codes[i - 1][idx[i - 1]];
    }
    st = GS_OK;
fail:
    free(choice);
    free(cur);
    free(rc);
    free(idx);
    free(codes);
    return st;
}

gs_status gs_keyset_build(const gs_patset *ps, gs_alphabet alpha, int both_strands,
                          uint32_t max_expansions, gs_keyset *ks, gs_error *err)
{
    builder b = {0};
    gs_status st = GS_ESYS;
    int both = alpha == GS_ALPHA_DNA && both_strands;
    uint32_t *fill = NULL;

    memset(ks, 0, sizeof *ks);
    if (max_expansions == 0)
        max_expansions = 4096;
    if (ps->n > UINT32_MAX / 2)
        return gs_fail(err, GS_EINPUT, "too many patterns (%s)", ps->path ? ps->path : "patterns");
    for (uint32_t p = 0; p < ps->n; p++) {
        if (alpha == GS_ALPHA_DNA) {
            st = expand_dna(&b, ps, p, both, max_expansions, err);
            if (st != GS_OK)
                goto fail;
        } else {
            if (ps->v[p].len == 0) {
                st = gs_fail(err, GS_EINPUT, "empty pattern %s (%s:%u)", ps->v[p].name,
                             ps->path ? ps->path : "patterns", ps->v[p].line);
                goto fail;
            }
            if (add_output(&b, ps->v[p].bytes, ps->v[p].len, p * 2 + GS_FWD, err) != GS_OK)
                goto fail;
        }
    }
    st = GS_ESYS;

    /* Bucket the pairs by key (counting sort, stable: emission order is
     * pattern order, only one pattern's forward/reverse may interleave). */
    ks->out_off = gs_calloc((size_t)b.n_keys + 1, sizeof *ks->out_off, err, "keyset outputs");
    ks->outputs = gs_malloc((size_t)b.n_pairs * sizeof *ks->outputs, err, "keyset outputs");
    fill = gs_malloc(((size_t)b.n_keys + 1) * sizeof *fill, err, "keyset outputs");
    if (!ks->out_off || !ks->outputs || !fill)
        goto fail;
    for (uint64_t i = 0; i < b.n_pairs; i++)
        ks->out_off[b.pair_key[i] + 1]++;
    for (uint32_t k = 0; k < b.n_keys; k++)
        ks->out_off[k + 1] += ks->out_off[k];
    memcpy(fill, ks->out_off, ((size_t)b.n_keys + 1) * sizeof *fill);
    for (uint64_t i = 0; i < b.n_pairs; i++)
        ks->outputs[fill[b.pair_key[i]]++] = b.pair_out[i];
    /* Sort each (short) list and drop repeats, compacting in place. */
    uint32_t w = 0;
    for (uint32_t k = 0; k < b.n_keys; k++) {
        uint32_t lo = ks->out_off[k], hi = ks->out_off[k + 1], start = w;
        for (uint32_t i = lo; i < hi; i++) {
            uint32_t v = ks->outputs[i], j = w;
            while (j > start && ks->outputs[j - 1] > v) {
                ks->outputs[j] = ks->outputs[j - 1];
                j--;
            }
            if (j > start && ks->outputs[j - 1] == v) { /* repeat: undo the shift */
                memmove(ks->outputs + j, ks->outputs + j + 1, (size_t)(w - j) * sizeof(uint32_t));
                continue;
            }
            ks->outputs[j] = v;
            w++;
        }
        ks->out_off[k] = start;
    }
    ks->out_off[b.n_keys] = w;

    ks->alphabet = alpha;
    ks->n_keys = b.n_keys;
    ks->key_off = b.off;
    ks->key_bytes = b.bytes;
    b.off = NULL;
    b.bytes = NULL;
    if (ks->key_off == NULL) { /* no pattern at all: an empty, valid keyset */
        ks->key_off = gs_calloc(1, sizeof *ks->key_off, err, "keyset offsets");
        if (ks->key_off == NULL)
            goto fail;
    }
    ks->min_len = ks->n_keys ? UINT32_MAX : 0;
    ks->max_len = 0;
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        uint32_t n = gs_key_len(ks, k);
        if (n < ks->min_len)
            ks->min_len = n;
        if (n > ks->max_len)
            ks->max_len = n;
    }
    ks->n_patterns = ps->n;
    ks->n_strands = both ? 2 : 1;
    ks->span = ks->max_len;
    st = GS_OK;
fail:
    free(fill);
    free(b.bytes);
    free(b.off);
    free(b.hash);
    free(b.table);
    free(b.pair_key);
    free(b.pair_out);
    if (st != GS_OK)
        gs_keyset_free(ks);
    return st;
}

/* A base set's reverse complement: A<->T, C<->G, i.e. the 4 bits reversed. */
static uint8_t mask_complement(uint8_t m)
{
    return (uint8_t)((m & 1) << 3 | (m & 2) << 1 | (m & 4) >> 1 | (m & 8) >> 3);
}

gs_status gs_keyset_build_approx(const gs_patset *ps, int both_strands, gs_match_mode mode,
                                 uint32_t max_dist, gs_keyset *ks, gs_error *err)
{
    const char *path = ps->path ? ps->path : "patterns";
    int ns = both_strands ? 2 : 1, own_k = 0;
    uint64_t total = 0;
    uint32_t most = max_dist;
    memset(ks, 0, sizeof *ks);
    if (ps->n > UINT32_MAX / 2)
        return gs_fail(err, GS_EINPUT, "too many patterns (%s)", path);
    for (uint32_t p = 0; p < ps->n; p++) {
        if (ps->v[p].len == 0)
            return gs_fail(err, GS_EINPUT, "empty pattern %s (%s:%u)", ps->v[p].name, path,
                           ps->v[p].line);
        uint32_t K = gs_pattern_k(&ps->v[p], max_dist);
        if (ps->v[p].len <= K)
            return gs_fail(err, GS_EUSAGE,
                           "K = %u must be below the length of every pattern; %s has %u (%s:%u)",
                           K, ps->v[p].name, ps->v[p].len, path, ps->v[p].line);
        own_k |= ps->v[p].has_max_dist && K != max_dist;
        most = K > most ? K : most;
        total += (uint64_t)ps->v[p].len * (uint64_t)ns;
    }
    uint32_t n_keys = ps->n * (uint32_t)ns;
    ks->key_off = gs_malloc(((size_t)n_keys + 1) * sizeof *ks->key_off, err, "keyset");
    ks->key_bytes = gs_malloc(total ? total : 1, err, "keyset");
    ks->out_off = gs_malloc(((size_t)n_keys + 1) * sizeof *ks->out_off, err, "keyset");
    ks->outputs = gs_malloc((n_keys ? n_keys : 1) * sizeof *ks->outputs, err, "keyset");
    if (own_k)
        ks->key_k = gs_malloc(n_keys ? n_keys : 1, err, "keyset");
    if (!ks->key_off || !ks->key_bytes || !ks->out_off || !ks->outputs || (own_k && !ks->key_k)) {
        gs_keyset_free(ks);
        return GS_ESYS;
    }
    uint64_t at = 0;
    ks->min_len = n_keys ? UINT32_MAX : 0;
    for (uint32_t p = 0; p < ps->n; p++) {
        const gs_pattern *pat = &ps->v[p];
        for (int s = 0; s < ns; s++) {
            uint32_t k = p * (uint32_t)ns + (uint32_t)s;
            ks->key_off[k] = at;
            ks->out_off[k] = k;
            ks->outputs[k] = p * 2 + (uint32_t)s;
            if (own_k)
                ks->key_k[k] = (uint8_t)gs_pattern_k(pat, max_dist);
            for (uint32_t i = 0; i < pat->len; i++) {
                uint8_t m = s == GS_FWD ? gs_iupac_mask(pat->bytes[i])
                                        : mask_complement(gs_iupac_mask(pat->bytes[pat->len - 1 - i]));
                if (m == 0) {
                    uint8_t c = pat->bytes[s == GS_FWD ? i : pat->len - 1 - i];
                    gs_fail(err, GS_EINPUT, "invalid symbol '%c' in pattern %s (%s:%u)",
                            c >= 0x20 && c < 0x7f ? c : '?', pat->name, path, pat->line);
                    gs_keyset_free(ks);
                    return GS_EINPUT;
                }
                ks->key_bytes[at++] = m;
            }
        }
        if (pat->len < ks->min_len)
            ks->min_len = pat->len;
        if (pat->len > ks->max_len)
            ks->max_len = pat->len;
    }
    ks->key_off[n_keys] = at;
    ks->out_off[n_keys] = n_keys;
    ks->alphabet = GS_ALPHA_DNA;
    ks->n_keys = n_keys;
    ks->n_patterns = ps->n;
    ks->n_strands = ns;
    ks->mode = mode;
    ks->max_dist = most;
    ks->span = ks->max_len + (mode == GS_MATCH_EDITS ? most : 0);
    return GS_OK;
}

gs_status gs_keyset_set_exact3p(gs_keyset *ks, const gs_patset *ps, uint32_t exact3p,
                                gs_error *err)
{
    int any = exact3p > 0;
    for (uint32_t p = 0; p < ps->n && !any; p++)
        any = ps->v[p].has_exact3p && ps->v[p].exact3p > 0;
    free(ks->zone);
    ks->zone = NULL;
    if (!any || ks->mode == GS_MATCH_EXACT || ks->n_keys == 0)
        return GS_OK;
    if ((ks->zone = gs_calloc(ks->n_keys, sizeof *ks->zone, err, "keyset")) == NULL)
        return GS_ESYS;
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        const uint32_t o = ks->outputs[ks->out_off[k]];
        const uint32_t n = gs_pattern_zone(&ps->v[o >> 1], exact3p);
        ks->zone[k] = n | ((o & 1) == GS_REV && n ? (uint32_t)GS_ZONE_FRONT : 0u);
    }
    return GS_OK;
}

gs_status gs_keyset_set_bulges(gs_keyset *ks, const gs_patset *ps, uint32_t bulges,
                               gs_error *err)
{
    if (bulges == 0)
        return GS_OK;
    if (ks->mode != GS_MATCH_MISMATCHES)
        return gs_fail(err, GS_EUSAGE, "--max-bulges goes with --max-mismatches");
    const char *path = ps->path ? ps->path : "patterns";
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        const gs_pattern *pat = &ps->v[ks->outputs[ks->out_off[k]] >> 1];
        if (gs_key_k(ks, k) + bulges > 15) /* a distance is 4 bits (hit keys, counters) */
            return gs_fail(err, GS_EUSAGE, "K = %u mismatches plus %u bulges is over 15 (%s:%u)",
                           gs_key_k(ks, k), bulges, path, pat->line);
        if (gs_key_k(ks, k) + bulges >= pat->len)
            return gs_fail(err, GS_EUSAGE,
                           "K = %u mismatches and %u bulges must be below the length of every "
                           "pattern; %s has %u (%s:%u)",
                           gs_key_k(ks, k), bulges, pat->name, pat->len, path, pat->line);
    }
    for (uint32_t k = 0; ks->key_k && k < ks->n_keys; k++)
        ks->key_k[k] = (uint8_t)(ks->key_k[k] + bulges);
    ks->mode = GS_MATCH_EDITS;
    ks->bulges = bulges;
    ks->max_dist += bulges;
    ks->span = ks->max_len + ks->max_dist;
    return GS_OK;
}

void gs_keyset_free(gs_keyset *ks)
{
    free(ks->zone);
    free(ks->key_k);
    free(ks->key_off);
    free(ks->key_bytes);
    free(ks->out_off);
    free(ks->outputs);
    memset(ks, 0, sizeof *ks);
}

void gs_keyset_fold_counts(const gs_keyset *ks, const uint64_t *key_counts, uint64_t *counts)
{
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        if (key_counts[k] == 0)
            continue;
        for (uint32_t i = ks->out_off[k]; i < ks->out_off[k + 1]; i++) {
            uint32_t o = ks->outputs[i];
            counts[(o >> 1) * (uint32_t)ks->n_strands + (ks->n_strands == 2 ? (o & 1) : 0)] +=
                key_counts[k];
        }
    }
}
