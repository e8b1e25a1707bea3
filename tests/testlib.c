/* testlib.c - shared helpers of the unit tests (see testlib.h). */
#define _DEFAULT_SOURCE
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int gs_test_failures;

int gs_test_done(const char *name)
{
    if (gs_test_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, gs_test_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}

uint64_t gs_test_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t gs_test_below(uint64_t *s, uint64_t n) { return n ? gs_test_rand(s) % n : 0; }

static size_t page_round(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (n + pg - 1) / pg * pg;
}

uint8_t *gs_guarded_alloc(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), body = page_round(n);
    uint8_t *m = mmap(NULL, body + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        exit(3);
    }
    mprotect(m + body, pg, PROT_NONE);
    return m + body - n;
}

void gs_guarded_free(uint8_t *p, size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), body = page_round(n);
    munmap(p + n - body, body + pg);
}

const char *gs_test_data(const char *name)
{
    static char path[4096];
    const char *d = getenv("GS_TEST_DATA");
    snprintf(path, sizeof path, "%s/%s", d ? d : "tests/data", name);
    return path;
}

void gs_test_add_pattern(gs_patset *ps, const void *seq, size_t len, uint32_t line)
{
    gs_pattern *v = realloc(ps->v, (ps->n + 1) * sizeof *v);
    if (v == NULL) {
        perror("realloc");
        exit(3);
    }
    ps->v = v;
    gs_pattern *p = &ps->v[ps->n];
    *p = (gs_pattern){0}; /* no K or exact_3p of its own */
    p->name = malloc(24);
    p->text = malloc(len + 1);
    p->bytes = malloc(len + 1);
    if (!p->name || !p->text || !p->bytes) {
        perror("malloc");
        exit(3);
    }
    snprintf(p->name, 24, "p%u", ps->n + 1);
    memcpy(p->text, seq, len);
    p->text[len] = 0;
    memcpy(p->bytes, seq, len);
    p->bytes[len] = 0;
    p->len = (uint32_t)len;
    p->line = line ? line : ps->n + 1;
    if (ps->n == 0 || p->len < ps->min_len)
        ps->min_len = p->len;
    if (p->len > ps->max_len)
        ps->max_len = p->len;
    ps->n++;
}

static char tmp_dir[256];

const char *gs_test_tmpdir(const char *name)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/gs_%s.XXXXXX", name);
    return mkdtemp(tmp_dir);
}

const char *gs_test_tmp_path(const char *file)
{
    static char p[8][512];
    static int i;
    i = (i + 1) % 8;
    snprintf(p[i], sizeof p[i], "%s/%s", tmp_dir, file);
    return p[i];
}

int gs_test_tmp_remove(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    return system(cmd);
}
