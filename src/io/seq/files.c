/* files.c - a corpus's files read side by side, whole files on several
 * threads (files.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "files.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct lane {
    gs_files *fs;
    gs_reader *r; /* on file cur */
    size_t cur;
} lane;

struct gs_files {
    gs_reader_opts o;
    gs_layout *layout;
    size_t n_files;
    gs_layout *lay;       /* [n_files]: each file's records */
    uint32_t *file_of;    /* [n_files]: i */
    char **warning;       /* [n_files] */
    uint64_t bytes;       /* of the files read to their end */
    atomic_size_t next;   /* the next file to take */
    pthread_mutex_t mu;   /* bytes, failed, fail */
    size_t failed;        /* the first file that failed (n_files: none) */
    gs_error fail;
    lane *lanes;
    int n_lanes;
};

/* The lane's file is read: its warning and bytes kept, its reader closed. */
static gs_status lane_close(lane *ln, gs_error *err)
{
    gs_files *fs = ln->fs;
    const char *w = gs_reader_warning(ln->r); /* the reader's own: kept before it closes */
    int lost = w && (fs->warning[ln->cur] = strdup(w)) == NULL;
    uint64_t n = gs_reader_bytes_in(ln->r);
    gs_reader_close(ln->r);
    ln->r = NULL;
    pthread_mutex_lock(&fs->mu);
    fs->bytes += n;
    pthread_mutex_unlock(&fs->mu);
    if (lost)
        return gs_fail(err, GS_ESYS, "out of memory (a warning)");
    return GS_OK;
}

static gs_status lane_failed(lane *ln, gs_error *err)
{
    gs_files *fs = ln->fs;
    pthread_mutex_lock(&fs->mu);
    if (ln->cur < fs->failed) {
        fs->failed = ln->cur;
        fs->fail = *err;
    }
    pthread_mutex_unlock(&fs->mu);
    return err->code;
}

gs_status gs_files_next(void *ctx, uint8_t *buf, gs_segment *seg, int *more, gs_error *err)
{
    lane *ln = ctx;
    gs_files *fs = ln->fs;
    *more = 0;
    for (;;) {
        if (ln->r) {
            if (gs_reader_next(ln->r, buf, seg, more, err) != GS_OK)
                return lane_failed(ln, err);
            seg->file = (uint32_t)ln->cur; /* its reader's layout holds that file alone */
            if (*more)
                return GS_OK;
            if (lane_close(ln, err) != GS_OK)
                return err->code;
        }
        size_t k = atomic_fetch_add(&fs->next, 1);
        if (k >= fs->n_files)
            return GS_OK;
        ln->cur = k;
        /* the threads a gzip file is inflated on: a share of them all, as
         * many shares as lanes while files remain for every lane, fewer as
         * the last ones are taken (the lanes that find none idle) */
        const size_t left = fs->n_files - k;
        const int shares = left < (size_t)fs->n_lanes ? (int)left : fs->n_lanes;
        gs_reader_opts o = fs->o;
        o.threads = fs->o.threads / shares > 1 ? fs->o.threads / shares : 1;
        const char *path = fs->layout->files[k];
        if (gs_reader_open(&path, 1, &o, &fs->lay[k], &ln->r, err) != GS_OK)
            return lane_failed(ln, err);
    }
}

gs_status gs_files_open(const char *const *files, size_t n_files, const gs_reader_opts *o,
                        int n_lanes, gs_layout *layout, gs_files **out, gs_error *err)
{
    *out = NULL;
    n_lanes = (size_t)n_lanes < n_files ? n_lanes : (int)n_files;
    if (n_lanes < 2)
        return GS_OK;
    gs_files *fs = gs_calloc(1, sizeof *fs, err, "files reader");
    if (fs == NULL)
        return GS_ESYS;
    *fs = (gs_files){.o = *o, .layout = layout, .n_files = n_files, .failed = n_files,
                     .n_lanes = n_lanes};
    atomic_init(&fs->next, 0);
    pthread_mutex_init(&fs->mu, NULL);
    *out = fs;
    if ((fs->lay = gs_calloc(n_files, sizeof *fs->lay, err, "file layouts")) == NULL ||
        (fs->file_of = gs_malloc(n_files * sizeof *fs->file_of, err, "file layouts")) == NULL ||
        (fs->warning = gs_calloc(n_files, sizeof *fs->warning, err, "file warnings")) == NULL ||
        (fs->lanes = gs_calloc((size_t)n_lanes, sizeof *fs->lanes, err, "reading lanes")) == NULL)
        return GS_ESYS;
    for (size_t i = 0; i < n_files; i++)
        fs->file_of[i] = (uint32_t)i;
    for (int i = 0; i < n_lanes; i++)
        fs->lanes[i] = (lane){.fs = fs};
    return gs_layout_set_files(layout, files, n_files, err);
}

int gs_files_lanes(const gs_files *fs)
{
    return fs->n_lanes;
}

void *gs_files_lane(gs_files *fs, int i)
{
    return &fs->lanes[i];
}

gs_status gs_files_finish(gs_files *fs, gs_error *err)
{
    uint64_t n = 0;
    for (size_t i = 0; i < fs->n_files; i++)
        n += fs->lay[i].n_rec;
    if (n >= UINT32_MAX)
        return gs_fail(err, GS_EINPUT, "more than %u records (%s)", UINT32_MAX,
                       fs->layout->files[fs->n_files - 1]);
    return gs_layout_join(fs->layout, fs->lay, fs->n_files, fs->file_of, NULL, fs->n_lanes, err);
}

void gs_files_first_error(const gs_files *fs, gs_error *err)
{
    if (fs->failed < fs->n_files)
        *err = fs->fail;
}

uint64_t gs_files_bytes_in(const gs_files *fs)
{
    uint64_t n = fs->bytes;
    for (int i = 0; fs->lanes && i < fs->n_lanes; i++)
        if (fs->lanes[i].r)
            n += gs_reader_bytes_in(fs->lanes[i].r);
    return n;
}

const char *gs_files_warning(const gs_files *fs)
{
    for (size_t i = 0; fs->warning && i < fs->n_files; i++)
        if (fs->warning[i])
            return fs->warning[i];
    return NULL;
}

void gs_files_close(gs_files *fs)
{
    if (fs == NULL)
        return;
    for (int i = 0; fs->lanes && i < fs->n_lanes; i++)
        gs_reader_close(fs->lanes[i].r);
    for (size_t i = 0; i < fs->n_files; i++) {
        if (fs->lay)
            gs_layout_free(&fs->lay[i]);
        if (fs->warning)
            free(fs->warning[i]);
    }
    pthread_mutex_destroy(&fs->mu);
    free(fs->lay);
    free(fs->file_of);
    free(fs->warning);
    free(fs->lanes);
    free(fs);
}
