/* test_lz_trim.c - the pieces a scan of patterns shorter than M reads
 * (gs_lz_trim), and the kernel source over them, against the phrases and
 * the corpus text directly.
 *
 * A small strain set (a random text in records, mutated copies with SNPs
 * and indels, N runs, lowercase, short and empty records) is indexed for
 * several M, then written and read back (kernel chunks cut small). For
 * every span s from 1 to M + 1 on 1 to 4 threads: the scanned pieces cover
 * exactly the residues within s - 1 of a phrase start (and each literal's
 * own), clipped to its record; they ascend without overlap, each inside
 * one stored piece; at s >= M they are the stored pieces. The source, cut
 * into parts and small blocks, hands out every scanned residue once, as
 * the corpus has it, with separators between joined pieces: a window one
 * residue short, a piece mapped to the wrong stored piece or a part edge
 * off by one fails here, not only as a different result file.
 */
#define _POSIX_C_SOURCE 200809L
#include "lz/lz.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BASE = 2500, VARIANTS = 4 };

typedef struct corpus {
    char path[64];
    uint8_t *text; /* the records' residues, concatenated: global positions */
    size_t n;
} corpus;

static void add_record(FILE *f, corpus *c, int *id, const uint8_t *r, size_t n)
{
    fprintf(f, ">rec%d\n", (*id)++);
    for (size_t i = 0; i < n; i += 60)
        fprintf(f, "%.*s\n", (int)(n - i < 60 ? n - i : 60), (const char *)r + i);
    memcpy(c->text + c->n, r, n);
    c->n += n;
}

static int make_corpus(corpus *c, uint64_t *rng)
{
    static const char acgt[4] = {'A', 'C', 'G', 'T'};
    uint8_t *base = malloc(BASE), *copy = malloc(2 * BASE);
    c->text = malloc((size_t)(VARIANTS + 1) * 2 * BASE + 64);
    strcpy(c->path, "/tmp/test_lz_trim_XXXXXX");
    int fd = mkstemp(c->path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!base || !copy || !c->text || !f)
        return 0;
    for (size_t i = 0; i < BASE; i++)
        base[i] = (uint8_t)acgt[gs_test_below(rng, 4)];
    memset(base + 700, 'N', 12);
    for (size_t i = 1500; i < 1530; i++)
        base[i] = (uint8_t)(base[i] | 0x20); /* lowercase */
    int id = 0;
    static const uint8_t tiny[] = "ACGTA";
    add_record(f, c, &id, base, 0); /* empty, first */
    add_record(f, c, &id, base, 1000);
    add_record(f, c, &id, base + 1000, BASE - 1000);
    for (int v = 0; v < VARIANTS; v++) {
        size_t n = 0;
        for (size_t i = 0; i < BASE; i++) {
            uint64_t x = gs_test_below(rng, 1000);
            if (x < 15)
                copy[n++] = (uint8_t)acgt[gs_test_below(rng, 4)]; /* SNP */
            else if (x < 18)
                i += gs_test_below(rng, 4); /* deletion */
            else if (x < 21)
                for (uint64_t k = 1 + gs_test_below(rng, 4); k > 0; k--)
                    copy[n++] = (uint8_t)acgt[gs_test_below(rng, 4)]; /* insertion */
            if (i < BASE)
                copy[n++] = base[i];
        }
        add_record(f, c, &id, copy, n / 3);
        add_record(f, c, &id, tiny, 1 + (size_t)v); /* short records between */
        add_record(f, c, &id, copy + n / 3, n - n / 3);
        if (v == 1)
            add_record(f, c, &id, base, 0);
    }
    free(base);
    free(copy);
    return fclose(f) == 0;
}

/* The residues a scan of span s must read, from the phrases. */
static void want_windows(const gs_lz_index *ix, uint32_t s, uint8_t *want)
{
    uint64_t w = (s < ix->max_pat ? s : ix->max_pat) - 1;
    memset(want, 0, ix->n_residues);
    for (uint64_t j = 0; j < ix->n_phrases; j++) {
        uint64_t b = ix->ph_start[j];
        uint64_t r = gs_lz_last_le(ix->rec_off, ix->layout.n_rec, b);
        uint64_t lo = b >= ix->rec_off[r] + w ? b - w : ix->rec_off[r];
        uint64_t hi = b + w < ix->rec_off[r + 1] ? b + w : ix->rec_off[r + 1];
        if (ix->ph_src[j] == GS_LZ_LITERAL && hi < b + 1)
            hi = b + 1;
        for (uint64_t g = lo; g < hi; g++)
            want[g] = 1;
    }
}

/* Scanned piece t holding joined position p (gs_lz_src), or n_scan. */
static uint64_t piece_of(const gs_lz_index *ix, uint64_t p)
{
    uint64_t t = 0;
    while (t + 1 < ix->n_scan && ix->sc_koff[t + 1] + t + 1 <= p)
        t++;
    return t;
}

/* Every scanned residue once, as the corpus has it, over `parts` parts. */
static void check_source(const gs_lz_index *ix, const corpus *c, int parts, size_t block,
                         size_t overlap)
{
    uint8_t *buf = malloc(block + overlap);
    uint32_t *owned = calloc(ix->sc_len + 1, sizeof *owned);
    for (int part = 0; part < parts; part++) {
        gs_lz_src s;
        gs_lz_src_init(&s, ix, part, parts, block, overlap, 'N');
        gs_source src = gs_source_lz(&s);
        gs_segment seg;
        gs_error err = {0};
        gs_status rc;
        int more = 0;
        while ((rc = src.next(src.ctx, buf, &seg, &more, &err)) == GS_OK && more) {
            CHECK(seg.own <= seg.len && seg.len <= block + overlap && seg.own <= block);
            for (size_t i = 0; i < seg.len; i++) {
                uint64_t p = seg.base + i, t = piece_of(ix, p), k = p - t;
                if (k >= ix->sc_koff[t + 1]) { /* the separator after piece t */
                    CHECK(buf[i] == 'N' && i < seg.own);
                    continue;
                }
                CHECK(buf[i] == c->text[ix->sc_pos[t] + (k - ix->sc_koff[t])]);
                if (i < seg.own)
                    owned[k]++;
            }
        }
        CHECK(rc == GS_OK && !more);
    }
    for (uint64_t k = 0; k < ix->sc_len; k++)
        if (owned[k] != 1) {
            CHECK_EQ_U64(owned[k], 1);
            break;
        }
    free(owned);
    free(buf);
}

static void check_trim(gs_lz_index *ix, const corpus *c, uint32_t s, int threads)
{
    gs_error err = {0};
    CHECK(gs_lz_trim(ix, s, threads, NULL, &err) == GS_OK);
    uint8_t *want = malloc(ix->n_residues + 1), *got = calloc(ix->n_residues + 1, 1);
    want_windows(ix, s, want);
    uint64_t len = 0;
    CHECK(ix->sc_koff[0] == 0);
    for (uint64_t t = 0; t < ix->n_scan; t++) {
        uint64_t a = ix->sc_pos[t], n = ix->sc_koff[t + 1] - ix->sc_koff[t];
        uint64_t q = gs_lz_last_le(ix->pc_pos, ix->n_pieces, a);
        CHECK(n > 0 && q < ix->n_pieces &&
              a + n <= ix->pc_pos[q] + (ix->pc_koff[q + 1] - ix->pc_koff[q]));
        CHECK(t == 0 || ix->sc_pos[t - 1] + (ix->sc_koff[t] - ix->sc_koff[t - 1]) <= a);
        for (uint64_t g = a; g < a + n && g < ix->n_residues; g++)
            got[g] = 1;
        len += n;
    }
    CHECK_EQ_U64(ix->sc_len, len);
    uint64_t diff = ix->n_residues;
    for (uint64_t g = 0; g < ix->n_residues && diff == ix->n_residues; g++)
        if (want[g] != got[g])
            diff = g;
    if (diff != ix->n_residues) {
        fprintf(stderr, "M %u span %u threads %d: residue %llu is %s\n", ix->max_pat, s,
                threads, (unsigned long long)diff, want[diff] ? "missing" : "extra");
        CHECK(diff == ix->n_residues);
    }
    if (s >= ix->max_pat)
        CHECK(ix->sc_pos == ix->pc_pos && ix->n_scan == ix->n_pieces);
    else
        CHECK(ix->sc_len < ix->kernel_len);
    if (threads == 2) { /* the source: one call a span is enough */
        check_source(ix, c, 1, 4096, s - 1);
        check_source(ix, c, 3, 7, s - 1);
        check_source(ix, c, 4, 2, s - 1);
    }
    free(want);
    free(got);
}

static void check_index(gs_lz_index *ix, const corpus *c)
{
    CHECK_EQ_U64(ix->n_residues, c->n);
    for (uint32_t s = 1; s <= ix->max_pat + 1; s++)
        for (int threads = 1; threads <= 4; threads++)
            check_trim(ix, c, s, threads);
}

int main(void)
{
    uint64_t rng = 0x7a11;
    corpus c = {0};
    CHECK(make_corpus(&c, &rng));
    const char *files[1] = {c.path};
    static const uint32_t ms[] = {2, 3, 8, 24};
    char gsx[80];
    snprintf(gsx, sizeof gsx, "%s.gsx", c.path);
    const gs_tune tune = {.lz_chunk = 37}; /* kernel chunk edges inside pieces */
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++) {
        gs_lz_index ix, rx;
        gs_error err = {0};
        gs_lz_build_opts bo = {.format = GS_INPUT_FASTA, .max_pat = ms[i], .threads = 2};
        if (gs_lz_build(files, 1, &bo, &ix, &err) != GS_OK) {
            fprintf(stderr, "build: %s\n", err.msg);
            CHECK(0);
            break;
        }
        check_index(&ix, &c); /* the kernel in memory */
        CHECK(gs_lz_write(gsx, &ix, 2, &tune, &err) == GS_OK);
        gs_lz_free(&ix);
        if (gs_lz_read(gsx, 2, NULL, &rx, &err) != GS_OK) {
            fprintf(stderr, "read: %s\n", err.msg);
            CHECK(0);
            break;
        }
        check_index(&rx, &c); /* the kernel left packed in the mapped file */
        gs_lz_free(&rx);
    }
    unlink(gsx);
    unlink(c.path);
    free(c.text);
    return gs_test_done("test_lz_trim");
}
