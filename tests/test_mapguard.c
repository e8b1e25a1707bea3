/* test_mapguard.c - a file cut under its map: a guarded read returns to its
 * guard instead of killing the process with SIGBUS, on any thread and
 * inside another guard; and the parallel gzip reader, which maps its file,
 * fails with "changed while being read" naming the file when the file is
 * cut between two of its reads (a case a shell test can only hit by
 * timing). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "core/gs_mapguard.h"
#include "core/gs_tune.h"
#include "io/stream/stream.h"
#include "testlib.h"

enum { BIG = 1 << 20, SMALL = 4096 };

/* A file of BIG bytes, mapped, then cut to SMALL: *len the map's length. */
static const volatile uint8_t *map_then_cut(const char *path, size_t *len)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && ftruncate(fd, BIG) == 0);
    uint8_t *m = mmap(NULL, BIG, PROT_READ, MAP_SHARED, fd, 0);
    CHECK(m != MAP_FAILED && ftruncate(fd, SMALL) == 0);
    close(fd);
    *len = BIG;
    return m;
}

/* Read byte at of m under a guard: 1 when the guard caught a fault. */
static int guarded_read(const volatile uint8_t *m, size_t len, size_t at)
{
    gs_mapguard g;
    gs_mapguard_arm(&g, (const void *)m, len);
    if (sigsetjmp(g.env, 0)) {
        gs_mapguard_disarm(&g);
        return 1;
    }
    volatile uint8_t x = m[at];
    (void)x;
    gs_mapguard_disarm(&g);
    return 0;
}

typedef struct thread_arg {
    const volatile uint8_t *m;
    size_t len;
    int caught;
} thread_arg;

static void *on_thread(void *arg)
{
    thread_arg *a = arg;
    a->caught = guarded_read(a->m, a->len, BIG / 2);
    return NULL;
}

static void test_guard(const char *path)
{
    size_t len;
    const volatile uint8_t *m = map_then_cut(path, &len);
    CHECK(guarded_read(m, len, 0) == 0);        /* still in the file */
    CHECK(guarded_read(m, len, BIG / 2) == 1);  /* past its end now */
    CHECK(guarded_read(m, len, BIG - 1) == 1);  /* again: the handler stays */
    thread_arg a = {m, len, 0};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, on_thread, &a) == 0 && pthread_join(t, NULL) == 0);
    CHECK(a.caught == 1);
    /* an inner guard of other bytes: the outer one catches the fault */
    uint8_t other[16];
    gs_mapguard outer, inner;
    volatile int where = 0;
    gs_mapguard_arm(&outer, (const void *)m, len);
    if (sigsetjmp(outer.env, 0) == 0) {
        gs_mapguard_arm(&inner, other, sizeof other);
        if (sigsetjmp(inner.env, 0) == 0) {
            volatile uint8_t x = m[BIG / 4];
            (void)x;
            where = 3;
        } else {
            where = 2;
        }
        gs_mapguard_disarm(&inner);
    } else {
        where = 1;
    }
    gs_mapguard_disarm(&outer);
    CHECK(where == 1);
    CHECK(guarded_read(m, len, BIG / 3) == 1); /* the stack is sound afterwards */
    munmap((void *)m, BIG);
}

/* A gzip file of n bytes of random DNA lines. */
static void write_gzip(const char *path, size_t n)
{
    uint64_t rs = 11;
    gzFile f = gzopen(path, "wb1");
    CHECK(f != NULL);
    char line[61];
    gzputs(f, ">r\n");
    for (size_t done = 0; done < n; done += 61) {
        for (int i = 0; i < 60; i++)
            line[i] = "ACGT"[gs_test_below(&rs, 4)];
        line[60] = '\n';
        gzwrite(f, line, 61);
    }
    gzclose(f);
}

static void test_parallel_gzip(const char *path)
{
    write_gzip(path, 8 << 20);
    gs_tune tune = {0};
    tune.io_gzip_region = 16 << 10; /* in flight: 2 x 4 + 2 regions of 16 KiB */
    gs_stream *s = NULL;
    gs_error err = {0};
    CHECK(gs_stream_open(path, &(gs_stream_opts){.threads = 4, .tune = &tune}, &s, &err) ==
          GS_OK);
    if (s == NULL)
        return;
    const uint8_t *p;
    size_t n, got = 0;
    while (got < (256 << 10) && gs_stream_view(s, &p, &n, &err) == GS_OK && n > 0)
        got += n;
    CHECK(got >= (256 << 10));
    CHECK(truncate(path, 1 << 20) == 0); /* the file was ~2.5 MB */
    gs_status st;
    while ((st = gs_stream_view(s, &p, &n, &err)) == GS_OK && n > 0)
        got += n;
    CHECK(st == GS_EINPUT);
    CHECK(strstr(err.msg, "changed while being read") != NULL && strstr(err.msg, path) != NULL);
    gs_stream_close(s);
}

int main(void)
{
    char dir[] = "/tmp/gs_mapguard.XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/cut", dir);
    test_guard(path);
    snprintf(path, sizeof path, "%s/cut.fa.gz", dir);
    test_parallel_gzip(path);
    unlink(path);
    snprintf(path, sizeof path, "%s/cut", dir);
    unlink(path);
    rmdir(dir);
    return gs_test_done("test_mapguard");
}
