/* test_inflate_parallel.c - gzip decompressed on threads (inflate_parallel.h,
 * deflate_chunk.h) against zlib, byte for byte.
 *
 * Every stream is written here with zlib's deflate (gzip wrapper), so the
 * bytes it decodes to are known: random bytes (stored blocks), DNA-like
 * text with repeats (the shape gscan reads), at levels 0, 1, 6 and 9 and
 * with fixed-only, Huffman-only and RLE strategies; many members, empty
 * members, tiny files, headers with every optional field. Trailing bytes
 * that are not a member fail. Each is decoded with regions from 64 bytes (block
 * starts searched everywhere, most pieces rejected or re-decoded) to 1 MiB
 * on 1 to 4 threads, from a buffer that ends against an unmapped page. Cut
 * and corrupted streams must fail with the file's name, never decode to
 * other bytes. Real DNA (data/cache, when present) is decoded too.
 */
#define _POSIX_C_SOURCE 200809L
#include "io/stream/deflate_chunk.h"
#include "io/stream/inflate.h"
#include "io/stream/inflate_parallel.h"
#include "io/stream/stream.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (b->p == NULL)
            abort();
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

/* One gzip member of d[0, n) appended to z. */
static void gz_member(buf *z, const uint8_t *d, size_t n, int level, int strategy, int header)
{
    z_stream s = {0};
    if (deflateInit2(&s, level, Z_DEFLATED, 31, 8, strategy) != Z_OK)
        abort();
    gz_header h = {0};
    if (header) { /* every optional field: FEXTRA, FNAME, FCOMMENT, FHCRC */
        static uint8_t extra[5] = {'A', 'B', 1, 0, 7};
        h.extra = extra;
        h.extra_len = 5;
        h.name = (Bytef *)"name.fa";
        h.comment = (Bytef *)"a comment";
        h.hcrc = 1;
        deflateSetHeader(&s, &h);
    }
    size_t cap = deflateBound(&s, (uLong)n) + 64;
    uint8_t *out = malloc(cap);
    s.next_in = (Bytef *)d;
    s.avail_in = (uInt)n;
    s.next_out = out;
    s.avail_out = (uInt)cap;
    if (deflate(&s, Z_FINISH) != Z_STREAM_END)
        abort();
    put(z, out, cap - s.avail_out);
    deflateEnd(&s);
    free(out);
}

/* DNA-like text: 60-column lines of ACGT, a header now and then, and
 * stretches copied (with mutations) from up to 1 MB back, so matches reach
 * into older matches as in real genomes. */
static uint8_t *dna(size_t n, uint64_t seed)
{
    uint8_t *d = malloc(n + 1);
    uint64_t st = seed;
    size_t i = 0, col = 0;
    while (i < n) {
        if (i > 1000 && gs_test_below(&st, 4) == 0) {
            size_t back = 1 + (size_t)gs_test_below(&st, i < 1000000 ? i : 1000000);
            size_t len = 20 + (size_t)gs_test_below(&st, 400);
            for (size_t k = 0; k < len && i < n; k++, i++)
                d[i] = gs_test_below(&st, 50) ? d[i - back] : "ACGT"[gs_test_below(&st, 4)];
            continue;
        }
        if (gs_test_below(&st, 200000) == 0) {
            for (const char *h = ">rec\n"; *h && i < n; h++)
                d[i++] = (uint8_t)*h;
            col = 0;
            continue;
        }
        d[i++] = ++col % 61 == 0 ? '\n' : (uint8_t) "ACGT"[gs_test_below(&st, 4)];
    }
    return d;
}

/* Everything gs_pinflate hands out, or NULL with *rc -1 (err set). */
static uint8_t *decode_all(const uint8_t *z, size_t zn, int threads, size_t region, size_t *n,
                           int *rc, gs_error *err)
{
    uint8_t *in = gs_guarded_alloc(zn ? zn : 1);
    memcpy(in + (zn ? 0 : 1), z, zn);
    const uint8_t *g = zn ? in : in + 1;
    gs_pinflate *p = NULL;
    buf out = {0};
    *rc = 0;
    if (gs_pinflate_open(g, zn, threads, region, "test.gz", &p, err) != GS_OK) {
        *rc = -1;
    } else {
        const uint8_t *v;
        size_t k = 0;
        gs_status st;
        while ((st = gs_pinflate_next(p, &v, &k, err)) == GS_OK && k > 0)
            put(&out, v, k);
        if (st != GS_OK)
            *rc = -1;
        if (st == GS_OK)
            CHECK_EQ_U64(gs_pinflate_bytes_in(p), zn);
    }
    gs_pinflate_close(p);
    gs_guarded_free(in, zn ? zn : 1);
    *n = out.n;
    if (*rc != 0) {
        free(out.p);
        return NULL;
    }
    return out.p ? out.p : malloc(1);
}

static const size_t regions[] = {64, 1000, 4096, 65536, 1 << 20};
/* GS_TEST_QUICK=1 (sanitizer builds): 1 MiB per level instead of 3,
 * regions under 4 KiB only on inputs up to 256 KiB, 4 MiB of the real DNA */
static int quick;

/* z must decode to d[0, n) with every region size and thread count. */
static void check_same(const char *what, const buf *z, const uint8_t *d, size_t n)
{
    for (size_t r = 0; r < sizeof regions / sizeof *regions; r++)
        for (int t = 1; t <= 4; t += 3) {
            if (regions[r] < 4096 && z->n > (quick ? 256u << 10 : 1u << 20))
                continue; /* thousands of regions: slow, and the small files cover it */
            gs_error err = {0};
            size_t got;
            int rc;
            uint8_t *o = decode_all(z->p, z->n, t, regions[r], &got, &rc, &err);
            if (rc != 0 || got != n || memcmp(o, d, n) != 0) {
                fprintf(stderr, "%s: region %zu threads %d: rc %d, %zu bytes of %zu (%s)\n", what,
                        regions[r], t, rc, got, n, err.msg);
                gs_test_failures++;
            }
            free(o);
        }
}

/* z must fail (GS_EINPUT naming the file), never decode. */
static void check_fails(const char *what, const uint8_t *z, size_t zn)
{
    for (size_t r = 0; r < sizeof regions / sizeof *regions; r += 2) {
        gs_error err = {0};
        size_t got;
        int rc;
        uint8_t *o = decode_all(z, zn, 3, regions[r], &got, &rc, &err);
        if (rc != -1 || err.code != GS_EINPUT || !strstr(err.msg, "test.gz") ||
            !strstr(err.msg, "gzip")) {
            fprintf(stderr, "%s: region %zu: rc %d code %d '%s'\n", what, regions[r], rc,
                    (int)err.code, err.msg);
            gs_test_failures++;
        }
        free(o);
    }
}

static void test_levels(void)
{
    size_t n = quick ? 1u << 20 : 3u << 20;
    uint8_t *d = dna(n, 11);
    struct { int level, strategy; const char *name; } v[] = {
        {0, Z_DEFAULT_STRATEGY, "stored"},  {1, Z_DEFAULT_STRATEGY, "gzip -1"},
        {6, Z_DEFAULT_STRATEGY, "gzip -6"}, {9, Z_DEFAULT_STRATEGY, "gzip -9"},
        {6, Z_FIXED, "fixed blocks"},       {6, Z_HUFFMAN_ONLY, "huffman only"},
        {6, Z_RLE, "rle"}};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        buf z = {0};
        gz_member(&z, d, n, v[i].level, v[i].strategy, 0);
        check_same(v[i].name, &z, d, n);
        free(z.p);
    }
    /* random bytes: zlib stores most blocks */
    uint64_t st = 5;
    for (size_t i = 0; i < n; i++)
        d[i] = (uint8_t)gs_test_rand(&st);
    buf z = {0};
    gz_member(&z, d, 300000, 6, Z_DEFAULT_STRATEGY, 0);
    check_same("random bytes", &z, d, 300000);
    free(z.p);
    free(d);
}

static void test_members(void)
{
    size_t n = 500000;
    uint8_t *d = dna(n, 12);
    buf z = {0};
    /* 9 members, one empty, one with every header field, mixed levels */
    size_t cut[] = {0, 1, 70000, 70000, 200000, 200013, 350000, 420000, 499999, 500000};
    for (size_t i = 0; i + 1 < sizeof cut / sizeof *cut; i++)
        gz_member(&z, d + cut[i], cut[i + 1] - cut[i], i % 2 ? 1 : 9, Z_DEFAULT_STRATEGY, i == 3);
    check_same("members", &z, d, n);
    /* bytes after the last member that do not start one are an error, not
     * passed over as zlib's gzread does (gzip: "trailing garbage ignored",
     * exit 2) */
    put(&z, "trailing garbage", 16);
    check_fails("trailing bytes", z.p, z.n);
    free(z.p);
    /* tiny files */
    for (size_t len = 0; len < 40; len += 13) {
        buf t = {0};
        gz_member(&t, d, len, 6, Z_DEFAULT_STRATEGY, len == 13);
        check_same("tiny", &t, d, len);
        free(t.p);
    }
    free(d);
}

static void test_broken(void)
{
    size_t n = 400000;
    uint8_t *d = dna(n, 13);
    buf z = {0};
    gz_member(&z, d, n / 2, 1, Z_DEFAULT_STRATEGY, 0);
    gz_member(&z, d + n / 2, n - n / 2, 6, Z_DEFAULT_STRATEGY, 0);
    /* cut anywhere before the last trailer's end: truncated */
    size_t cuts[] = {1, 5, 10, 11, 300, 5000, z.n / 3, z.n / 2, z.n - 9, z.n - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++)
        check_fails("truncated", z.p, cuts[i]);
    /* a byte changed in the deflate data, the CRC32 or the ISIZE: an error, never other bytes */
    uint8_t *c = malloc(z.n);
    size_t at[] = {20, 100, 4000, z.n / 2 - 3, z.n / 2 + 40, 2 * z.n / 3, z.n - 8, z.n - 2};
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
        memcpy(c, z.p, z.n);
        c[at[i]] ^= 0x21;
        check_fails("corrupt", c, z.n);
    }
    memcpy(c, z.p, z.n);
    c[0] = 0x1e; /* not gzip at all */
    check_fails("bad magic", c, z.n);
    free(c);
    free(z.p);
    free(d);
}

/* The piece decoder alone: from every block a search finds, with an
 * unknown window, the markers resolve to zlib's bytes. */
static void test_markers(void)
{
    size_t n = 2u << 20;
    uint8_t *d = dna(n, 14);
    buf z = {0};
    gz_member(&z, d, n, 6, Z_DEFAULT_STRATEGY, 0);
    gs_dchunk all = {0}, piece = {0};
    CHECK(gs_dchunk_decode(&all, z.p, z.n, 0, 1, (const uint8_t *)"", 0, UINT64_MAX, SIZE_MAX)
          == GS_OK);
    CHECK(all.eos && all.n_ends == 1 && all.n_tail == n && memcmp(all.tail + GS_DEFLATE_WINDOW, d, n) == 0);
    int found = 0;
    for (uint64_t from = 8000; from < z.n * 8; from += 150000) {
        int at = 0;
        if (gs_dchunk_find(&piece, z.p, z.n, from, z.n * 8, from + 100000, SIZE_MAX, &at) != GS_OK
            || !at)
            continue;
        /* where does the piece start in the output? decode the prefix with zlib's bytes known */
        gs_dchunk pre = {0};
        CHECK(gs_dchunk_decode(&pre, z.p, z.n, 0, 1, (const uint8_t *)"", 0, piece.start_bit,
                               SIZE_MAX) == GS_OK);
        size_t off = pre.n_tail;
        CHECK(pre.stop_bit == piece.start_bit && off >= GS_DEFLATE_WINDOW && piece.why == NULL);
        if (pre.stop_bit == piece.start_bit && off >= GS_DEFLATE_WINDOW) {
            found++;
            size_t h = piece.n_head, t = piece.n_tail;
            const uint8_t *b = gs_dchunk_resolve(&piece, d + off - GS_DEFLATE_WINDOW, GS_DEFLATE_WINDOW);
            CHECK(b != NULL && off + h + t <= n);
            CHECK(b && memcmp(b, d + off, h) == 0);
            CHECK(memcmp(piece.tail + GS_DEFLATE_WINDOW, d + off + h, t) == 0);
        }
        gs_dchunk_free(&pre);
    }
    CHECK(found >= 3);
    gs_dchunk_free(&all);
    gs_dchunk_free(&piece);
    free(z.p);
    free(d);
}

/* Real DNA, gzip -1, as gscan's users have it. */
static void test_real(void)
{
    const char *path = gs_test_data("../../data/cache/hs37chrXtrunc.fa.gz");
    gs_error err = {0};
    gs_stream *f = NULL;
    if (gs_stream_open(path, NULL, &f, &err) != GS_OK) {
        fprintf(stderr, "no %s: real DNA skipped\n", path);
        return;
    }
    buf d = {0};
    uint8_t tmp[1 << 16];
    size_t k = 1;
    while (d.n < (quick ? 4u << 20 : 12u << 20) && gs_stream_read(f, tmp, sizeof tmp, &k, &err) == GS_OK && k > 0)
        put(&d, tmp, k);
    gs_stream_close(f);
    buf z = {0};
    gz_member(&z, d.p, d.n, 1, Z_DEFAULT_STRATEGY, 0);
    check_same("hs37chrXtrunc, gzip -1", &z, d.p, d.n);
    free(z.p);
    free(d.p);
}

int main(void)
{
    quick = getenv("GS_TEST_QUICK") && atoi(getenv("GS_TEST_QUICK"));
    test_markers();
    test_levels();
    test_members();
    test_broken();
    test_real();
    return gs_test_done("test_inflate_parallel");
}
