/* ac_trie.c - the Aho-Corasick automaton of a keyset (ac_trie.h).
 *
 * The trie is grown over dense rows of child ids (0 = none: the root is no
 * child), then a breadth-first pass sets failure and dictionary links and
 * folds the failure transitions into the empty entries, and the states are
 * renumbered in the order that pass met them.
 */
#include "ac_trie.h"

#include <stdlib.h>
#include <string.h>

uint32_t gs_ac_symbols(const gs_keyset *ks, uint8_t cls[256])
{
    if (ks->alphabet == GS_ALPHA_DNA) {
        memcpy(cls, gs_dna_code, 256);
        return 4;
    }
    uint8_t used[256] = {0};
    for (uint64_t i = 0; i < ks->key_off[ks->n_keys]; i++)
        used[ks->key_bytes[i]] = 1;
    uint32_t m = 0;
    memset(cls, 0, 256);
    for (int c = 0; c < 256; c++)
        if (used[c])
            cls[c] = (uint8_t)++m;
    if (m == 256) /* every byte used: no room for class 0, none needed */
        for (int c = 0; c < 256; c++)
            cls[c] = (uint8_t)c;
    return m == 256 ? 256 : m + 1;
}

/* The trie in insertion order: (*g)[s * A + c] the child of s on c (0: none),
 * (*key)[s] the key ending at s or GS_AC_NONE, *n the states. */
static gs_status insert_keys(const gs_keyset *ks, const gs_ac_trie *t, uint32_t **g,
                             uint32_t **key, uint32_t *n, gs_error *err)
{
    const uint32_t A = t->A;
    uint64_t bound = ks->key_off[ks->n_keys] + 1, most = ((uint64_t)1 << 32) / A;
    if (bound > most)
        bound = most;
    uint32_t cap = bound < 1024 ? (uint32_t)bound : 1024;
    *n = 1;
    *g = gs_calloc((size_t)cap * A, sizeof **g, err, "ac trie");
    *key = gs_malloc((size_t)cap * sizeof **key, err, "ac trie");
    if (!*g || !*key)
        return GS_ESYS;
    (*key)[0] = GS_AC_NONE;
    for (uint32_t k = 0; k < ks->n_keys; k++) {
        const uint8_t *kb = gs_key(ks, k);
        uint32_t len = gs_key_len(ks, k), s = 0;
        for (uint32_t j = 0; j < len; j++) {
            uint32_t c = ks->alphabet == GS_ALPHA_DNA ? kb[j] : t->cls[kb[j]];
            if ((*g)[(size_t)s * A + c] == 0) {
                if (*n == cap) {
                    if (cap == bound)
                        return gs_fail(err, GS_EINPUT,
                                       "the ac automaton is too large (%u states x %u symbols; "
                                       "try --engine wm or rk)",
                                       cap, A);
                    uint32_t nc = (uint64_t)cap * 2 > bound ? (uint32_t)bound : cap * 2;
                    uint32_t *ng = gs_realloc(*g, (size_t)nc * A * sizeof *ng, err, "ac trie");
                    if (ng == NULL)
                        return GS_ESYS;
                    *g = ng;
                    memset(ng + (size_t)cap * A, 0, (size_t)(nc - cap) * A * sizeof *ng);
                    uint32_t *nk = gs_realloc(*key, (size_t)nc * sizeof *nk, err, "ac trie");
                    if (nk == NULL)
                        return GS_ESYS;
                    *key = nk;
                    cap = nc;
                }
                (*key)[*n] = GS_AC_NONE;
                (*g)[(size_t)s * A + c] = (*n)++;
            }
            s = (*g)[(size_t)s * A + c];
        }
        (*key)[s] = k;
    }
    return GS_OK;
}

/* Breadth-first over the trie g: failure links, dictionary links, inner
 * flags (indexed by insertion id), the visiting order, and the folded
 * transitions written into g's empty entries. */
static void link_states(uint32_t *g, const uint32_t *key, uint32_t A, uint32_t *fail,
                        uint32_t *dict, uint8_t *inner, uint32_t *order)
{
    uint32_t qh = 0, qt = 0;
    fail[0] = 0;
    dict[0] = GS_AC_NONE;
    order[qt++] = 0;
    while (qh < qt) {
        uint32_t u = order[qh++];
        uint32_t *row = g + (size_t)u * A, *frow = g + (size_t)fail[u] * A;
        inner[u] = u == 0;
        for (uint32_t c = 0; c < A; c++) {
            uint32_t v = row[c];
            if (v) {
                uint32_t f = u == 0 ? 0 : frow[c];
                fail[v] = f;
                dict[v] = key[f] != GS_AC_NONE ? f : dict[f];
                inner[u] = 1;
                order[qt++] = v;
            } else {
                row[c] = u == 0 ? 0 : frow[c];
            }
        }
    }
}

gs_status gs_ac_trie_build(const gs_keyset *ks, gs_ac_trie *t, gs_error *err)
{
    uint32_t *g = NULL, *key = NULL, *fail = NULL, *dict = NULL, *order = NULL, *id = NULL, n;
    uint8_t *inner = NULL;
    memset(t, 0, sizeof *t);
    t->A = gs_ac_symbols(ks, t->cls);
    gs_status st = insert_keys(ks, t, &g, &key, &n, err);
    if (st != GS_OK)
        goto fail;
    st = GS_ESYS;
    const uint32_t A = t->A;
    fail = gs_malloc((size_t)n * sizeof *fail, err, "ac links");
    dict = gs_malloc((size_t)n * sizeof *dict, err, "ac links");
    order = gs_malloc((size_t)n * sizeof *order, err, "ac links");
    id = gs_malloc((size_t)n * sizeof *id, err, "ac links");
    inner = gs_malloc(n, err, "ac links");
    t->go = gs_malloc((size_t)n * A * sizeof *t->go, err, "ac automaton");
    t->key = gs_malloc((size_t)n * sizeof *t->key, err, "ac automaton");
    t->dict = gs_malloc((size_t)n * sizeof *t->dict, err, "ac automaton");
    t->fail = gs_malloc((size_t)n * sizeof *t->fail, err, "ac automaton");
    t->inner = gs_malloc(n, err, "ac automaton");
    if (!fail || !dict || !order || !id || !inner || !t->go || !t->key || !t->dict || !t->fail ||
        !t->inner)
        goto fail;
    link_states(g, key, A, fail, dict, inner, order);
    for (uint32_t i = 0; i < n; i++)
        id[order[i]] = i;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t u = order[i];
        for (uint32_t c = 0; c < A; c++)
            t->go[(size_t)i * A + c] = id[g[(size_t)u * A + c]];
        t->key[i] = key[u];
        t->dict[i] = dict[u] == GS_AC_NONE ? GS_AC_NONE : id[dict[u]];
        t->fail[i] = id[fail[u]];
        t->inner[i] = inner[u];
    }
    t->n = n;
    st = GS_OK;
fail:
    free(g);
    free(key);
    free(fail);
    free(dict);
    free(order);
    free(id);
    free(inner);
    if (st != GS_OK)
        gs_ac_trie_free(t);
    return st;
}

void gs_ac_trie_free(gs_ac_trie *t)
{
    free(t->go);
    free(t->key);
    free(t->dict);
    free(t->fail);
    free(t->inner);
    memset(t, 0, sizeof *t);
}
