/* test_patterns.c - pattern files: both forms, names, comments, IUPAC, byte
 * escapes, and every error with a message that names the file and line.
 *
 * Expected values are written out by hand from the fixtures under
 * tests/data/io/, not taken from the reader.
 */
#define _POSIX_C_SOURCE 200809L
#include "io/seq/patterns.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct expect {
    const char *name, *text;
    const char *bytes;
    uint32_t len, line;
} expect;

static void check_set(const char *path, gs_alphabet alpha, const expect *x, uint32_t n,
                      uint32_t min_len, uint32_t max_len)
{
    gs_patset ps;
    gs_error err = {0};
    gs_status st = gs_patset_read(path, alpha, &ps, &err);
    CHECK(st == GS_OK);
    if (st != GS_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return;
    }
    CHECK_EQ_U64(ps.n, n);
    for (uint32_t i = 0; i < n && i < ps.n; i++) {
        const gs_pattern *p = &ps.v[i];
        int ok = strcmp(p->name, x[i].name) == 0 && strcmp(p->text, x[i].text) == 0 &&
                 p->len == x[i].len && memcmp(p->bytes, x[i].bytes, x[i].len) == 0 &&
                 p->line == x[i].line;
        if (!ok)
            fprintf(stderr, "%s pattern %u: got name '%s' text '%s' len %u line %u\n", path, i,
                    p->name, p->text, p->len, p->line);
        CHECK(ok);
    }
    CHECK_EQ_U64(ps.min_len, min_len);
    CHECK_EQ_U64(ps.max_len, max_len);
    CHECK(strcmp(ps.path, path) == 0);
    gs_patset_free(&ps);
}

static char tmpdir[256];

/* Write content to a fresh file and read it: the status must be want, and the
 * message must contain every string in need (NULL-terminated). */
static void check_error(const char *content, gs_alphabet alpha, gs_status want,
                        const char *const *need)
{
    static int k;
    char path[512];
    snprintf(path, sizeof path, "%s/case%d.txt", tmpdir, k++);
    FILE *f = fopen(path, "wb");
    fwrite(content, 1, strlen(content), f);
    fclose(f);
    gs_patset ps;
    gs_error err = {0};
    gs_status st = gs_patset_read(path, alpha, &ps, &err);
    CHECK(st == want);
    int missing = !strstr(err.msg, path);
    for (const char *const *s = need; *s; s++)
        missing |= strstr(err.msg, *s) == NULL;
    if (st != want || missing)
        fprintf(stderr, "case %d (%s): status %d, message \"%s\"\n", k - 1, path, st, err.msg);
    CHECK(!missing);
    CHECK(ps.n == 0 && ps.v == NULL); /* nothing left on failure */
}

#define NEED(...) ((const char *const[]){__VA_ARGS__, NULL})

int main(void)
{
    char path[4096];

    /* line form, dna */
    static const expect lines[] = {
        {"p1", "ACGT", "ACGT", 4, 3},    {"primer1", "acgtn", "ACGTN", 5, 4},
        {"rna", "ACGUu", "ACGTT", 5, 6}, {"deg", "RYSWKMBDHVN", "RYSWKMBDHVN", 11, 8},
        {"p5", "TTTT", "TTTT", 4, 9},    {"p6", "GATTACA", "GATTACA", 7, 10},
    };
    snprintf(path, sizeof path, "%s", gs_test_data("io/pat_lines.txt"));
    check_set(path, GS_ALPHA_DNA, lines, 6, 4, 11);

    /* FASTA form, dna: joined lines, blanks dropped, '>' only header unnamed */
    static const expect fasta[] = {
        {"first", "ACGTacgt", "ACGTACGT", 8, 3},
        {"p2", "NNN", "NNN", 3, 7},
        {"third", "u", "T", 1, 10},
    };
    snprintf(path, sizeof path, "%s", gs_test_data("io/pat_fasta.fa"));
    check_set(path, GS_ALPHA_DNA, fasta, 3, 1, 8);

    /* line form, bytes: escapes decoded, spaces and '#' inside are bytes */
    static const expect bytes[] = {
        {"p1", "\\x00\\xff\\xAb", "\x00\xff\xab", 3, 2},
        {"esc", "A\\\\B\\tC\\nD\\rE", "A\\B\tC\nD\rE", 9, 3},
        {"p3", "  two spaces  ", "  two spaces  ", 14, 4},
        {"p4", "hash#inside", "hash#inside", 11, 5},
        {"p5", "\\x23start", "#start", 6, 6},
    };
    snprintf(path, sizeof path, "%s", gs_test_data("io/pat_bytes.txt"));
    check_set(path, GS_ALPHA_BYTES, bytes, 5, 3, 14);

    snprintf(tmpdir, sizeof tmpdir, "/tmp/gs_test_patterns.XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 3;
    }

    /* FASTA form in the bytes alphabet, and a gzip-free CRLF FASTA */
    {
        snprintf(path, sizeof path, "%s/crlf.fa", tmpdir);
        FILE *f = fopen(path, "wb");
        fputs(">a x\r\nAC\r\nGT\r\n>b\r\n\\x41\\t\r\n", f);
        fclose(f);
        static const expect bf[] = {{"a", "ACGT", "ACGT", 4, 1}, {"b", "\\x41\\t", "A\t", 2, 4}};
        check_set(path, GS_ALPHA_BYTES, bf, 2, 2, 4);
        static const expect df[] = {{"a", "ACGT", "ACGT", 4, 1}};
        f = fopen(path, "wb");
        fputs(">a x\r\nAC\r\nGT\r\n", f);
        fclose(f);
        check_set(path, GS_ALPHA_DNA, df, 1, 4, 4);
    }

    /* errors */
    {
        gs_patset ps;
        gs_error err = {0};
        CHECK(gs_patset_read("/nonexistent/probes.txt", GS_ALPHA_DNA, &ps, &err) == GS_EINPUT);
        CHECK(strstr(err.msg, "/nonexistent/probes.txt") != NULL);
        gs_error err2 = {0};
        CHECK(gs_patset_read(tmpdir, GS_ALPHA_DNA, &ps, &err2) == GS_EINPUT);
        CHECK(strstr(err2.msg, tmpdir) != NULL);
    }
    check_error("", GS_ALPHA_DNA, GS_EINPUT, NEED("no patterns ("));
    check_error("# only\n#comments\n\n   \n", GS_ALPHA_DNA, GS_EINPUT, NEED("no patterns ("));
    check_error("# c\n\n", GS_ALPHA_BYTES, GS_EINPUT, NEED("no patterns ("));
    check_error("ACGT\nname\t\n", GS_ALPHA_DNA, GS_EINPUT, NEED("empty pattern name", ":2)"));
    check_error("ACGT\nname\t  # nothing\n", GS_ALPHA_DNA, GS_EINPUT,
                NEED("empty pattern name", ":2)"));
    check_error("ab\tx\nname\t\r\n", GS_ALPHA_BYTES, GS_EINPUT, NEED("empty pattern name", ":2)"));
    check_error(">a\n>b\nACGT\n", GS_ALPHA_DNA, GS_EINPUT, NEED("empty pattern a", ":1)"));
    check_error(">a\nAC\n\n>b\n \n", GS_ALPHA_DNA, GS_EINPUT, NEED("empty pattern b", ":4)"));
    check_error(">\n>b\nAC\n", GS_ALPHA_DNA, GS_EINPUT, NEED("empty pattern p1", ":1)"));
    check_error("ACGT\nACGZ\n", GS_ALPHA_DNA, GS_EINPUT,
                NEED("invalid symbol 'Z'", "pattern p2", ":2)"));
    check_error("x\tAC-GT\n", GS_ALPHA_DNA, GS_EINPUT,
                NEED("invalid symbol '-'", "pattern x", ":1)"));
    check_error("gag ACGT\n", GS_ALPHA_DNA, GS_EINPUT, NEED("invalid symbol '\\x20'", ":1)"));
    check_error("AC\001GT\n", GS_ALPHA_DNA, GS_EINPUT, NEED("invalid symbol '\\x01'", ":1)"));
    check_error("AC\xe9GT\n", GS_ALPHA_DNA, GS_EINPUT, NEED("invalid symbol '\\xE9'", ":1)"));
    check_error("# h\n>x\nACGT\nAXGT\n", GS_ALPHA_DNA, GS_EINPUT,
                NEED("invalid symbol 'X'", "pattern x", ":4)"));
    check_error("\\q\n", GS_ALPHA_BYTES, GS_EINPUT, NEED("bad escape '\\q'", "pattern p1", ":1)"));
    check_error("ok\nn\tA\\x4\n", GS_ALPHA_BYTES, GS_EINPUT,
                NEED("bad escape '\\x4'", "pattern n", ":2)"));
    check_error("A\\xZZ\n", GS_ALPHA_BYTES, GS_EINPUT, NEED("bad escape '\\xZZ'", ":1)"));
    check_error("AB\\\n", GS_ALPHA_BYTES, GS_EINPUT, NEED("bad escape '\\'", ":1)"));
    check_error(">p\nAC\\u\n", GS_ALPHA_BYTES, GS_EINPUT,
                NEED("bad escape '\\u'", "pattern p", ":2)"));

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return gs_test_done("test_patterns");
}
