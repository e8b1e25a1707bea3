/* test_fastq.c - FASTQ through the corpus reader against a reference built
 * with the file.
 *
 * Random FASTQ files are written together with what they must read as (per
 * record: name, residues): qualities drawn mostly from 'G', the bases and
 * '@' and '+' (also as a quality's first byte, where a line-by-line parser
 * that looked for headers would go wrong), empty sequences, names with
 * descriptions, CRLF line ends, blank lines between records, a BOM, no
 * final newline. The reader's segments must reproduce the reference for
 * many block and overlap sizes in guarded buffers, plain and gzip, auto and
 * forced; FASTQ and FASTA files mix in one corpus. Malformed records must
 * be GS_EINPUT naming file:line.
 */
#define _POSIX_C_SOURCE 200809L
#include "io/seq/fasta.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

enum { MAX_REC = 600 };

typedef struct ref {
    char name[MAX_REC][40];
    char *seq[MAX_REC];
    size_t len[MAX_REC];
    uint32_t file[MAX_REC];
    size_t n;
} ref;


static void put_file(const char *path, const char *d, size_t n, int gz)
{
    if (gz) {
        gzFile g = gzopen(path, "wb6");
        if (g == NULL || (n && gzwrite(g, d, (unsigned)n) != (int)n) || gzclose(g) != Z_OK)
            exit(3);
        return;
    }
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(d, 1, n, f) != n || fclose(f) != 0)
        exit(3);
}

/* A growing text. */
typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void add(text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        t->cap = (t->n + n + 1) * 2;
        t->s = realloc(t->s, t->cap);
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = 0;
}

static void adds(text *t, const char *s) { add(t, s, strlen(s)); }

/* One random FASTQ file of n records appended to R (file index fi). */
static void make_fastq(text *t, ref *R, uint32_t fi, size_t n, uint64_t *st, int crlf, int fixed)
{
    const char *eol = crlf ? "\r\n" : "\n";
    static const char qual_set[] = "GGGGGGGGACGT@@++!I#";
    if (gs_test_below(st, 3) == 0)
        adds(t, gs_test_below(st, 2) ? "\xef\xbb\xbf" : "\n\n");
    for (size_t r = 0; r < n; r++) {
        size_t k = R->n++;
        snprintf(R->name[k], sizeof R->name[k], "read%zu_%u", r, (unsigned)fi);
        R->file[k] = fi;
        size_t len = gs_test_below(st, 5) == 0 ? 0 : fixed ? 100 : (size_t)gs_test_below(st, 300);
        R->seq[k] = malloc(len + 1);
        for (size_t i = 0; i < len; i++)
            R->seq[k][i] = "ACGTNacgtn"[gs_test_below(st, 10)];
        R->len[k] = len;
        adds(t, "@");
        adds(t, R->name[k]);
        if (gs_test_below(st, 2))
            adds(t, " length=x desc\tmore");
        adds(t, eol);
        add(t, R->seq[k], len);
        adds(t, eol);
        adds(t, "+");
        if (gs_test_below(st, 2))
            adds(t, R->name[k]);
        adds(t, eol);
        for (size_t i = 0; i < len; i++) {
            char q = qual_set[gs_test_below(st, sizeof qual_set - 1)];
            if (i == 0 && gs_test_below(st, 2))
                q = gs_test_below(st, 2) ? '@' : '+';
            add(t, &q, 1);
        }
        if (r + 1 < n || gs_test_below(st, 2))
            adds(t, eol);
        if (r + 1 < n && gs_test_below(st, 20) == 0)
            adds(t, eol); /* a blank line between records */
    }
}

/* Read files through the reader and compare with R: each segment must be
 * the next owned block of its record (in order, block residues but at the
 * record's end, with all the overlap the record has), and the layout R's. */
static void check_read(const char *const *files, size_t nf, const ref *R, gs_input_format fmt,
                       size_t block, size_t ov, int drop)
{
    const gs_reader_opts o = {.format = fmt, .block = block, .overlap = ov, .drop_read_names = drop};
    uint8_t *buf = gs_guarded_alloc(block + ov);
    size_t next = 0, at = 0; /* the record and position the next segment must have */
    gs_layout L = {0};
    gs_error err = {0};
    gs_reader *r = NULL;
    gs_segment seg;
    int more = 1, bad = 0;
    gs_status st = gs_reader_open(files, nf, &o, &L, &r, &err);
    while (st == GS_OK && more && !bad) {
        if ((st = gs_reader_next(r, buf, &seg, &more, &err)) != GS_OK || !more)
            break;
        for (; next < R->n && at == R->len[next]; next++)
            at = 0; /* records done, empty ones */
        size_t left = next < R->n ? R->len[next] - at : 0, own = left < block ? left : block;
        bad = next == R->n || seg.record != next || seg.base != at || seg.own != own ||
              seg.len != own + (left - own < ov ? left - own : ov) ||
              memcmp(seg.text, R->seq[next] + at, seg.len) != 0;
        if (bad)
            fprintf(stderr, "block %zu overlap %zu: segment of record %u at %llu, expected %zu at %zu\n",
                    block, ov, seg.record, (unsigned long long)seg.base, next, at);
        at += own;
    }
    if (st != GS_OK)
        fprintf(stderr, "read: %s\n", err.msg);
    CHECK(st == GS_OK && !bad);
    CHECK_EQ_U64(L.n_rec, R->n);
    for (size_t i = 0; !bad && i < R->n && i < L.n_rec; i++) {
        const char *want = drop && strncmp(R->name[i], "read", 4) == 0 ? "" : R->name[i];
        CHECK(strcmp(L.rec[i].name, want) == 0);
        CHECK_EQ_U64(L.rec[i].length, R->len[i]);
        CHECK_EQ_U64(L.rec[i].file, R->file[i]);
    }
    gs_guarded_free(buf, block + ov);
    gs_reader_close(r);
    gs_layout_free(&L);
}

static void test_random(void)
{
    static const size_t blocks[][2] = {{1, 0}, {3, 2}, {7, 5}, {64, 9}, {150, 30}, {1 << 16, 31}};
    for (uint64_t seed = 1; seed <= 12; seed++) {
        uint64_t st = seed * 7919;
        static ref R;
        text a = {0}, b = {0};
        R.n = 0;
        /* reads of one length (most runs) take the reader's fast paths */
        make_fastq(&a, &R, 0, 1 + (size_t)gs_test_below(&st, 200), &st, seed % 3 == 0,
                   seed % 4 < 2);
        /* a FASTA file after it: records of both kinds in one corpus */
        adds(&b, ">fa1 x\nACGTAC\nGG\n>fa2\n\n");
        size_t k = R.n;
        snprintf(R.name[k], sizeof R.name[k], "fa1");
        R.seq[k] = strdup("ACGTACGG");
        R.len[k] = 8;
        R.file[k] = 1;
        snprintf(R.name[k + 1], sizeof R.name[k + 1], "fa2");
        R.seq[k + 1] = strdup("");
        R.len[k + 1] = 0;
        R.file[k + 1] = 1;
        R.n += 2;
        const int gz = seed % 2 == 0;
        const char *fq = gs_test_tmp_path(gz ? "r.fq.gz" : "r.fq"), *fa = gs_test_tmp_path("f.fa");
        put_file(fq, a.s, a.n, gz);
        put_file(fa, b.s, b.n, 0);
        const char *files[2] = {fq, fa};
        for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++)
            check_read(files, 2, &R, GS_INPUT_AUTO, blocks[i][0], blocks[i][1], (int)(seed % 2));
        R.n -= 2; /* the FASTQ file alone, forced */
        check_read(files, 1, &R, GS_INPUT_FASTQ, 64, 9, 0);
        for (size_t i = 0; i < R.n + 2; i++)
            free(R.seq[i]);
        free(a.s);
        free(b.s);
    }
}

/* Read to the end; the status of the failure and its message. */
static gs_status read_all(const char *path, gs_input_format fmt, gs_error *err)
{
    gs_layout L = {0};
    gs_reader *r = NULL;
    gs_reader_opts o = {.format = fmt, .block = 5, .overlap = 2};
    uint8_t buf[7];
    gs_segment seg;
    int more = 1;
    gs_status st = gs_reader_open(&path, 1, &o, &L, &r, err);
    while (st == GS_OK && more)
        st = gs_reader_next(r, buf, &seg, &more, err);
    gs_reader_close(r);
    gs_layout_free(&L);
    return st;
}

static void test_malformed(void)
{
    static const struct {
        const char *text;
        const char *where; /* file:line in the message */
        const char *what;
    } cases[] = {
        {"@r1\nACGT\n+\nIII\n", "4", "quality of 3 bytes for a sequence of 4"},
        {"@r1\nACGT\n+\nIIIII\n", "4", "quality of 5 bytes"},
        {"@r1\nACGT\nACGT\n+\nIIIIIIII\n", "3", "no '+' line"},
        {"@r1\nACGT\n+\nIIII\nr2\nACGT\n+\nIIII\n", "5", "must start with '@'"},
        {"\n\n@r1\nACGT\n+\nIIII\n\n>r2\nACGT\n", "8", "must start with '@'"},
        {"@r1\nACGT\n+\n", "4", "ends inside record r1"},
        {"@r1\nACGT\n+", "4", "ends inside record r1"},
        {"@r1\nACGT", "2", "ends inside record r1"},
        {"@r1\n", "2", "ends inside record r1"},
        {"@r1\r\nACGT\r\n+\r\nIII\r\n", "4", "quality of 3 bytes"},
        {"@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\nII\n@\n", "8", "quality of 2 bytes"},
        {"@r1\nACGT\n+\nIIII\n@r2\nACG\n+\nIIII\n", "8", "quality of 4 bytes for a sequence of 3"},
        {"@r1\nACGT\n+\nIIII\n@r2\nAC\n+\nI@\n@r3\nA\n+\n\n", "12", "record r3"},
        {"@r\001\x00x\nACGT\n+\nIIII\n", "1", "NUL"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *p = gs_test_tmp_path("bad.fq");
        size_t n = strlen(cases[i].text);
        if (strstr(cases[i].what, "NUL"))
            n = 18;
        put_file(p, cases[i].text, n, 0);
        gs_error err = {0};
        char where[600];
        snprintf(where, sizeof where, "%s:%s)", p, cases[i].where);
        CHECK(read_all(p, GS_INPUT_AUTO, &err) == GS_EINPUT);
        if (!strstr(err.msg, where) || !strstr(err.msg, cases[i].what))
            fprintf(stderr, "case %zu: '%s' lacks '%s' or '%s'\n", i, err.msg, where,
                    cases[i].what);
        CHECK(strstr(err.msg, where) && strstr(err.msg, cases[i].what));
    }
    /* forced FASTQ on a FASTA file, and an empty file forced: no records */
    const char *p = gs_test_tmp_path("a.fa");
    put_file(p, ">r\nACGT\n", 8, 0);
    gs_error err = {0};
    CHECK(read_all(p, GS_INPUT_FASTQ, &err) == GS_EINPUT && strstr(err.msg, "not a FASTQ file"));
    put_file(p, "\n\n", 2, 0);
    CHECK(read_all(p, GS_INPUT_FASTQ, &err) == GS_OK);
}

int main(void)
{
    if (gs_test_tmpdir("test_fastq") == NULL)
        return 3;
    test_random();
    test_malformed();
    if (gs_test_tmp_remove() != 0)
        return 3;
    return gs_test_done("test_fastq");
}
