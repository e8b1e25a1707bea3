/* bf.c - brute force: the reference engine the tests trust.
 *
 * For every start, every key is compared symbol by symbol. The only
 * refinement is that keys are listed by their first symbol so a start only
 * tries the keys that can begin there; that keeps the tests with thousands of
 * keys quick without making the engine any less obviously right. Memory: one
 * key id per key.
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

typedef struct bf {
    gs_keyset ks;         /* a private copy of the keys (offsets and bytes only) */
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
    free(b);
}

static gs_status bf_compile(const gs_keyset *ks, void **compiled, gs_error *err)
{
    bf *b = gs_calloc(1, sizeof *b, err, "bf engine");
    if (b == NULL)
        return GS_ESYS;
    b->ks.alphabet = ks->alphabet;
    b->ks.n_keys = ks->n_keys;
    size_t nb = ks->key_off[ks->n_keys], no = ((size_t)ks->n_keys + 1) * sizeof *ks->key_off;
    b->ks.key_off = gs_malloc(no, err, "bf engine");
    b->ks.key_bytes = gs_malloc(nb, err, "bf engine");
    b->ids = gs_malloc((size_t)(ks->n_keys ? ks->n_keys : 1) * sizeof *b->ids, err, "bf engine");
    if (b->ids == NULL || b->ks.key_off == NULL || b->ks.key_bytes == NULL) {
        bf_destroy(b);
        return GS_ESYS;
    }
    memcpy(b->ks.key_off, ks->key_off, no);
    memcpy(b->ks.key_bytes, ks->key_bytes, nb);
    uint32_t fill[257] = {0};
    for (uint32_t k = 0; k < ks->n_keys; k++)
        b->first[gs_key(ks, k)[0] + 1]++;
    for (int c = 0; c < 256; c++)
        b->first[c + 1] += b->first[c];
    memcpy(fill, b->first, sizeof fill);
    for (uint32_t k = 0; k < ks->n_keys; k++)
        b->ids[fill[gs_key(ks, k)[0]]++] = k;
    *compiled = b;
    return GS_OK;
}

static void bf_scan(const void *compiled, const uint8_t *text, size_t len, size_t own,
                    gs_match_out *out)
{
    const bf *b = compiled;
    const gs_keyset *ks = &b->ks;
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
            if (out->hits && gs_keyhits_push(out->hits, k, i) < 0)
                out->oom = 1;
        }
    }
}

const gs_engine gs_engine_bf = {
    "bf", "brute force, the test reference (slow)", bf_compile,
    bf_scan, bf_destroy};
