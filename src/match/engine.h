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
 *
 * Approximate keysets (ks->mode != GS_MATCH_EXACT, contract §1): scan reports
 * every (key, end e) with a hit, e <= len and e - ks->span < own, appending
 * (k, start, e, distance); with edits one per end, at its best distance and
 * smallest start. A hit is thus owned by the segment where its end - span
 * falls, which can see every start the hit may have; the caller drops hits
 * with e < span in segments that do not begin their record (the previous
 * segment owns them). key_counts are not kept: counts come from the hits.
 */
#ifndef GS_ENGINE_H
#define GS_ENGINE_H

#include "core/gs_tune.h"
#include "keyset.h"

typedef struct gs_keyhit {
    uint64_t pos; /* start within the segment's text */
    uint32_t len; /* end - start: the text the hit spans */
    uint32_t key;
    uint8_t dist; /* mismatches or edits; 0 when exact */
} gs_keyhit;

typedef struct gs_keyhits {
    gs_keyhit *v;
    size_t n, cap;
} gs_keyhits;

/* Append, growing the vector: GS_OK, or GS_ESYS when out of memory (the
 * scan loops only set gs_match_out.oom, so no message is made here). */
gs_status gs_keyhits_push(gs_keyhits *h, uint32_t key, uint64_t pos);
/* The same for an approximate hit spanning text[pos .. pos + len). */
gs_status gs_keyhits_push_approx(gs_keyhits *h, uint32_t key, uint64_t pos, uint32_t len,
                                 uint8_t dist);

typedef struct gs_match_out {
    uint64_t *key_counts; /* [n_keys], added to */
    gs_keyhits *hits;     /* NULL: counts only */
    int oom;              /* set to 1 by scan if a push failed */
} gs_match_out;

/* What an engine can do: gs_engine.caps. */
enum { GS_CAP_EXACT = 1, GS_CAP_APPROX = 2 };

typedef struct gs_engine {
    const char *name;    /* "ac", "wm", "rk", "bv", "bf" */
    const char *summary; /* one line for --help */
    unsigned caps;       /* GS_CAP_* */
    const char *gpu;     /* name of the GPU engine with the same results, or NULL */
    int for_tests;       /* a reference, left out of --help */
    /* tune: the match.* knobs (NULL: the defaults) */
    gs_status (*compile)(const gs_keyset *ks, const gs_tune *tune, void **compiled,
                         gs_error *err);
    void (*scan)(const void *compiled, const uint8_t *text, size_t len, size_t own,
                 gs_match_out *out);
    void (*destroy)(void *compiled);
} gs_engine;

/* The only list of engines, NULL-terminated: the CLI, --help, --verify and
 * the GPU choice all read it. The brute-force reference "bf" is listed last
 * and is meant for tests. */
extern const gs_engine *const gs_engines[];
const gs_engine *gs_engine_find(const char *name);

/* Whether the engine can scan this keyset's mode. */
int gs_engine_can(const gs_engine *e, const gs_keyset *ks);

/* "auto | ac | wm | ..." of the engines --help lists, into buf (for usage). */
void gs_engine_names(char *buf, size_t cap);

/* --engine auto: the engine expected to be fastest for this keyset
 * (docs/engines.md gives the measurements behind the rule). */
const gs_engine *gs_engine_auto(const gs_keyset *ks);

extern const gs_engine gs_engine_ac, gs_engine_wm, gs_engine_rk, gs_engine_bv, gs_engine_bf;

#endif
