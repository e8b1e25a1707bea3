/* engine.c - the engine table, lookup by name, the auto rule and the key-hit
 * vector.
 *
 * The auto rule follows the measurements in docs/engines.md (2-core x86-64,
 * bench/bench_engines.c): see gs_engine_auto for the cases.
 */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const gs_engine *const gs_engines[] = {&gs_engine_ac, &gs_engine_wm, &gs_engine_rk,
                                       &gs_engine_bv, &gs_engine_bf, NULL};

const gs_engine *gs_engine_find(const char *name)
{
    for (int i = 0; gs_engines[i]; i++)
        if (strcmp(gs_engines[i]->name, name) == 0)
            return gs_engines[i];
    return NULL;
}

int gs_engine_can(const gs_engine *e, const gs_keyset *ks)
{
    return (e->caps & (ks->mode == GS_MATCH_EXACT ? GS_CAP_EXACT : GS_CAP_APPROX)) != 0;
}

void gs_engine_names(char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "auto");
    for (int i = 0; gs_engines[i] && n < cap; i++)
        if (!gs_engines[i]->for_tests)
            n += (size_t)snprintf(buf + n, cap - n, " | %s", gs_engines[i]->name);
}

/* docs/engines.md has the numbers:
 *  - dna, every key of one length <= 32 (k-mer sets): rk, whose loads do not
 *    chain; it ties ac on 1000 8-mers and is 3-6x faster than ac on 10^5 keys,
 *    where the DFA no longer fits in cache;
 *  - few long keys (<= 64 keys, all >= 16): wm skips most of the text;
 *  - bytes with long keys over a wide byte alphabet (>= 64 distinct bytes in
 *    the keys, a sign of high-entropy text) and <= 5000 keys: wm;
 *  - everything else (mixed lengths, short keys, many keys): ac, whose speed
 *    does not depend on the key set's shape. */
const gs_engine *gs_engine_auto(const gs_keyset *ks)
{
    if (ks->mode != GS_MATCH_EXACT)
        return &gs_engine_bv;
    if (ks->n_keys == 0)
        return &gs_engine_ac;
    if (ks->alphabet == GS_ALPHA_DNA) {
        if (ks->min_len == ks->max_len && ks->max_len <= 32)
            return &gs_engine_rk;
        if (ks->min_len >= 16 && ks->n_keys <= 64)
            return &gs_engine_wm;
        return &gs_engine_ac;
    }
    uint8_t used[256] = {0};
    uint32_t distinct = 0;
    for (uint64_t i = 0; i < ks->key_off[ks->n_keys]; i++)
        if (!used[ks->key_bytes[i]]) {
            used[ks->key_bytes[i]] = 1;
            distinct++;
        }
    if (ks->min_len >= 8 && ks->n_keys <= 5000 && distinct >= 64)
        return &gs_engine_wm;
    return &gs_engine_ac;
}

gs_status gs_keyhits_push(gs_keyhits *h, uint32_t key, uint64_t pos)
{
    if (gs_grow(&h->v, &h->cap, h->n, sizeof *h->v, 1024) != GS_OK)
        return GS_ESYS;
    h->v[h->n] = (gs_keyhit){.pos = pos, .key = key};
    h->n++;
    return GS_OK;
}

gs_status gs_keyhits_push_approx(gs_keyhits *h, uint32_t key, uint64_t pos, uint32_t len,
                                 uint8_t dist)
{
    if (gs_keyhits_push(h, key, pos) != GS_OK)
        return GS_ESYS;
    h->v[h->n - 1].len = len;
    h->v[h->n - 1].dist = dist;
    return GS_OK;
}
