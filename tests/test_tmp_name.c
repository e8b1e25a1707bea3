/* test_tmp_name.c - the temporary name of every output (replace_file.h):
 * "<path>.tmp.<pid>" where it fits, a cut last component that always fits
 * NAME_MAX (an output name of 247-255 bytes once failed), two cut names that
 * never meet; a file written under the longest valid name; and the table
 * of registered names a signal handler removes. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/stream/replace_file.h"
#include "testlib.h"

static int exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

static void test_names(void)
{
    gs_error err = {0};
    char want[64], name[NAME_MAX + 8];
    snprintf(want, sizeof want, "dir/out.h5.tmp.%ld", (long)getpid());
    char *t = gs_tmp_name("dir/out.h5", &err);
    CHECK(t && strcmp(t, want) == 0);
    free(t);
    snprintf(want, sizeof want, "out.tsv.tmp.%ld", (long)getpid());
    t = gs_tmp_name("out.tsv", &err);
    CHECK(t && strcmp(t, want) == 0);
    free(t);
    /* every valid length: the last component fits, in the same directory */
    size_t suffix = (size_t)snprintf(NULL, 0, ".tmp.%ld", (long)getpid());
    for (size_t len = 240; len <= NAME_MAX; len++) {
        memset(name, 'x', len);
        name[len] = '\0';
        char path[NAME_MAX + 16];
        snprintf(path, sizeof path, "d/%s", name);
        char *a = gs_tmp_name(path, &err), *b = gs_tmp_name(path, &err);
        CHECK(a && b && strncmp(a, "d/x", 3) == 0 && strchr(a + 2, '/') == NULL);
        CHECK(a && strlen(a) - 2 <= NAME_MAX && strstr(a, ".tmp.") != NULL);
        if (a && b && len + suffix > NAME_MAX)
            CHECK(strcmp(a, b) != 0); /* two cut names in one process never meet */
        else if (a)
            CHECK(strncmp(a + 2, name, len) == 0 && strcmp(a + 2 + len, want + 7) == 0);
        free(a);
        free(b);
    }
    /* a cut never splits a UTF-8 character: 'x' then 127 two-byte characters */
    name[0] = 'x';
    for (int i = 0; i < 127; i++)
        memcpy(name + 1 + 2 * i, "\xc3\xa9", 2);
    name[255] = '\0';
    t = gs_tmp_name(name, &err);
    char *dot = t ? strstr(t, ".tmp.") : NULL;
    CHECK(dot && (dot - t) % 2 == 1 && strlen(t) <= NAME_MAX);
    free(t);
}

/* A file written under the longest valid name, through gs_replace_*. */
static void test_long_output(const char *dir)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/", dir);
    memset(path + n, 'o', NAME_MAX);
    path[n + NAME_MAX] = '\0';
    gs_replace_file r;
    gs_error err = {0};
    CHECK(gs_replace_open(&r, path, "the test output", &err) == GS_OK);
    if (err.code != GS_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    fputs("hello\n", r.f);
    CHECK(gs_replace_commit(&r, "the test output", &err) == GS_OK);
    CHECK(exists(path));
    unlink(path);
}

/* What gs_tmp_remove_all (the signal handler's) removes: the registered
 * names, not the forgotten ones. */
static void test_registry(const char *dir)
{
    char a[PATH_MAX], b[PATH_MAX];
    snprintf(a, sizeof a, "%s/a.tmp.1", dir);
    snprintf(b, sizeof b, "%s/b.tmp.1", dir);
    fclose(fopen(a, "w"));
    fclose(fopen(b, "w"));
    gs_tmp_register(a);
    gs_tmp_register(b);
    gs_tmp_forget(b);
    gs_tmp_remove_all();
    CHECK(!exists(a) && exists(b));
    gs_tmp_forget(a);
    unlink(b);
    /* more names than slots: the table is full, nothing breaks */
    for (int i = 0; i < GS_TMP_MAX + 4; i++)
        gs_tmp_register(a);
    for (int i = 0; i < GS_TMP_MAX + 4; i++)
        gs_tmp_forget(a);
    fclose(fopen(a, "w"));
    gs_tmp_remove_all();
    CHECK(exists(a));
    unlink(a);
}

int main(void)
{
    char dir[] = "/tmp/gs_tmp_name.XXXXXX";
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_names();
    test_long_output(dir);
    test_registry(dir);
    rmdir(dir);
    return gs_test_done("test_tmp_name");
}
