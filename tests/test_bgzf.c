/* test_bgzf.c - BGZF detection, the .gzi index and random access.
 *
 * Files are compressed here by a small BGZF writer that records where it put
 * each block, so the expected .gzi is known without src/io/bgzf.c; when the
 * tabix package's bgzip is installed, the .gzi of its files (bgzip -i, and
 * bgzip -r on concatenated files) must also equal ours byte for byte. Random
 * ranges read back equal the original bytes; a stale or missing .gzi and a
 * corrupt block are GS_EINPUT naming the file at fault.
 */
#define _POSIX_C_SOURCE 200809L
#include "io/stream/bgzf.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char p[4][512];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", tmpdir, name);
    return p[i];
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)len + 1);
    *n = fread(d, 1, (size_t)len, f);
    fclose(f);
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

/* Append data as BGZF blocks of `block` bytes (<= 0xff00) to f, then an
 * empty block; every block start goes into starts[] as (coff, uoff, len). */
typedef struct wblock {
    uint64_t coff, uoff;
    size_t len;
} wblock;

static void put_block(FILE *f, const uint8_t *data, size_t len)
{
    static uint8_t out[70000];
    z_stream zs = {0};
    deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    zs.next_in = (Bytef *)data;
    zs.avail_in = (uInt)len;
    zs.next_out = out + 18;
    zs.avail_out = sizeof out - 26;
    deflate(&zs, Z_FINISH);
    size_t clen = zs.total_out, bsize = clen + 26;
    deflateEnd(&zs);
    static const uint8_t h[16] = {31, 139, 8, 4, 0, 0, 0, 0, 0, 255, 6, 0, 'B', 'C', 2, 0};
    memcpy(out, h, 16);
    out[16] = (uint8_t)((bsize - 1) & 0xff);
    out[17] = (uint8_t)((bsize - 1) >> 8);
    uint32_t crc = (uint32_t)crc32(0, data, (uInt)len);
    for (int i = 0; i < 4; i++) {
        out[18 + clen + i] = (uint8_t)(crc >> (8 * i));
        out[22 + clen + i] = (uint8_t)(len >> (8 * i));
    }
    fwrite(out, 1, bsize, f);
}

static size_t write_bgzf(FILE *f, const uint8_t *data, size_t n, size_t block, uint64_t u0,
                         wblock *starts)
{
    size_t nb = 0;
    for (size_t off = 0; off < n; off += block) {
        size_t len = n - off < block ? n - off : block;
        starts[nb++] = (wblock){(uint64_t)ftell(f), u0 + off, len};
        put_block(f, data + off, len);
    }
    put_block(f, data, 0);
    return nb;
}

/* The .gzi bytes samtools writes for these data blocks. */
static uint8_t *expected_gzi(const wblock *b, size_t nb, size_t *len)
{
    uint64_t n = nb ? nb - 1 : 0;
    uint8_t *d = malloc(8 + 16 * n);
    for (int k = 0; k < 8; k++)
        d[k] = (uint8_t)(n >> (8 * k));
    for (size_t i = 1; i < nb; i++)
        for (int k = 0; k < 8; k++) {
            d[8 + 16 * (i - 1) + k] = (uint8_t)(b[i].coff >> (8 * k));
            d[16 + 16 * (i - 1) + k] = (uint8_t)(b[i].uoff >> (8 * k));
        }
    *len = 8 + 16 * n;
    return d;
}

/* Build and write path.gzi; compare with want (len bytes) when want != NULL. */
static void index_and_compare(const char *path, const uint8_t *want, size_t want_len,
                              const char *label)
{
    char gzi_path[600];
    snprintf(gzi_path, sizeof gzi_path, "%s.gzi", path);
    gs_gzi gzi;
    gs_error err = {0};
    CHECK(gs_gzi_build(path, &gzi, &err) == GS_OK);
    if (err.code)
        fprintf(stderr, "%s: %s\n", label, err.msg);
    CHECK(gs_gzi_write(gzi_path, &gzi, &err) == GS_OK);
    gs_gzi_free(&gzi);
    if (want) {
        size_t n = 0;
        uint8_t *got = slurp(gzi_path, &n);
        int same = got && n == want_len && memcmp(got, want, n) == 0;
        CHECK(same);
        if (!same)
            fprintf(stderr, "%s: .gzi differs (%zu bytes, expected %zu)\n", label, n, want_len);
        free(got);
    }
}

/* Each library that may inflate a block (gs_bgzf_set_inflate). */
static const int hows[] = {GS_BGZF_INFLATE_ISAL, GS_BGZF_INFLATE_LIBDEFLATE};
enum { N_HOWS = sizeof hows / sizeof *hows };

static gs_status open_how(const char *path, int threads, int how, gs_bgzf **b, gs_error *err)
{
    gs_status st = gs_bgzf_open(path, b, err);
    if (st == GS_OK) {
        gs_bgzf_set_inflate(*b, how);
        st = gs_bgzf_set_threads(*b, threads, err);
    }
    return st;
}

/* Random ranges of path (a BGZF of data[0..n)) read through its .gzi, by
 * one thread, then (reads of 128 KiB and more) by three. */
static void check_reads_t(const char *path, const uint8_t *data, size_t n, uint64_t *rs,
                          int threads, int how)
{
    gs_bgzf *b;
    gs_error err = {0};
    CHECK(open_how(path, threads, how, &b, &err) == GS_OK);
    if (err.code) {
        fprintf(stderr, "open %s: %s\n", path, err.msg);
        return;
    }
    CHECK_EQ_U64(gs_bgzf_size(b), n);
    uint64_t bytes = 0;
    for (int t = 0; t < 300; t++) {
        uint64_t at = gs_test_below(rs, n + 10);
        size_t len = (size_t)gs_test_below(rs, t % 3 ? 3000 : 200000) + 1;
        uint8_t *out = gs_guarded_alloc(len);
        size_t got = 0;
        CHECK(gs_bgzf_read(b, at, out, len, &got, &bytes, &err) == GS_OK);
        size_t want = at >= n ? 0 : (n - at < len ? (size_t)(n - at) : len);
        CHECK_EQ_U64(got, want);
        if (got == want && want && memcmp(out, data + at, want) != 0) {
            fprintf(stderr, "%s: bytes %llu+%zu differ\n", path, (unsigned long long)at, want);
            CHECK(0);
        }
        gs_guarded_free(out, len);
    }
    gs_bgzf_close(b);

    /* a sequential pass in chunks that end inside blocks reads each block once */
    size_t csize = 0;
    free(slurp(path, &csize));
    CHECK(open_how(path, threads, how, &b, &err) == GS_OK);
    uint8_t *all = malloc(n + 1);
    bytes = 0;
    for (size_t at = 0; at < n;) {
        size_t len = 1 + (size_t)gs_test_below(rs, threads > 1 ? 400000 : 40000), got;
        if (len > n - at)
            len = n - at;
        CHECK(gs_bgzf_read(b, at, all + at, len, &got, &bytes, &err) == GS_OK && got == len);
        at += len;
    }
    CHECK(memcmp(all, data, n) == 0);
    CHECK(bytes <= csize && bytes + 28 * 4 >= csize - 28 * 4);
    if (bytes > csize)
        fprintf(stderr, "%s: read %llu compressed bytes of %zu\n", path, (unsigned long long)bytes,
                csize);
    free(all);
    gs_bgzf_close(b);
}

static void check_reads(const char *path, const uint8_t *data, size_t n, uint64_t *rs)
{
    for (int h = 0; h < N_HOWS; h++) {
        check_reads_t(path, data, n, rs, 1, hows[h]);
        check_reads_t(path, data, n, rs, 3, hows[h]);
    }
}

/* Opening or reading all of path must fail with GS_EINPUT and a message
 * holding need. */
static void check_fails_t(const char *path, size_t n, const char *need, const char *label,
                          int threads, int how)
{
    gs_bgzf *b = NULL;
    gs_error err = {0};
    gs_status st = open_how(path, threads, how, &b, &err);
    if (st == GS_OK) {
        uint8_t *out = malloc(n + 1);
        size_t got, step = threads > 1 ? 300000 : 50000;
        uint64_t bytes = 0;
        for (uint64_t at = 0; at < n && st == GS_OK; at += step)
            st = gs_bgzf_read(b, at, out, n - at < step ? n - at : step, &got, &bytes, &err);
        free(out);
        gs_bgzf_close(b);
    }
    CHECK(st == GS_EINPUT && strstr(err.msg, need) != NULL);
    if (st != GS_EINPUT || !strstr(err.msg, need))
        fprintf(stderr, "%s: status %d \"%s\", expected \"%s\"\n", label, st, err.msg, need);
    else
        printf("%s: %s\n", label, err.msg);
}

/* The same failure whether blocks are inflated by one thread or three. */
static void check_fails(const char *path, size_t n, const char *need, const char *label)
{
    for (int h = 0; h < N_HOWS; h++) {
        check_fails_t(path, n, need, label, 1, hows[h]);
        check_fails_t(path, n, need, label, 3, hows[h]);
    }
}

static int have_bgzip(void)
{
    return system("command -v bgzip >/dev/null 2>&1") == 0;
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gs_test_bgzf.XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 3;
    }
    uint64_t rs = 2024;

    /* data: FASTA-like text with stretches of random bytes (incompressible
     * blocks come close to the 64 KiB limit) */
    size_t n = 600000;
    uint8_t *data = malloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (i / 70000) % 3 == 2 ? (uint8_t)gs_test_rand(&rs)
                  : i % 61 == 60      ? '\n'
                                      : (uint8_t)"ACGTN"[gs_test_below(&rs, 5)];
    char plain[600];
    snprintf(plain, sizeof plain, "%s", tmp_path("d.txt"));
    spit(plain, data, n);

    /* sniff */
    {
        uint8_t gz[18] = {31, 139, 8, 0, 0, 0, 0, 0, 0, 3};
        uint8_t bg[18] = {31, 139, 8, 4, 0, 0, 0, 0, 0, 255, 6, 0, 'B', 'C', 2, 0, 27, 0};
        CHECK(gs_bgzf_sniff((const uint8_t *)">a\n", 3) == GS_COMP_NONE);
        CHECK(gs_bgzf_sniff(gz, 18) == GS_COMP_GZIP);
        CHECK(gs_bgzf_sniff(bg, 18) == GS_COMP_BGZF);
        CHECK(gs_bgzf_sniff(bg, 10) == GS_COMP_GZIP);
        bg[13] = 'D';
        CHECK(gs_bgzf_sniff(bg, 18) == GS_COMP_GZIP);
    }

    /* our writer at several block sizes, and two files concatenated (an
     * empty block in the middle, which samtools does not list) */
    static wblock blocks[4096];
    const size_t sizes[] = {0xff00, 10007, 999};
    for (int k = 0; k < 4; k++) {
        char name[64];
        snprintf(name, sizeof name, "w%d.gz", k);
        const char *gz = tmp_path(name);
        FILE *f = fopen(gz, "wb");
        size_t nb;
        if (k < 3) {
            nb = write_bgzf(f, data, n, sizes[k], 0, blocks);
        } else {
            nb = write_bgzf(f, data, n / 3, 0xff00, 0, blocks);
            nb += write_bgzf(f, data + n / 3, n - n / 3, 5000, n / 3, blocks + nb);
        }
        fclose(f);
        size_t glen;
        uint8_t *want = expected_gzi(blocks, nb, &glen);
        index_and_compare(gz, want, glen, name);
        free(want);
        check_reads(gz, data, n, &rs);
    }

    /* bgzip's own files and .gzi (bgzip -i; bgzip -r on concatenated files) */
    if (have_bgzip()) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd,
                 "cd '%s' && bgzip -i -I b.samtools.gzi -c d.txt > b.gz && "
                 "head -c 1000 d.txt | bgzip -c > s.gz && cat b.gz s.gz b.gz > c.gz && "
                 "cp c.gz c2.gz && bgzip -r c2.gz",
                 tmpdir);
        CHECK(system(cmd) == 0);
        size_t glen;
        uint8_t *want = slurp(tmp_path("b.samtools.gzi"), &glen);
        CHECK(want != NULL);
        index_and_compare(tmp_path("b.gz"), want, glen, "bgzip -i");
        free(want);
        want = slurp(tmp_path("c2.gz.gzi"), &glen);
        CHECK(want != NULL);
        index_and_compare(tmp_path("c.gz"), want, glen, "bgzip -r (concatenated)");
        free(want);
        check_reads(tmp_path("b.gz"), data, n, &rs);
        uint8_t *cat = malloc(2 * n + 1000);
        memcpy(cat, data, n);
        memcpy(cat + n, data, 1000);
        memcpy(cat + n + 1000, data, n);
        check_reads(tmp_path("c.gz"), cat, 2 * n + 1000, &rs);
        free(cat);
    } else {
        printf("note: bgzip (tabix package) not installed: .gzi not compared with bgzip -i\n");
    }

    /* what cannot be indexed or opened */
    {
        gs_gzi gzi;
        gs_error err = {0};
        CHECK(gs_gzi_build(plain, &gzi, &err) == GS_EINPUT && strstr(err.msg, plain));
        const char *gz = tmp_path("plain.gz");
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", plain, gz);
        CHECK(system(cmd) == 0);
        err = (gs_error){0};
        CHECK(gs_gzi_build(gz, &gzi, &err) == GS_EINPUT && strstr(err.msg, gz));
        gs_compression c;
        CHECK(gs_bgzf_detect(gz, &c, &err) == GS_OK && c == GS_COMP_GZIP);
        CHECK(gs_bgzf_detect(tmp_path("w0.gz"), &c, &err) == GS_OK && c == GS_COMP_BGZF);
        CHECK(gs_bgzf_detect(plain, &c, &err) == GS_OK && c == GS_COMP_NONE);
    }

    /* stale or missing .gzi: w1.gz has blocks of 10007 bytes */
    {
        const char *gz = tmp_path("w1.gz");
        char gzi_path[600];
        snprintf(gzi_path, sizeof gzi_path, "%s.gzi", gz);
        size_t glen, clen;
        uint8_t *good = slurp(gzi_path, &glen), *file = slurp(gz, &clen);
        uint64_t count = glen >= 8 ? good[0] | (uint64_t)good[1] << 8 : 0;
        CHECK(count > 10);

        uint8_t *bad = malloc(glen);
        memcpy(bad, good, glen);
        bad[8 + 16 * (count - 1) + 3] = 0x7f; /* last entry far past the end */
        spit(gzi_path, bad, glen);
        check_fails(gz, n, gzi_path, "gzi past the end");

        memcpy(bad, good, glen);
        bad[8 + 16 * 5] += 1; /* entry 5 one byte after its block's start */
        spit(gzi_path, bad, glen);
        check_fails(gz, n, gzi_path, "gzi offset off by one");

        memcpy(bad, good, glen);
        bad[8 + 16 * 5 + 8] += 1; /* entry 5's uncompressed offset */
        spit(gzi_path, bad, glen);
        check_fails(gz, n, gzi_path, "gzi uncompressed offset off by one");

        spit(gzi_path, good, glen - 16); /* count says one more entry */
        check_fails(gz, n, gzi_path, "gzi truncated");

        memcpy(bad, good, glen); /* a consistent .gzi missing its last entry */
        bad[0] = (uint8_t)(count - 1);
        spit(gzi_path, bad, glen - 16);
        check_fails(gz, n, gzi_path, "gzi missing the last block");

        /* the file recompressed with other blocks, the old .gzi kept */
        const char *w2 = tmp_path("w2.gz");
        size_t l2;
        uint8_t *other = slurp(w2, &l2);
        spit(gz, other, l2);
        spit(gzi_path, good, glen);
        check_fails(gz, n, gzi_path, "file recompressed");
        free(other);
        spit(gz, file, clen);

        unlink(gzi_path);
        check_fails(gz, n, gzi_path, "gzi missing");
        spit(gzi_path, good, glen);

        /* corrupt data: a flipped byte inside block 7's deflate data, then in
         * its CRC; the .gzi is right, the file is at fault */
        uint64_t b7 = 0;
        for (int k = 0; k < 8; k++)
            b7 |= (uint64_t)good[8 + 16 * 6 + k] << (8 * k);
        uint32_t bsize7 = (file[b7 + 16] | (uint32_t)file[b7 + 17] << 8) + 1;
        file[b7 + 40] ^= 0x55;
        spit(gz, file, clen);
        check_fails(gz, n, "corrupt BGZF", "corrupt deflate data");
        file[b7 + 40] ^= 0x55;
        file[b7 + bsize7 - 6] ^= 1;
        spit(gz, file, clen);
        check_fails(gz, n, "CRC32", "corrupt CRC32");
        file[b7 + bsize7 - 6] ^= 1;
        spit(gz, file, clen);
        check_reads(gz, data, n, &rs);
        free(bad);
        free(good);
        free(file);
    }

    free(data);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return gs_test_done("test_bgzf");
}
