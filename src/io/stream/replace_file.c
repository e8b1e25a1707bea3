/* replace_file.c - temporary name, fsync, rename; and what may be replaced
 * (see replace_file.h).
 *
 * gscan often runs as root in containers, where rename() replaces anything:
 * a device node, a link, the corpus itself. So every output path is checked
 * with lstat() before the run and once more just before the rename, and the
 * temporary file is created with O_EXCL | O_NOFOLLOW so a link planted under
 * its name is never written through.
 *
 * The names of the temporary files being written are kept in a fixed table
 * of atomically published slots, so a signal handler can remove them with
 * unlink alone: it may not take a lock or allocate.
 */
#define _POSIX_C_SOURCE 200809L
#include "replace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

gs_status gs_out_check(const char *path, const char *const *inputs, size_t n_inputs,
                       gs_error *err)
{
    struct stat st, in;
    if (*path == '\0')
        return gs_fail(err, GS_EUSAGE, "the output has an empty file name (-o)");
    if (lstat(path, &st) != 0)
        return GS_OK; /* a new name; its directory is checked when it is created */
    /* /dev/stdout and /dev/fd/N are links too: point at -o - there */
    int dev = strncmp(path, "/dev/", 5) == 0;
    if (S_ISLNK(st.st_mode))
        return gs_fail(err, GS_EUSAGE, "refusing to replace a symbolic link: %s (%s)",
                       dev ? "use - for standard output" : "name the file it points to", path);
    if (!S_ISREG(st.st_mode))
        return gs_fail(err, GS_EUSAGE,
                       "refusing to replace %s: the output must be a regular file%s (%s)",
                       kind_of(st.st_mode), S_ISDIR(st.st_mode) ? "" : ", or - for standard output",
                       path);
    for (size_t i = 0; i < n_inputs; i++)
        if (inputs[i] && stat(inputs[i], &in) == 0 && in.st_dev == st.st_dev
            && in.st_ino == st.st_ino)
            return gs_fail(err, GS_EUSAGE, "the output is an input of this run, %s (%s)",
                           inputs[i], path);
    return GS_OK;
}

char *gs_tmp_name(const char *path, gs_error *err)
{
    static atomic_uint n_cut;
    char suffix[64];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dir = (size_t)(base - path), len = strlen(base);
    size_t n = (size_t)snprintf(suffix, sizeof suffix, ".tmp.%ld", (long)getpid());
    if (len + n > NAME_MAX) {
        n = (size_t)snprintf(suffix, sizeof suffix, ".tmp.%ld.%u", (long)getpid(),
                             atomic_fetch_add(&n_cut, 1) + 1);
        len = NAME_MAX - n;
        while (len > 0 && ((unsigned char)base[len] & 0xC0) == 0x80)
            len--; /* not inside a UTF-8 character */
    }
    char *tmp = gs_malloc(dir + len + n + 1, err, "a temporary file name");
    if (tmp) {
        memcpy(tmp, path, dir + len);
        memcpy(tmp + dir + len, suffix, n + 1);
    }
    return tmp;
}

static struct tmp_slot {
    atomic_int used; /* 1: path holds a name the handler may remove */
    char path[PATH_MAX];
} tmp_slots[GS_TMP_MAX];
static pthread_mutex_t tmp_lock = PTHREAD_MUTEX_INITIALIZER; /* between registering threads */

void gs_tmp_register(const char *tmp)
{
    size_t n = strlen(tmp);
    if (n >= PATH_MAX)
        return;
    pthread_mutex_lock(&tmp_lock);
    for (int i = 0; i < GS_TMP_MAX; i++)
        if (!atomic_load(&tmp_slots[i].used)) {
            memcpy(tmp_slots[i].path, tmp, n + 1);
            atomic_store(&tmp_slots[i].used, 1);
            break;
        }
    pthread_mutex_unlock(&tmp_lock);
}

void gs_tmp_forget(const char *tmp)
{
    pthread_mutex_lock(&tmp_lock);
    for (int i = 0; tmp && i < GS_TMP_MAX; i++)
        if (atomic_load(&tmp_slots[i].used) && strcmp(tmp_slots[i].path, tmp) == 0) {
            atomic_store(&tmp_slots[i].used, 0);
            break;
        }
    pthread_mutex_unlock(&tmp_lock);
}

void gs_tmp_remove_all(void)
{
    for (int i = 0; i < GS_TMP_MAX; i++)
        if (atomic_load(&tmp_slots[i].used))
            unlink(tmp_slots[i].path);
}

gs_status gs_replace_open(gs_replace_file *r, const char *path, const char *what, gs_error *err)
{
    int fd = -1;
    *r = (gs_replace_file){.path = path};
    if (gs_out_check(path, NULL, 0, err) != GS_OK)
        return err->code;
    if ((r->tmp = gs_tmp_name(path, err)) == NULL)
        return GS_ESYS;
    gs_tmp_register(r->tmp);
    unlink(r->tmp); /* a leftover of a killed run with the same pid (a link is removed, not followed) */
    if ((fd = open(r->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0666)) < 0
        || (r->f = fdopen(fd, "wb")) == NULL) {
        gs_fail(err, GS_ESYS, "cannot write %s: %s (%s)", what, strerror(errno), r->path);
        if (fd >= 0) {
            close(fd);
            unlink(r->tmp);
        }
        gs_tmp_forget(r->tmp);
        free(r->tmp);
        r->tmp = NULL;
        return GS_ESYS;
    }
    return GS_OK;
}

gs_status gs_replace_commit(gs_replace_file *r, const char *what, gs_error *err)
{
    gs_status st = GS_OK;
    if (ferror(r->f) || fflush(r->f) != 0 || fsync(fileno(r->f)) != 0)
        st = gs_fail(err, GS_ESYS, "cannot write %s: %s (%s)", what, strerror(errno), r->path);
    if (fclose(r->f) != 0 && st == GS_OK)
        st = gs_fail(err, GS_ESYS, "cannot write %s: %s (%s)", what, strerror(errno), r->path);
    if (st == GS_OK)
        st = gs_out_check(r->path, NULL, 0, err); /* it may have changed while we wrote */
    if (st == GS_OK && rename(r->tmp, r->path) != 0)
        st = gs_fail(err, GS_ESYS, "cannot write %s: %s (%s)", what, strerror(errno), r->path);
    if (st != GS_OK)
        unlink(r->tmp);
    gs_tmp_forget(r->tmp);
    free(r->tmp);
    *r = (gs_replace_file){0};
    return st;
}

void gs_replace_abort(gs_replace_file *r)
{
    fclose(r->f);
    unlink(r->tmp);
    gs_tmp_forget(r->tmp);
    free(r->tmp);
    *r = (gs_replace_file){0};
}
