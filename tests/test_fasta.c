/* test_fasta.c - the corpus reader against a whole-file reference parser.
 *
 * The reference loads each file into memory and applies contract §1 directly
 * (records at lines starting with '>', name = first word, '\r', ' ', '\t'
 * dropped; raw = every byte). The reader's segments must reproduce it exactly
 * for many block and overlap sizes, in guarded buffers of exactly
 * block + overlap bytes so a write past the end crashes. Compressed inputs
 * (gzip, multi-member gzip, BGZF-shaped members) are written here with zlib;
 * truncated and corrupt ones must be GS_EINPUT naming the file.
 */
#define _POSIX_C_SOURCE 200809L
#include "io/seq/fasta.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

/* ---- reference parser ------------------------------------------------------ */

typedef struct ref_rec {
    char *name;
    uint8_t *s;
    size_t n;
    uint32_t file;
} ref_rec;

typedef struct refs {
    ref_rec v[4096];
    size_t n;
} refs;

static uint8_t *load_file(const char *path, size_t *n)
{
    gzFile gz = gzopen(path, "rb");
    size_t cap = 1 << 16, len = 0;
    uint8_t *d = malloc(cap);
    if (gz == NULL || d == NULL) {
        fprintf(stderr, "cannot load %s\n", path);
        exit(3);
    }
    int r;
    while ((r = gzread(gz, d + len, (unsigned)(cap - len))) > 0) {
        len += (size_t)r;
        if (len == cap)
            d = realloc(d, cap *= 2);
    }
    gzclose(gz);
    *n = len;
    return d;
}

static void ref_add(refs *R, const char *name, size_t name_len, uint32_t file)
{
    ref_rec *x = &R->v[R->n++];
    x->name = strndup(name, name_len);
    x->s = NULL;
    x->n = 0;
    x->file = file;
}

static void ref_push(ref_rec *x, uint8_t c)
{
    if ((x->n & (x->n - 1)) == 0 || x->n == 0)
        x->s = realloc(x->s, x->n ? x->n * 2 : 1);
    x->s[x->n++] = c;
}

static int is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static void ref_parse_file(refs *R, const char *path, uint32_t file, gs_input_format fmt)
{
    size_t n;
    uint8_t *d = load_file(path, &n);
    /* an optional UTF-8 BOM and blank bytes before the first '>' are skipped */
    size_t skip = n >= 3 && !memcmp(d, "\xef\xbb\xbf", 3) ? 3 : 0;
    while (skip < n && (d[skip] == ' ' || d[skip] == '\t' || d[skip] == '\r' || d[skip] == '\n'))
        skip++;
    int fasta = fmt == GS_INPUT_FASTA || (fmt == GS_INPUT_AUTO && skip < n && d[skip] == '>');
    if (!fasta) {
        const char *b = strrchr(path, '/');
        b = b ? b + 1 : path;
        ref_add(R, b, strlen(b), file);
        for (size_t i = 0; i < n; i++)
            ref_push(&R->v[R->n - 1], d[i]);
        free(d);
        return;
    }
    size_t i = skip;
    while (i < n) {
        size_t e = i;
        while (e < n && d[e] != '\n')
            e++;
        if (d[i] == '>') {
            size_t a = i + 1;
            while (a < e && is_ws(d[a]))
                a++;
            size_t b = a;
            while (b < e && !is_ws(d[b]))
                b++;
            ref_add(R, (const char *)d + a, b - a, file);
        } else {
            for (size_t k = i; k < e; k++)
                if (d[k] != '\r' && d[k] != ' ' && d[k] != '\t')
                    ref_push(&R->v[R->n - 1], d[k]);
        }
        i = e + 1;
    }
    free(d);
}

static void ref_free(refs *R)
{
    for (size_t i = 0; i < R->n; i++) {
        free(R->v[i].name);
        free(R->v[i].s);
    }
    R->n = 0;
}

/* ---- the reader against the reference -------------------------------------- */

/* Stream files with (block, overlap) and compare every segment and the layout. */
static void check_stream(const char *const *files, size_t nf, gs_input_format fmt, size_t block,
                         size_t ov)
{
    static refs R;
    ref_free(&R);
    for (size_t f = 0; f < nf; f++)
        ref_parse_file(&R, files[f], (uint32_t)f, fmt);

    gs_layout L = {0};
    gs_error err = {0};
    gs_reader *r = NULL;
    gs_reader_opts o = {fmt, block, ov, 1, 0, NULL, 0, 0}; /* the reference reads any non-FASTA raw */
    if (gs_reader_open(files, nf, &o, &L, &r, &err) != GS_OK) {
        fprintf(stderr, "open: %s\n", err.msg);
        CHECK(0);
        return;
    }
    uint8_t *buf = gs_guarded_alloc(block + ov);
    gs_segment seg;
    size_t er = 0, pos = 0;
    int more = 0, bad = 0;
    gs_status k;
    while ((k = gs_reader_next(r, buf, &seg, &more, &err)) == GS_OK && more && !bad) {
        while (er < R.n && pos == R.v[er].n) /* finished or empty records */
            er++, pos = 0;
        const ref_rec *x = &R.v[er < R.n ? er : R.n - 1];
        size_t left = x->n - pos;
        size_t own = left < block ? left : block;
        size_t len = own + (left - own < ov ? left - own : ov);
        if (er >= R.n || seg.record != er || seg.base != pos || seg.text != buf || seg.own != own ||
            seg.len != len || memcmp(seg.text, x->s + pos, len) != 0) {
            fprintf(stderr,
                    "segment mismatch (block %zu overlap %zu): record %u base %llu own %zu "
                    "len %zu; expected record %zu base %zu own %zu len %zu\n",
                    block, ov, seg.record, (unsigned long long)seg.base, seg.own, seg.len, er, pos,
                    own, len);
            bad = 1;
            break;
        }
        pos += own;
        if (pos == x->n && L.rec[er].length != x->n) { /* final once the last segment is out */
            fprintf(stderr, "record %zu length %llu after its last segment, expected %zu\n", er,
                    (unsigned long long)L.rec[er].length, x->n);
            bad = 1;
        }
    }
    CHECK(!bad);
    if (!bad) {
        CHECK(k == GS_OK && !more);
        if (k != GS_OK)
            fprintf(stderr, "next: %s\n", err.msg);
        while (er < R.n && pos == R.v[er].n)
            er++, pos = 0;
        CHECK_EQ_U64(er, R.n);
        CHECK_EQ_U64(L.n_rec, R.n);
        CHECK_EQ_U64(L.n_files, nf);
        for (size_t i = 0; i < R.n && i < L.n_rec; i++) {
            CHECK(strcmp(L.rec[i].name, R.v[i].name) == 0);
            CHECK_EQ_U64(L.rec[i].length, R.v[i].n);
            CHECK_EQ_U64(L.rec[i].file, R.v[i].file);
        }
    }
    gs_guarded_free(buf, block + ov);
    gs_reader_close(r);
    gs_layout_free(&L);
}

/* Read to the end; returns the status of the failure (GS_OK when none) and
 * leaves the message in err. */
static gs_status stream_status(const char *path, gs_input_format fmt, gs_error *err)
{
    gs_layout L = {0};
    gs_reader *r = NULL;
    gs_reader_opts o = {fmt, 1000, 10, 0, 0, NULL, 0, 0};
    const char *files[1] = {path};
    if (gs_reader_open(files, 1, &o, &L, &r, err) != GS_OK) {
        gs_layout_free(&L); /* the files it had taken */
        return err->code;
    }
    uint8_t *buf = malloc(1010);
    gs_segment seg;
    int more = 0;
    gs_status k;
    while ((k = gs_reader_next(r, buf, &seg, &more, err)) == GS_OK && more)
        ;
    free(buf);
    gs_reader_close(r);
    gs_layout_free(&L);
    return k;
}

/* ---- writing test inputs --------------------------------------------------- */


static void write_file(const char *path, const void *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(d, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        exit(3);
    }
}

/* gzip members with zlib's own writer; "ab" appends one member per part. */
static void write_gz_members(const char *path, const uint8_t *d, size_t n, size_t parts)
{
    size_t at = 0;
    for (size_t p = 0; p < parts; p++) {
        size_t len = p + 1 == parts ? n - at : n / parts;
        gzFile gz = gzopen(path, p == 0 ? "wb6" : "ab6");
        if (gz == NULL || (len && gzwrite(gz, d + at, (unsigned)len) != (int)len) ||
            gzclose(gz) != Z_OK) {
            fprintf(stderr, "gz write failed: %s\n", path);
            exit(3);
        }
        at += len;
    }
}

/* BGZF-shaped: members of at most 64 KiB input with the "BC" extra field
 * carrying the block size, then the 28-byte empty end-of-file member. */
static void write_bgzf(const char *path, const uint8_t *d, size_t n, size_t piece)
{
    FILE *f = fopen(path, "wb");
    size_t at = 0;
    int eof_done = 0;
    while (!eof_done) {
        size_t len = n - at < piece ? n - at : piece;
        eof_done = len == 0;
        uint8_t out[70000];
        unsigned char extra[6] = {'B', 'C', 2, 0, 0, 0};
        gz_header h;
        memset(&h, 0, sizeof h);
        h.extra = extra;
        h.extra_len = 6;
        h.os = 255;
        z_stream z;
        memset(&z, 0, sizeof z);
        deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
        deflateSetHeader(&z, &h);
        z.next_in = (Bytef *)(d + at);
        z.avail_in = (uInt)len;
        z.next_out = out;
        z.avail_out = sizeof out;
        if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
            fprintf(stderr, "deflate failed\n");
            exit(3);
        }
        size_t bsize = z.total_out - 1;
        deflateEnd(&z);
        CHECK(out[12] == 'B' && out[13] == 'C');
        out[16] = (uint8_t)(bsize & 0xff);
        out[17] = (uint8_t)(bsize >> 8);
        fwrite(out, 1, z.total_out, f);
        at += len;
    }
    fclose(f);
}

/* A random FASTA text exercising the reader's edges. */
static size_t random_fasta(uint64_t *rs, uint8_t *out, size_t cap, int n_rec)
{
    static const char alpha[] = "ACGTacgtNNNNnRY-";
    size_t n = 0;
    for (int r = 0; r < n_rec && n + 2000 < cap; r++) {
        int crlf = gs_test_below(rs, 4) == 0;
        n += (size_t)sprintf((char *)out + n, ">rec%d%s%s", r, gs_test_below(rs, 2) ? " desc" : "",
                             crlf ? "\r\n" : "\n");
        size_t len = gs_test_below(rs, 5) == 0 ? 0 : gs_test_below(rs, 300);
        size_t width = 1 + gs_test_below(rs, 80);
        for (size_t i = 0; i < len; i++) {
            if (gs_test_below(rs, 50) == 0)
                out[n++] = gs_test_below(rs, 2) ? ' ' : '\t';
            out[n++] = (uint8_t)alpha[gs_test_below(rs, sizeof alpha - 1)];
            if ((i + 1) % width == 0 || i + 1 == len) {
                if (crlf)
                    out[n++] = '\r';
                out[n++] = '\n';
                if (gs_test_below(rs, 20) == 0)
                    out[n++] = '\n';
            }
        }
    }
    return n;
}

static int contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

/* qsort of record ids by name (then id), for the repeated-names check */
static char (*sort_names)[12];
static int by_name(const void *x, const void *y)
{
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    int c = strcmp(sort_names[i], sort_names[j]);
    return c ? c : (i > j) - (i < j);
}

int main(void)
{
    const char *tmpdir = gs_test_tmpdir("test_fasta");
    if (tmpdir == NULL) {
        perror("mkdtemp");
        return 3;
    }
    static const size_t blocks[] = {1, 2, 3, 7, 64};
    char mixed[4096];
    snprintf(mixed, sizeof mixed, "%s", gs_test_data("io/fa_mixed.fa"));

    /* The hand-written file with every edge: CRLF, lowercase, N runs, tabs and
     * spaces inside lines, empty records, one-line records, blank lines, a
     * '>' only header, a '>' inside a line, no final newline. */
    {
        const char *f[1] = {mixed};
        for (size_t b = 0; b < 5; b++)
            for (size_t ov = 0; ov <= 9; ov++)
                check_stream(f, 1, GS_INPUT_AUTO, blocks[b], ov);
        check_stream(f, 1, GS_INPUT_AUTO, 1 << 20, 31);
        /* spot checks of the reference itself, so both cannot be wrong alike */
        static refs R;
        ref_parse_file(&R, mixed, 0, GS_INPUT_AUTO);
        CHECK_EQ_U64(R.n, 9);
        CHECK(strcmp(R.v[0].name, "crlf") == 0 && R.v[0].n == 18);
        CHECK(R.v[1].n == 0 && R.v[7].n == 0 && R.v[8].n == 4);
        CHECK(strcmp(R.v[3].name, "tabs") == 0 && R.v[3].n == 8 &&
              memcmp(R.v[3].s, "ACGTACGT", 8) == 0);
        CHECK(strcmp(R.v[4].name, "") == 0 && strcmp(R.v[5].name, "spaced") == 0);
        CHECK(R.v[5].n == 49 && memcmp(R.v[5].s + 42, "NNNNA>C", 7) == 0);
        CHECK(memcmp(R.v[2].s, "acgtnnnnacgtACGT", 16) == 0);
        ref_free(&R);
    }

    /* A header as the last line without a newline: an empty record. */
    {
        const char *f[1] = {gs_test_data("io/fa_headtail.fa")};
        check_stream(f, 1, GS_INPUT_AUTO, 3, 2);
    }

    /* Raw detection, and forcing either reading. */
    {
        char raw[4096];
        snprintf(raw, sizeof raw, "%s", gs_test_data("io/fa_raw.bin"));
        const char *f[1] = {raw};
        check_stream(f, 1, GS_INPUT_AUTO, 7, 3);
        check_stream(f, 1, GS_INPUT_RAW, 64, 9);
        const char *g[1] = {mixed};
        check_stream(g, 1, GS_INPUT_RAW, 7, 5);
        gs_error err = {0};
        CHECK(stream_status(raw, GS_INPUT_FASTA, &err) == GS_EINPUT);
        CHECK(contains(err.msg, "not a FASTA file") && contains(err.msg, raw));
        /* the raw record's name is the base name */
        CHECK(strcmp(gs_path_base("dir/sub/x.bin.gz"), "x.bin.gz") == 0);
        CHECK(strcmp(gs_path_base("x.fa"), "x.fa") == 0);
    }

    /* A file that cannot be opened: missing is bad input naming it; out of
     * file descriptors (ulimit -n reached) is the system's failure, naming
     * the limit and the file (gs_fail_open). */
    {
        char missing[4200];
        snprintf(missing, sizeof missing, "%s/no-such.fa", tmpdir);
        gs_error err = {0};
        CHECK(stream_status(missing, GS_INPUT_AUTO, &err) == GS_EINPUT);
        CHECK(contains(err.msg, "cannot open corpus file: No such file") &&
              contains(err.msg, missing));
        struct rlimit keep, low;
        const int next = dup(0); /* the lowest free descriptor: the limit that leaves none */
        CHECK(next >= 0 && getrlimit(RLIMIT_NOFILE, &keep) == 0);
        close(next);
        low = keep;
        low.rlim_cur = (rlim_t)next;
        gs_error full = {0};
        if (setrlimit(RLIMIT_NOFILE, &low) == 0) {
            gs_status st = stream_status(mixed, GS_INPUT_AUTO, &full);
            CHECK(setrlimit(RLIMIT_NOFILE, &keep) == 0);
            CHECK(st == GS_ESYS);
            CHECK(contains(full.msg, "Too many open files") &&
                  contains(full.msg, "the open-file limit (ulimit -n) is") && contains(full.msg, mixed));
        } else {
            CHECK(!"setrlimit(RLIMIT_NOFILE) lowering the soft limit");
        }
    }

    uint64_t bs = 97;
    /* A BOM and blank lines before the first header: FASTA (as samtools and
     * seqkit read it), plain and gzip, every way of cutting it; a forced
     * raw read keeps those bytes. */
    {
        const char *heads[] = {"\xef\xbb\xbf", "\n\n", "\xef\xbb\xbf\r\n \t\n", " \n"};
        static uint8_t d[1 << 16];
        for (size_t h = 0; h < sizeof heads / sizeof *heads; h++) {
            size_t hl = strlen(heads[h]);
            memcpy(d, heads[h], hl);
            size_t n = hl + random_fasta(&bs, d + hl, sizeof d - hl, 3);
            const char *p = gs_test_tmp_path("bom.fa"), *pz = gs_test_tmp_path("bom.fa.gz");
            write_file(p, d, n);
            write_gz_members(pz, d, n, 2);
            const char *f[2] = {p, pz};
            check_stream(f, 2, GS_INPUT_AUTO, 5, 3);
            check_stream(f, 2, GS_INPUT_FASTA, 64, 0);
            check_stream(f, 1, GS_INPUT_RAW, 7, 2);
            refs R = {0}; /* the reference check_stream held the reader to */
            ref_parse_file(&R, p, 0, GS_INPUT_AUTO);
            CHECK(R.n == 3); /* FASTA, not one raw record */
            ref_free(&R);
        }
    }

    /* Not text and not FASTA: an error, never raw by default. */
    {
        gs_error err = {0};
        const char *b = gs_test_tmp_path("nul.bin");
        write_file(b, "ACGT\0ACGT\n", 10);
        CHECK(stream_status(b, GS_INPUT_AUTO, &err) == GS_EINPUT);
        CHECK(contains(err.msg, "NUL byte at offset 4") && contains(err.msg, b));
        err = (gs_error){0};
        CHECK(stream_status(b, GS_INPUT_RAW, &err) == GS_OK);
        const char *raw1[1] = {b};
        check_stream(raw1, 1, GS_INPUT_AUTO, 3, 1); /* --alphabet bytes: raw */
        const char *x = gs_test_tmp_path("x.xz");
        write_file(x, "\xfd" "7zXZ\0\0\x04\xe6\xd6\xb4\x46", 12);
        err = (gs_error){0};
        CHECK(stream_status(x, GS_INPUT_AUTO, &err) == GS_EINPUT);
        CHECK(contains(err.msg, "xz-compressed") && contains(err.msg, x));
        const char *bl = gs_test_tmp_path("blank.fa");
        write_file(bl, "\n \n", 3);
        err = (gs_error){0};
        CHECK(stream_status(bl, GS_INPUT_FASTA, &err) == GS_OK); /* no records */
    }

    /* One regular file twice, under the same or another name (a replicated
     * corpus): allowed, read again. One stream twice ("-" and /dev/stdin):
     * a usage error naming both arguments, before anything is read. */
    {
        const char *a = gs_test_tmp_path("twice.fa");
        write_file(a, ">a\nACGT\n", 8);
        char other[600], hard[600];
        snprintf(other, sizeof other, "%s/./twice.fa", tmpdir);
        snprintf(hard, sizeof hard, "%s/hard.fa", tmpdir);
        unlink(hard);
        CHECK(link(a, hard) == 0);
        const char *pairs[3][3] = {{a, mixed, a}, {a, other, NULL}, {hard, a, NULL}};
        for (int t = 0; t < 3; t++) {
            size_t nf = pairs[t][2] ? 3 : 2;
            gs_error err = {0};
            CHECK(gs_corpus_check(pairs[t], nf, &err) == GS_OK);
        }
        const char *streams[2] = {"-", "/dev/stdin"};
        gs_error serr = {0};
        if (gs_input_seekable("/dev/stdin") == 0) { /* stdin is not a regular file here */
            CHECK(gs_corpus_check(streams, 2, &serr) == GS_EUSAGE);
            CHECK(contains(serr.msg, "given twice") && contains(serr.msg, "(-)") &&
                  contains(serr.msg, "/dev/stdin"));
        }
        const char *ok[2] = {a, mixed};
        gs_error err = {0};
        CHECK(gs_corpus_check(ok, 2, &err) == GS_OK);
        CHECK(gs_input_seekable(a) && !gs_input_seekable("-") && !gs_input_seekable("/dev/null"));
    }

    /* Repeated record names: counted, the first pair in record order named. */
    {
        gs_record rec[5] = {{"b", 0, 0}, {"a", 0, 0}, {"c", 0, 1}, {"a", 0, 1}, {"b", 0, 1}};
        gs_layout L = {.rec = rec, .n_rec = 5};
        size_t a, b, dups;
        gs_error err = {0};
        CHECK(gs_layout_dup_names(&L, 2, &dups, &a, &b, &err) == GS_OK && dups == 2 && a == 1
              && b == 3);
        rec[3].name = "d", rec[4].name = "e";
        CHECK(gs_layout_dup_names(&L, 2, &dups, &a, &b, &err) == GS_OK && dups == 0);
    }
    /* ... against the quadratic count on random names from a small set (many
     * repeats, hash collisions in a small table), with an empty name */
    for (uint64_t seed = 1; seed <= 20; seed++) {
        enum { N = 700 };
        static char names[N][8];
        static gs_record rec[N];
        uint64_t st = seed;
        size_t n = 2 + (size_t)gs_test_below(&st, N - 1), kinds = 1 + (size_t)gs_test_below(&st, 2 * n);
        for (size_t i = 0; i < n; i++) {
            size_t len = (size_t)gs_test_below(&st, 3);
            uint64_t k = gs_test_below(&st, kinds);
            for (size_t c = 0; c < len; c++, k /= 7)
                names[i][c] = (char)('a' + k % 7);
            names[i][len] = 0;
            rec[i] = (gs_record){names[i], 0, 0};
        }
        long want = 0;
        size_t wa = 0, wb = 0;
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < j && names[j][0]; i++) /* no name: not compared */
                if (strcmp(names[i], names[j]) == 0) {
                    if (want++ == 0)
                        wa = i, wb = j;
                    break;
                }
        gs_layout L = {.rec = rec, .n_rec = n};
        size_t a, b, dups;
        gs_error err = {0};
        CHECK(gs_layout_dup_names(&L, 2, &dups, &a, &b, &err) == GS_OK && dups == (size_t)want);
        CHECK(want == 0 || (a == wa && b == wb));
    }

    /* ... split into buckets on several threads (100 K records): against a
     * sort of (name, record), whose groups give the repeats and each
     * group's first two records */
    for (uint64_t seed = 1; seed <= 3; seed++) {
        enum { N = 100000 };
        static char names[N][12];
        static gs_record rec[N];
        static size_t order[N];
        uint64_t st = seed;
        size_t kinds = seed == 1 ? 3 : 1 + (size_t)gs_test_below(&st, N);
        for (size_t i = 0; i < N; i++) {
            uint64_t k = gs_test_below(&st, kinds);
            snprintf(names[i], sizeof names[i], i % 97 ? "n%llu" : "", (unsigned long long)k);
            rec[i] = (gs_record){names[i], 0, 0};
            order[i] = i;
        }
        sort_names = names;
        qsort(order, N, sizeof *order, by_name);
        size_t want = 0, wa = 0, wb = SIZE_MAX;
        for (size_t i = 1, g = 0; i < N; i++) { /* g: the start of order[i]'s group */
            if (strcmp(names[order[i - 1]], names[order[i]]) != 0)
                g = i;
            if (g == i || names[order[i]][0] == 0)
                continue;
            want++;
            if (i == g + 1 && order[i] < wb)
                wa = order[g], wb = order[i];
        }
        for (int threads = 1; threads <= 8; threads += 3) {
            gs_layout L = {.rec = rec, .n_rec = N};
            size_t a, b, dups;
            gs_error err = {0};
            CHECK(gs_layout_dup_names(&L, threads, &dups, &a, &b, &err) == GS_OK && dups == want);
            CHECK(want == 0 || (a == wa && b == wb));
        }
    }

    /* Empty files: auto and raw give one empty record, fasta none. */
    {
        const char *e = gs_test_tmp_path("empty.fa");
        write_file(e, "", 0);
        const char *f[1] = {e};
        for (int fmt = 0; fmt < 3; fmt++) {
            gs_layout L = {0};
            gs_error err = {0};
            gs_reader *r;
            gs_reader_opts o = {(gs_input_format)fmt, 4, 2, 0, 0, NULL, 0, 0};
            uint8_t buf[6];
            gs_segment seg;
            int more = 1;
            CHECK(gs_reader_open(f, 1, &o, &L, &r, &err) == GS_OK);
            CHECK(gs_reader_next(r, buf, &seg, &more, &err) == GS_OK && !more);
            CHECK_EQ_U64(L.n_rec, fmt == GS_INPUT_FASTA ? 0 : 1);
            if (L.n_rec == 1)
                CHECK(strcmp(L.rec[0].name, "empty.fa") == 0 && L.rec[0].length == 0);
            gs_reader_close(r);
            gs_layout_free(&L);
        }
    }

    /* Missing file: GS_EINPUT at open, naming it. */
    {
        gs_layout L = {0};
        gs_error err = {0};
        gs_reader *r = NULL;
        gs_reader_opts o = {GS_INPUT_AUTO, 8, 0, 0, 0, NULL, 0, 0};
        const char *f[2] = {mixed, "/nonexistent/dir/genome.fa"};
        CHECK(gs_reader_open(f, 2, &o, &L, &r, &err) == GS_EINPUT);
        CHECK(r == NULL && contains(err.msg, "/nonexistent/dir/genome.fa"));
        gs_layout_free(&L);
    }

    /* Random files, several at once: record ids run on across files. */
    uint64_t rs = 20240601;
    static uint8_t big[1 << 18];
    const char *rnd[3];
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "rnd%d.fa", i);
        rnd[i] = gs_test_tmp_path(name);
        size_t n = random_fasta(&rs, big, sizeof big, 20 + i * 10);
        write_file(rnd[i], big, n);
    }
    const char *rnd_files[4] = {rnd[0], rnd[1], mixed, rnd[2]};
    for (size_t b = 0; b < 5; b++)
        for (size_t ov = 0; ov <= 9; ov++)
            check_stream(rnd_files, 4, GS_INPUT_AUTO, blocks[b], ov);

    /* Compressed: gzip, multi-member gzip, BGZF-shaped; bytes_in counts the
     * compressed file. */
    {
        size_t n = random_fasta(&rs, big, sizeof big, 400);
        const char *plain = gs_test_tmp_path("c.fa");
        const char *gz1 = gs_test_tmp_path("c1.fa.gz");
        const char *gzm = gs_test_tmp_path("cm.fa.gz");
        const char *bgz = gs_test_tmp_path("cb.fa.gz");
        write_file(plain, big, n);
        write_gz_members(gz1, big, n, 1);
        write_gz_members(gzm, big, n, 7);
        write_bgzf(bgz, big, n, 10000);
        const char *sets[4] = {plain, gz1, gzm, bgz};
        for (int s = 0; s < 4; s++) {
            const char *f[1] = {sets[s]};
            check_stream(f, 1, GS_INPUT_AUTO, 64, 9);
            check_stream(f, 1, GS_INPUT_AUTO, 3, 5);
            check_stream(f, 1, GS_INPUT_AUTO, 100000, 0);
            /* bytes_in: the whole (compressed) file once read */
            gs_layout L = {0};
            gs_error err = {0};
            gs_reader *r;
            gs_reader_opts o = {GS_INPUT_AUTO, 4096, 8, 0, 0, NULL, 0, 0};
            uint8_t *buf = malloc(4104);
            gs_segment seg;
            int more = 0;
            CHECK(gs_reader_open(f, 1, &o, &L, &r, &err) == GS_OK);
            while (gs_reader_next(r, buf, &seg, &more, &err) == GS_OK && more)
                ;
            size_t fsz;
            FILE *fp = fopen(sets[s], "rb");
            fseek(fp, 0, SEEK_END);
            fsz = (size_t)ftell(fp);
            fclose(fp);
            CHECK_EQ_U64(gs_reader_bytes_in(r), fsz);
            free(buf);
            gs_reader_close(r);
            gs_layout_free(&L);
        }
        /* a gzip file with a raw (non-FASTA) payload is raw after decompression */
        const char *rawgz = gs_test_tmp_path("r.bin.gz");
        write_gz_members(rawgz, (const uint8_t *)"ACGT\nACGT\n", 10, 2);
        const char *f[1] = {rawgz};
        check_stream(f, 1, GS_INPUT_AUTO, 3, 2);

        /* truncated and corrupt gzip: GS_EINPUT naming the file */
        size_t gn;
        uint8_t *g = load_file(gz1, &gn); /* decompressed: reload raw bytes below */
        free(g);
        FILE *fp = fopen(gz1, "rb");
        static uint8_t gzb[1 << 18];
        gn = fread(gzb, 1, sizeof gzb, fp);
        fclose(fp);
        const char *cut = gs_test_tmp_path("cut.fa.gz");
        size_t cuts[] = {gn / 2, gn - 4, gn - 1, 11};
        for (int c = 0; c < 4; c++) {
            write_file(cut, gzb, cuts[c]);
            gs_error err = {0};
            CHECK(stream_status(cut, GS_INPUT_AUTO, &err) == GS_EINPUT);
            CHECK(contains(err.msg, cut) && contains(err.msg, "gzip"));
            if (c == 0)
                printf("truncated: %s\n", err.msg);
        }
        const char *bad = gs_test_tmp_path("bad.fa.gz");
        for (int c = 0; c < 8; c++) {
            static uint8_t cp[1 << 18];
            memcpy(cp, gzb, gn);
            size_t at = 20 + gs_test_below(&rs, gn - 40);
            cp[at] ^= 0x5a;
            cp[at + 1] ^= 0xff;
            write_file(bad, cp, gn);
            gs_error err = {0};
            CHECK(stream_status(bad, GS_INPUT_AUTO, &err) == GS_EINPUT);
            CHECK(contains(err.msg, bad));
            if (c == 0)
                printf("corrupt: %s\n", err.msg);
        }
        /* a damaged member in the middle of a multi-member file */
        fp = fopen(gzm, "rb");
        gn = fread(gzb, 1, sizeof gzb, fp);
        fclose(fp);
        gzb[gn / 2] ^= 0x81;
        write_file(bad, gzb, gn);
        gs_error err = {0};
        CHECK(stream_status(bad, GS_INPUT_AUTO, &err) == GS_EINPUT);
    }

    /* A real genome when the examples are at hand (optional). */
    {
        const char *lambda = "data/cache/lambda_virus.fa.gz";
        char p[4096];
        const char *td = getenv("GS_TEST_DATA");
        if (td) {
            snprintf(p, sizeof p, "%s/../../data/cache/lambda_virus.fa.gz", td);
            lambda = p;
        }
        if (access(lambda, R_OK) == 0) {
            const char *f[1] = {lambda};
            check_stream(f, 1, GS_INPUT_AUTO, 4093, 31);
        } else {
            printf("lambda_virus.fa.gz not present; real-genome check skipped\n");
        }
    }

    if (gs_test_tmp_remove() != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return gs_test_done("test_fasta");
}
