/* test_fai.c - the .fai index: build and write against fixtures made with
 * `seqkit faidx FILE` (same text format as samtools faidx; fai_empty's is
 * written by hand, see tests/data/io/README), ranges read through the index
 * against the streaming reader, and rejection of what cannot be indexed or no
 * longer fits its file. BGZF: the same range checks on files compressed by a
 * small BGZF writer here (and by bgzip when installed), and the .fai text
 * against `samtools faidx FILE.fa.gz` when samtools is installed.
 */
#define _POSIX_C_SOURCE 200809L
#include "io/seq/fai.h"
#include "io/seq/fasta.h"
#include "testlib.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[256];

/* Write data as BGZF blocks of `block` bytes (at most 0xff00, as bgzip),
 * then the empty EOF block; independent of src/io/bgzf.c. */
static void write_bgzf(const char *path, const uint8_t *data, size_t n, size_t block)
{
    FILE *f = fopen(path, "wb");
    uint8_t *out = malloc(70000);
    for (size_t off = 0;; off += block) {
        size_t len = n - off < block ? n - off : block;
        if (off >= n)
            len = 0; /* the EOF block */
        z_stream zs = {0};
        deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
        zs.next_in = (Bytef *)(data + (off < n ? off : 0));
        zs.avail_in = (uInt)len;
        zs.next_out = out + 18;
        zs.avail_out = 70000 - 26;
        deflate(&zs, Z_FINISH);
        size_t clen = zs.total_out, bsize = clen + 26;
        deflateEnd(&zs);
        static const uint8_t h[16] = {31, 139, 8, 4, 0, 0, 0, 0, 0, 255, 6, 0, 'B', 'C', 2, 0};
        memcpy(out, h, 16);
        out[16] = (uint8_t)((bsize - 1) & 0xff);
        out[17] = (uint8_t)((bsize - 1) >> 8);
        uint32_t crc = (uint32_t)crc32(0, data + (off < n ? off : 0), (uInt)len);
        for (int i = 0; i < 4; i++) {
            out[18 + clen + i] = (uint8_t)(crc >> (8 * i));
            out[22 + clen + i] = (uint8_t)(len >> (8 * i));
        }
        fwrite(out, 1, bsize, f);
        if (len == 0)
            break;
    }
    fclose(f);
    free(out);
}

static int have_tool(const char *name)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    return system(cmd) == 0;
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *d = malloc(cap + 1);
    size_t r;
    while ((r = fread(d + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap)
            d = realloc(d, (cap *= 2) + 1);
    }
    fclose(f);
    d[len] = 0;
    *n = len;
    return d;
}

static void spit(const char *path, const void *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(d, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        exit(3);
    }
}

static const char *tmp_path(const char *name)
{
    static char p[4][512];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", tmpdir, name);
    return p[i];
}

/* Copy a fixture into the temp dir (where its .fai may be written). */
static const char *stage(const char *fixture)
{
    size_t n;
    char *d = slurp(gs_test_data(fixture), &n);
    if (d == NULL) {
        fprintf(stderr, "missing fixture %s\n", fixture);
        exit(3);
    }
    const char *base = strrchr(fixture, '/') + 1;
    const char *p = tmp_path(base);
    spit(p, d, n);
    free(d);
    return p;
}

/* Build, write, compare with the expected text; load back and compare. */
static void check_build(const char *fixture, const char *expected)
{
    char fa[512], fai_path[600];
    snprintf(fa, sizeof fa, "%s", stage(fixture));
    snprintf(fai_path, sizeof fai_path, "%s.fai", fa);
    gs_fai fai;
    gs_error err = {0};
    CHECK(gs_fai_build(fa, 1, NULL, &fai, &err) == GS_OK);
    if (err.code) {
        fprintf(stderr, "%s: %s\n", fixture, err.msg);
        return;
    }
    CHECK(gs_fai_write(fai_path, &fai, &err) == GS_OK);
    size_t n1, n2;
    char *got = slurp(fai_path, &n1);
    char *want = slurp(gs_test_data(expected), &n2);
    CHECK(got && want && n1 == n2 && memcmp(got, want, n1) == 0);
    if (got && want && (n1 != n2 || memcmp(got, want, n1) != 0))
        fprintf(stderr, "%s: index differs\n--- got\n%s--- expected\n%s", fixture, got, want);
    gs_fai back;
    CHECK(gs_fai_load(fa, NULL, &back, &err) == GS_OK);
    if (err.code)
        fprintf(stderr, "load %s: %s\n", fixture, err.msg);
    CHECK_EQ_U64(back.n, fai.n);
    for (size_t i = 0; i < back.n && i < fai.n; i++)
        CHECK(strcmp(back.v[i].name, fai.v[i].name) == 0 && back.v[i].length == fai.v[i].length &&
              back.v[i].offset == fai.v[i].offset && back.v[i].linebases == fai.v[i].linebases &&
              back.v[i].linewidth == fai.v[i].linewidth);
    gs_fai_free(&back);
    gs_fai_free(&fai);
    free(got);
    free(want);
}

/* Every record's residues by the streaming reader. */
typedef struct stream_rec {
    uint8_t *s;
    uint64_t n;
} stream_rec;

static size_t stream_all(const char *fa, stream_rec *out, size_t max)
{
    gs_layout L = {0};
    gs_error err = {0};
    gs_reader *r;
    gs_reader_opts o = {.format = GS_INPUT_FASTA, .block = 1 << 16};
    const char *f[1] = {fa};
    if (gs_reader_open(f, 1, &o, &L, &r, &err) != GS_OK)
        return 0;
    uint8_t *buf = malloc(1 << 16);
    gs_segment seg;
    int more = 0;
    while (gs_reader_next(r, buf, &seg, &more, &err) == GS_OK && more) {
        stream_rec *x = &out[seg.record];
        x->s = realloc(x->s, seg.base + seg.own);
        memcpy(x->s + seg.base, seg.text, seg.own);
    }
    size_t n = L.n_rec < max ? L.n_rec : max;
    for (size_t i = 0; i < n; i++)
        out[i].n = L.rec[i].length;
    free(buf);
    gs_reader_close(r);
    gs_layout_free(&L);
    return n;
}

/* Random ranges through the index equal the streaming reader's residues. */
static void check_ranges(const char *fa, uint64_t *rs)
{
    gs_fai fai;
    gs_error err = {0};
    CHECK(gs_fai_build(fa, 1, NULL, &fai, &err) == GS_OK);
    static stream_rec recs[256];
    memset(recs, 0, sizeof recs);
    size_t n = stream_all(fa, recs, 256);
    CHECK_EQ_U64(n, fai.n);
    gs_seqfile sf;
    CHECK(gs_seqfile_open(fa, &sf, &err) == GS_OK);
    if (err.code)
        fprintf(stderr, "%s\n", err.msg);
    uint64_t bytes = 0;
    for (size_t i = 0; i < n && i < fai.n && !err.code; i++) {
        CHECK_EQ_U64(fai.v[i].length, recs[i].n);
        for (int t = 0; t < 40; t++) {
            uint64_t len = recs[i].n;
            uint64_t b = gs_test_below(rs, len + 1), e = b + gs_test_below(rs, len - b + 1);
            if (t == 0)
                b = 0, e = len;
            uint8_t *out = gs_guarded_alloc(e - b ? e - b : 1);
            gs_status st = gs_fai_read_range(&sf, &fai.v[i], b, e, out, &bytes, &err);
            CHECK(st == GS_OK);
            if (st != GS_OK)
                fprintf(stderr, "%s\n", err.msg);
            else if (e > b && memcmp(out, recs[i].s + b, e - b) != 0) {
                fprintf(stderr, "%s record %zu range %llu-%llu differs\n", fa, i,
                        (unsigned long long)b, (unsigned long long)e);
                CHECK(0);
            }
            gs_guarded_free(out, e - b ? e - b : 1);
        }
        free(recs[i].s);
    }
    CHECK(bytes > 0);
    gs_seqfile_close(&sf);
    gs_fai_free(&fai);
}

static void check_build_fails(const char *fa, const char *need)
{
    gs_fai fai;
    gs_error err = {0};
    CHECK(gs_fai_build(fa, 1, NULL, &fai, &err) == GS_EINPUT);
    CHECK(strstr(err.msg, fa) != NULL && strstr(err.msg, need) != NULL);
    if (!strstr(err.msg, need))
        fprintf(stderr, "build %s: \"%s\", expected \"%s\"\n", fa, err.msg, need);
    CHECK(fai.n == 0);
}

static void index_file(const char *fa, const char *fai_path)
{
    gs_fai fai;
    gs_error err = {0};
    CHECK(gs_fai_build(fa, 1, NULL, &fai, &err) == GS_OK);
    CHECK(gs_fai_write(fai_path, &fai, &err) == GS_OK);
    gs_fai_free(&fai);
}

/* Load fa's index and read through it: every record whole, or [range[0],
 * range[1]) of the first. */
static gs_status read_through_index(const char *fa, const uint64_t *range, gs_error *err)
{
    gs_fai fai;
    gs_status st = gs_fai_load(fa, NULL, &fai, err);
    if (st != GS_OK) /* the headers do not fit */
        return st;
    gs_seqfile sf;
    uint64_t bytes = 0;
    st = gs_seqfile_open(fa, &sf, err);
    for (size_t i = 0; i < (range ? 1 : fai.n) && i < fai.n && st == GS_OK; i++) {
        uint64_t b = range ? range[0] : 0, e = range ? range[1] : fai.v[i].length;
        uint8_t *out = malloc(e - b + 1);
        st = gs_fai_read_range(&sf, &fai.v[i], b, e, out, &bytes, err);
        free(out);
    }
    gs_seqfile_close(&sf);
    gs_fai_free(&fai);
    return st;
}

static void expect_stale(gs_status st, const gs_error *err, const char *fai_path, const char *label)
{
    CHECK(st == GS_EINPUT && strstr(err->msg, "stale index") && strstr(err->msg, fai_path));
    if (st != GS_EINPUT || !strstr(err->msg, "stale index"))
        fprintf(stderr, "stale case %s: status %d \"%s\"\n", label, st, err->msg);
    else
        printf("stale %s: %s\n", label, err->msg);
}

/* Index fa, then replace its content; loading (or reading every record
 * through the index) must fail with GS_EINPUT "stale index". */
static void check_stale(const char *label, const char *before, const char *after)
{
    const char *fa = tmp_path("stale.fa");
    char fai_path[600];
    snprintf(fai_path, sizeof fai_path, "%s.fai", fa);
    spit(fa, before, strlen(before));
    index_file(fa, fai_path);
    spit(fa, after, strlen(after));
    gs_error err = {0};
    expect_stale(read_through_index(fa, NULL, &err), &err, fai_path, label);
    unlink(fai_path);
}

static void check_load_fails(const char *fai_text, const char *need)
{
    const char *fa = tmp_path("m.fa");
    char fai_path[600];
    snprintf(fai_path, sizeof fai_path, "%s.fai", fa);
    spit(fa, ">a\nACGT\n", 8);
    spit(fai_path, fai_text, strlen(fai_text));
    gs_fai fai;
    gs_error err = {0};
    CHECK(gs_fai_load(fa, NULL, &fai, &err) == GS_EINPUT);
    CHECK(strstr(err.msg, fai_path) != NULL && strstr(err.msg, need) != NULL);
    if (!strstr(err.msg, need))
        fprintf(stderr, "load: \"%s\", expected \"%s\"\n", err.msg, need);
    CHECK(fai.n == 0);
    unlink(fai_path);
}

static int same_entries(const gs_fai *a, const gs_fai *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i].name, b->v[i].name) || a->v[i].length != b->v[i].length ||
            a->v[i].offset != b->v[i].offset || a->v[i].linebases != b->v[i].linebases ||
            a->v[i].linewidth != b->v[i].linewidth)
            return 0;
    return 1;
}

/* fa compressed as BGZF in blocks of `block` bytes: its .fai is the plain
 * file's (uncompressed coordinates), it loads back through its .gzi, and
 * ranges read through both equal the streaming reader's residues. */
static void check_bgzf(const char *fa, size_t block, uint64_t *rs)
{
    size_t n;
    char *d = slurp(fa, &n);
    char gz[600], gzi_path[620], fai_path[620];
    snprintf(gz, sizeof gz, "%s.%zu.fa.gz", fa, block);
    snprintf(gzi_path, sizeof gzi_path, "%s.gzi", gz);
    snprintf(fai_path, sizeof fai_path, "%s.fai", gz);
    write_bgzf(gz, (const uint8_t *)d, n, block);
    free(d);
    gs_gzi gzi;
    gs_fai plain, packed, back;
    gs_error err = {0};
    CHECK(gs_gzi_build(gz, &gzi, &err) == GS_OK && gs_gzi_write(gzi_path, &gzi, &err) == GS_OK);
    gs_gzi_free(&gzi);
    CHECK(gs_fai_build(fa, 1, NULL, &plain, &err) == GS_OK);
    CHECK(gs_fai_build(gz, 1, NULL, &packed, &err) == GS_OK);
    if (err.code)
        fprintf(stderr, "bgzf %s: %s\n", gz, err.msg);
    CHECK(same_entries(&plain, &packed));
    CHECK(gs_fai_write(fai_path, &packed, &err) == GS_OK);
    CHECK(gs_fai_load(gz, NULL, &back, &err) == GS_OK && same_entries(&back, &packed));
    if (err.code)
        fprintf(stderr, "bgzf load %s: %s\n", gz, err.msg);
    gs_fai_free(&plain);
    gs_fai_free(&packed);
    gs_fai_free(&back);
    check_ranges(gz, rs);
}

/* The .fai (and .gzi) of a bgzip'ed copy of fa equal what samtools writes. */
static void check_samtools(const char *fa)
{
    if (!have_tool("samtools") || !have_tool("bgzip")) {
        printf("note: samtools or bgzip not installed: BGZF .fai not compared with samtools faidx\n");
        return;
    }
    char cmd[4096], ours[600], theirs[600], p1[620], p2[620];
    snprintf(ours, sizeof ours, "%s.ours.fa.gz", fa);
    snprintf(theirs, sizeof theirs, "%s.st.fa.gz", fa);
    snprintf(cmd, sizeof cmd, "bgzip -c '%s' > '%s' && cp '%s' '%s' && samtools faidx '%s'", fa,
             theirs, theirs, ours, theirs);
    CHECK(system(cmd) == 0);
    gs_fai fai;
    gs_gzi gzi;
    gs_error err = {0};
    snprintf(p1, sizeof p1, "%s.fai", ours);
    CHECK(gs_fai_build(ours, 1, NULL, &fai, &err) == GS_OK && gs_fai_write(p1, &fai, &err) == GS_OK);
    gs_fai_free(&fai);
    snprintf(p1, sizeof p1, "%s.gzi", ours);
    CHECK(gs_gzi_build(ours, &gzi, &err) == GS_OK && gs_gzi_write(p1, &gzi, &err) == GS_OK);
    gs_gzi_free(&gzi);
    if (err.code)
        fprintf(stderr, "samtools check %s: %s\n", fa, err.msg);
    const char *ext[2] = {"fai", "gzi"};
    for (int k = 0; k < 2; k++) {
        snprintf(p1, sizeof p1, "%s.%s", ours, ext[k]);
        snprintf(p2, sizeof p2, "%s.%s", theirs, ext[k]);
        size_t n1 = 0, n2 = 0;
        char *a = slurp(p1, &n1), *b = slurp(p2, &n2);
        int same = a && b && n1 == n2 && memcmp(a, b, n1) == 0;
        CHECK(same);
        if (!same)
            fprintf(stderr, "%s: .%s differs from samtools faidx's\n", fa, ext[k]);
        free(a);
        free(b);
    }
}

/* Read [begin, end) of fa's only record through its fresh index, after
 * setting byte at to c: GS_EINPUT "stale index" is expected. */
static void check_stale_byte(const char *fa, uint64_t at, char c, uint64_t begin, uint64_t end,
                             const char *label)
{
    size_t n = 0;
    char *text = slurp(fa, &n);
    char fai_path[600];
    snprintf(fai_path, sizeof fai_path, "%s.fai", fa);
    index_file(fa, fai_path);
    char old = text[at];
    text[at] = c;
    spit(fa, text, n);
    gs_error err = {0};
    const uint64_t range[2] = {begin, end};
    expect_stale(read_through_index(fa, range, &err), &err, fai_path, label);
    text[at] = old;
    spit(fa, text, n);
    unlink(fai_path);
    free(text);
}

/* A stale index whose line ends fall where a read is cut: on the 1 MiB
 * read chunk, at the end of a range (where a block or a rank's piece stops
 * and the next starts after the line end), or a tab or space inside a line. */
static void check_stale_edges(uint64_t *rs)
{
    enum { LB = 60, LW = 61, HDR = 3, CH = 1 << 20 };
    const char *fa = tmp_path("edges.fa");
    const uint64_t len = 20000 * LB;
    FILE *f = fopen(fa, "wb");
    fputs(">e\n", f);
    for (uint64_t i = 0; i < len; i++) {
        fputc("ACGT"[gs_test_below(rs, 4)], f);
        if ((i + 1) % LB == 0)
            fputc('\n', f);
    }
    fclose(f);
    /* a line end replaced by a residue exactly where the first 1 MiB chunk
     * of a read from residue b ends */
    int cases = 0;
    for (uint64_t b = 0; b < LB; b++) {
        uint64_t edge = HDR + b + CH; /* first byte of the second chunk */
        if ((edge - HDR) % LW != LB)
            continue;
        check_stale_byte(fa, edge, 'A', b, len, "line end on the read chunk");
        cases++;
    }
    CHECK(cases > 0);
    /* the same for CRLF-like widths is covered by the range-edge case below:
     * a line end just after the last residue of a range */
    check_stale_byte(fa, HDR + 5 * LW + LB, 'A', 0, 6 * LB, "line end at a range end");
    check_stale_byte(fa, HDR + 5 * LW + LB, 'A', 2 * LB + 7, 6 * LB, "line end at a range end");
    check_stale_byte(fa, HDR + 3 * LW + 17, '\t', 0, len, "tab in a line");
    check_stale_byte(fa, HDR + 3 * LW + 17, ' ', 3 * LB, 4 * LB, "space in a line");
    check_stale_byte(fa, HDR + 3 * LW, '>', 3 * LB, 4 * LB, "header at a line start");
}

/* A FASTA of n short records r0, r1, ... (some empty, lengths from the seed)
 * where the records in bad[] are headed "q..." instead (a stale index). */
static void write_many(const char *fa, size_t n, const size_t *bad, size_t n_bad)
{
    FILE *f = fopen(fa, "wb");
    uint64_t st = 5;
    for (size_t i = 0; i < n; i++) {
        int q = 0;
        for (size_t k = 0; k < n_bad; k++)
            q |= bad[k] == i;
        size_t len = gs_test_below(&st, 10) == 0 ? 0 : (size_t)gs_test_below(&st, 150);
        fprintf(f, ">%c%zu desc\n", q ? 'q' : 'r', i);
        for (size_t j = 0; j < len; j++)
            fputc("ACGT"[gs_test_below(&st, 4)], f), (j % 60 == 59 || j + 1 == len) && fputc('\n', f);
    }
    fclose(f);
}

/* An index of 150 k records (3.5 MB, loaded in parts by several threads):
 * it loads back equal to the built one, with every name in one block, and
 * the first malformed line or stale header in index order is the one
 * reported, whichever part holds it. */
static void check_many_records(void)
{
    enum { N = 150000 };
    const char *fa = tmp_path("many.fa");
    char fai_path[600];
    snprintf(fai_path, sizeof fai_path, "%s.fai", fa);
    write_many(fa, N, NULL, 0);
    gs_fai built, loaded;
    gs_error err = {0};
    CHECK(gs_fai_build(fa, 1, NULL, &built, &err) == GS_OK && built.n == N);
    CHECK(gs_fai_write(fai_path, &built, &err) == GS_OK);
    CHECK(gs_fai_load(fa, NULL, &loaded, &err) == GS_OK);
    CHECK(same_entries(&built, &loaded) && loaded.names != NULL);
    CHECK(loaded.n == N && loaded.v[N - 1].name + strlen(loaded.v[N - 1].name) + 1 ==
                               loaded.names + loaded.names_len);
    for (size_t i = 1; i < loaded.n; i++)
        if (loaded.v[i].name != loaded.v[i - 1].name + strlen(loaded.v[i - 1].name) + 1) {
            CHECK(!"names one after another in the block");
            break;
        }
    gs_fai_free(&loaded);
    CHECK(read_through_index(fa, NULL, &err) == GS_OK);

    /* malformed lines: in a late part alone, then in an early part too */
    size_t n;
    char *text = slurp(fai_path, &n), *copy = malloc(n + 1);
    const size_t lines[2] = {120000, 30000};
    for (int t = 0; t < 2; t++) {
        memcpy(copy, text, n + 1);
        for (int k = 0; k <= t; k++) { /* the LENGTH field of line lines[k] */
            char *p = copy;
            for (size_t l = 1; l < lines[k]; l++)
                p = strchr(p, '\n') + 1;
            *(strchr(p, '\t') + 1) = 'x';
        }
        spit(fai_path, copy, n);
        char need[700];
        err = (gs_error){0};
        snprintf(need, sizeof need, "bad number in field 2 (%s:%zu)", fai_path, lines[t]);
        CHECK(gs_fai_load(fa, NULL, &loaded, &err) == GS_EINPUT && strstr(err.msg, need));
        if (!strstr(err.msg, need))
            fprintf(stderr, "many: \"%s\", expected \"%s\"\n", err.msg, need);
    }
    spit(fai_path, text, n);
    free(copy);
    free(text);

    /* stale headers: late, then early too */
    const size_t bad[2] = {100000, 40000};
    for (size_t t = 0; t < 2; t++) {
        write_many(fa, N, bad, t + 1);
        char need[64];
        err = (gs_error){0};
        snprintf(need, sizeof need, "stale index: record r%zu: its header", bad[t]);
        CHECK(gs_fai_load(fa, NULL, &loaded, &err) == GS_EINPUT && strstr(err.msg, need));
        if (!strstr(err.msg, need))
            fprintf(stderr, "many: \"%s\", expected \"%s\"\n", err.msg, need);
    }
    gs_fai_free(&built);
    unlink(fai_path);
}

/* The same checks where records lie far apart (each gap read on its own)
 * and close together (gaps shared from one read-ahead window), and where
 * the two kinds meet: a renamed header in each place is stale. */
static void check_stale_far(void)
{
    enum { LONG = 40000, SHORT = 30, N = 6 };
    static const int len[N] = {LONG, LONG, SHORT, SHORT, LONG, SHORT};
    size_t cap = N * (LONG + LONG / 60 + 16) + 1;
    char *orig = malloc(cap), *after = malloc(cap);
    CHECK(orig && after);
    if (!orig || !after) {
        free(orig);
        free(after);
        return;
    }
    size_t n = 0, hdr[N];
    for (int r = 0; r < N; r++) {
        hdr[r] = n;
        n += (size_t)snprintf(orig + n, cap - n, ">r%d\n", r);
        for (int i = 0; i < len[r]; i++) {
            orig[n++] = "ACGT"[(i * 7 + r) % 4];
            if (i % 60 == 59 || i == len[r] - 1)
                orig[n++] = '\n';
        }
    }
    orig[n] = 0;
    { /* fresh, the same file reads back through its index */
        const char *fa = tmp_path("far.fa");
        char fai_path[600];
        snprintf(fai_path, sizeof fai_path, "%s.fai", fa);
        spit(fa, orig, n);
        index_file(fa, fai_path);
        gs_error err = {0};
        CHECK(read_through_index(fa, NULL, &err) == GS_OK);
        unlink(fai_path);
    }
    for (int r = 1; r < N; r++) {
        memcpy(after, orig, n + 1);
        after[hdr[r] + 1] = 'q'; /* >rK -> >qK, same length */
        char label[64];
        snprintf(label, sizeof label, "renamed record %d of %d (%s)", r, N,
                 len[r - 1] == LONG ? "after a long one" : "after a short one");
        check_stale(label, orig, after);
    }
    free(orig);
    free(after);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gs_test_fai.XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 3;
    }
    uint64_t rs = 77;

    check_build("io/fai_lf.fa", "io/fai_lf.expected.fai");
    check_build("io/fai_crlf.fa", "io/fai_crlf.expected.fai");
    check_build("io/fai_empty.fa", "io/fai_empty.expected.fai");

    check_ranges(stage("io/fai_lf.fa"), &rs);
    check_ranges(stage("io/fai_crlf.fa"), &rs);
    check_ranges(stage("io/fai_empty.fa"), &rs);
    {
        /* a bigger one whose lines cross the 1 MiB read chunks */
        const char *big = tmp_path("big.fa");
        FILE *f = fopen(big, "wb");
        for (int r = 0; r < 3; r++) {
            fprintf(f, ">big%d\n", r);
            size_t len = 700000 + gs_test_below(&rs, 1000), w = r == 2 ? 100000 : 61 + r;
            for (size_t i = 0; i < len; i++) {
                fputc("ACGTN"[gs_test_below(&rs, 5)], f);
                if ((i + 1) % w == 0 || i + 1 == len)
                    fputs(r == 1 ? "\r\n" : "\n", f);
            }
        }
        fclose(f);
        check_ranges(big, &rs);
        check_bgzf(big, 0xff00, &rs);
        check_bgzf(big, 4099, &rs); /* many blocks: residues and line ends cross them */
        check_samtools(big);
    }
    check_bgzf(stage("io/fai_lf.fa"), 0xff00, &rs);
    check_bgzf(stage("io/fai_crlf.fa"), 7, &rs);
    check_bgzf(stage("io/fai_empty.fa"), 13, &rs);
    check_samtools(stage("io/fai_lf.fa"));
    check_samtools(stage("io/fai_crlf.fa"));

    /* what cannot be indexed */
    check_build_fails(stage("io/fai_mixed.fa"), ":7)");
    check_build_fails(stage("io/fai_blank.fa"), ":5)");
    {
        const char *p = tmp_path("sp.fa");
        spit(p, ">a\nAC GT\nACGT\n", 14);
        check_build_fails(p, ":2)");
        p = tmp_path("noseq.fa");
        spit(p, ">a\nAC\n>b", 8);
        check_build_fails(p, ":3)");
        p = tmp_path("raw.fa");
        spit(p, "ACGT\n", 5);
        check_build_fails(p, "not a FASTA file");
        p = tmp_path("z.fa.gz");
        spit(p, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00",
             20);
        check_build_fails(p, "gzip, not BGZF");
        gs_fai fai;
        gs_error err = {0};
        CHECK(gs_fai_build("/nonexistent/x.fa", 1, NULL, &fai, &err) == GS_EINPUT);
        CHECK(strstr(err.msg, "/nonexistent/x.fa") != NULL);
    }

    /* no index: GS_OK and nothing loaded */
    {
        gs_fai fai;
        gs_error err = {0};
        const char *fa = tmp_path("noindex.fa");
        spit(fa, ">a\nACGT\n", 8);
        CHECK(gs_fai_load(fa, NULL, &fai, &err) == GS_OK && fai.n == 0);
    }

    /* stale: truncated last record, changed line length, appended record,
     * renamed or moved record */
    const char *orig = ">a x\nACGTACGT\nACGTACGT\nACG\n>b\nTTTTTTTT\nTTTTTTTT\nTT\n";
    check_stale("truncated", orig, ">a x\nACGTACGT\nACGTACGT\nACG\n>b\nTTTTTTTT\nTTT");
    check_stale("line length (last record)", orig,
                ">a x\nACGTACGT\nACGTACGT\nACG\n>b\nTTTTTTT\nTTTTTTT\nTTTT\n");
    check_stale("line length (first record)", orig,
                ">a x\nACGTACG\nTACGTAC\nGTACG\n>b\nTTTTTTTT\nTTTTTTTT\nTT\n");
    check_stale("split line", orig, ">a x\nACG\nACGT\nACGTACGT\nACG\n>b\nTTTTTTTT\nTTTTTTTT\nTT\n");
    check_stale("appended", orig,
                ">a x\nACGTACGT\nACGTACGT\nACG\n>b\nTTTTTTTT\nTTTTTTTT\nTT\n>c\nA\n");
    check_stale("renamed", orig, ">a x\nACGTACGT\nACGTACGT\nACG\n>q\nTTTTTTTT\nTTTTTTTT\nTT\n");
    check_stale("shifted", orig, ">ab x\nACGTACGT\nACGTACGT\nACG\n>b\nTTTTTTTT\nTTTTTTTT\nTT\n");
    check_stale_edges(&rs);
    check_stale_far();

    /* samtools faidx keeps only the first record of a name: its index is
     * not stale but incomplete, so it is not used (omits_dups), wherever the
     * left-out record lies; a header of a new name there is still stale */
    {
        const char *fa = tmp_path("dup.fa");
        char fai_path[600];
        snprintf(fai_path, sizeof fai_path, "%s.fai", fa);
        const char *texts[2] = {">a\nACGT\n>b\nGGGG\n>a x\nTTTT\n>c\nCCCC\n",
                                ">a\nACGT\n>b\nGGGG\n\n>b\nTTTT\n"};
        const char *idx[2] = {"a\t4\t3\t4\t5\nb\t4\t11\t4\t5\nc\t4\t29\t4\t5\n",
                              "a\t4\t3\t4\t5\nb\t4\t11\t4\t5\n"};
        for (int t = 0; t < 2; t++) {
            spit(fa, texts[t], strlen(texts[t]));
            spit(fai_path, idx[t], strlen(idx[t]));
            gs_fai fai;
            gs_error err = {0};
            CHECK(gs_fai_load(fa, NULL, &fai, &err) == GS_OK && fai.n == 0 && fai.omits_dups);
            if (err.code)
                fprintf(stderr, "dup %d: %s\n", t, err.msg);
            CHECK(gs_fai_build(fa, 1, NULL, &fai, &err) == GS_OK && fai.n == 4u - (unsigned)t);
            gs_fai_free(&fai);
        }
        spit(fa, ">a\nACGT\n>b\nGGGG\n>q\nTTTT\n>c\nCCCC\n", 32);
        spit(fai_path, idx[0], strlen(idx[0]));
        gs_fai fai;
        gs_error err = {0};
        CHECK(gs_fai_load(fa, NULL, &fai, &err) == GS_EINPUT && strstr(err.msg, "stale index"));
        unlink(fai_path);
    }

    check_many_records();

    /* malformed index files */
    check_load_fails("a\t4\t3\t4\n", "5 tab-separated fields");
    check_load_fails("a\t4\t3\t4\t5\t9\n", "5 tab-separated fields");
    check_load_fails("a\t4x\t3\t4\t5\n", "bad number");
    check_load_fails("a\t4\t3\t-4\t5\n", "bad number");
    check_load_fails("a\t4\t3\t4\t4\n", "LINEBASES");
    check_load_fails("a\t4\t4\t4\t5\n", "stale index");

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return gs_test_done("test_fai");
}
