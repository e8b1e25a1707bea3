/* h5out.c - write the result file of contract §3 with parallel HDF5: what
 * goes into it, and the order of the steps.
 *
 * Why it is built this way:
 * - One file, written by every rank at once through MPI-IO. Each rank writes
 *   its own run of hits at the offset MPI_Exscan gives it, so no rank ever
 *   holds the global hit set, and hits are converted to column buffers a
 *   bounded piece at a time (8 MiB), so memory does not double either.
 * - One process writing alone stores every chunked 1-D dataset (the hit
 *   columns, the record table) through h5_direct.c: chunks compressed on
 *   all cores, then H5Dwrite_chunk (at 10^8 hits H5Dwrite's one-core zlib
 *   was most of the write). Same datasets, filters and chunks; several ranks
 *   cannot share that path (h5_direct.c).
 * - Every dataset is written collectively, the same calls on every rank
 *   (h5_write_dset.c). Metadata (patterns, records, files, counts, timing)
 *   lives on rank 0 and is written by it the same way.
 * - HDF5's own error printing is switched off while we run; a failing call
 *   becomes one GS_ESYS message naming the output file and the object, with
 *   the innermost reason from HDF5's error stack. After every step the ranks
 *   agree on the status and the lowest failing rank's message is broadcast,
 *   so every rank returns the same status and message.
 * - The file is written under gs_tmp_name(<out>) ("<out>.tmp.<pid>", rank 0's
 *   pid) and renamed by rank 0 only after every rank closed it without
 *   error; on failure the temporary file is removed and <out>, if it
 *   existed, is left untouched. Every rank registers the name, so a signal
 *   that ends any rank removes it (src/cli/signals.c).
 *
 * Reading (gscan info / export) is h5read.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "h5out.h"
#include "h5_internal.h"
#include "h5_props.h"
#include "h5_write.h"
#include "io/stream/replace_file.h"
#include "core/gs_parallel.h"
#include "comm/comm.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/* What rank 0 knows and every rank needs to make identical collective calls. */
typedef struct wmeta {
    uint64_t n_pat, n_rec, n_files;
    uint64_t w_pname, w_pseq, w_rname, w_file; /* fixed string widths */
    uint64_t blob_len;                         /* bytes of the string blob */
    int32_t n_strands, with_hits, n_ranks, n_gpus;
    int32_t approx, max_dist, best_per_site; /* approx: /hits/distance and /hits/end */
    int32_t max_bulges, exact3p;
    int32_t circular;                        /* the attribute only when 1 */
    gs_h5w_tally_meta tally;                  /* --tally (h5_tally.c) */
    gs_h5w_amp_meta amp;                      /* gscan pcr (h5_amplicons.c) */
} wmeta;

/* The blob: NUL-terminated strings in this order. */
enum { B_TMP, B_VERSION, B_CMDLINE, B_ENGINE, B_DEVICE, B_ALPHABET, B_STRANDS, B_REPORT,
       B_CREATED, B_MATCH, B_N };

static size_t str_width(size_t cur, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return n > cur ? n : cur;
}

/* Check the target early so the user reads "no such directory" or "refusing
 * to replace a character device", not an HDF5 stack; then create the
 * temporary file with plain POSIX calls for the same reason (EACCES, EROFS,
 * ENOSPC come out as themselves). */
static void check_target(wctx *w, const char *tmp)
{
    const char *path = w->path;
    if (*path == '\0') {
        gs_fail(&w->e, GS_ESYS, "cannot write output: empty file name (-o)");
        return;
    }
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (dir == NULL) {
        gs_fail(&w->e, GS_ESYS, "out of memory (%s)", path);
        return;
    }
    struct stat st;
    if (stat(dir, &st) != 0)
        gs_fail(&w->e, GS_ESYS, "cannot write output: directory %s: %s (%s)", dir,
                strerror(errno), path);
    else if (!S_ISDIR(st.st_mode))
        gs_fail(&w->e, GS_ESYS, "cannot write output: %s is not a directory (%s)", dir, path);
    else if (access(dir, W_OK | X_OK) != 0)
        gs_fail(&w->e, GS_ESYS, "cannot write output: directory %s is not writable: %s (%s)",
                dir, strerror(errno), path);
    else
        gs_out_check(path, NULL, 0, &w->e);
    free(dir);
    if (w->e.code != GS_OK)
        return;
    unlink(tmp); /* a leftover of a killed run with the same pid; a link is removed, not followed */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
    if (fd < 0) {
        gs_fail(&w->e, GS_ESYS, "cannot create %s: %s (%s)", tmp, strerror(errno), path);
        return;
    }
    close(fd);
}

/* The widest string of each column: its fixed length (at least 1). */
static void widths(wmeta *m, const gs_patset *ps, const gs_layout *lay)
{
    /* a 100 M-read FASTQ's names took half a second on one thread */
    size_t wn = 0, ws = 0, wr = lay ? gs_layout_scan(lay, gs_h5_threads(16), 1).name_max : 0, wf = 0;
    for (uint64_t i = 0; i < m->n_pat; i++) {
        wn = str_width(wn, ps->v[i].name);
        ws = str_width(ws, ps->v[i].text);
    }
    for (uint64_t i = 0; i < m->n_files; i++)
        wf = str_width(wf, lay->files[i]);
    m->w_pname = wn ? wn : 1;
    m->w_pseq = ws ? ws : 1;
    m->w_rname = wr ? wr : 1;
    m->w_file = wf ? wf : 1;
}

/* The strings every rank needs, NUL-terminated in the order of B_*, into
 * *blob (m->blob_len bytes). */
static void make_blob(wctx *w, const gs_result *res, const char *tmp, wmeta *m, char **blob)
{
    char created[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const gs_run_info *in = &res->info;
    const char *s[B_N] = {tmp, GS_VERSION, in->command_line, in->engine, in->device,
                          in->alphabet, in->strand_mode, in->report, created,
                          in->match ? in->match : "exact"};
    size_t len = 0;
    for (int i = 0; i < B_N; i++)
        len += (s[i] ? strlen(s[i]) : 0) + 1;
    *blob = gs_malloc(len, &w->e, "output attributes");
    if (*blob == NULL)
        return;
    char *p = *blob;
    for (int i = 0; i < B_N; i++) {
        size_t n = s[i] ? strlen(s[i]) : 0;
        memcpy(p, s[i] ? s[i] : "", n);
        p[n] = '\0';
        p += n + 1;
    }
    m->blob_len = len;
}

/* Rank 0: check the target, create the temporary file *tmp (registered),
 * and gather what every rank needs into *m and a blob of strings. *made = 1
 * when the temporary file was created (and must be removed on failure);
 * errors in w->e. */
static gs_status prepare(wctx *w, const gs_result *res, wmeta *m, char **blob, char **tmp,
                         int *made)
{
    *made = 0;
    if ((*tmp = gs_tmp_name(w->path, &w->e)) == NULL)
        return w->e.code;
    gs_tmp_register(*tmp);
    check_target(w, *tmp);
    if (w->e.code != GS_OK)
        return w->e.code;
    *made = 1;
    const gs_patset *ps = res->patterns;
    const gs_layout *lay = res->layout;
    m->n_pat = ps ? ps->n : 0;
    m->n_rec = lay ? lay->n_rec : 0;
    m->n_files = lay ? lay->n_files : 0;
    m->n_strands = res->n_strands;
    m->with_hits = res->with_hits != 0;
    m->n_ranks = res->info.n_ranks > 0 ? res->info.n_ranks : w->size;
    m->n_gpus = res->info.n_gpus;
    m->approx = res->info.match != NULL && strcmp(res->info.match, "exact") != 0;
    m->max_dist = res->info.max_dist;
    m->max_bulges = res->info.max_bulges;
    m->exact3p = res->info.exact3p;
    m->best_per_site = res->info.best_per_site;
    m->circular = res->info.circular;
    if (m->n_strands != 1 && m->n_strands != 2)
        gs_fail(&w->e, GS_ESYS, "invalid result: %d strands (%s)", m->n_strands, w->path);
    else if (m->n_pat > 0 && res->counts == NULL)
        gs_fail(&w->e, GS_ESYS, "invalid result: no counts (%s)", w->path);
    if (w->e.code != GS_OK)
        return w->e.code;
    widths(m, ps, lay);
    gs_h5w_tally_prepare(res, m->approx, &m->tally);
    gs_h5w_amp_prepare(res, &m->amp);
    make_blob(w, res, *tmp, m, blob);
    return w->e.code;
}

/* Every rank checks its own hits: ids inside the file's tables and sorted,
 * so a reader can trust /hits without checking it again. */
/* The first hit of [from, to) that is out of range or out of order (the
 * one before from included in the order check), or to. */
typedef struct hit_check {
    const gs_result *res;
    const wmeta *m;
    uint64_t from, to, bad;
} hit_check;

static int hit_ok(const gs_hit *h, const wmeta *m)
{
    const gs_h5w_hits_meta hm = {m->n_pat, m->n_rec, m->n_strands, m->approx};
    return gs_h5w_hit_ok(h, &hm);
}

static void *check_slice(void *arg)
{
    hit_check *c = arg;
    const gs_hit *v = c->res->hits;
    c->bad = c->to;
    for (uint64_t i = c->from; i < c->to; i++)
        if (!hit_ok(&v[i], c->m) || (i > 0 && gs_hit_cmp(&v[i - 1], &v[i]) > 0)) {
            c->bad = i;
            break;
        }
    return NULL;
}

/* Every hit in range and in contract order before anything is written, on
 * the process's cores (one thread took a second for 140 M hits). */
enum { CHECK_THREADS = 16, CHECK_SLICE = 1 << 18 };
static void check_hits(wctx *w, const gs_result *res, const wmeta *m)
{
    if (res->hit_stream) /* checked a piece at a time as they come (pull_hits) */
        return;
    if (res->n_hits > 0 && res->hits == NULL) {
        gs_fail(&w->e, GS_ESYS, "invalid result: no hits on rank %d (%s)", w->rank, w->path);
        return;
    }
    int nt = gs_h5_threads(CHECK_THREADS);
    if ((uint64_t)nt > res->n_hits / CHECK_SLICE)
        nt = res->n_hits / CHECK_SLICE ? (int)(res->n_hits / CHECK_SLICE) : 1;
    hit_check c[CHECK_THREADS];
    for (int t = 0; t < nt; t++)
        c[t] = (hit_check){res, m, res->n_hits * (uint64_t)t / (uint64_t)nt,
                           res->n_hits * (uint64_t)(t + 1) / (uint64_t)nt, 0};
    gs_run_parallel(check_slice, c, sizeof *c, nt);
    for (int t = 0; t < nt; t++) {
        uint64_t i = c[t].bad;
        if (i == c[t].to)
            continue;
        const gs_hit *h = &res->hits[i];
        if (!hit_ok(h, m))
            gs_fail(&w->e, GS_ESYS,
                    "invalid hit %" PRIu64 " on rank %d: pattern %" PRIu32 ", record %" PRIu32
                    ", strand %d (%s)",
                    i, w->rank, h->pattern, h->record, h->strand, w->path);
        else
            gs_fail(&w->e, GS_ESYS, "hits out of order at hit %" PRIu64 " on rank %d (%s)", i,
                    w->rank, w->path);
        return;
    }
}


static void put_str(char *row, size_t width, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    memset(row, 0, width);
    memcpy(row, s ? s : "", n < width ? n : width);
}

static void fill_pat_name(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    const gs_patset *ps = src;
    for (size_t i = 0; i < n; i++)
        put_str((char *)buf + i * width, width, ps->v[from + i].name);
}

static void fill_pat_seq(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    const gs_patset *ps = src;
    for (size_t i = 0; i < n; i++)
        put_str((char *)buf + i * width, width, ps->v[from + i].text);
}

static void fill_pat_len(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    const gs_patset *ps = src;
    (void)width;
    for (size_t i = 0; i < n; i++)
        ((uint32_t *)buf)[i] = ps->v[from + i].len;
}

/* Each pattern's own K and exact_3p (approximate modes), or the options'. */
static void fill_pat_k(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    const gs_result *res = src;
    (void)width;
    for (size_t i = 0; i < n; i++) {
        ((uint32_t *)buf)[i] = gs_pattern_k(&res->patterns->v[from + i], (uint32_t)res->info.option_k);
    }
}

static void fill_pat_zone(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    const gs_result *res = src;
    (void)width;
    for (size_t i = 0; i < n; i++) {
        ((uint32_t *)buf)[i] =
            gs_pattern_zone(&res->patterns->v[from + i], (uint32_t)res->info.exact3p);
    }
}

static void fill_rec_name(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    const gs_layout *l = src;
    for (size_t i = 0; i < n; i++)
        put_str((char *)buf + i * width, width, l->rec[from + i].name);
}

static void fill_rec_len(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    const gs_layout *l = src;
    (void)width;
    for (size_t i = 0; i < n; i++)
        ((uint64_t *)buf)[i] = l->rec[from + i].length;
}

static void fill_rec_file(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    const gs_layout *l = src;
    (void)width;
    for (size_t i = 0; i < n; i++)
        ((uint32_t *)buf)[i] = l->rec[from + i].file;
}

static void fill_files(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    const gs_layout *l = src;
    for (size_t i = 0; i < n; i++)
        put_str((char *)buf + i * width, width, l->files[from + i]);
}

static void fill_bytes(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    memcpy(buf, (const char *)src + from * width, n * width);
}

static gs_status write_attrs(wctx *w, const wmeta *m, const char *const *s)
{
    static const struct {
        const char *name;
        int idx;
    } str_attrs[] = {{"gscan_version", B_VERSION}, {"command_line", B_CMDLINE},
                     {"engine", B_ENGINE},         {"device", B_DEVICE},
                     {"alphabet", B_ALPHABET},     {"strand_mode", B_STRANDS},
                     {"report", B_REPORT},         {"created", B_CREATED}};
    for (size_t i = 0; i < sizeof str_attrs / sizeof *str_attrs; i++)
        if (gs_h5w_attr_str(w, str_attrs[i].name, s[str_attrs[i].idx]) != GS_OK)
            break;
    if (w->e.code == GS_OK && gs_h5w_attr_int(w, "n_ranks", m->n_ranks) == GS_OK)
        gs_h5w_attr_int(w, "n_gpus", m->n_gpus);
    if (w->e.code == GS_OK && gs_h5w_attr_str(w, "match_mode", s[B_MATCH]) == GS_OK &&
        gs_h5w_attr_int(w, "max_distance", m->max_dist) == GS_OK)
        gs_h5w_attr_int(w, "best_per_site", m->best_per_site);
    if (w->e.code == GS_OK && m->max_bulges)
        gs_h5w_attr_int(w, "max_bulges", m->max_bulges);
    if (w->e.code == GS_OK && m->exact3p)
        gs_h5w_attr_int(w, "exact_3p", m->exact3p);
    if (w->e.code == GS_OK && m->circular)
        gs_h5w_attr_int(w, "circular", 1);
    return gs_h5w_agree(w);
}

/* The pattern, record and file tables (rank 0's), and the counts. */
static gs_status write_tables(wctx *w, const gs_result *res, const wmeta *m)
{
    const gs_patset *ps = res->patterns;
    const gs_layout *lay = res->layout;
    enum { GROUP, STR, STR_CONTIG, U32, U64, SKIP };
    const struct {
        int kind;
        const char *name;
        uint64_t n, width;
        fill_fn fill;
        const void *src;
    } t[] = {{GROUP, "/patterns", 0, 0, NULL, NULL},
             {STR, "/patterns/name", m->n_pat, m->w_pname, fill_pat_name, ps},
             {STR, "/patterns/sequence", m->n_pat, m->w_pseq, fill_pat_seq, ps},
             {U32, "/patterns/length", m->n_pat, 4, fill_pat_len, ps},
             {m->approx ? U32 : SKIP, "/patterns/max_distance", m->n_pat, 4, fill_pat_k, res},
             {m->approx ? U32 : SKIP, "/patterns/exact_3p", m->n_pat, 4, fill_pat_zone, res},
             {GROUP, "/records", 0, 0, NULL, NULL},
             {STR, "/records/name", m->n_rec, m->w_rname, fill_rec_name, lay},
             {U64, "/records/length", m->n_rec, 8, fill_rec_len, lay},
             {U32, "/records/file", m->n_rec, 4, fill_rec_file, lay},
             {STR_CONTIG, "/files", m->n_files, m->w_file, fill_files, lay}};
    gs_status st = GS_OK;
    for (size_t i = 0; st == GS_OK && i < sizeof t / sizeof *t; i++) {
        dspec d = {.name = t[i].name, .n = t[i].n, .row_bytes = (size_t)t[i].width,
                   .fill = t[i].fill, .src = t[i].src};
        if (t[i].kind == SKIP)
            continue;
        if (t[i].kind == GROUP)
            st = gs_h5w_group(w, t[i].name);
        else if (t[i].kind == STR || t[i].kind == STR_CONTIG)
            st = gs_h5w_strings(w, &d, t[i].kind == STR);
        else {
            d.ftype = t[i].kind == U32 ? H5T_STD_U32LE : H5T_STD_U64LE;
            d.mtype = t[i].kind == U32 ? H5T_NATIVE_UINT32 : H5T_NATIVE_UINT64;
            st = gs_h5w_numbers(w, &d);
        }
    }
    if (st != GS_OK)
        return st;
    size_t row = 8 * (size_t)m->n_strands;
    dspec counts = {"/counts", H5T_STD_U64LE, H5T_NATIVE_UINT64, row, (hsize_t)m->n_strands,
                    m->n_pat, gs_h5w_chunk_rows(m->n_pat, row), 1, fill_bytes, res->counts};
    return gs_h5w_dset(w, &counts, 0, w->rank == 0 ? m->n_pat : 0);
}

static gs_status write_hits(wctx *w, const gs_result *res, const wmeta *m)
{
    const gs_h5w_hits_meta hm = {m->n_pat, m->n_rec, m->n_strands, m->approx};
    return gs_h5w_hits(w, res, &hm);
}

/* /timing/<phase>: rank 0 gathers every rank's seconds and writes them. */
static gs_status write_timing(wctx *w, const double *mine)
{
    double *all = NULL;
    if (w->rank == 0)
        all = gs_malloc((size_t)w->size * GS_N_PHASES * sizeof *all, &w->e, "timings");
    if (gs_h5w_agree(w) != GS_OK)
        return w->e.code;
    GS_MPI_CHECK(MPI_Gather(mine, GS_N_PHASES, MPI_DOUBLE, all, GS_N_PHASES, MPI_DOUBLE, 0, w->comm));
    gs_status st = gs_h5w_group(w, "/timing");
    double *col = NULL;
    if (st == GS_OK && w->rank == 0)
        col = gs_malloc((size_t)w->size * sizeof *col, &w->e, "timings");
    if (st == GS_OK)
        st = gs_h5w_agree(w);
    for (int p = 0; st == GS_OK && p < GS_N_PHASES; p++) {
        char name[64];
        snprintf(name, sizeof name, "/timing/%s", gs_phase_names[p]);
        for (int r = 0; col && r < w->size; r++)
            col[r] = all[(size_t)r * GS_N_PHASES + p];
        dspec d = {name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 8, 0, (uint64_t)w->size, 0, 0,
                   fill_bytes, col};
        st = gs_h5w_dset(w, &d, 0, w->rank == 0 ? (uint64_t)w->size : 0);
    }
    free(col);
    free(all);
    return st;
}

/* Make the data durable before the rename publishes it: otherwise a crash
 * soon after could leave an empty or partial file under the final name.
 * File systems that cannot sync a file (EINVAL) are taken as they are. */
static void sync_file(wctx *w, const char *tmp)
{
    int fd = open(tmp, O_RDONLY);
    if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL && errno != EROFS))
        gs_fail(&w->e, GS_ESYS, "cannot sync %s: %s (%s)", tmp, strerror(errno), w->path);
    if (fd >= 0)
        close(fd);
}

/* After a failed write the file is discarded, but HDF5 1.10 still flushes
 * its metadata when closing it. When that flush fails, HDF5 frees the file
 * yet keeps its ID, which crashes HDF5's own close at MPI_Finalize, and
 * ranks whose flushes fail at different steps wait for each other in
 * different collectives forever. So before closing a failed file, give that
 * flush the room a full disk or a file-size limit took away: rank 0 empties
 * the temporary file (freeing its blocks), and every rank lifts its soft
 * file-size limit (RLIMIT_FSIZE, EFBIG) to the hard one for the close only;
 * *was receives the limit to restore. Then returns 1 on every rank when the
 * close can be tried: the limit lies past where the file reached (a write
 * stopped by the limit ends at it, and the flush writes anywhere below the
 * file's end) and the disk holds the cached metadata; 0 when the close
 * would fail, and the file is then left open (gs_h5_write_abandoned). tmp:
 * the file to empty (rank 0), or NULL. Collective. */
enum { CLOSE_SLACK = 64 << 10 }; /* bytes the close may write beyond the cached metadata */
static int make_room_to_close(wctx *w, const char *tmp, struct rlimit *was)
{
    int ok = 1, entries;
    uint64_t reached = 0; /* rank 0's file size: a failed write stops at the limit */
    size_t max_bytes, min_clean, cached = 0;
    struct stat st;
    struct statvfs fs;
    struct rlimit now;
    if (tmp && stat(tmp, &st) == 0)
        reached = (uint64_t)st.st_size;
    if (tmp)
        if (truncate(tmp, 0) != 0) { /* the close below reports what matters */ }
    if (getrlimit(RLIMIT_FSIZE, was) == 0 && was->rlim_cur != was->rlim_max) {
        struct rlimit up = {was->rlim_max, was->rlim_max};
        if (setrlimit(RLIMIT_FSIZE, &up) != 0)
            was->rlim_cur = was->rlim_max; /* nothing to restore */
    }
    GS_MPI_CHECK(MPI_Bcast(&reached, 1, MPI_UINT64_T, 0, w->comm));
    if (w->fid >= 0 && H5Fget_mdc_size(w->fid, &max_bytes, &min_clean, &cached, &entries) < 0)
        ok = 0;
    if (w->fid >= 0 && getrlimit(RLIMIT_FSIZE, &now) == 0 && now.rlim_cur != RLIM_INFINITY
        && now.rlim_cur < reached + CLOSE_SLACK)
        ok = 0;
    if (tmp && statvfs(tmp, &fs) == 0 && (uint64_t)fs.f_bavail * fs.f_frsize < cached + CLOSE_SLACK)
        ok = 0;
    GS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, w->comm));
    return ok;
}

/* Every rank learns what rank 0 prepared: *m and the strings s[B_N]
 * (pointing into *blob); rank 0 keeps the temporary name in *tmp. */
static gs_status share_meta(wctx *w, const gs_result *res, wmeta *m, char **blob,
                            const char *s[B_N], int *made, char **tmp)
{
    if (w->rank == 0)
        prepare(w, res, m, blob, tmp, made); /* a failure is in w->e: agreed on below */
    if (gs_h5w_agree(w) != GS_OK)
        return w->e.code;
    GS_MPI_CHECK(MPI_Bcast(m, (int)sizeof *m, MPI_BYTE, 0, w->comm));
    if (w->rank != 0)
        *blob = gs_malloc((size_t)m->blob_len, &w->e, "output attributes");
    if (gs_h5w_agree(w) != GS_OK)
        return w->e.code;
    gs_mpi_bcast_bytes(*blob, m->blob_len, 0, w->comm);
    s[0] = *blob;
    for (int i = 1; i < B_N; i++)
        s[i] = s[i - 1] + strlen(s[i - 1]) + 1;
    if (w->rank != 0)
        gs_tmp_register(s[B_TMP]);
    return GS_OK;
}

/* Create the temporary file tmp on every rank, through MPI-IO (the
 * properties of h5_props.c), with collective transfers. */
static gs_status create_file(wctx *w, const char *tmp, const gs_result *res)
{
    gs_h5_mpi_hints hints = {res->mpi_hints, res->n_mpi_hints};
    hid_t fapl = gs_h5_fapl_write(w->comm, res->tune, hints);
    if (fapl < 0)
        gs_h5w_fail(w, "set up MPI-IO for", tmp);
    else if ((w->fid = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0)
        gs_h5w_fail(w, "create HDF5 file", tmp);
    else if ((w->dxpl = H5Pcreate(H5P_DATASET_XFER)) < 0
             || H5Pset_dxpl_mpio(w->dxpl, H5FD_MPIO_COLLECTIVE) < 0)
        gs_h5w_fail(w, "set up collective writes for", tmp);
    if (fapl >= 0)
        H5Pclose(fapl);
    return gs_h5w_agree(w);
}

/* 1 once a close failed on some rank of a write: HDF5's state is not whole. */
static int abandoned;

int gs_h5_write_abandoned(void)
{
    return abandoned;
}

/* Close the file on every rank, then rank 0 publishes it under its name
 * (or removes it when anything failed), and every rank learns the outcome.
 * Every rank runs the same collective steps here, whatever it holds; tmp:
 * the temporary name (NULL where this rank never learnt it). */
static void finish(wctx *w, const char *tmp, int made)
{
    if (w->dxpl >= 0)
        H5Pclose(w->dxpl);
    struct rlimit lim = {RLIM_INFINITY, RLIM_INFINITY};
    int failed = gs_h5w_agree(w) != GS_OK, lost = 0;
    if (failed && !make_room_to_close(w, w->rank == 0 && w->fid >= 0 ? tmp : NULL, &lim))
        lost = w->fid >= 0; /* left open: the run already failed, with its own message */
    else if (w->fid >= 0 && H5Fclose(w->fid) < 0) {
        lost = 1;
        gs_h5w_fail(w, "close HDF5 file", tmp);
    }
    if (failed && lim.rlim_cur != lim.rlim_max)
        setrlimit(RLIMIT_FSIZE, &lim);
    GS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &lost, 1, MPI_INT, MPI_MAX, w->comm));
    abandoned |= lost;
    gs_h5w_agree(w);
    if (w->rank == 0 && made) {
        if (w->e.code == GS_OK)
            sync_file(w, tmp);
        if (w->e.code == GS_OK)
            gs_out_check(w->path, NULL, 0, &w->e); /* it may have changed while we wrote */
        if (w->e.code == GS_OK && rename(tmp, w->path) != 0)
            gs_fail(&w->e, GS_ESYS, "cannot rename %s to the output: %s (%s)", tmp,
                    strerror(errno), w->path);
        if (w->e.code != GS_OK)
            unlink(tmp);
    }
    GS_MPI_CHECK(MPI_Bcast(&w->e, (int)sizeof w->e, MPI_BYTE, 0, w->comm));
    if (tmp)
        gs_tmp_forget(tmp);
}

gs_status gs_h5_write(const char *path, gs_result *res, MPI_Comm comm, gs_error *err)
{
    double t0 = MPI_Wtime();
    wctx w = {.comm = comm, .path = path, .fid = -1, .dxpl = -1, .tune = res->tune};
    wmeta m = {0};
    char *blob = NULL, *tmp = NULL; /* tmp: rank 0's temporary name */
    const char *s[B_N] = {0};
    int made = 0;
    GS_MPI_CHECK(MPI_Comm_rank(comm, &w.rank));
    GS_MPI_CHECK(MPI_Comm_size(comm, &w.size));
    H5E_auto2_t old_fn = NULL;
    void *old_data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    if (share_meta(&w, res, &m, &blob, s, &made, &tmp) == GS_OK && m.with_hits)
        check_hits(&w, res, &m);
    if (gs_h5w_agree(&w) == GS_OK && create_file(&w, s[B_TMP], res) == GS_OK
        && write_attrs(&w, &m, s) == GS_OK && write_tables(&w, res, &m) == GS_OK
        && gs_h5w_tally(&w, res, &m.tally) == GS_OK && gs_h5w_amplicons(&w, res, &m.amp) == GS_OK
        && (!m.with_hits || write_hits(&w, res, &m) == GS_OK)) {
        /* The write phase: everything up to here; the final close and
         * rename are left out (they follow the timing datasets by
         * necessity). The caller measured total before calling us, so the
         * write is added. */
        res->timing[GS_T_WRITE] = MPI_Wtime() - t0;
        res->timing[GS_T_TOTAL] += res->timing[GS_T_WRITE];
        write_timing(&w, res->timing);
    }
    finish(&w, w.rank == 0 ? tmp : s[B_TMP], made);
    free(tmp);
    free(blob);
    H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    if (w.e.code != GS_OK)
        return gs_fail(err, w.e.code, "%s", w.e.msg);
    return GS_OK;
}
