/* h5out.c - write the result file of contract §3 with parallel HDF5.
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
 * - Large datasets are chunked and deflate-compressed. Parallel HDF5 1.10
 *   writes filtered datasets only collectively, so every H5Dwrite here is
 *   collective and ranks with nothing to write select nothing; the number of
 *   calls per dataset is agreed first (MPI_Allreduce) so no rank waits in a
 *   call another rank never makes. Metadata (patterns, records, files,
 *   counts, timing) lives on rank 0 and is written by it the same way.
 * - Chunk shapes depend on the data only, never on the rank count, and piece
 *   boundaries fall on chunk boundaries, so a file written by 1 or 64 ranks
 *   holds the same values, chunked the same way, in every dataset but /timing.
 * - Parallel HDF5 cannot write variable-length data: strings are fixed-length,
 *   sized to the longest (at least 1 byte), null-padded (docs/format.md).
 * - HDF5's own error printing is switched off while we run; a failing call
 *   becomes one GS_ESYS message naming the output file and the object, with
 *   the innermost reason from HDF5's error stack. After every step the ranks
 *   agree on the status and the lowest failing rank's message is broadcast,
 *   so every rank returns the same status and message.
 * - The file is written as "<out>.tmp.<pid>" (rank 0's pid) and renamed by
 *   rank 0 only after every rank closed it without error; on failure the
 *   temporary file is removed and <out>, if it existed, is left untouched.
 *
 * Reading (gscan info / export) is in h5read.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "h5out.h"
#include "h5_internal.h"
#include "io/stream/replace_file.h"
#include "core/gs_parallel.h"
#include "comm/mpi_check.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/* Chunk and piece sizes. A chunk of about 1 MiB keeps compression effective
 * and partial reads cheap (HDF5's default chunk cache is 1 MiB); the hit
 * columns share one row count per chunk so a reader streaming rows touches
 * whole chunks in all four. Pieces (what one H5Dwrite/H5Dread moves) are a
 * whole number of chunks, at most about 8 MiB of buffer. */
enum { CHUNK_BYTES = 1 << 20, HIT_CHUNK_ROWS = 1 << 18, PIECE_BYTES = 8 << 20 };

/* Deflate level 1: hit columns are sorted integers which, after the shuffle
 * filter groups their bytes, compress nearly as well at level 1 as at 4-9
 * while costing a fraction of the CPU time; the write must not become the
 * slow phase of a scan that produced the hits at GPU speed. */
enum { DEFLATE_LEVEL = 1 };

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */

typedef struct wctx {
    MPI_Comm comm;
    int rank, size;
    const char *path; /* final name, for messages */
    gs_error e;       /* this rank's first failure, then the agreed one */
    hid_t dxpl;       /* collective transfer */
} wctx;

/* What rank 0 knows and every rank needs to make identical collective calls. */
typedef struct wmeta {
    uint64_t n_pat, n_rec, n_files;
    uint64_t w_pname, w_pseq, w_rname, w_file; /* fixed string widths */
    uint64_t blob_len;                         /* bytes of the string blob */
    int32_t n_strands, with_hits, n_ranks, n_gpus;
    int32_t approx, max_dist, best_per_site; /* approx: /hits/distance and /hits/end */
} wmeta;

/* The blob: NUL-terminated strings in this order. */
enum { B_TMP, B_VERSION, B_CMDLINE, B_ENGINE, B_DEVICE, B_ALPHABET, B_STRANDS, B_REPORT,
       B_CREATED, B_MATCH, B_N };

static void h5_fail(wctx *w, const char *what, const char *obj)
{
    char why[256];
    gs_h5_reason(why, sizeof why);
    gs_fail(&w->e, GS_ESYS, "cannot %s %s: %s (%s)", what, obj, why, w->path);
}

/* A rank that failed waits this long for the others to agree; past it they
 * are taken to be blocked inside an HDF5 collective call it left early. */
enum { STRAND_SECONDS = 60 };

/* The others cannot be reached: a collective HDF5 call failed here but not
 * there, and they wait in it for this rank forever. No status can travel
 * back to the command layer through another collective, so this is the one
 * place library code reports and ends the job itself (contract §5: one failing
 * rank ends the job with its message, never a hang). */
static void stranded(wctx *w)
{
    fprintf(stderr, "gscan: error: %s; the other ranks are blocked in HDF5, ending the job\n",
            w->e.msg);
    fflush(stderr);
    MPI_Abort(w->comm, GS_ESYS);
}

/* Agree on the status: 1 when every rank is fine. Otherwise every rank ends
 * up holding the message of the lowest failing rank and returns 0. Every
 * rank posts the same nonblocking reduction; one that has failed waits for
 * it at most STRAND_SECONDS. */
static int agree(wctx *w)
{
    int mine = w->e.code != GS_OK ? w->rank : w->size, first = w->size, done = 0;
    MPI_Request rq;
    GS_MPI_CHECK(MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, w->comm, &rq));
    if (w->e.code == GS_OK) {
        GS_MPI_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
        double until = MPI_Wtime() + STRAND_SECONDS;
        struct timespec nap = {0, 1000000};
        for (;;) {
            GS_MPI_CHECK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
            if (done || MPI_Wtime() >= until)
                break;
            nanosleep(&nap, NULL);
        }
        if (!done)
            stranded(w);
    }
    if (first == w->size)
        return 1;
    GS_MPI_CHECK(MPI_Bcast(&w->e, (int)sizeof w->e, MPI_BYTE, first, w->comm));
    return 0;
}

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

/* Rank 0: check the target, create the temporary file, and gather what every
 * rank needs into *m and a blob of strings. Returns 1 when the temporary file
 * was created (and must be removed on failure). */
static int prepare(wctx *w, const gs_result *res, wmeta *m, char **blob)
{
    char tmp[4096], created[32];
    int made = 0;
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", w->path, (long)getpid()) >= sizeof tmp) {
        gs_fail(&w->e, GS_ESYS, "cannot write output: path too long (%s)", w->path);
        return 0;
    }
    check_target(w, tmp);
    if (w->e.code != GS_OK)
        return 0;
    made = 1;

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
    m->best_per_site = res->info.best_per_site;
    if (m->n_strands != 1 && m->n_strands != 2)
        gs_fail(&w->e, GS_ESYS, "invalid result: %d strands (%s)", m->n_strands, w->path);
    else if (m->n_pat > 0 && res->counts == NULL)
        gs_fail(&w->e, GS_ESYS, "invalid result: no counts (%s)", w->path);
    if (w->e.code != GS_OK)
        return made;
    size_t wd = 0;
    for (uint64_t i = 0; i < m->n_pat; i++)
        wd = str_width(wd, ps->v[i].name);
    m->w_pname = wd ? wd : 1;
    wd = 0;
    for (uint64_t i = 0; i < m->n_pat; i++)
        wd = str_width(wd, ps->v[i].text);
    m->w_pseq = wd ? wd : 1;
    wd = 0;
    for (uint64_t i = 0; i < m->n_rec; i++)
        wd = str_width(wd, lay->rec[i].name);
    m->w_rname = wd ? wd : 1;
    wd = 0;
    for (uint64_t i = 0; i < m->n_files; i++)
        wd = str_width(wd, lay->files[i]);
    m->w_file = wd ? wd : 1;

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
        return made;
    char *p = *blob;
    for (int i = 0; i < B_N; i++) {
        size_t n = s[i] ? strlen(s[i]) : 0;
        memcpy(p, s[i] ? s[i] : "", n);
        p[n] = '\0';
        p += n + 1;
    }
    m->blob_len = len;
    return made;
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
    return h->pattern < m->n_pat && h->record < m->n_rec && (h->strand == 1 || h->strand == -1)
           && !(h->strand == -1 && m->n_strands == 1);
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

/* Fill buf with rows [from, from + n) of src; width = bytes per row. */
typedef void (*fill_fn)(const void *src, size_t width, uint64_t from, size_t n, void *buf);

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

/* The hit columns: one row per /hits dataset, read out of gs_hit by offset,
 * so a new attribute of a hit is one line here. */
enum { T_U8, T_I8, T_U32, T_U64 };
static const struct hit_col {
    const char *name;
    int type;      /* T_* */
    size_t offset; /* in gs_hit */
    int approx;    /* written in the approximate modes only */
} hit_cols[] = {
    {"/hits/pattern", T_U32, offsetof(gs_hit, pattern), 0},
    {"/hits/record", T_U32, offsetof(gs_hit, record), 0},
    {"/hits/start", T_U64, offsetof(gs_hit, start), 0},
    {"/hits/strand", T_I8, offsetof(gs_hit, strand), 0},
    {"/hits/distance", T_U8, offsetof(gs_hit, distance), 1},
    {"/hits/end", T_U64, offsetof(gs_hit, end), 1},
};

typedef struct hit_src {
    const gs_hit *hits;
    size_t offset;
} hit_src;

/* A constant width makes each copy one load and one store (a call to
 * memcpy per hit with the width a variable). */
#define GATHER(W)                                                                                 \
    for (size_t i = 0; i < n; i++)                                                                \
        memcpy(out + i * (W), (const char *)&h->hits[from + i] + h->offset, (W));
static void fill_hit_col(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    const hit_src *h = src;
    char *out = buf;
    switch (width) {
    case 1: GATHER(1) break;
    case 4: GATHER(4) break;
    case 8: GATHER(8) break;
    default: GATHER(width) break;
    }
}
#undef GATHER

/* How one dataset is laid out: rows of cols elements (cols 0: 1-D). */
typedef struct dspec {
    const char *name;  /* absolute path in the file */
    hid_t ftype;       /* file type (closed by the caller when it made it) */
    hid_t mtype;       /* memory type */
    size_t row_bytes;  /* bytes of one row in memory and in buf */
    hsize_t cols;      /* 0: 1-D [n]; else 2-D [n][cols] */
    uint64_t n;        /* global rows */
    hsize_t chunk;     /* rows per chunk; 0: contiguous */
    int shuffle;       /* numbers: the shuffle filter helps deflate */
} dspec;

static hsize_t chunk_rows(uint64_t n, size_t row_bytes)
{
    if (n == 0)
        return 0; /* a chunk needs at least one row: empty datasets are contiguous */
    uint64_t r = CHUNK_BYTES / row_bytes;
    if (r < 1)
        r = 1;
    return n < r ? n : r;
}

static hid_t make_dset(wctx *w, hid_t fid, const dspec *d)
{
    hsize_t dims[2] = {d->n, d->cols};
    hid_t space = -1, dcpl = -1, dset = -1;
    space = H5Screate_simple(d->cols ? 2 : 1, dims, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || dcpl < 0)
        goto fail;
    if (d->chunk > 0) {
        hsize_t cdims[2] = {d->chunk, d->cols};
        if (H5Pset_chunk(dcpl, d->cols ? 2 : 1, cdims) < 0
            || (d->shuffle && H5Pset_shuffle(dcpl) < 0) || H5Pset_deflate(dcpl, DEFLATE_LEVEL) < 0)
            goto fail;
    }
    dset = H5Dcreate2(fid, d->name, d->ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0)
        goto fail;
    H5Pclose(dcpl);
    H5Sclose(space);
    return dset;
fail:
    h5_fail(w, "create dataset", d->name);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return -1;
}

/* Rows [off, off + n) of this rank, cut at multiples of piece rows of the
 * global row index so pieces never split a chunk between two calls of one
 * rank. piece_count gives the number of pieces, piece_at piece i. */
static uint64_t piece_count(uint64_t off, uint64_t n, uint64_t piece)
{
    return n == 0 ? 0 : (off + n - 1) / piece - off / piece + 1;
}

static void piece_at(uint64_t off, uint64_t n, uint64_t piece, uint64_t i, uint64_t *from,
                     uint64_t *cnt)
{
    uint64_t lo = (off / piece + i) * piece, hi = lo + piece;
    if (lo < off)
        lo = off;
    if (hi > off + n)
        hi = off + n;
    *from = lo;
    *cnt = hi > lo ? hi - lo : 0;
}

/* Create dataset d and write this rank's rows [off, off + n) of it from src
 * (local row 0 = global row off) through fill. Collective: every rank calls
 * it with the same d, and makes as many H5Dwrite calls as the rank with the
 * most pieces. Returns 1 when every rank succeeded. */
/* One writer, a chunked 1-D dataset: chunks compressed on all cores and
 * stored directly (h5_direct.c): the hit columns and, for EST-like corpora,
 * the record table (2.1 M names deflated on one thread took 0.3 s). */
/* Datasets d[0..n) at once, their chunks in that order through one pipeline
 * (the hit columns: no drain between columns, one set of buffers); source
 * k is src + k * src_size. */
static int write_direct_n(wctx *w, hid_t fid, const dspec *d, int n, fill_fn fill,
                          const void *src, size_t src_size)
{
    gs_h5_direct dd[GS_H5_DIRECT_MAX];
    int made = 0;
    for (; made < n && w->e.code == GS_OK; made++)
        dd[made] = (gs_h5_direct){make_dset(w, fid, &d[made]), d[made].n, (size_t)d[made].chunk,
                                  d[made].row_bytes, d[made].shuffle, DEFLATE_LEVEL, fill,
                                  (const char *)src + (size_t)made * src_size};
    int done = w->e.code == GS_OK ? gs_h5_write_direct(dd, n) : n;
    if (done < n)
        h5_fail(w, "write dataset", d[done].name);
    for (int k = 0; k < made; k++)
        if (dd[k].dset >= 0 && H5Dclose(dd[k].dset) < 0)
            h5_fail(w, "close dataset", d[k].name);
    return agree(w);
}

static int write_direct(wctx *w, hid_t fid, const dspec *d, fill_fn fill, const void *src)
{
    return write_direct_n(w, fid, d, 1, fill, src, 0);
}

static int write_dset(wctx *w, hid_t fid, const dspec *d, uint64_t off, uint64_t n, fill_fn fill,
                      const void *src)
{
    if (w->size == 1 && d->n > 0 && d->chunk > 0 && d->cols == 0)
        return write_direct(w, fid, d, fill, src);
    hid_t dset = make_dset(w, fid, d), fspace = -1;
    char dummy[16];
    void *buf = dummy;
    uint64_t piece = 0, mine = 0, most = 0;
    if (d->n > 0) {
        uint64_t fit = PIECE_BYTES / d->row_bytes;
        if (d->chunk > 0) /* a whole number of chunks, at least one */
            piece = d->chunk * (fit / d->chunk > 0 ? fit / d->chunk : 1);
        else
            piece = fit > 0 ? fit : 1;
        mine = piece_count(off, n, piece);
        if (mine > 0)
            buf = gs_malloc((size_t)((n < piece ? n : piece) * d->row_bytes), &w->e, d->name);
    }
    if (dset >= 0 && (fspace = H5Dget_space(dset)) < 0)
        h5_fail(w, "open dataspace of", d->name);
    GS_MPI_CHECK(MPI_Allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, w->comm));
    if (!agree(w))
        goto done;
    for (uint64_t i = 0; i < most; i++) {
        uint64_t from = 0, cnt = 0;
        hid_t mspace = -1;
        if (i < mine)
            piece_at(off, n, piece, i, &from, &cnt);
        hsize_t start[2] = {from, 0}, count[2] = {cnt, d->cols}, one = 1;
        if (cnt > 0) {
            fill(src, d->row_bytes, from - off, (size_t)cnt, buf);
            mspace = H5Screate_simple(d->cols ? 2 : 1, count, NULL);
            if (mspace < 0
                || H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
                h5_fail(w, "select rows of", d->name);
        } else {
            mspace = H5Screate_simple(1, &one, NULL);
            if (mspace < 0 || H5Sselect_none(mspace) < 0 || H5Sselect_none(fspace) < 0)
                h5_fail(w, "select rows of", d->name);
        }
        int ok = agree(w);
        if (ok && H5Dwrite(dset, d->mtype, mspace, fspace, w->dxpl, buf) < 0)
            h5_fail(w, "write dataset", d->name);
        if (mspace >= 0)
            H5Sclose(mspace);
        if (!ok || !agree(w))
            goto done;
    }
done:
    if (buf != dummy)
        free(buf);
    if (fspace >= 0)
        H5Sclose(fspace);
    if (dset >= 0 && H5Dclose(dset) < 0)
        h5_fail(w, "close dataset", d->name);
    return agree(w);
}

static hid_t str_type(uint64_t width)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, (size_t)width) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* A string column: file and memory types are the same fixed-length type. */
static int write_strings(wctx *w, hid_t fid, const char *name, uint64_t n, uint64_t width,
                         fill_fn fill, const void *src, int chunked)
{
    hid_t t = str_type(width);
    if (t < 0)
        h5_fail(w, "make string type for", name);
    if (!agree(w)) {
        if (t >= 0)
            H5Tclose(t);
        return 0;
    }
    dspec d = {name, t, t, (size_t)width, 0, n, chunked ? chunk_rows(n, width) : 0, 0};
    int ok = write_dset(w, fid, &d, 0, w->rank == 0 ? n : 0, fill, src);
    H5Tclose(t);
    return ok;
}

static int write_numbers(wctx *w, hid_t fid, const char *name, hid_t ftype, hid_t mtype,
                         size_t elem, uint64_t n, fill_fn fill, const void *src)
{
    dspec d = {name, ftype, mtype, elem, 0, n, chunk_rows(n, elem), 1};
    return write_dset(w, fid, &d, 0, w->rank == 0 ? n : 0, fill, src);
}

static int write_attr_str(wctx *w, hid_t fid, const char *name, const char *value)
{
    size_t n = strlen(value);
    hid_t t = str_type(n ? n : 1), space = H5Screate(H5S_SCALAR), a = -1;
    char one[1] = {0};
    if (t < 0 || space < 0 || (a = H5Acreate2(fid, name, t, space, H5P_DEFAULT, H5P_DEFAULT)) < 0
        || H5Awrite(a, t, n ? value : one) < 0)
        h5_fail(w, "write attribute", name);
    if (a >= 0)
        H5Aclose(a);
    if (space >= 0)
        H5Sclose(space);
    if (t >= 0)
        H5Tclose(t);
    return w->e.code == GS_OK;
}

static int write_attr_int(wctx *w, hid_t fid, const char *name, int value)
{
    hid_t space = H5Screate(H5S_SCALAR), a = -1;
    if (space < 0
        || (a = H5Acreate2(fid, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT)) < 0
        || H5Awrite(a, H5T_NATIVE_INT, &value) < 0)
        h5_fail(w, "write attribute", name);
    if (a >= 0)
        H5Aclose(a);
    if (space >= 0)
        H5Sclose(space);
    return w->e.code == GS_OK;
}

static int make_group(wctx *w, hid_t fid, const char *name)
{
    hid_t g = H5Gcreate2(fid, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        h5_fail(w, "create group", name);
    else
        H5Gclose(g);
    return agree(w);
}

static int write_attrs(wctx *w, hid_t fid, const wmeta *m, const char *const *s)
{
    static const struct {
        const char *name;
        int idx;
    } str_attrs[] = {{"gscan_version", B_VERSION}, {"command_line", B_CMDLINE},
                     {"engine", B_ENGINE},         {"device", B_DEVICE},
                     {"alphabet", B_ALPHABET},     {"strand_mode", B_STRANDS},
                     {"report", B_REPORT},         {"created", B_CREATED}};
    for (size_t i = 0; i < sizeof str_attrs / sizeof *str_attrs; i++)
        if (!write_attr_str(w, fid, str_attrs[i].name, s[str_attrs[i].idx]))
            break;
    if (w->e.code == GS_OK && write_attr_int(w, fid, "n_ranks", m->n_ranks))
        write_attr_int(w, fid, "n_gpus", m->n_gpus);
    if (w->e.code == GS_OK && write_attr_str(w, fid, "match_mode", s[B_MATCH]) &&
        write_attr_int(w, fid, "max_distance", m->max_dist))
        write_attr_int(w, fid, "best_per_site", m->best_per_site);
    return agree(w);
}

static int write_hits(wctx *w, hid_t fid, const gs_result *res, const wmeta *m)
{
    uint64_t n = res->n_hits, off = 0, total = 0;
    GS_MPI_CHECK(MPI_Exscan(&n, &off, 1, MPI_UINT64_T, MPI_SUM, w->comm));
    if (w->rank == 0)
        off = 0; /* MPI_Exscan leaves rank 0's result undefined */
    GS_MPI_CHECK(MPI_Allreduce(&n, &total, 1, MPI_UINT64_T, MPI_SUM, w->comm));
    if (!make_group(w, fid, "/hits"))
        return 0;
    hsize_t chunk = total < HIT_CHUNK_ROWS ? total : HIT_CHUNK_ROWS;
    enum { N_COLS = sizeof hit_cols / sizeof *hit_cols };
    dspec d[N_COLS];
    hit_src src[N_COLS];
    int nc = 0;
    for (size_t c = 0; c < N_COLS; c++) {
        const struct hit_col *hc = &hit_cols[c];
        if (hc->approx && !m->approx)
            continue;
        const hid_t ft[] = {H5T_STD_U8LE, H5T_STD_I8LE, H5T_STD_U32LE, H5T_STD_U64LE};
        const hid_t mt[] = {H5T_NATIVE_UINT8, H5T_NATIVE_INT8, H5T_NATIVE_UINT32, H5T_NATIVE_UINT64};
        const size_t bytes[] = {1, 1, 4, 8};
        d[nc] = (dspec){hc->name, ft[hc->type], mt[hc->type], bytes[hc->type], 0, total, chunk,
                        bytes[hc->type] > 1};
        src[nc++] = (hit_src){res->hits, hc->offset};
    }
    if (w->size == 1 && total > 0) /* every column through one pipeline */
        return write_direct_n(w, fid, d, nc, fill_hit_col, src, sizeof *src);
    for (int c = 0; c < nc; c++)
        if (!write_dset(w, fid, &d[c], off, n, fill_hit_col, &src[c]))
            return 0;
    return 1;
}

/* /timing/<phase>: rank 0 gathers every rank's seconds and writes them. */
static int write_timing(wctx *w, hid_t fid, const double *mine)
{
    double *all = NULL;
    if (w->rank == 0)
        all = gs_malloc((size_t)w->size * GS_N_PHASES * sizeof *all, &w->e, "timings");
    if (!agree(w))
        return 0;
    GS_MPI_CHECK(MPI_Gather(mine, GS_N_PHASES, MPI_DOUBLE, all, GS_N_PHASES, MPI_DOUBLE, 0, w->comm));
    int ok = make_group(w, fid, "/timing");
    double *col = NULL;
    if (ok && w->rank == 0)
        col = gs_malloc((size_t)w->size * sizeof *col, &w->e, "timings");
    ok = ok && agree(w);
    for (int p = 0; ok && p < GS_N_PHASES; p++) {
        char name[64];
        snprintf(name, sizeof name, "/timing/%s", gs_phase_names[p]);
        for (int r = 0; col && r < w->size; r++)
            col[r] = all[(size_t)r * GS_N_PHASES + p];
        dspec d = {name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 8, 0, (uint64_t)w->size, 0, 0};
        ok = write_dset(w, fid, &d, 0, w->rank == 0 ? (uint64_t)w->size : 0, fill_bytes, col);
    }
    free(col);
    free(all);
    return ok;
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
 * its metadata when closing it, and when that flush fails it frees the file
 * yet keeps its ID, which crashes the process at MPI_Finalize. So before
 * closing a failed file, give that flush the room a full disk took away:
 * rank 0 empties the temporary file (freeing its blocks), and every rank
 * lifts its soft file-size limit (RLIMIT_FSIZE, EFBIG) to the hard one for
 * the close only; *was receives the limit to restore. tmp: the file to
 * empty (rank 0), or NULL. Collective. */
static void make_room_to_close(wctx *w, const char *tmp, struct rlimit *was)
{
    if (tmp)
        if (truncate(tmp, 0) != 0) { /* the close below reports what matters */ }
    if (getrlimit(RLIMIT_FSIZE, was) == 0 && was->rlim_cur != was->rlim_max) {
        struct rlimit up = {was->rlim_max, was->rlim_max};
        if (setrlimit(RLIMIT_FSIZE, &up) != 0)
            was->rlim_cur = was->rlim_max; /* nothing to restore */
    }
    GS_MPI_CHECK(MPI_Barrier(w->comm));
}

gs_status gs_h5_write(const char *path, gs_result *res, MPI_Comm comm, gs_error *err)
{
    double t0 = MPI_Wtime();
    wctx w = {.comm = comm, .path = path, .dxpl = -1};
    wmeta m = {0};
    char *blob = NULL;
    const char *s[B_N] = {0};
    hid_t fapl = -1, fid = -1;
    int made = 0;
    H5E_auto2_t old_fn = NULL;
    void *old_data = NULL;

    GS_MPI_CHECK(MPI_Comm_rank(comm, &w.rank));
    GS_MPI_CHECK(MPI_Comm_size(comm, &w.size));
    H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    if (w.rank == 0)
        made = prepare(&w, res, &m, &blob);
    if (!agree(&w))
        goto done;
    GS_MPI_CHECK(MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, 0, comm));
    if (w.rank != 0)
        blob = gs_malloc((size_t)m.blob_len, &w.e, "output attributes");
    if (!agree(&w))
        goto done;
    GS_MPI_CHECK(MPI_Bcast(blob, (int)m.blob_len, MPI_CHAR, 0, comm));
    s[0] = blob;
    for (int i = 1; i < B_N; i++)
        s[i] = s[i - 1] + strlen(s[i - 1]) + 1;
    if (m.with_hits)
        check_hits(&w, res, &m);
    if (!agree(&w))
        goto done;

    /* Collective buffering for every write: ROMIO then shares an I/O error
     * with all ranks (its independent fallback for non-interleaved writes
     * does not), so HDF5 fails on every rank at the same call. */
    MPI_Info hints = MPI_INFO_NULL;
    if (MPI_Info_create(&hints) == MPI_SUCCESS)
        GS_MPI_CHECK(MPI_Info_set(hints, "romio_cb_write", "enable"));
    /* The 1.8 file format: superblock 2 and object header 2 carry checksums,
     * which readers (HDF5's and ours, h5read.c) check before they parse any
     * message, so a damaged file is an error, never a parse of bad bytes;
     * HDF5 1.8 and later read it. */
    if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 || H5Pset_fapl_mpio(fapl, comm, hints) < 0
        || H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0)
        h5_fail(&w, "set up MPI-IO for", s[B_TMP]);
    else if ((fid = H5Fcreate(s[B_TMP], H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0)
        h5_fail(&w, "create HDF5 file", s[B_TMP]);
    else if ((w.dxpl = H5Pcreate(H5P_DATASET_XFER)) < 0
             || H5Pset_dxpl_mpio(w.dxpl, H5FD_MPIO_COLLECTIVE) < 0)
        h5_fail(&w, "set up collective writes for", s[B_TMP]);
    if (hints != MPI_INFO_NULL)
        GS_MPI_CHECK(MPI_Info_free(&hints));
    if (!agree(&w) || !write_attrs(&w, fid, &m, s))
        goto done;

    const gs_patset *ps = res->patterns;
    const gs_layout *lay = res->layout;
    if (!make_group(&w, fid, "/patterns")
        || !write_strings(&w, fid, "/patterns/name", m.n_pat, m.w_pname, fill_pat_name, ps, 1)
        || !write_strings(&w, fid, "/patterns/sequence", m.n_pat, m.w_pseq, fill_pat_seq, ps, 1)
        || !write_numbers(&w, fid, "/patterns/length", H5T_STD_U32LE, H5T_NATIVE_UINT32, 4,
                          m.n_pat, fill_pat_len, ps)
        || !make_group(&w, fid, "/records")
        || !write_strings(&w, fid, "/records/name", m.n_rec, m.w_rname, fill_rec_name, lay, 1)
        || !write_numbers(&w, fid, "/records/length", H5T_STD_U64LE, H5T_NATIVE_UINT64, 8,
                          m.n_rec, fill_rec_len, lay)
        || !write_numbers(&w, fid, "/records/file", H5T_STD_U32LE, H5T_NATIVE_UINT32, 4,
                          m.n_rec, fill_rec_file, lay)
        || !write_strings(&w, fid, "/files", m.n_files, m.w_file, fill_files, lay, 0))
        goto done;
    size_t row = 8 * (size_t)m.n_strands;
    dspec counts = {"/counts", H5T_STD_U64LE, H5T_NATIVE_UINT64, row, (hsize_t)m.n_strands,
                    m.n_pat, chunk_rows(m.n_pat, row), 1};
    if (!write_dset(&w, fid, &counts, 0, w.rank == 0 ? m.n_pat : 0, fill_bytes, res->counts))
        goto done;
    if (m.with_hits && !write_hits(&w, fid, res, &m))
        goto done;

    /* The write phase: everything up to here; the final close and rename
     * are left out (they follow the timing datasets by necessity). The
     * caller measured total before calling us, so the write is added. */
    res->timing[GS_T_WRITE] = MPI_Wtime() - t0;
    res->timing[GS_T_TOTAL] += res->timing[GS_T_WRITE];
    write_timing(&w, fid, res->timing);

done:
    if (w.dxpl >= 0)
        H5Pclose(w.dxpl);
    if (fapl >= 0)
        H5Pclose(fapl);
    /* Every rank runs the same collective steps here, whatever it holds. */
    struct rlimit lim = {RLIM_INFINITY, RLIM_INFINITY};
    int failed = !agree(&w);
    if (failed)
        make_room_to_close(&w, w.rank == 0 && fid >= 0 ? s[B_TMP] : NULL, &lim);
    if (fid >= 0 && H5Fclose(fid) < 0)
        h5_fail(&w, "close HDF5 file", s[B_TMP]);
    if (failed && lim.rlim_cur != lim.rlim_max)
        setrlimit(RLIMIT_FSIZE, &lim);
    agree(&w);
    if (w.rank == 0 && made) {
        if (w.e.code == GS_OK)
            sync_file(&w, s[B_TMP]);
        if (w.e.code == GS_OK)
            gs_out_check(path, NULL, 0, &w.e); /* it may have changed while we wrote */
        if (w.e.code == GS_OK && rename(s[B_TMP], path) != 0)
            gs_fail(&w.e, GS_ESYS, "cannot rename %s to the output: %s (%s)", s[B_TMP],
                    strerror(errno), path);
        if (w.e.code != GS_OK)
            unlink(s[B_TMP]);
    }
    GS_MPI_CHECK(MPI_Bcast(&w.e, (int)sizeof w.e, MPI_BYTE, 0, comm));
    free(blob);
    H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    if (w.e.code != GS_OK)
        return gs_fail(err, w.e.code, "%s", w.e.msg);
    return GS_OK;
}

