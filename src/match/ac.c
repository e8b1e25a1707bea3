/* ac.c - Aho-Corasick as a dense DFA: one table load per text byte.
 *
 * The automaton is ac_trie.h's (the one the GPU engine re-lays too): a full
 * transition function, failure links folded in, so scanning never follows
 * a failure link: s = delta[s + class(byte)]. Table entries are row
 * offsets (state * A), which saves the multiply on the critical path.
 *
 * Alphabet: dna uses the 4 base codes plus a fifth column for a non-base whose
 * every entry is the root (a non-base breaks every match). bytes maps each byte
 * value that occurs in some key to its own class and every other byte to class
 * 0, whose column is all root, so a table row is only as wide as the key
 * alphabet (+1).
 *
 * States are renumbered so that those with an output (a key ends there, or at
 * one of their suffixes) come last: "does this state report?" is a single
 * compare against a threshold in the hot loop, and the rare reporting states
 * walk their dictionary-suffix chain. A per-state visit counter folded at the
 * end was the alternative; with hits at a few percent of positions the
 * compare-and-branch measured as fast, needs no per-call array (scan stays
 * allocation-free and reentrant) and serves counts and hits alike.
 *
 * Scan covers ends in [0, own) with no filter (a start is at most its end), then
 * ends in [own, own + max_len - 1) with the start < own filter, and stops: no
 * key that ends later can start in the owned range.
 *
 * Memory: states * A * 4 bytes for the table (states <= total key residues + 1)
 * plus 12 bytes per reporting state.
 */
#include "ac_trie.h"
#include "engine.h"

#include <stdlib.h>
#include <string.h>

#define NONE GS_AC_NONE

typedef struct ac {
    uint32_t A;          /* row width */
    uint32_t threshold;  /* row offsets >= threshold report */
    uint32_t *delta;     /* [n_states * A], row offsets */
    uint16_t *delta16;   /* the same in 16 bits when it fits (half the cache) */
    uint32_t *okey;      /* per reporting state: key ending here, or NONE */
    uint32_t *olen;      /* that key's length */
    uint32_t *onext;     /* next reporting state (row offset) on the suffix chain, or NONE */
    uint8_t cls[256];
    uint32_t max_len;
} ac;

static void ac_destroy(void *p)
{
    ac *a = p;
    if (a == NULL)
        return;
    free(a->delta);
    free(a->delta16);
    free(a->okey);
    free(a->olen);
    free(a->onext);
    free(a);
}

/* The DFA of automaton t in this engine's layout: silent states first (the
 * root stays 0), reporting ones after, entries as row offsets; dna gains
 * the non-base column, all root. */
static gs_status ac_lay(const gs_keyset *ks, const gs_ac_trie *t, ac *a, gs_error *err)
{
    const uint32_t n = t->n, A = a->A;
    uint32_t *newid = gs_malloc((size_t)n * sizeof *newid, err, "ac links");
    if (newid == NULL)
        return GS_ESYS;
    uint32_t n_silent = 0, n_report = 0;
    for (uint32_t u = 0; u < n; u++)
        if (t->key[u] == GS_AC_NONE && t->dict[u] == GS_AC_NONE)
            newid[u] = n_silent++;
    for (uint32_t u = 0; u < n; u++)
        if (!(t->key[u] == GS_AC_NONE && t->dict[u] == GS_AC_NONE))
            newid[u] = n_silent + n_report++;
    size_t nr = n_report ? n_report : 1;
    a->threshold = n_silent * A;
    a->delta = gs_malloc((size_t)n * A * sizeof *a->delta, err, "ac table");
    a->okey = gs_malloc(nr * sizeof *a->okey, err, "ac outputs");
    a->olen = gs_malloc(nr * sizeof *a->olen, err, "ac outputs");
    a->onext = gs_malloc(nr * sizeof *a->onext, err, "ac outputs");
    if (!a->delta || !a->okey || !a->olen || !a->onext) {
        free(newid);
        return GS_ESYS;
    }
    for (uint32_t u = 0; u < n; u++) {
        uint32_t *dst = a->delta + (size_t)newid[u] * A;
        const uint32_t *src = t->go + (size_t)u * t->A;
        for (uint32_t c = 0; c < A; c++)
            dst[c] = c < t->A ? newid[src[c]] * A : 0;
        if (newid[u] >= n_silent) {
            uint32_t r = newid[u] - n_silent;
            a->okey[r] = t->key[u];
            a->olen[r] = t->key[u] == NONE ? 0 : gs_key_len(ks, t->key[u]);
            a->onext[r] = t->dict[u] == NONE ? NONE : newid[t->dict[u]] - n_silent;
        }
    }
    free(newid);
    return GS_OK;
}

static gs_status ac_compile(const gs_keyset *ks, const gs_tune *tune, void **compiled,
                            gs_error *err)
{
    (void)tune;
    gs_ac_trie t = {0};
    ac *a = gs_calloc(1, sizeof *a, err, "ac automaton");
    if (a == NULL)
        return GS_ESYS;
    a->max_len = ks->max_len;
    uint64_t total = ks->key_off[ks->n_keys];
    /* dna rows gain a column: a non-base (code 4) leads to the root */
    a->A = ks->alphabet == GS_ALPHA_DNA ? 5 : gs_ac_symbols(ks, a->cls);
    gs_status st;
    if ((total + 1) * a->A > UINT32_MAX) {
        st = gs_fail(err, GS_EINPUT,
                     "pattern set too large for engine ac (%llu residues; try rk or wm)",
                     (unsigned long long)total);
        goto fail;
    }
    st = gs_ac_trie_build(ks, &t, err);
    if (st != GS_OK)
        goto fail;
    memcpy(a->cls, t.cls, 256);
    st = ac_lay(ks, &t, a, err);
    if (st != GS_OK)
        goto fail;
    if ((uint64_t)t.n * a->A <= UINT16_MAX) {
        st = GS_ESYS;
        a->delta16 = gs_malloc((size_t)t.n * a->A * sizeof *a->delta16, err, "ac table");
        if (a->delta16 == NULL)
            goto fail;
        for (size_t i = 0; i < (size_t)t.n * a->A; i++)
            a->delta16[i] = (uint16_t)a->delta[i];
    }
    gs_ac_trie_free(&t);
    *compiled = a;
    return GS_OK;
fail:
    gs_ac_trie_free(&t);
    ac_destroy(a);
    return st;
}

/* Every key ending at text position `end` in reporting state s (row offset);
 * with `filter`, only those starting before own. */
static inline void report(const ac *a, uint32_t A, uint32_t s, size_t end, size_t own,
                          int filter, gs_match_out *out)
{
    uint32_t r = (s - a->threshold) / A;
    if (a->okey[r] == NONE)
        r = a->onext[r];
    for (; r != NONE; r = a->onext[r]) {
        size_t start = end + 1 - a->olen[r];
        if (filter && start >= own)
            continue;
        out->key_counts[a->okey[r]]++;
        if (out->hits && gs_keyhits_push(out->hits, a->okey[r], start) != GS_OK)
            out->oom = 1;
    }
}

/* The hot loop, for 16- and 32-bit tables. Long segments run two
 * independent streams (the two halves of the owned range) in one loop: each
 * step of a DFA waits on the previous load, and two chains keep two loads in
 * flight. The second stream starts max_len symbols early, from the root and
 * without reporting: the state after max_len symbols no longer depends on
 * where the scan began (a state is a suffix of at most max_len symbols). */
#define AC_RUN(NAME, T)                                                                     \
    static inline void NAME(const ac *a, const T *d, uint32_t A, const uint8_t *text,       \
                            size_t len, size_t own, gs_match_out *out)                      \
    {                                                                                       \
        const uint8_t *cls = a->cls;                                                        \
        const uint32_t th = a->threshold;                                                   \
        size_t ml = a->max_len, end = own + (ml ? ml - 1 : 0), i = 0;                       \
        if (end > len)                                                                      \
            end = len;                                                                      \
        uint32_t s = 0;                                                                     \
        if (own >= 2 * ml + 256) {                                                          \
            size_t mid = own / 2;                                                           \
            uint32_t sb = 0;                                                                \
            for (size_t p = mid - ml; p < mid; p++)                                         \
                sb = d[sb + cls[text[p]]];                                                  \
            const uint8_t *tb = text + mid;                                                 \
            for (size_t j = 0; j < mid; j++) {                                              \
                s = d[s + cls[text[j]]];                                                    \
                sb = d[sb + cls[tb[j]]];                                                    \
                if (__builtin_expect((s >= th) | (sb >= th), 0)) {                          \
                    if (s >= th)                                                            \
                        report(a, A, s, j, own, 0, out);                                    \
                    if (sb >= th)                                                           \
                        report(a, A, sb, mid + j, own, 0, out);                             \
                }                                                                           \
            }                                                                               \
            i = 2 * mid;                                                                    \
            s = sb;                                                                         \
        }                                                                                   \
        for (; i < own; i++) {                                                              \
            s = d[s + cls[text[i]]];                                                        \
            if (__builtin_expect(s >= th, 0))                                               \
                report(a, A, s, i, own, 0, out);                                            \
        }                                                                                   \
        for (; i < end; i++) {                                                              \
            s = d[s + cls[text[i]]];                                                        \
            if (s >= th)                                                                    \
                report(a, A, s, i, own, 1, out);                                            \
        }                                                                                   \
    }

AC_RUN(run16, uint16_t)
AC_RUN(run32, uint32_t)

static void ac_scan(const void *compiled, const uint8_t *text, size_t len, size_t own,
                    gs_match_out *out)
{
    const ac *a = compiled;
    if (own > len)
        own = len;
    if (a->delta16 && a->A == 5)
        run16(a, a->delta16, 5, text, len, own, out);
    else if (a->delta16)
        run16(a, a->delta16, a->A, text, len, own, out);
    else if (a->A == 5)
        run32(a, a->delta, 5, text, len, own, out);
    else
        run32(a, a->delta, a->A, text, len, own, out);
}

const gs_engine gs_engine_ac = {
    .name = "ac",
    .summary = "Aho-Corasick, dense DFA: steady speed for any key set",
    .caps = GS_CAP_EXACT,
    .gpu = "ac",
    .compile = ac_compile,
    .scan = ac_scan,
    .destroy = ac_destroy};
