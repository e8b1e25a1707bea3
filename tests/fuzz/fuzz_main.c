/* fuzz_main.c - one libFuzzer binary for gscan's readers; GS_FUZZ=<target>
 * picks which one the bytes go to.
 *
 * Every reader gscan has takes a path (they read files, pipes and indexes
 * by name, and check against the file's size), so each target writes the
 * fuzz bytes to a private temporary file and opens that: the same code path
 * a user's file takes. One binary rather than one per target keeps the
 * clang build (tests/fuzz/run.sh) to a single compile of src/io.
 *
 * Targets: fasta (plain, gzip, BGZF and raw corpus reader), patterns (pattern
 * file, dna and bytes alphabets, and -s patterns), fai (.fai of a fixed
 * FASTA, then ranges read through it), gzi (.gzi of a fixed BGZF file, then
 * reads through it), config (--config files), h5 (result files: info,
 * export, export --counts), gzip (the parallel gzip decoder against the
 * sequential one: the same bytes or both an error).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "io/stream/bgzf.h"
#include "io/seq/fai.h"
#include "io/seq/fasta.h"
#include "cli/info.h"
#include "io/results/h5out.h"
#include "io/stream/stream.h"
#include "io/seq/patterns.h"

static char dir[256], path[300], aux[320];
static int (*target)(const uint8_t *, size_t);

static void put(const char *p, const void *d, size_t n)
{
    FILE *f = fopen(p, "wb");
    if (f == NULL || fwrite(d, 1, n, f) != n || fclose(f) != 0) {
        perror(p);
        abort();
    }
}

static int fuzz_fasta(const uint8_t *d, size_t n)
{
    put(path, d, n);
    for (int fmt = GS_INPUT_AUTO; fmt <= GS_INPUT_FASTQ; fmt++) {
        gs_layout lay = {0};
        gs_reader *r = NULL;
        gs_error err = {0};
        const char *files[1] = {path};
        gs_reader_opts o = {(gs_input_format)fmt, 61, 7};
        static uint8_t buf[61 + 7];
        gs_segment seg;
        int more = 0;
        if (gs_reader_open(files, 1, &o, &lay, &r, &err) == GS_OK)
            while (gs_reader_next(r, buf, &seg, &more, &err) == GS_OK && more)
                if (seg.len > sizeof buf || seg.own > seg.len)
                    abort();
        if (r)
            gs_reader_close(r);
        gs_layout_free(&lay);
    }
    return 0;
}

/* The whole decompressed file, or NULL on a decoding error (*n its size);
 * threads > 1: the parallel decoder, in regions of 48 bytes (small enough
 * for many in one input). */
static uint8_t *inflate_all(int threads, size_t *n)
{
    gs_stream *z = NULL;
    gs_error err = {0};
    uint8_t *out = NULL;
    size_t len = 0, cap = 0;
    gs_tune tune = {.io_gzip_region = 48};
    gs_stream_opts so = {.threads = threads, .tune = &tune};
    int ok = gs_stream_open(path, &so, &z, &err) == GS_OK;
    for (size_t k = 1; ok && k > 0;) {
        if (cap - len < 65536) {
            uint8_t *v = realloc(out, cap = 2 * cap + 65536);
            if (v == NULL)
                abort();
            out = v;
        }
        ok = gs_stream_read(z, out + len, cap - len, &k, &err) == GS_OK;
        len += ok ? k : 0;
    }
    gs_stream_close(z);
    if (!ok) {
        free(out);
        return NULL;
    }
    *n = len;
    return out ? out : malloc(1);
}

/* The parallel gzip decoder against the sequential one (ISA-L): the same
 * bytes, or both an error. */
static int fuzz_gzip(const uint8_t *d, size_t n)
{
    put(path, d, n);
    size_t n1 = 0, n4 = 0;
    uint8_t *one = inflate_all(1, &n1), *par = inflate_all(4, &n4);
    if ((one == NULL) != (par == NULL) || (one && (n1 != n4 || memcmp(one, par, n1) != 0)))
        abort();
    free(one);
    free(par);
    return 0;
}

static int fuzz_patterns(const uint8_t *d, size_t n)
{
    put(path, d, n);
    for (int a = GS_ALPHA_DNA; a <= GS_ALPHA_BYTES; a++) {
        gs_patset ps;
        gs_error err = {0};
        if (gs_patset_read(path, (gs_alphabet)a, &ps, &err) == GS_OK)
            gs_patset_free(&ps);
    }
    /* the same bytes as one -s pattern (up to a NUL) after the file's */
    char *seq = strndup((const char *)d, n);
    gs_patset ps;
    gs_error err = {0};
    if (seq && gs_patset_load(NULL, &seq, 1, GS_ALPHA_DNA, &ps, &err) == GS_OK)
        gs_patset_free(&ps);
    free(seq);
    return 0;
}

/* A small FASTA with two records for the .fai target. */
static const char fasta[] = ">r1 x\nACGTACGTAC\nGTACGTAC\n>r2\nNNNNACGT\nAC\n";

static int fuzz_fai(const uint8_t *d, size_t n)
{
    put(aux, d, n); /* path.fai */
    gs_fai fai = {0};
    gs_error err = {0};
    if (gs_fai_load(path, NULL, &fai, &err) == GS_OK && fai.n > 0) {
        gs_seqfile f = {0};
        if (gs_seqfile_open(path, &f, &err) == GS_OK) {
            for (size_t i = 0; i < fai.n && err.code == GS_OK; i++) {
                uint64_t len = fai.v[i].length < 4096 ? fai.v[i].length : 4096, bytes = 0;
                uint8_t out[4096];
                gs_fai_read_range(&f, &fai.v[i], 0, len, out, &bytes, &err);
            }
            gs_seqfile_close(&f);
        }
    }
    gs_fai_free(&fai);
    return 0;
}

static int fuzz_gzi(const uint8_t *d, size_t n)
{
    put(aux, d, n); /* path.gzi next to a real BGZF file */
    gs_gzi gzi = {0};
    gs_error err = {0};
    if (gs_gzi_load(aux, &gzi, &err) == GS_OK)
        gs_gzi_free(&gzi);
    gs_bgzf *b = NULL;
    gs_error e2 = {0};
    if (gs_bgzf_open(path, &b, &e2) == GS_OK) {
        uint8_t out[1000];
        size_t got = 0;
        uint64_t bytes = 0, size = gs_bgzf_size(b);
        for (uint64_t at = 0; at < size && at < 200000 && e2.code == GS_OK; at += 997)
            gs_bgzf_read(b, at, out, sizeof out, &got, &bytes, &e2);
        gs_bgzf_close(b);
    }
    return 0;
}

static int fuzz_config(const uint8_t *d, size_t n)
{
    put(path, d, n);
    char *argv[] = {"scan", "--config", path, "x.fa", NULL};
    gs_scan_opts o;
    gs_error err = {0};
    int help = 0;
    gs_scan_opts_parse(4, argv, &o, &help, &err);
    gs_scan_opts_free(&o);
    return 0;
}

static int fuzz_h5(const uint8_t *d, size_t n)
{
    put(path, d, n);
    gs_h5_file *f = NULL;
    gs_error err = {0};
    if (gs_h5_open(path, &f, &err) != GS_OK)
        return 0;
    FILE *null = fopen("/dev/null", "w");
    gs_error e1 = {0}, e2 = {0}, e3 = {0};
    gs_info_result(f, null, &e1);
    gs_h5_export(f, "tsv", null, &e2);
    gs_h5_export_counts(f, null, &e3);
    fclose(null);
    gs_h5_close(f);
    return 0;
}

static void cleanup(void)
{
    unlink(path);
    unlink(aux);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *t = getenv("GS_FUZZ");
    static const struct {
        const char *name;
        int (*fn)(const uint8_t *, size_t);
    } targets[] = {{"fasta", fuzz_fasta}, {"patterns", fuzz_patterns}, {"fai", fuzz_fai},
                   {"gzi", fuzz_gzi},     {"config", fuzz_config},     {"h5", fuzz_h5},
                   {"gzip", fuzz_gzip}};
    for (size_t i = 0; t && i < sizeof targets / sizeof *targets; i++)
        if (!strcmp(t, targets[i].name))
            target = targets[i].fn;
    if (target == NULL) {
        fprintf(stderr, "set GS_FUZZ to fasta, patterns, fai, gzi, config, h5 or gzip\n");
        exit(2);
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/gs_fuzz.XXXXXX", tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        perror(dir);
        exit(2);
    }
    atexit(cleanup);
    if (!strcmp(t, "fai")) {
        snprintf(path, sizeof path, "%s/c.fa", dir);
        snprintf(aux, sizeof aux, "%s.fai", path);
        put(path, fasta, sizeof fasta - 1);
    } else if (!strcmp(t, "gzi")) {
        /* the BGZF file comes from the seed directory's neighbour (run.sh) */
        const char *bgzf = getenv("GS_FUZZ_BGZF");
        snprintf(path, sizeof path, "%s/c.fa.gz", dir);
        snprintf(aux, sizeof aux, "%s.gzi", path);
        char cmd[800];
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", bgzf ? bgzf : "", path);
        if (bgzf == NULL || system(cmd) != 0) {
            fprintf(stderr, "gzi: set GS_FUZZ_BGZF to a BGZF file\n");
            exit(2);
        }
    } else {
        snprintf(path, sizeof path, "%s/input", dir);
        snprintf(aux, sizeof aux, "%s/unused", dir);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    return target(d, n);
}
