/* engine.h - the table of CPU matching engines.
 *
 * An engine compiles a keyset once and then scans text segments from many
 * threads at once (scan must only read the compiled state). For every
 * occurrence of key k starting at text position i with i < own (the segment's
 * owned starts, see gs_segment) and i + len(k) <= len, scan adds 1 to
 * out->key_counts[k] and, when out->hits is not NULL, appends (k, i).
 * Text bytes are as read; dna engines map them through gs_dna_code, where a
 * non-base matches no key position. Hits are appended in no particular order
 * (an engine may scan several stretches of a segment at once); callers sort.
 */
#ifndef GS_ENGINE_H
#define GS_ENGINE_H

#include "keyset.h"

typedef struct gs_keyhit {
    uint64_t pos; /* start within the segment's text */
    uint32_t key;
} gs_keyhit;

typedef struct gs_keyhits {
    gs_keyhit *v;
    size_t n, cap;
} gs_keyhits;

/* Append, growing the vector; returns 0, or -1 when out of memory. */
int gs_keyhits_push(gs_keyhits *h, uint32_t key, uint64_t pos);

typedef struct gs_match_out {
    uint64_t *key_counts; /* [n_keys], added to */
    gs_keyhits *hits;     /* NULL: counts only */
    int oom;              /* set to 1 by scan if a push failed */
} gs_match_out;

typedef struct gs_engine {
    const char *name;    /* "ac", "wm", "rk", "bf" */
    const char *summary; /* one line for --help */
    gs_status (*compile)(const gs_keyset *ks, void **compiled, gs_error *err);
    void (*scan)(const void *compiled, const uint8_t *text, size_t len, size_t own,
                 gs_match_out *out);
    void (*destroy)(void *compiled);
} gs_engine;

/* NULL-terminated; the brute-force reference "bf" is listed last and is meant
 * for tests. */
extern const gs_engine *const gs_engines[];
const gs_engine *gs_engine_find(const char *name);

/* --engine auto: the engine expected to be fastest for this keyset
 * (docs/engines.md gives the measurements behind the rule). */
const gs_engine *gs_engine_auto(const gs_keyset *ks);

extern const gs_engine gs_engine_ac, gs_engine_wm, gs_engine_rk, gs_engine_bf;

#endif
