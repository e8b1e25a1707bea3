/* test_gpu.c - every GPU engine against the CPU brute-force engine.
 *
 * The reference is gs_engine_bf (src/match/bf.c) run over the same segments;
 * its key hits are expanded to (pattern, strand) hits here and sorted with
 * gs_hit_cmp. Each GPU engine must give the same per-key counts and the same
 * hit list in the same order (the GPU output is not sorted here: contract §3
 * order is part of what is checked). Workloads: seeded random dna and bytes
 * texts and pattern sets (lengths 1..64, planted and absent, IUPAC codes,
 * both strands, N runs, lowercase, NUL bytes, all 256 byte values), counts
 * only and hits, whole-text segments and tiny blocks (many segments submitted
 * in order, several records), sets large enough for the 32-bit and
 * global-memory automaton variants, keys up to 4096 long, hit-buffer
 * overflow, thousands of short records (some empty) that the GPU packs into
 * batches, with long records among them cut into tiny blocks, and the lambda
 * phage genome read with the corpus reader.
 *
 * Exits 77 without a CUDA device.
 */
#define _DEFAULT_SOURCE
#include "gpu/gpu.h"
#include "io/seq/fasta.h"
#include "match/engine.h"
#include "match/keyset.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "rk:ext=6" is rk with gs_gpu_args.rk_ext = 7 (src/gpu/rk.cu): every dna
 * bitmap window reaches as far back past its group's shortest key as it can,
 * so the filter bits set for every choice of the residues before a short key
 * are checked on every dna workload, not only where the cost model picks them.
 * "ac:parts=N" counts with the keys cut into at least N counts-only automata
 * (gpu.ac.parts), scanned side by side in one launch, so part edges fall
 * inside small key sets; key sets smaller than N take the general kernel. */
static const char *const ENGINES[] = {"ac", "wm", "rk", "rk:ext=6", "ac:parts=3", "ac:parts=16"};
enum { N_ENGINES = 6 };

typedef struct record {
    uint8_t *text;
    size_t n;
} record;

typedef struct workload {
    const char *name;
    gs_alphabet alpha;
    int both;
    record *rec;
    int n_rec;
    int empty_segs; /* an empty record is submitted as a segment with own == 0 */
    gs_patset ps;
} workload;

/* n empty records (the generators fill them). */
static void records(workload *w, int n)
{
    w->n_rec = n;
    w->rec = calloc((size_t)n, sizeof *w->rec);
}

static void workload_free(workload *w)
{
    for (uint32_t i = 0; i < w->ps.n; i++) {
        free(w->ps.v[i].name);
        free(w->ps.v[i].text);
        free(w->ps.v[i].bytes);
    }
    free(w->ps.v);
    for (int r = 0; r < w->n_rec; r++)
        free(w->rec[r].text);
    free(w->rec);
    memset(w, 0, sizeof *w);
}

/* ---- reference: bf over the same segments ---- */

typedef struct result {
    uint64_t *counts;
    gs_hits hits;
} result;

/* Cut every record into segments of `block` owned starts with max_len - 1 of
 * overlap, in corpus order; fn is called for each. */
typedef int (*seg_fn)(void *ctx, const gs_segment *seg);

static int for_segments(const workload *w, size_t block, uint32_t max_len, seg_fn fn, void *ctx)
{
    for (int r = 0; r < w->n_rec; r++) {
        const record *rc = &w->rec[r];
        if (rc->n == 0 && w->empty_segs) {
            gs_segment s = {(uint32_t)r, 0, rc->text, 0, 0, 0, 0};
            if (fn(ctx, &s))
                return 1;
        }
        for (size_t base = 0; base < rc->n; base += block) {
            gs_segment s;
            s.record = (uint32_t)r;
            s.base = base;
            s.text = rc->text + base;
            s.own = rc->n - base < block ? rc->n - base : block;
            s.len = rc->n - base < s.own + max_len - 1 ? rc->n - base : s.own + max_len - 1;
            if (fn(ctx, &s))
                return 1;
        }
    }
    return 0;
}

typedef struct bf_ctx {
    const gs_keyset *ks;
    void *compiled;
    result *res;
} bf_ctx;

static int bf_segment(void *p, const gs_segment *s)
{
    bf_ctx *c = p;
    gs_keyhits kh = {0};
    gs_match_out out = {c->res->counts, &kh, 0};
    /* a guarded copy: an engine reading past len would crash the reference */
    uint8_t *t = gs_guarded_alloc(s->len ? s->len : 1);
    memcpy(t, s->text, s->len);
    gs_engine_bf.scan(c->compiled, t, s->len, s->own, &out);
    gs_guarded_free(t, s->len ? s->len : 1);
    CHECK(!out.oom);
    for (size_t i = 0; i < kh.n; i++) {
        const gs_keyhit *h = &kh.v[i];
        for (uint32_t j = c->ks->out_off[h->key]; j < c->ks->out_off[h->key + 1]; j++) {
            uint32_t o = c->ks->outputs[j];
            gs_hit hit = {s->base + h->pos, s->record, o >> 1, (int8_t)(o & 1 ? -1 : 1), 0,
                          s->base + h->pos + gs_key_len(c->ks, h->key)};
            if (gs_hits_push(&c->res->hits, &hit) != GS_OK)
                abort();
        }
    }
    free(kh.v);
    return 0;
}

static void reference(const workload *w, const gs_keyset *ks, result *res)
{
    gs_error err = {0};
    bf_ctx c = {ks, NULL, res};
    res->counts = calloc(ks->n_keys + 1, 8);
    memset(&res->hits, 0, sizeof res->hits);
    if (gs_engine_bf.compile(ks, NULL, &c.compiled, &err) != GS_OK) {
        fprintf(stderr, "bf compile: %s\n", err.msg);
        exit(1);
    }
    for_segments(w, (size_t)-1 / 4, ks->max_len, bf_segment, &c);
    gs_engine_bf.destroy(c.compiled);
    qsort(res->hits.v, res->hits.n, sizeof *res->hits.v, gs_hit_cmp);
}

/* ---- the GPU run ---- */

typedef struct gpu_ctx {
    gs_gpu *g;
    gs_error err;
    int failed;
} gpu_ctx;

static int gpu_segment(void *p, const gs_segment *s)
{
    gpu_ctx *c = p;
    if (gs_gpu_submit(c->g, s, &c->err) != GS_OK) {
        c->failed = 1;
        return 1;
    }
    return 0;
}

static int compare(const char *what, const gs_keyset *ks, const result *ref, const uint64_t *counts,
                   const gs_hits *hits, int want_hits)
{
    int bad = 0;
    for (uint32_t k = 0; k < ks->n_keys && bad < 5; k++)
        if (counts[k] != ref->counts[k]) {
            fprintf(stderr, "%s: key %u: count %llu, expected %llu\n", what, k,
                    (unsigned long long)counts[k], (unsigned long long)ref->counts[k]);
            bad++;
        }
    if (want_hits) {
        if (hits->n != ref->hits.n) {
            fprintf(stderr, "%s: %zu hits, expected %zu\n", what, hits->n, ref->hits.n);
            bad++;
        }
        for (size_t i = 0; i < hits->n && i < ref->hits.n && bad < 5; i++) {
            const gs_hit *a = &hits->v[i], *b = &ref->hits.v[i];
            if (a->start != b->start || a->record != b->record || a->pattern != b->pattern ||
                a->strand != b->strand || a->end != b->end || a->distance != b->distance) {
                fprintf(stderr,
                        "%s: hit %zu is (p%u r%u %llu %+d), expected (p%u r%u %llu %+d)\n", what,
                        i, a->pattern, a->record, (unsigned long long)a->start, a->strand,
                        b->pattern, b->record, (unsigned long long)b->start, b->strand);
                bad++;
            }
        }
    }
    return bad;
}

/* Scan w with every engine, block size and report mode; compare with bf. */
static void check_workload(const workload *w, const size_t *blocks, int n_blocks)
{
    gs_keyset ks;
    gs_error err = {0};
    result ref;
    if (gs_keyset_build(&w->ps, w->alpha, w->both, 4096, &ks, &err) != GS_OK) {
        fprintf(stderr, "%s: keyset: %s\n", w->name, err.msg);
        gs_test_failures++;
        return;
    }
    reference(w, &ks, &ref);
    uint64_t *counts = calloc(ks.n_keys + 1, 8);
    for (int e = 0; e < N_ENGINES; e++)
        for (int b = 0; b < n_blocks; b++)
            for (int want_hits = 0; want_hits < 2; want_hits++) {
                char what[256], eng[16];
                const char *colon = strchr(ENGINES[e], ':');
                const int parts = colon && !strncmp(colon, ":parts=", 7) ? atoi(colon + 7) : 0;
                if ((colon && !parts && w->alpha != GS_ALPHA_DNA) || (parts && want_hits))
                    continue;
                snprintf(what, sizeof what, "%s [%s, block %zu, %s]", w->name, ENGINES[e],
                         blocks[b], want_hits ? "hits" : "counts");
                snprintf(eng, sizeof eng, "%.*s",
                         colon ? (int)(colon - ENGINES[e]) : (int)strlen(ENGINES[e]), ENGINES[e]);
                gpu_ctx c = {NULL, {0}, 0};
                gs_hits hits = {0};
                gs_hit_runs runs = {0};
                gs_gpu_times t;
                memset(counts, 0, (ks.n_keys + 1) * 8);
                const gs_tune tune = {.gpu_ac_parts = parts};
                gs_gpu_args args = {.engine = eng, .want_hits = want_hits, .block = blocks[b],
                                    .rk_ext = colon && !parts ? atoi(colon + 5) + 1 : 0,
                                    .tune = &tune};
                const gs_status st = gs_gpu_open(&args, &ks, &c.g, &c.err);
                if (st != GS_OK ||
                    (for_segments(w, blocks[b], ks.max_len, gpu_segment, &c), c.failed) ||
                    gs_gpu_finish(c.g, counts, want_hits ? &runs : NULL, &t, &c.err) != GS_OK ||
                    gs_hit_runs_expand(&runs, 1 + b % 3, &hits, &c.err) != GS_OK) {
                    fprintf(stderr, "%s: %s\n", what, c.err.msg);
                    gs_test_failures++;
                } else if (compare(what, &ks, &ref, counts, &hits, want_hits)) {
                    gs_test_failures++;
                }
                gs_gpu_close(c.g);
                gs_hit_runs_free(&runs);
                gs_hits_free(&hits);
            }
    printf("%s: %u keys, %zu hits, checked\n", w->name, ks.n_keys, ref.hits.n);
    fflush(stdout);
    free(counts);
    free(ref.counts);
    gs_hits_free(&ref.hits);
    gs_keyset_free(&ks);
}

/* ---- workloads ---- */

static const char DNA[] = "ACGT";
static const char IUPAC[] = "ACGTRYSWKMBDHVN";

static uint8_t *dna_text(uint64_t *rng, size_t n)
{
    uint8_t *t = malloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = gs_test_below(rng, 1000);
        t[i] = (uint8_t)DNA[gs_test_below(rng, 4)];
        if (r < 30)
            t[i] = (uint8_t)(t[i] | 0x20); /* lowercase */
        else if (r < 36)
            t[i] = "NRY-*n.\0"[gs_test_below(rng, 8)];
        if (r == 999) { /* an N run */
            size_t run = gs_test_below(rng, 40);
            for (size_t j = 0; j < run && i < n; j++)
                t[i++] = 'N';
            i--;
        }
    }
    return t;
}

static void dna_patterns(workload *w, uint64_t *rngp, int n_pat, uint32_t maxlen);

static void random_dna(workload *w, uint64_t seed, int both, int n_pat, uint32_t maxlen)
{
    uint64_t rng = seed;
    w->alpha = GS_ALPHA_DNA;
    w->both = both;
    records(w, 1 + (int)gs_test_below(&rng, 3));
    for (int r = 0; r < w->n_rec; r++) {
        w->rec[r].n = 1 + gs_test_below(&rng, 6000);
        w->rec[r].text = dna_text(&rng, w->rec[r].n);
    }
    dna_patterns(w, &rng, n_pat, maxlen);
}

/* Patterns of 1..12 (a quarter: 1..maxlen) residues, two in three cut from
 * a record, a few IUPAC codes and duplicate entries. */
static void dna_patterns(workload *w, uint64_t *rngp, int n_pat, uint32_t maxlen)
{
    uint64_t rng = *rngp;
    uint8_t buf[4200];
    for (int p = 0; p < n_pat; p++) {
        uint32_t len = 1 + (uint32_t)gs_test_below(&rng, gs_test_below(&rng, 4) ? 12 : maxlen);
        const record *rc = &w->rec[gs_test_below(&rng, (uint64_t)w->n_rec)];
        int planted = gs_test_below(&rng, 3) != 0 && rc->n >= len;
        size_t at = planted ? gs_test_below(&rng, rc->n - len + 1) : 0;
        int degenerate = 0;
        for (uint32_t i = 0; i < len; i++) {
            uint8_t c = planted ? rc->text[at + i] : (uint8_t)DNA[gs_test_below(&rng, 4)];
            uint32_t code = gs_dna_code[c];
            c = code < 4 ? (uint8_t)DNA[code] : (uint8_t)DNA[gs_test_below(&rng, 4)];
            if (degenerate < 3 && gs_test_below(&rng, 20) == 0) {
                c = (uint8_t)IUPAC[4 + gs_test_below(&rng, 11)];
                degenerate++;
            }
            buf[i] = c;
        }
        gs_test_add_pattern(&w->ps, buf, len, 0);
        if (gs_test_below(&rng, 20) == 0) /* a duplicate entry */
            gs_test_add_pattern(&w->ps, buf, len, 0);
    }
    *rngp = rng;
}

/* Many short records (0..300 residues, some empty, submitted as segments
 * with own == 0) with n_long records of long_min..2 long_min among them:
 * the GPU packs the short ones into batches and must map every hit back to
 * its record. dense: also "A", "CG" and "N" (more hits than a hit buffer). */
static void short_records(workload *w, uint64_t seed, int n_short, int n_long, size_t long_min,
                          int n_pat, int dense)
{
    uint64_t rng = seed;
    int n = n_short + n_long;
    w->alpha = GS_ALPHA_DNA;
    w->both = 1;
    w->empty_segs = 1;
    records(w, n);
    for (int r = 0; r < n; r++) {
        size_t len = gs_test_below(&rng, 301);
        if (n_long && r % (n / n_long) == n / n_long / 2)
            len = long_min + gs_test_below(&rng, long_min + 1);
        else if (gs_test_below(&rng, 40) == 0)
            len = 0;
        w->rec[r].n = len;
        w->rec[r].text = dna_text(&rng, len);
    }
    dna_patterns(w, &rng, n_pat, 20);
    if (dense) {
        gs_test_add_pattern(&w->ps, (const uint8_t *)"A", 1, 0);
        gs_test_add_pattern(&w->ps, (const uint8_t *)"CG", 2, 0);
        gs_test_add_pattern(&w->ps, (const uint8_t *)"N", 1, 0);
    }
}

/* Short bytes records: one segment per launch on the GPU. */
static void short_bytes(workload *w, uint64_t seed, int n_rec, int n_pat)
{
    uint64_t rng = seed;
    w->alpha = GS_ALPHA_BYTES;
    w->both = 0;
    w->empty_segs = 1;
    records(w, n_rec);
    for (int r = 0; r < n_rec; r++) {
        size_t len = gs_test_below(&rng, 4) ? gs_test_below(&rng, 200) : 0;
        w->rec[r].n = len;
        w->rec[r].text = malloc(len + 1);
        for (size_t i = 0; i < len; i++)
            w->rec[r].text[i] = (uint8_t)("\0abcdN"[gs_test_below(&rng, 6)]);
    }
    uint8_t buf[16];
    for (int p = 0; p < n_pat; p++) {
        uint32_t len = 1 + (uint32_t)gs_test_below(&rng, 8);
        for (uint32_t i = 0; i < len; i++)
            buf[i] = (uint8_t)("\0abcdN"[gs_test_below(&rng, 6)]);
        gs_test_add_pattern(&w->ps, buf, len, 0);
    }
}

static void random_bytes(workload *w, uint64_t seed, int n_pat, uint32_t maxlen, int wide)
{
    uint64_t rng = seed;
    w->alpha = GS_ALPHA_BYTES;
    w->both = 0;
    records(w, 1 + (int)gs_test_below(&rng, 2));
    for (int r = 0; r < w->n_rec; r++) {
        size_t n = 1 + gs_test_below(&rng, 6000);
        w->rec[r].n = n;
        w->rec[r].text = malloc(n);
        for (size_t i = 0; i < n; i++)
            w->rec[r].text[i] = wide || gs_test_below(&rng, 50) == 0
                                    ? (uint8_t)gs_test_below(&rng, 256)
                                    : (uint8_t)("\0abcd"[gs_test_below(&rng, 5)]);
    }
    uint8_t buf[4200];
    for (int p = 0; p < n_pat; p++) {
        uint32_t len = 1 + (uint32_t)gs_test_below(&rng, gs_test_below(&rng, 4) ? 8 : maxlen);
        const record *rc = &w->rec[gs_test_below(&rng, (uint64_t)w->n_rec)];
        int planted = gs_test_below(&rng, 3) != 0 && rc->n >= len;
        size_t at = planted ? gs_test_below(&rng, rc->n - len + 1) : 0;
        for (uint32_t i = 0; i < len; i++)
            buf[i] = planted ? rc->text[at + i] : (uint8_t)("\0abcd"[gs_test_below(&rng, 5)]);
        gs_test_add_pattern(&w->ps, buf, len, 0);
    }
    if (wide) /* every byte value in some key: the 256-class automaton */
        for (int b = 0; b < 256; b += 2) {
            uint8_t two[2] = {(uint8_t)b, (uint8_t)(b + 1)};
            gs_test_add_pattern(&w->ps, two, 2, 0);
        }
}

/* Many distinct fixed-length keys: the 32-bit / global-memory variants. */
static void many_kmers(workload *w, uint64_t seed, int n_pat, uint32_t k)
{
    uint64_t rng = seed;
    w->alpha = GS_ALPHA_DNA;
    w->both = 1;
    records(w, 1);
    w->rec[0].n = 20000;
    w->rec[0].text = dna_text(&rng, w->rec[0].n);
    uint8_t buf[64];
    for (int p = 0; p < n_pat; p++) {
        int planted = gs_test_below(&rng, 4) == 0;
        size_t at = gs_test_below(&rng, w->rec[0].n - k);
        for (uint32_t i = 0; i < k; i++) {
            uint32_t code = planted ? gs_dna_code[w->rec[0].text[at + i]] : 4;
            buf[i] = (uint8_t)DNA[code < 4 ? code : gs_test_below(&rng, 4)];
        }
        gs_test_add_pattern(&w->ps, buf, k, 0);
    }
}

/* The shape of the rk seed benchmark: a 2-letter text ({A, C}, some
 * lowercase and N runs) and n_pat keys of 10..30 residues over the same two
 * letters, a third planted: most windows of the shortest keys' length match
 * some key's, the case the bitmap's extended windows are for. */
static void two_letters(workload *w, uint64_t seed, int n_pat)
{
    uint64_t rng = seed;
    w->alpha = GS_ALPHA_DNA;
    w->both = 1;
    records(w, 2);
    for (int r = 0; r < 2; r++) {
        w->rec[r].n = 100000 + gs_test_below(&rng, 100000);
        w->rec[r].text = dna_text(&rng, w->rec[r].n);
        for (size_t i = 0; i < w->rec[r].n; i++) /* G -> A, T -> C, case kept */
            if ((w->rec[r].text[i] | 0x20) == 'g' || (w->rec[r].text[i] | 0x20) == 't')
                w->rec[r].text[i] = (uint8_t)((w->rec[r].text[i] & 0x20) |
                                              ((w->rec[r].text[i] | 0x20) == 'g' ? 'A' : 'C'));
    }
    uint8_t buf[32];
    for (int p = 0; p < n_pat; p++) {
        const uint32_t len = 10 + (uint32_t)gs_test_below(&rng, 21);
        const record *rc = &w->rec[gs_test_below(&rng, 2)];
        const int planted = gs_test_below(&rng, 3) == 0;
        const size_t at = gs_test_below(&rng, rc->n - len);
        for (uint32_t i = 0; i < len; i++) {
            const uint32_t code = planted ? gs_dna_code[rc->text[at + i]] : 4;
            buf[i] = code < 4 ? (uint8_t)DNA[code] : (uint8_t)"AC"[gs_test_below(&rng, 2)];
        }
        gs_test_add_pattern(&w->ps, buf, len, 0);
    }
}

/* A few very long keys planted in a repetitive text, plus short ones. */
static void long_keys(workload *w, uint64_t seed)
{
    uint64_t rng = seed;
    w->alpha = GS_ALPHA_DNA;
    w->both = 1;
    records(w, 1);
    size_t n = 30000;
    w->rec[0].n = n;
    w->rec[0].text = malloc(n);
    for (size_t i = 0; i < n; i++) /* period 997 with rare mutations: long repeats */
        w->rec[0].text[i] = i < 997 || gs_test_below(&rng, 500) == 0
                                ? (uint8_t)DNA[gs_test_below(&rng, 4)]
                                : w->rec[0].text[i - 997];
    uint32_t lens[] = {4096, 3000, 1500, 997, 64, 5, 1};
    for (int j = 0; j < 7; j++) {
        size_t at = gs_test_below(&rng, n - lens[j]);
        gs_test_add_pattern(&w->ps, w->rec[0].text + at, lens[j], 0);
    }
}

/* lambda phage through the corpus reader, in blocks of 5000. */
static void genome(void)
{
    char root[4096], path[4200];
    snprintf(root, sizeof root, "%s", gs_test_data(""));
    char *cut = strstr(root, "/tests/data");
    if (cut)
        *cut = 0;
    snprintf(path, sizeof path, "%s/data/cache/lambda_virus.fa.gz", root);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        char cmd[4400];
        snprintf(cmd, sizeof cmd, "%s/scripts/fetch-examples.sh bowtie2-examples >/dev/null 2>&1",
                 root);
        if (system(cmd) == 0)
            f = fopen(path, "rb");
    }
    if (f == NULL) {
        printf("genome: skipped, %s is missing and scripts/fetch-examples.sh failed\n", path);
        return;
    }
    fclose(f);

    workload w = {0};
    w.name = "lambda_virus";
    w.alpha = GS_ALPHA_DNA;
    w.both = 1;
    gs_layout layout = {0};
    gs_reader *rd = NULL;
    gs_error err = {0};
    const char *files[] = {path};
    gs_reader_opts o = {.format = GS_INPUT_AUTO, .block = 1 << 16};
    uint8_t *buf = malloc(1 << 16);
    gs_segment seg;
    int more = 0;
    records(&w, 1);
    w.n_rec = 0;
    CHECK(gs_reader_open(files, 1, &o, &layout, &rd, &err) == GS_OK);
    while (rd && gs_reader_next(rd, buf, &seg, &more, &err) == GS_OK && more) {
        /* one record: collect its residues (the reader gives whole blocks) */
        record *r = &w.rec[0];
        r->text = realloc(r->text, r->n + seg.own);
        memcpy(r->text + r->n, seg.text, seg.own);
        r->n += seg.own;
        w.n_rec = 1;
    }
    gs_reader_close(rd);
    gs_layout_free(&layout);
    free(buf);
    CHECK(w.n_rec == 1 && w.rec[0].n == 48502);
    if (w.n_rec != 1) {
        fprintf(stderr, "genome: %s\n", err.msg);
        return;
    }
    uint64_t rng = 0x1a3bda;
    uint8_t pat[32];
    for (int p = 0; p < 300; p++) {
        uint32_t len = 8 + (uint32_t)gs_test_below(&rng, 17);
        size_t at = gs_test_below(&rng, w.rec[0].n - len);
        for (uint32_t i = 0; i < len; i++)
            pat[i] = (uint8_t)DNA[gs_dna_code[w.rec[0].text[at + i]] & 3];
        if (p % 10 == 0)
            pat[len / 2] = 'N';
        gs_test_add_pattern(&w.ps, pat, len, 0);
    }
    size_t blocks[] = {5000, 1u << 20};
    check_workload(&w, blocks, 2);
    workload_free(&w);
}

int main(void)
{
    int n = gs_gpu_device_count();
    if (n == 0) {
        printf("test_gpu: skipped, no CUDA device\n");
        return 77;
    }
    const char *quick = getenv("GS_TEST_QUICK");
    int seeds = quick ? 4 : 16;
    size_t big[] = {1u << 20, 777};
    size_t tiny[] = {1, 2, 3, 16, 100};

    for (int s = 0; s < seeds; s++) {
        workload w = {0};
        char name[64];
        snprintf(name, sizeof name, "dna seed %d", s);
        w.name = name;
        random_dna(&w, 1000 + (uint64_t)s, s % 2, 5 + s * 7, s % 3 ? 20 : 64);
        check_workload(&w, big, 2);
        workload_free(&w);

        snprintf(name, sizeof name, "bytes seed %d", s);
        w.name = name;
        random_bytes(&w, 2000 + (uint64_t)s, 5 + s * 5, s % 3 ? 16 : 64, s % 4 == 3);
        check_workload(&w, big, 2);
        workload_free(&w);
    }
    for (int s = 0; s < 2; s++) { /* many segments, several records */
        workload w = {0};
        w.name = "dna tiny blocks";
        random_dna(&w, 3000 + (uint64_t)s, 1, 30, 12);
        for (int r = 0; r < w.n_rec; r++)
            if (w.rec[r].n > 700)
                w.rec[r].n = 700;
        check_workload(&w, tiny, 5);
        workload_free(&w);
        w.name = "bytes tiny blocks";
        random_bytes(&w, 4000 + (uint64_t)s, 20, 10, 0);
        for (int r = 0; r < w.n_rec; r++)
            if (w.rec[r].n > 700)
                w.rec[r].n = 700;
        check_workload(&w, tiny, 5);
        workload_free(&w);
    }
    {
        workload w = {0};
        w.name = "16000 8-mers";
        many_kmers(&w, 5000, 16000, 8);
        check_workload(&w, big, 1);
        workload_free(&w);
        w.name = "40000 14-mers (32-bit, global-memory automaton)";
        many_kmers(&w, 5001, 40000, 14);
        check_workload(&w, big, 1);
        workload_free(&w);
        w.name = "70000 12-mers (counts in global memory)";
        many_kmers(&w, 5002, 70000, 12);
        check_workload(&w, big, 1);
        workload_free(&w);
        w.name = "2-letter text, 256 keys of 10..30";
        two_letters(&w, 5003, 256);
        size_t tb[] = {1u << 20, 777, 31};
        check_workload(&w, tb, 3);
        workload_free(&w);
        w.name = "2-letter text, 24 keys of 10..30";
        two_letters(&w, 5004, 24);
        check_workload(&w, tb, 3);
        workload_free(&w);
        w.name = "long keys";
        long_keys(&w, 6000);
        size_t lb[] = {1u << 20, 5000};
        check_workload(&w, lb, 2);
        workload_free(&w);
    }
    {   /* more hits than the initial hit buffer (4096): the rescan path */
        workload w = {0};
        w.name = "dense hits";
        w.alpha = GS_ALPHA_DNA;
        w.both = 1;
        records(&w, 1);
        uint64_t rng = 7000;
        w.rec[0].n = 50000;
        w.rec[0].text = dna_text(&rng, w.rec[0].n);
        gs_test_add_pattern(&w.ps, (const uint8_t *)"A", 1, 0);
        gs_test_add_pattern(&w.ps, (const uint8_t *)"N", 1, 0);
        gs_test_add_pattern(&w.ps, (const uint8_t *)"CG", 2, 0);
        check_workload(&w, big, 1);
        workload_free(&w);
    }
    {   /* short records packed into batches */
        workload w = {0};
        w.name = "short records, dense hits";
        short_records(&w, 8000, quick ? 1000 : 5000, 5, 2000, 40, 1);
        size_t sb[] = {1u << 20, 4096, 300};
        check_workload(&w, sb, 3);
        workload_free(&w);
        w.name = "short records, tiny blocks";
        short_records(&w, 8001, 100, 3, 500, 30, 0);
        size_t tb[] = {16, 5, 2};
        check_workload(&w, tb, 3);
        workload_free(&w);
        w.name = "short bytes records";
        short_bytes(&w, 8002, 300, 20);
        size_t bb[] = {1u << 20, 50};
        check_workload(&w, bb, 2);
        workload_free(&w);
    }
    genome();
    return gs_test_done("test_gpu");
}
