/* inputs.c - corpus arguments as files (inputs.h). */
#define _POSIX_C_SOURCE 200809L
#include "inputs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A sequence file by its name: .fa .fasta .fna .ffn .fq .fastq, then
 * optionally .gz or .bgz. */
static int sequence_name(const char *name)
{
    static const char *const exts[] = {".fa", ".fasta", ".fna", ".ffn", ".fq", ".fastq"};
    static const char *const zips[] = {"", ".gz", ".bgz"};
    size_t n = strlen(name);
    if (name[0] == '.')
        return 0; /* hidden files are not the directory's corpus */
    for (size_t z = 0; z < sizeof zips / sizeof *zips; z++)
        for (size_t e = 0; e < sizeof exts / sizeof *exts; e++) {
            size_t le = strlen(exts[e]), lz = strlen(zips[z]);
            if (n > le + lz && !strncmp(name + n - le - lz, exts[e], le) &&
                !strcmp(name + n - lz, zips[z]))
                return 1;
        }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sequence files of directory dir, sorted: *names (each "dir/name"). */
static gs_status list_dir(const char *dir, char ***names, size_t *n, gs_error *err)
{
    DIR *d = opendir(dir);
    size_t cap = 0;
    *names = NULL;
    *n = 0;
    if (d == NULL)
        return gs_fail(err, GS_EINPUT, "cannot read directory: %s (%s)", strerror(errno), dir);
    const struct dirent *e;
    size_t ld = strlen(dir);
    int slash = ld > 0 && dir[ld - 1] == '/';
    while (err->code == GS_OK && (e = readdir(d)) != NULL) {
        if (!sequence_name(e->d_name))
            continue;
        size_t len = ld + 1 + strlen(e->d_name) + 1;
        char *p = gs_malloc(len, err, dir);
        if (p == NULL)
            break;
        snprintf(p, len, slash ? "%s%s" : "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) { /* a subdirectory named x.fa */
            free(p);
            continue;
        }
        if (*n == cap) {
            char **v = gs_realloc(*names, (cap = cap ? 2 * cap : 64) * sizeof *v, err, dir);
            if (v == NULL) {
                free(p);
                break;
            }
            *names = v;
        }
        (*names)[(*n)++] = p;
    }
    closedir(d);
    if (err->code == GS_OK && *n == 0)
        gs_fail(err, GS_EINPUT,
                "no sequence files in the directory (.fa .fasta .fna .ffn .fq .fastq, "
                "optionally .gz or .bgz) (%s)", dir);
    if (err->code == GS_OK)
        qsort(*names, *n, sizeof **names, by_name);
    return err->code;
}

gs_status gs_input_arg(const char *arg, gs_input_add add, void *ctx, const char *where,
                       gs_error *err)
{
    struct stat st;
    if (strcmp(arg, "-") == 0 || stat(arg, &st) != 0 || !S_ISDIR(st.st_mode))
        return add(ctx, arg, where, err);
    char **names;
    size_t n;
    gs_status s = list_dir(arg, &names, &n, err);
    for (size_t i = 0; i < n; i++) {
        if (s == GS_OK)
            s = add(ctx, names[i], arg, err);
        free(names[i]);
    }
    free(names);
    return s;
}

gs_status gs_input_list(const char *list, gs_input_add add, void *ctx, gs_error *err)
{
    FILE *f = fopen(list, "r");
    if (f == NULL)
        return gs_fail_open(err, "the input list", list);
    char *line = NULL, where[4200];
    size_t cap = 0, added = 0;
    gs_status s = GS_OK;
    for (unsigned lineno = 1; s == GS_OK && getline(&line, &cap, f) >= 0; lineno++) {
        char *p = line, *e = line + strlen(line);
        while (isspace((unsigned char)*p))
            p++;
        while (e > p && isspace((unsigned char)e[-1]))
            *--e = '\0';
        if (*p == '\0' || *p == '#')
            continue;
        snprintf(where, sizeof where, "%s:%u", list, lineno);
        s = gs_input_arg(p, add, ctx, where, err);
        added++;
    }
    if (s == GS_OK && ferror(f))
        s = gs_fail(err, GS_EINPUT, "cannot read the input list: %s (%s)", strerror(errno), list);
    if (s == GS_OK && added == 0)
        s = gs_fail(err, GS_EINPUT, "the input list names no file (%s)", list);
    free(line);
    fclose(f);
    return s;
}
