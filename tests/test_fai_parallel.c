/* test_fai_parallel.c - the .fai builder on several threads against the
 * same builder on one (gs_fai_build) and the streaming reader.
 *
 * Random FASTA texts (many short and empty records, line widths 1..80, CRLF,
 * lowercase, N runs, NUL bytes, headers with no name or leading blanks,
 * trailing blank lines, a last line without a newline) are indexed with every
 * range size from 1 byte up (so every byte of the file is once a range edge,
 * headers included) and 1 to 8 threads: the entries must equal those of one
 * thread and one range exactly. Damaged copies (a line made longer or
 * shorter, a blank line, a space or stray '\r' inside a record) must be
 * refused wherever one thread refuses them, and accepted with the same
 * entries where it accepts them. Residues read through the index must equal
 * the streaming reader's, also for a file opening with a UTF-8 BOM and blank
 * lines. Text that is not FASTA is refused.
 */
#define _POSIX_C_SOURCE 200809L
#include "io/seq/fai.h"
#include "io/seq/fasta.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[256];

static void put(const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(text, 1, n, f);
    fclose(f);
}

/* A random FASTA text in a malloc'd buffer (*n bytes). */
static char *random_fasta(uint64_t *rng, size_t *n)
{
    size_t cap = 1 << 16, len = 0;
    char *t = malloc(cap);
    int recs = 1 + (int)gs_test_below(rng, 12), crlf = gs_test_below(rng, 4) == 0;
    for (int r = 0; r < recs; r++) {
        if (len + 4096 > cap)
            t = realloc(t, cap *= 2);
        switch (gs_test_below(rng, 6)) {
        case 0: len += (size_t)sprintf(t + len, ">"); break;           /* no name */
        case 1: len += (size_t)sprintf(t + len, ">  r%d\tdesc", r); break;
        default: len += (size_t)sprintf(t + len, ">r%d some description", r);
        }
        len += (size_t)sprintf(t + len, crlf ? "\r\n" : "\n");
        uint64_t rl = gs_test_below(rng, 4) == 0 ? 0 : gs_test_below(rng, 600);
        uint64_t w = 1 + gs_test_below(rng, 80);
        for (uint64_t i = 0; i < rl; i++) {
            if (len + 256 > cap)
                t = realloc(t, cap *= 2);
            static const char alpha[] = "ACGTACGTacgtNn\0>";
            t[len++] = alpha[gs_test_below(rng, 16)];
            if ((i + 1) % w == 0 || i + 1 == rl)
                len += (size_t)sprintf(t + len, crlf ? "\r\n" : "\n");
        }
        for (uint64_t b = gs_test_below(rng, 3) == 0 ? gs_test_below(rng, 3) : 0; b > 0; b--)
            len += (size_t)sprintf(t + len, crlf ? "\r\n" : "\n");
    }
    /* sometimes no newline after the last line (of sequence, not a header) */
    if (gs_test_below(rng, 4) == 0 && len > 1 && t[len - 2] != '\n' && t[len - 2] != '\r')
        len -= 1 + (crlf && t[len - 2] == '\r');
    *n = len;
    return t;
}

static int same_index(const gs_fai *a, const gs_fai *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const gs_fai_entry *x = &a->v[i], *y = &b->v[i];
        if (strcmp(x->name, y->name) || x->length != y->length || x->offset != y->offset ||
            x->linebases != y->linebases || x->linewidth != y->linewidth)
            return 0;
    }
    return 1;
}

/* Every record's residues through the index equal the streaming reader's. */
static int residues_match(const gs_fai *fai)
{
    gs_layout layout = {0};
    gs_reader *r = NULL;
    gs_error err = {0};
    const char *files[] = {path};
    gs_reader_opts o = {.format = GS_INPUT_AUTO, .block = 1 << 20, .overlap = 0};
    int ok = gs_reader_open(files, 1, &o, &layout, &r, &err) == GS_OK;
    uint8_t *buf = malloc(1 << 20), *mine = malloc(1 << 20), *theirs = calloc(1, 1 << 20);
    gs_segment seg;
    gs_status got = GS_OK;
    int more = 0;
    while (ok && (got = gs_reader_next(r, buf, &seg, &more, &err)) == GS_OK && more)
        memcpy(theirs + 4096 * seg.record + seg.base, seg.text, seg.own); /* records < 4096 */
    ok = ok && got == GS_OK && !more && layout.n_rec == fai->n;
    gs_seqfile f;
    ok = ok && gs_seqfile_open(path, &f, &err) == GS_OK;
    for (size_t i = 0; ok && i < fai->n; i++) {
        uint64_t bytes = 0;
        ok = layout.rec[i].length == fai->v[i].length && !strcmp(layout.rec[i].name, fai->v[i].name) &&
             gs_fai_read_range(&f, &fai->v[i], 0, fai->v[i].length, mine, &bytes, &err) == GS_OK &&
             !memcmp(mine, theirs + 4096 * i, fai->v[i].length);
    }
    if (!ok && err.code)
        fprintf(stderr, "residues: %s\n", err.msg);
    gs_seqfile_close(&f);
    gs_reader_close(r);
    gs_layout_free(&layout);
    free(buf);
    free(mine);
    free(theirs);
    return ok;
}

/* Index path with every range size 1..max_split and some thread counts;
 * each must agree with ref (or refuse when ref_st is GS_EINPUT). */
static void check_all_splits(const gs_fai *ref, gs_status ref_st, uint64_t max_split)
{
    static const int threads[] = {1, 2, 3, 8};
    for (uint64_t split = 0; split <= max_split; split++)
        for (int k = 0; k < 4; k++) {
            if (split > 0 && k != (int)(split % 4))
                continue; /* every split once, with a rotating thread count */
            gs_fai got;
            gs_error err = {0};
            gs_status st = gs_fai_build(path, threads[k], &(gs_tune){.io_fai_split = split}, &got, &err);
            if (st != ref_st || (st == GS_OK && !same_index(ref, &got))) {
                fprintf(stderr, "split %llu threads %d: status %d (%s), expected %d\n",
                        (unsigned long long)split, threads[k], st, err.msg, ref_st);
                CHECK(0);
                gs_fai_free(&got);
                return;
            }
            gs_fai_free(&got);
        }
}

static void test_random(void)
{
    uint64_t rng = 20261123;
    /* GS_TEST_QUICK=1 (sanitizer builds): a third of the rounds */
    const int rounds = getenv("GS_TEST_QUICK") && atoi(getenv("GS_TEST_QUICK")) ? 20 : 60;
    for (int round = 0; round < rounds; round++) {
        size_t n;
        char *t = random_fasta(&rng, &n);
        for (int damage = 0; damage < 2; damage++) {
            if (damage) { /* a random change that may make a record irregular */
                size_t at = 1 + gs_test_below(&rng, n - 1);
                static const char *const kinds[] = {"A", "\n", " ", "\r", "AC\n"};
                const char *ins = kinds[gs_test_below(&rng, 5)];
                size_t l = strlen(ins);
                t = realloc(t, n + l);
                memmove(t + at + l, t + at, n - at);
                memcpy(t + at, ins, l);
                n += l;
            }
            put(t, n);
            gs_fai ref;
            gs_error err = {0};
            gs_status st = gs_fai_build(path, 1, NULL, &ref, &err);
            CHECK(st == GS_OK || st == GS_EINPUT);
            check_all_splits(&ref, st, n < 400 ? n + 1 : 400);
            if (st == GS_OK)
                CHECK(residues_match(&ref));
            if (st == GS_OK)
                gs_fai_free(&ref);
        }
        free(t);
    }
}

/* A BOM and blank lines before the first header: offsets shift by their
 * length, and the residues are the reader's. */
static void test_bom(void)
{
    const char body[] = ">a x\r\nACGTA\r\nCG\r\n>b\r\n\r\n>c\r\nNNNN\r\nacgt\r\nA";
    const char lead[] = "\xef\xbb\xbf\n \r\n";
    char text[256];
    size_t nl = sizeof lead - 1, nb = sizeof body - 1;
    memcpy(text, body, nb);
    put(text, nb);
    gs_fai ref, got;
    gs_error err = {0};
    CHECK(gs_fai_build(path, 1, NULL, &ref, &err) == GS_OK);
    memcpy(text, lead, nl);
    memcpy(text + nl, body, nb);
    put(text, nl + nb);
    for (size_t i = 0; i < ref.n; i++)
        ref.v[i].offset += nl;
    for (uint64_t split = 0; split < nl + nb + 2; split++) {
        CHECK(gs_fai_build(path, 2, &(gs_tune){.io_fai_split = split}, &got, &err) == GS_OK);
        CHECK(same_index(&ref, &got));
        gs_fai_free(&got);
    }
    CHECK(ref.n == 3 && residues_match(&ref));
    gs_fai_free(&ref);
}

static void test_not_fasta(void)
{
    static const char *const texts[] = {"", "\n\n \n", "ACGT\n>x\nACGT\n", "\xef\xbb\xbf" "AC\n",
                                        ">x\nAC\n>last"};
    for (int i = 0; i < 5; i++) {
        put(texts[i], strlen(texts[i]));
        gs_fai got;
        gs_error err = {0};
        CHECK(gs_fai_build(path, 2, &(gs_tune){.io_fai_split = 0}, &got, &err) == GS_EINPUT);
        CHECK(got.n == 0);
    }
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/gs_fai_parallel_%d.fa", (int)getpid());
    test_random();
    test_bom();
    test_not_fasta();
    unlink(path);
    return gs_test_done("test_fai_parallel");
}
