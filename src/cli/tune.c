/* tune.c - --tune KEY=VALUE and --debug WORDS (see tune.h).
 *
 * A knob is a row: name, kind (a size with K/M/G, or a plain integer), the
 * offset of its gs_tune field, its range and one line of help. Parsing,
 * range checks and `--tune help` all walk that one table, so adding a knob
 * is adding a row (and its field in core/gs_tune.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "tune.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

typedef enum { KNOB_SIZE, KNOB_INT } knob_kind;

typedef struct knob {
    const char *name;
    knob_kind kind;   /* KNOB_SIZE: uint64_t field; KNOB_INT: int field */
    size_t off;       /* offsetof(gs_tune, field) */
    int64_t lo, hi;   /* accepted range, both ends included */
    const char *help; /* one line; 0 always means the stage's own default */
} knob;

#define SIZE_MAX_KNOB ((int64_t)1 << 40)

static const knob knobs[] = {
    {"io.gzip.region", KNOB_SIZE, offsetof(gs_tune, io_gzip_region), 0, SIZE_MAX_KNOB,
     "compressed bytes a region of the parallel gzip inflate (0: 4M)"},
    {"io.fai.split", KNOB_SIZE, offsetof(gs_tune, io_fai_split), 0, SIZE_MAX_KNOB,
     "bytes a part of the in-memory .fai build (0: one part a thread)"},
    {"io.part", KNOB_SIZE, offsetof(gs_tune, io_part), 0, SIZE_MAX_KNOB,
     "bytes a part of a FASTA/FASTQ file read in parts (0: 8M; GPU: block/2 at most)"},
    {"io.fastq.map", KNOB_INT, offsetof(gs_tune, io_fastq_map), -1, 1,
     "FASTQ parts to a GPU: 0 (default) mapped, only sequences copied; 1 the same, "
     "pages faulted as read; -1 read whole"},
    {"io.fastq.codes", KNOB_INT, offsetof(gs_tune, io_fastq_codes), -1, 1,
     "mapped FASTQ reads of A/C/G/T copied to a GPU as 2-bit codes: 0 (default) by the "
     "vector coder where the processor has one; 1 the portable coder; -1 as bytes"},
    {"io.fai.dense", KNOB_INT, offsetof(gs_tune, io_fai_dense), -1, 0,
     "one rank reads files of short records in parts, not by .fai: -1 never, 0 (default)"},
    {"io.bgzf.inflate", KNOB_INT, offsetof(gs_tune, io_bgzf_inflate), 0, 1,
     "BGZF blocks inflated by 0 ISA-L (default), 1 libdeflate"},
    {"io.h5.threads", KNOB_INT, offsetof(gs_tune, io_h5_threads), 0, 64,
     "threads of the direct HDF5 chunk writer (0: its own)"},
    {"io.h5.slots", KNOB_INT, offsetof(gs_tune, io_h5_slots), 0, 4096,
     "chunks in flight in that writer (0: its own)"},
    {"io.h5.align", KNOB_SIZE, offsetof(gs_tune, io_h5_align), 0, 1 << 30,
     "align HDF5 objects of this size or more to it (0: 1M; 1: off)"},
    {"lz.batch", KNOB_SIZE, offsetof(gs_tune, lz_batch), 0, SIZE_MAX_KNOB,
     "residues a batch of the LZ77 index build holds (0: 512M)"},
    {"lz.chunk", KNOB_SIZE, offsetof(gs_tune, lz_chunk), 0, UINT32_MAX,
     "items a chunk of the LZ77 index file (0: its own)"},
    {"match.seed.filter", KNOB_INT, offsetof(gs_tune, match_seed_filter), -1, 1,
     "approximate matching's seed filter: -1 off, 0 or 1 on (default)"},
    {"match.zone.scan", KNOB_INT, offsetof(gs_tune, match_zone_scan), -1, 1,
     "scan from selective --exact-3p zones: -1 never, 0 keys off the seed filter, 1 all"},
    {"gpu.bv.direct", KNOB_INT, offsetof(gs_tune, gpu_bv_direct), -1, 1,
     "GPU bv direct kernel: -1 never, 0 where it pays, 1 wherever it fits"},
    {"gpu.ac.parts", KNOB_INT, offsetof(gs_tune, gpu_ac_parts), 0, 16,
     "least parts of the GPU's partitioned AC (0: 2)"},
    {"gpu.ac.compact", KNOB_INT, offsetof(gs_tune, gpu_ac_compact), -1, 1,
     "GPU AC compact kernel: -1 never, 0 or 1 where it fits (default)"},
    {"gpu.laid", KNOB_INT, offsetof(gs_tune, gpu_laid), -1, 0,
     "a reader's batch to the GPU: 0 (default) as its table; -1 a segment at a time (a check)"},
    {"host.numa", KNOB_INT, offsetof(gs_tune, host_numa), -1, 1,
     "a GPU rank's threads on its GPU's NUMA node: -1 never, 0 with 2+ GPU ranks a node, 1 always"},
    {"host.visible", KNOB_INT, offsetof(gs_tune, host_visible), -1, 0,
     "GPUs a rank's CUDA starts: -1 all it may see, 0 (default) only the one the rank takes"},
};
enum { N_KNOBS = sizeof knobs / sizeof *knobs };

static const struct {
    const char *word;
    unsigned bit;
    const char *help;
} debug_words[] = {
    {"time", GS_DEBUG_TIME, "per-step timings on stderr"},
    {"io", GS_DEBUG_IO, "the corpus bytes each rank read, and how (gscan scan)"},
    {"no-warmup", GS_DEBUG_NO_WARMUP, "no GPU context made at start-up (to time what it saves)"},
};

static const knob *knob_find(const char *name, size_t len)
{
    for (int i = 0; i < N_KNOBS; i++)
        if (strlen(knobs[i].name) == len && !strncmp(knobs[i].name, name, len))
            return &knobs[i];
    return NULL;
}

/* The value of a row: a size (K/M/G) or a signed integer, in its range;
 * GS_EUSAGE without a message when it is neither (gs_tune_set words it). */
static gs_status knob_value(const knob *k, const char *v, int64_t *out)
{
    if (k->kind == KNOB_SIZE) {
        uint64_t n;
        if (gs_parse_size(v, &n) != GS_OK || n > (uint64_t)k->hi)
            return GS_EUSAGE;
        *out = (int64_t)n;
        return GS_OK;
    }
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || *end || n < k->lo || n > k->hi)
        return GS_EUSAGE;
    *out = n;
    return GS_OK;
}

gs_status gs_tune_set(gs_tune *t, const char *kv, const char *where, gs_status bad,
                      gs_error *err)
{
    const char *eq = strchr(kv, '=');
    if (eq == NULL)
        return gs_fail(err, bad, "--tune takes KEY=VALUE, not '%s'; --tune help lists the keys (%s)",
                       kv, where);
    const knob *k = knob_find(kv, (size_t)(eq - kv));
    if (k == NULL)
        return gs_fail(err, bad, "unknown tune key '%.*s': --tune help lists them (%s)",
                       (int)(eq - kv), kv, where);
    int64_t v;
    if (knob_value(k, eq + 1, &v) != GS_OK) {
        if (k->kind == KNOB_SIZE)
            return gs_fail(err, bad, "%s must be a size from 0 to %lld (K/M/G suffixes), not '%s' (%s)",
                           k->name, (long long)k->hi, eq + 1, where);
        return gs_fail(err, bad, "%s must be a number from %lld to %lld, not '%s' (%s)", k->name,
                       (long long)k->lo, (long long)k->hi, eq + 1, where);
    }
    char *field = (char *)t + k->off;
    if (k->kind == KNOB_SIZE)
        *(uint64_t *)(void *)field = (uint64_t)v;
    else
        *(int *)(void *)field = (int)v;
    return GS_OK;
}

gs_status gs_debug_set(gs_tune *t, const char *words, const char *where, gs_status bad,
                       gs_error *err)
{
    const char *w = words;
    for (;;) {
        size_t len = strcspn(w, ",");
        size_t i = 0, n = sizeof debug_words / sizeof *debug_words;
        while (i < n && !(strlen(debug_words[i].word) == len && !strncmp(debug_words[i].word, w, len)))
            i++;
        if (i == n)
            return gs_fail(err, bad, "unknown debug word '%.*s': expected time, io or no-warmup (%s)",
                           (int)len, w, where);
        t->debug |= debug_words[i].bit;
        if (w[len] == '\0')
            return GS_OK;
        w += len + 1;
    }
}

int gs_tune_wants_help(const char *v) { return v && !strcmp(v, "help"); }

void gs_tune_print_help(FILE *out)
{
    fputs("--tune KEY=VALUE (repeatable): how gscan computes, never what it finds;\n"
          "sizes take K/M/G suffixes, and 0 is each stage's own default.\n\n",
          out);
    for (int i = 0; i < N_KNOBS; i++) {
        const knob *k = &knobs[i];
        char range[64];
        if (k->kind == KNOB_SIZE)
            snprintf(range, sizeof range, "size");
        else
            snprintf(range, sizeof range, "%lld..%lld", (long long)k->lo, (long long)k->hi);
        fprintf(out, "  %-18s %-7s %s\n", k->name, range, k->help);
    }
    fputs("\n--debug WORD[,WORD] (repeatable):\n", out);
    for (size_t i = 0; i < sizeof debug_words / sizeof *debug_words; i++)
        fprintf(out, "  %-18s %s\n", debug_words[i].word, debug_words[i].help);
}

/* One gscan-wide option at argv[i]: 1 --tune, 2 --debug, 0 neither; *val
 * its value (the next argument or after '='), *used the arguments it takes. */
static int global_option(int argc, char **argv, int i, const char **val, int *used)
{
    static const char *const names[] = {"--tune", "--debug"};
    for (int k = 0; k < 2; k++) {
        size_t l = strlen(names[k]);
        if (strncmp(argv[i], names[k], l) != 0)
            continue;
        if (argv[i][l] == '=') {
            *val = argv[i] + l + 1;
            *used = 1;
            return k + 1;
        }
        if (argv[i][l] == '\0') {
            *val = i + 1 < argc ? argv[i + 1] : NULL;
            *used = 2;
            return k + 1;
        }
    }
    return 0;
}

gs_status gs_tune_take(int *argc, char **argv, gs_tune *t, int *help, gs_error *err)
{
    int out = 1, i = 1;
    while (i < *argc && strcmp(argv[i], "--") != 0) {
        const char *val;
        int used, which = global_option(*argc, argv, i, &val, &used);
        if (which == 0) {
            argv[out++] = argv[i++];
            continue;
        }
        const char *name = which == 1 ? "--tune" : "--debug";
        if (val == NULL)
            return gs_fail(err, GS_EUSAGE, "option '%s' needs a value (gscan %s)", name, argv[0]);
        gs_status st = which == 2 ? gs_debug_set(t, val, name, GS_EUSAGE, err)
                       : gs_tune_wants_help(val) ? (*help = 2, GS_OK)
                                                 : gs_tune_set(t, val, name, GS_EUSAGE, err);
        if (st != GS_OK)
            return st;
        i += used;
    }
    while (i < *argc)
        argv[out++] = argv[i++];
    argv[out] = NULL;
    *argc = out;
    return GS_OK;
}
