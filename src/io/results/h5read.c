/* h5read.c - read a result file back: gscan info and gscan export.
 *
 * Serial (one process), and the large datasets are streamed in pieces, so a
 * file with billions of hits exports in bounded memory.
 *
 * A result file is input like any other (contract §5): it may be truncated,
 * hand-edited or crafted. So gs_h5_open checks every dataset the commands
 * read (present, rank, columns, type class, fixed-length strings) before any
 * is used, every read checks rank and columns again against the buffer it
 * fills, every attribute is read only when it holds exactly one value of the
 * expected class, and no size taken from the file is allocated unless the
 * data could come from a file of this size: deflate expands at most 1032
 * times, so more than 1032 x the file's bytes cannot be real.
 *
 * HDF5 1.10 parses a file's metadata with few checks of its own (fuzzed
 * attribute and layout messages overflow buffers inside HDF5 before any
 * check of ours could run), so gscan only lets HDF5 parse metadata that
 * carries a checksum: the superblock (version 2 or later) is looked at here
 * before HDF5 opens the file, and every group and dataset on a path is
 * checked to have a version 2 object header (checksummed; HDF5 verifies the
 * checksum before it decodes a message) before anything in it is looked up.
 * gscan writes such files; a file of the old format (an older gscan, or
 * another program) is refused with the command that converts it.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libdeflate.h>

#include "h5_internal.h"
#include "h5out.h"
#include "hit_seq.h"
#include "text_out.h"

struct gs_h5_file {
    hid_t fid;
    char *path;
    uint64_t limit; /* most bytes any dataset or attribute may hold (see above) */
    uint64_t bytes; /* the file's size */
    uint64_t n_pat, n_rec, n_files, n_hits;
    int n_strands, has_hits;
    int approx; /* /hits/distance and /hits/end are present (approximate modes) */
};

/* The hit columns; the last two only in approximate modes. */
static const char *const hit_cols[] = {"/hits/pattern",  "/hits/record",   "/hits/start",
                                       "/hits/strand",   "/hits/distance", "/hits/end"};

/* Rows per read: a whole number of hit chunks, 8 MiB of the widest column. */
enum { READ_ROWS = 1 << 20 };

/* deflate's largest expansion, and room for small files' fixed overheads */
enum { MAX_RATIO = 1032, SLACK = 1 << 20 };

/* n items of size bytes each fit the file's limit (no overflow). */
static int fits(const gs_h5_file *f, uint64_t n, uint64_t size)
{
    return size <= f->limit && (size == 0 || n <= f->limit / size);
}

static int abandoned; /* an open was abandoned: HDF5's state is not whole */

/* The version of the file's superblock, found where HDF5 looks for it (at 0,
 * 512, 1024, 2048, ... bytes), or -1 when there is none. */
static int superblock_version(const char *path)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char b[9];
    int v = -1;
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return -1;
    for (long at = 0; v < 0; at = at ? at * 2 : 512)
        if (fseek(fp, at, SEEK_SET) != 0 || fread(b, 1, sizeof b, fp) != sizeof b)
            break;
        else if (memcmp(b, sig, sizeof sig) == 0)
            v = b[8];
    fclose(fp);
    return v;
}

/* Each object on path name ("/a/b": "/a", then "/a/b") exists and has a
 * checksummed (version 2) object header, checked before HDF5 decodes any
 * link or message in it. 1, 0 when one is missing, PATH_OLD when one is of
 * the old format, PATH_BAD when HDF5 cannot load one (a failed checksum);
 * path_fail says which. */
enum { PATH_OLD = -1, PATH_BAD = -2 };
static int path_checked(const gs_h5_file *f, const char *name)
{
    char p[256];
    size_t n = strlen(name);
    if (n < 2 || n >= sizeof p || name[0] != '/')
        return 0; /* the root is checked at open */
    for (size_t i = 1; i <= n; i++) {
        if (i < n && name[i] != '/')
            continue;
        memcpy(p, name, i);
        p[i] = '\0';
        H5O_info_t oi;
        if (H5Lexists(f->fid, p, H5P_DEFAULT) <= 0)
            return 0;
        if (H5Oget_info_by_name2(f->fid, p, &oi, H5O_INFO_HDR, H5P_DEFAULT) < 0)
            return PATH_BAD;
        if (oi.hdr.version < 2)
            return PATH_OLD;
    }
    return 1;
}

/* The error for what (a path, or a part of the file) when r is PATH_OLD (the
 * pre-1.8 format: no checksums to check) or PATH_BAD. Returns 0. */
static int path_fail(const gs_h5_file *f, const char *what, int r, gs_error *err)
{
    char why[256];
    if (r == PATH_OLD)
        gs_fail(err, GS_EINPUT,
                "result file in the old HDF5 format without checksums (%s); "
                "convert it with h5repack -L -f GZIP=6 (%s)", what, f->path);
    else {
        gs_h5_reason(why, sizeof why);
        gs_fail(err, GS_EINPUT, "cannot read %s: %s (%s)", what, why, f->path);
        abandoned = 1; /* HDF5 1.10 keeps what it failed to load: see gs_h5_close */
    }
    return 0;
}

/* H5Dopen2 with SIGFPE turned into a failed open: HDF5 1.10 divides by a
 * chunk dimension read from the file before checking it (a fuzzed layout
 * message with a zero dimension), so a crafted file could kill the process
 * before any check of ours runs. The open that faults is abandoned (its
 * memory is lost; the caller reports the file and the process ends). */
static sigjmp_buf fpe_jump;
static volatile sig_atomic_t fpe_armed;

int gs_h5_read_abandoned(void)
{
    return abandoned;
}

static void on_fpe(int sig)
{
    if (fpe_armed)
        siglongjmp(fpe_jump, 1);
    signal(sig, SIG_DFL);
    raise(sig);
}

static hid_t open_dset_guarded(hid_t fid, const char *name)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fpe;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGFPE, &sa, &old) != 0)
        return H5Dopen2(fid, name, H5P_DEFAULT);
    volatile hid_t d = -1;
    if (sigsetjmp(fpe_jump, 1) == 0) {
        fpe_armed = 1;
        d = H5Dopen2(fid, name, H5P_DEFAULT);
    } else {
        abandoned = 1;
    }
    fpe_armed = 0;
    sigaction(SIGFPE, &old, NULL);
    return d;
}

/* Every stored chunk of a chunked dataset lies inside the file and inflates
 * to exactly one chunk: HDF5 1.10 allocates a chunk's stored size, as the
 * chunk index says, before reading it (a fuzzed index asked for 4 GiB for a
 * 36 KiB file), and copies a whole chunk out of a shorter inflated one (a
 * heap overflow). gscan's chunks are deflated (after a shuffle, which keeps
 * the size); each is read raw and inflated here first, once per open. */
static int chunks_whole(const gs_h5_file *f, hid_t d, hid_t dcpl, hid_t sp, size_t chunk_bytes)
{
    int nf = H5Pget_nfilters(dcpl), ok = 0, deflate_at = -1;
    for (int i = 0; i < nf; i++) {
        unsigned flags = 0, cd[8];
        size_t ncd = 8;
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, 0, NULL, NULL);
        if (id == H5Z_FILTER_DEFLATE)
            deflate_at = i;
        else if (id != H5Z_FILTER_SHUFFLE)
            return 0;
    }
    hsize_t n = 0;
    if (nf < 0 || H5Dget_num_chunks(d, sp, &n) < 0)
        return 0;
    struct libdeflate_decompressor *z = libdeflate_alloc_decompressor();
    uint8_t *raw = NULL, *out = malloc(chunk_bytes ? chunk_bytes : 1);
    size_t raw_cap = 0;
    if (z == NULL || out == NULL)
        goto done;
    for (hsize_t i = 0; i < n; i++) {
        haddr_t addr = 0;
        hsize_t size = 0, offset[2] = {0, 0};
        unsigned mask = 0;
        uint32_t read_mask = 0;
        if (H5Dget_chunk_info(d, sp, i, offset, &mask, &addr, &size) < 0 || addr == HADDR_UNDEF
            || addr > f->bytes || size > f->bytes - addr)
            goto done;
        if (size > raw_cap) {
            uint8_t *r = realloc(raw, (size_t)size);
            if (r == NULL)
                goto done;
            raw = r;
            raw_cap = (size_t)size;
        }
        if (H5Dread_chunk(d, H5P_DEFAULT, offset, &read_mask, raw) < 0)
            goto done;
        if (deflate_at >= 0 && !(read_mask & (1u << deflate_at))) {
            if (libdeflate_zlib_decompress(z, raw, (size_t)size, out, chunk_bytes, NULL)
                != LIBDEFLATE_SUCCESS)
                goto done;
        } else if (size != chunk_bytes) {
            goto done;
        }
    }
    ok = 1;
done:
    libdeflate_free_decompressor(z);
    free(raw);
    free(out);
    return ok;
}

/* Check that dataset name exists with the given rank (1 or 2; cols: the
 * columns of a 2-D one, 0 for 1 or 2), type class and a size the file can
 * hold; strings must be fixed-length; with whole, that its chunks are whole
 * (chunks_whole: the hit columns are checked so only when they are first
 * read, since gscan info never reads them). *dims receives its extent.
 * Returns 1, or 0 with GS_EINPUT naming the dataset and the file. */
static int dset_check(gs_h5_file *f, const char *name, int rank, hsize_t cols, H5T_class_t cls,
                      int whole, hsize_t dims[2], gs_error *err)
{
    const char *why = NULL;
    hid_t d = -1, sp = -1, t = -1;
    dims[0] = 0;
    dims[1] = 1;
    int found = path_checked(f, name);
    if (found < 0)
        return path_fail(f, name, found, err);
    if (found == 0 || (d = open_dset_guarded(f->fid, name)) < 0
        || (sp = H5Dget_space(d)) < 0 || (t = H5Dget_type(d)) < 0) {
        why = abandoned ? "has a layout HDF5 cannot open" : "is missing";
        goto done;
    }
    int r = H5Sget_simple_extent_ndims(sp);
    if (r != rank || H5Sget_simple_extent_dims(sp, dims, NULL) < 0
        || (rank == 2 && (cols ? dims[1] != cols : dims[1] < 1 || dims[1] > 2))) {
        why = "has an unexpected shape";
        goto done;
    }
    if (H5Tget_class(t) != cls || (cls == H5T_STRING && H5Tis_variable_str(t) != 0)) {
        why = cls == H5T_STRING  ? "is not a fixed-length string dataset"
              : cls == H5T_FLOAT ? "is not a floating-point dataset"
                                 : "is not an integer dataset";
        goto done;
    }
    size_t size = H5Tget_size(t);
    if (size == 0 || !fits(f, dims[0], (uint64_t)size * dims[1]) || !fits(f, dims[0], size + 1)) {
        why = "is larger than the file could hold";
        goto done;
    }
    /* gscan writes contiguous or chunked datasets only; HDF5 1.10 trusts a
     * chunk's dimensions (a chunk wider than its dataset makes H5Dread copy
     * out of bounds), and external or virtual storage would read other files */
    hid_t dcpl = H5Dget_create_plist(d);
    H5D_layout_t lay = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
    hsize_t chunk[2] = {0, 0};
    if (dcpl < 0 || (lay != H5D_CONTIGUOUS && lay != H5D_CHUNKED) || H5Pget_external_count(dcpl) != 0)
        why = "has an unexpected storage layout";
    else if (lay == H5D_CHUNKED
             && (H5Pget_chunk(dcpl, 2, chunk) != rank || chunk[0] < 1
                 || chunk[0] > (dims[0] ? dims[0] : 1)
                 || (rank == 2 && (chunk[1] < 1 || chunk[1] > dims[1]))))
        why = "has chunks that do not fit it";
    else if (lay == H5D_CHUNKED && whole
             && !chunks_whole(f, d, dcpl, sp, (size_t)(chunk[0] * (rank == 2 ? chunk[1] : 1)) * size))
        why = "has chunks that do not fit it";
    if (dcpl >= 0)
        H5Pclose(dcpl);
done:
    if (t >= 0)
        H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    if (d >= 0)
        H5Dclose(d);
    H5Eclear2(H5E_DEFAULT);
    if (why)
        gs_fail(err, GS_EINPUT, "not a gscan result file: %s %s (%s)", name, why, f->path);
    return why == NULL;
}

/* Read rows [from, from + n) of a dataset as mtype into buf, which holds n
 * rows of cols values (cols 0: the dataset must be 1-D). */
static int read_rows(hid_t fid, const char *name, hid_t mtype, hsize_t cols, uint64_t from,
                     uint64_t n, void *buf)
{
    int ok = 0;
    hid_t d = H5Dopen2(fid, name, H5P_DEFAULT), fs = -1, ms = -1;
    if (d < 0 || (fs = H5Dget_space(d)) < 0)
        goto done;
    hsize_t dims[2] = {0, 1}, start[2] = {from, 0}, count[2];
    int r = H5Sget_simple_extent_ndims(fs);
    if (r != (cols ? 2 : 1) || H5Sget_simple_extent_dims(fs, dims, NULL) < 0
        || (cols && dims[1] != cols) || from > dims[0] || n > dims[0] - from)
        goto done;
    count[0] = n;
    count[1] = dims[1];
    if (n == 0) {
        ok = 1;
        goto done;
    }
    if ((ms = H5Screate_simple(r, count, NULL)) < 0
        || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0
        || H5Dread(d, mtype, ms, fs, H5P_DEFAULT, buf) < 0)
        goto done;
    ok = 1;
done:
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    if (d >= 0)
        H5Dclose(d);
    return ok;
}

/* Rows [from, from + n) of a fixed-length string dataset, each NUL-terminated
 * at stride *stride in the returned buffer (NULL on failure, err set). */
static char *read_strings(gs_h5_file *f, const char *name, uint64_t from, uint64_t n,
                          size_t *stride, gs_error *err)
{
    char *buf = NULL;
    hid_t d = H5Dopen2(f->fid, name, H5P_DEFAULT), ft = d >= 0 ? H5Dget_type(d) : -1, mt = -1;
    if (ft < 0 || H5Tget_class(ft) != H5T_STRING || H5Tis_variable_str(ft) != 0) {
        gs_fail(err, GS_EINPUT, "%s is not a fixed-length string dataset (%s)", name, f->path);
        goto done;
    }
    size_t w = H5Tget_size(ft) + 1;
    if (w < 2 || !fits(f, n, w)) {
        gs_fail(err, GS_EINPUT, "%s is larger than the file could hold (%s)", name, f->path);
        goto done;
    }
    if ((mt = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mt, w) < 0
        || H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0) {
        gs_fail(err, GS_ESYS, "cannot make a string type for %s (%s)", name, f->path);
        goto done;
    }
    buf = gs_malloc((size_t)n * w, err, name);
    if (buf && !read_rows(f->fid, name, mt, 0, from, n, buf)) {
        char why[256];
        gs_h5_reason(why, sizeof why);
        gs_fail(err, GS_EINPUT, "cannot read %s: %s (%s)", name, why, f->path);
        free(buf);
        buf = NULL;
    }
    *stride = w;
done:
    if (mt >= 0)
        H5Tclose(mt);
    if (ft >= 0)
        H5Tclose(ft);
    if (d >= 0)
        H5Dclose(d);
    return buf;
}

static gs_status read_fail(gs_h5_file *f, const char *name, gs_error *err)
{
    char why[256];
    gs_h5_reason(why, sizeof why);
    return gs_fail(err, GS_EINPUT, "cannot read %s: %s (%s)", name, why, f->path);
}

/* Open root attribute name when it holds exactly one value of class cls
 * (strings: fixed-length, as gscan writes them; a variable-length one would
 * be read from the global heap, the one part of the file without a
 * checksum): -1 when it is missing, -2 (GS_EINPUT set) when it is of
 * another kind. */
static hid_t attr_open(gs_h5_file *f, const char *name, H5T_class_t cls, gs_error *err)
{
    if (H5Aexists(f->fid, name) <= 0)
        return -1;
    hid_t a = H5Aopen(f->fid, name, H5P_DEFAULT), sp = -1, t = -1;
    int ok = a >= 0 && (sp = H5Aget_space(a)) >= 0 && H5Sget_simple_extent_npoints(sp) == 1
             && (t = H5Aget_type(a)) >= 0 && H5Tget_class(t) == cls
             && (cls != H5T_STRING || H5Tis_variable_str(t) == 0) && fits(f, 1, H5Tget_size(t) + 1);
    if (t >= 0)
        H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    if (ok)
        return a;
    if (a >= 0)
        H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
    gs_fail(err, GS_EINPUT, "not a gscan result file: attribute %s is not one %s (%s)", name,
            cls == H5T_STRING ? "string" : "integer", f->path);
    return -2;
}

/* A string attribute of the root group into buf ("" when missing). */
static void attr_str(gs_h5_file *f, const char *name, char *buf, size_t size, gs_error *err)
{
    buf[0] = '\0';
    hid_t a = attr_open(f, name, H5T_STRING, err), ft = a >= 0 ? H5Aget_type(a) : -1, mt = -1;
    if (ft >= 0) {
        size_t w = H5Tget_size(ft) + 1; /* bounded by attr_open */
        char *v = gs_malloc(w, err, name);
        mt = H5Tcopy(H5T_C_S1);
        if (v && mt >= 0 && H5Tset_size(mt, w) >= 0 && H5Tset_strpad(mt, H5T_STR_NULLTERM) >= 0
            && H5Aread(a, mt, v) >= 0)
            snprintf(buf, size, "%s", v);
        free(v);
    }
    if (mt >= 0)
        H5Tclose(mt);
    if (ft >= 0)
        H5Tclose(ft);
    if (a >= 0)
        H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
}

/* An integer attribute of the root group (-1 when missing or unreadable). */
static long attr_int(gs_h5_file *f, const char *name, gs_error *err)
{
    int v = -1;
    hid_t a = attr_open(f, name, H5T_INTEGER, err);
    if (a >= 0) {
        if (H5Aread(a, H5T_NATIVE_INT, &v) < 0)
            v = -1;
        H5Aclose(a);
    }
    H5Eclear2(H5E_DEFAULT);
    return v;
}

gs_status gs_h5_open(const char *path, gs_h5_file **out, gs_error *err)
{
    H5E_auto2_t old_fn = NULL;
    void *old_data = NULL;
    gs_h5_file *f = NULL;
    struct stat st;
    *out = NULL;
    H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, R_OK) != 0) {
        gs_fail(err, GS_EINPUT, "cannot open result file: %s (%s)",
                errno ? strerror(errno) : "not a regular file", path);
        goto fail;
    }
    int sb = superblock_version(path);
    if (sb < 0) { /* no signature where HDF5 looks for one */
        gs_fail(err, GS_EINPUT, "not an HDF5 file (%s)", path);
        goto fail;
    }
    f = gs_calloc(1, sizeof *f, err, "result file");
    if (f == NULL)
        goto fail;
    f->fid = -1;
    if ((f->path = strdup(path)) == NULL) {
        gs_fail(err, GS_ESYS, "out of memory (%s)", path);
        goto fail;
    }
    if (sb < 2) {
        char what[64];
        snprintf(what, sizeof what, "superblock version %d", sb);
        path_fail(f, what, PATH_OLD, err);
        goto fail;
    }
    if ((f->fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
        char why[256];
        gs_h5_reason(why, sizeof why);
        gs_fail(err, GS_EINPUT, "cannot open HDF5 file: %s (%s)", why, path);
        goto fail;
    }
    f->limit = (uint64_t)st.st_size * MAX_RATIO + SLACK;
    f->bytes = (uint64_t)st.st_size;
    hsize_t pd[2], rd[2], fd[2], cd[2], hd[2];
    H5O_info_t root;
    int got = H5Oget_info2(f->fid, &root, H5O_INFO_HDR) < 0 ? PATH_BAD
              : root.hdr.version < 2                      ? PATH_OLD
                                                          : 1;
    if (got < 0) {
        path_fail(f, "the root group", got, err);
        goto fail;
    }
    int pat = path_checked(f, "/patterns"), rec = path_checked(f, "/records");
    if (pat < 0 || rec < 0) {
        path_fail(f, pat < 0 ? "/patterns" : "/records", pat < 0 ? pat : rec, err);
        goto fail;
    }
    if (H5Aexists(f->fid, "gscan_version") <= 0 || pat == 0 || rec == 0) {
        H5Eclear2(H5E_DEFAULT);
        gs_fail(err, GS_EINPUT, "not a gscan result file (%s)", path);
        goto fail;
    }
    if (!dset_check(f, "/patterns/name", 1, 0, H5T_STRING, 1, pd, err)
        || !dset_check(f, "/records/name", 1, 0, H5T_STRING, 1, rd, err)
        || !dset_check(f, "/files", 1, 0, H5T_STRING, 1, fd, err)
        || !dset_check(f, "/counts", 2, 0, H5T_INTEGER, 1, cd, err))
        goto fail;
    f->n_pat = pd[0];
    f->n_rec = rd[0];
    f->n_files = fd[0];
    f->n_strands = (int)cd[1];
    /* the columns read alongside those above must match their lengths */
    static const struct {
        const char *name;
        H5T_class_t cls;
        int of_records;
    } same[] = {{"/patterns/sequence", H5T_STRING, 0},
                {"/patterns/length", H5T_INTEGER, 0},
                {"/records/length", H5T_INTEGER, 1}};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        if (!dset_check(f, same[i].name, 1, 0, same[i].cls, 1, hd, err))
            goto fail;
        if (hd[0] != (same[i].of_records ? f->n_rec : f->n_pat)) {
            gs_fail(err, GS_EINPUT, "not a gscan result file: %s is of another length (%s)",
                    same[i].name, path);
            goto fail;
        }
    }
    if (cd[0] != f->n_pat) {
        gs_fail(err, GS_EINPUT, "not a gscan result file: /counts is of another length (%s)", path);
        goto fail;
    }
    int hits = path_checked(f, "/hits");
    if (hits < 0) {
        path_fail(f, "/hits", hits, err);
        goto fail;
    }
    f->has_hits = hits > 0;
    if (f->has_hits) {
        for (int c = 0; c < 4; c++) {
            if (!dset_check(f, hit_cols[c], 1, 0, H5T_INTEGER, 0, hd, err))
                goto fail;
            if (c > 0 && hd[0] != f->n_hits) {
                gs_fail(err, GS_EINPUT, "%s is missing or of another length (%s)", hit_cols[c],
                        path);
                goto fail;
            }
            f->n_hits = hd[0];
        }
        const char *const *acols = hit_cols + 4;
        int have = 0;
        for (int c = 0; c < 2; c++)
            if (path_checked(f, acols[c]) != 0) { /* -1: dset_check says why */
                if (!dset_check(f, acols[c], 1, 0, H5T_INTEGER, 0, hd, err))
                    goto fail;
                if (hd[0] != f->n_hits) {
                    gs_fail(err, GS_EINPUT, "%s is of another length (%s)", acols[c], path);
                    goto fail;
                }
                have++;
            }
        if (have == 1) {
            gs_fail(err, GS_EINPUT, "/hits/distance and /hits/end come together (%s)", path);
            goto fail;
        }
        f->approx = have == 2;
    }
    H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    *out = f;
    return GS_OK;
fail:
    gs_h5_close(f);
    H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    return err->code;
}

void gs_h5_close(gs_h5_file *f)
{
    if (f == NULL)
        return;
    /* a file whose metadata failed its checks half-way may not close (HDF5
     * 1.10 keeps the objects it could not load): the process then ends
     * without closing HDF5 (main.c), which would loop over them */
    if (f->fid >= 0 && (H5Fclose(f->fid) < 0 || H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) > 0))
        abandoned = 1;
    H5Eclear2(H5E_DEFAULT);
    free(f->path);
    free(f);
}

/* The ten patterns with the most hits (ties: lower id first). */
enum { TOP_N = 10 };
typedef struct top_entry {
    uint64_t id, total, fwd, rev;
} top_entry;

/* Insert e into the sorted top list when it belongs there. */
static void top_insert(top_entry *top, int *n, const top_entry *e)
{
    int pos = *n;
    while (pos > 0 && top[pos - 1].total < e->total)
        pos--; /* equal totals keep the earlier (lower) id first */
    if (pos >= TOP_N)
        return;
    int last = *n < TOP_N ? *n : TOP_N - 1;
    memmove(&top[pos + 1], &top[pos], (size_t)(last - pos) * sizeof *top);
    top[pos] = *e;
    if (*n < TOP_N)
        (*n)++;
}

static void print_list(FILE *out, gs_h5_file *f, const char *names, const char *lens,
                       uint64_t n, gs_error *err)
{
    enum { SHOW = 5 };
    uint64_t k = n < SHOW ? n : SHOW;
    size_t stride = 0;
    char *v = k ? read_strings(f, names, 0, k, &stride, err) : NULL;
    uint64_t len[SHOW];
    if (k && v == NULL)
        return;
    if (lens && k && !read_rows(f->fid, lens, H5T_NATIVE_UINT64, 0, 0, k, len)) {
        read_fail(f, lens, err);
        free(v);
        return;
    }
    for (uint64_t i = 0; i < k; i++) {
        if (lens)
            fprintf(out, "  %s\t%" PRIu64 "\n", v + i * stride, len[i]);
        else
            fprintf(out, "  %s\n", v + i * stride);
    }
    if (n > k)
        fprintf(out, "  ... and %" PRIu64 " more\n", n - k);
    free(v);
}

gs_status gs_h5_info(gs_h5_file *f, FILE *out, gs_error *err)
{
    H5E_auto2_t old_fn = NULL;
    void *old_data = NULL;
    uint64_t *buf = NULL;
    uint32_t *lens = NULL;
    top_entry top[TOP_N + 1];
    int n_top = 0;
    char s[1024];
    H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    static const struct {
        const char *label, *attr;
    } attrs[] = {{"gscan version", "gscan_version"}, {"command line", "command_line"},
                 {"engine", "engine"},               {"device", "device"},
                 {"alphabet", "alphabet"},           {"strands", "strand_mode"},
                 {"report", "report"},               {"created", "created"}};
    fprintf(out, "file: %s\n", f->path);
    for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
        attr_str(f, attrs[i].attr, s, sizeof s, err);
        fprintf(out, "  %-14s %s\n", attrs[i].label, s);
    }
    fprintf(out, "  %-14s %ld\n", "ranks", attr_int(f, "n_ranks", err));
    fprintf(out, "  %-14s %ld\n", "gpus", attr_int(f, "n_gpus", err));
    if (H5Aexists(f->fid, "match_mode") > 0) {
        attr_str(f, "match_mode", s, sizeof s, err);
        if (strcmp(s, "exact") != 0)
            fprintf(out, "  %-14s %s, K = %ld%s\n", "matching", s, attr_int(f, "max_distance", err),
                    attr_int(f, "best_per_site", err) > 0 ? ", best per site" : "");
    }

    if (err->code != GS_OK)
        goto fail;
    fprintf(out, "files: %" PRIu64 "\n", f->n_files);
    print_list(out, f, "/files", NULL, f->n_files, err);
    if (err->code != GS_OK)
        goto fail;

    /* Records: stream the lengths for the total. */
    uint64_t residues = 0;
    buf = gs_malloc(READ_ROWS * 2 * sizeof *buf, err, "counts");
    lens = gs_malloc(READ_ROWS * sizeof *lens, err, "pattern lengths");
    if (buf == NULL || lens == NULL)
        goto fail;
    for (uint64_t at = 0; at < f->n_rec; at += READ_ROWS) {
        uint64_t k = f->n_rec - at < READ_ROWS ? f->n_rec - at : READ_ROWS;
        if (!read_rows(f->fid, "/records/length", H5T_NATIVE_UINT64, 0, at, k, buf)) {
            read_fail(f, "/records/length", err);
            goto fail;
        }
        for (uint64_t i = 0; i < k; i++)
            residues += buf[i];
    }
    fprintf(out, "records: %" PRIu64 " (%" PRIu64 " residues)\n", f->n_rec, residues);
    print_list(out, f, "/records/name", "/records/length", f->n_rec, err);
    if (err->code != GS_OK)
        goto fail;

    /* Patterns and counts, streamed together. */
    uint64_t strand_total[2] = {0, 0}, present = 0;
    uint32_t lmin = UINT32_MAX, lmax = 0;
    int S = f->n_strands;
    for (uint64_t at = 0; at < f->n_pat; at += READ_ROWS) {
        uint64_t k = f->n_pat - at < READ_ROWS ? f->n_pat - at : READ_ROWS;
        if (!read_rows(f->fid, "/counts", H5T_NATIVE_UINT64, (hsize_t)S, at, k, buf)) {
            read_fail(f, "/counts", err);
            goto fail;
        }
        if (!read_rows(f->fid, "/patterns/length", H5T_NATIVE_UINT32, 0, at, k, lens)) {
            read_fail(f, "/patterns/length", err);
            goto fail;
        }
        for (uint64_t i = 0; i < k; i++) {
            top_entry e = {at + i, 0, buf[i * S], S == 2 ? buf[i * S + 1] : 0};
            e.total = e.fwd + e.rev;
            strand_total[0] += e.fwd;
            strand_total[1] += e.rev;
            present += e.total > 0;
            if (e.total > 0)
                top_insert(top, &n_top, &e);
            lmin = lens[i] < lmin ? lens[i] : lmin;
            lmax = lens[i] > lmax ? lens[i] : lmax;
        }
    }
    if (f->n_pat > 0)
        fprintf(out, "patterns: %" PRIu64 " (length %" PRIu32 " to %" PRIu32 ")\n", f->n_pat,
                lmin, lmax);
    else
        fprintf(out, "patterns: 0\n");
    if (S == 2)
        fprintf(out, "hits: %" PRIu64 " (forward %" PRIu64 ", reverse %" PRIu64 ")%s\n",
                strand_total[0] + strand_total[1], strand_total[0], strand_total[1],
                f->has_hits ? "" : ", counts only");
    else
        fprintf(out, "hits: %" PRIu64 " (forward strand only)%s\n", strand_total[0],
                f->has_hits ? "" : ", counts only");
    fprintf(out, "patterns with hits: %" PRIu64 ", without: %" PRIu64 "\n", present,
            f->n_pat - present);
    if (n_top > 0)
        fprintf(out, "top patterns by count:\n");
    for (int i = 0; i < n_top; i++) {
        size_t stride = 0;
        char *name = read_strings(f, "/patterns/name", top[i].id, 1, &stride, err);
        if (name == NULL)
            goto fail;
        if (S == 2)
            fprintf(out, "  %2d. %s\t%" PRIu64 " (forward %" PRIu64 ", reverse %" PRIu64 ")\n",
                    i + 1, name, top[i].total, top[i].fwd, top[i].rev);
        else
            fprintf(out, "  %2d. %s\t%" PRIu64 "\n", i + 1, name, top[i].total);
        free(name);
    }

    /* Timing: the slowest rank of each phase is what the run waited for. */
    int header = 0;
    for (int p = 0; p < GS_N_PHASES; p++) {
        char name[64];
        hsize_t dims[2] = {0};
        snprintf(name, sizeof name, "/timing/%s", gs_phase_names[p]);
        if (path_checked(f, name) == 0)
            continue; /* older files have fewer phases (-1: dset_check says why) */
        if (!dset_check(f, name, 1, 0, H5T_FLOAT, 1, dims, err))
            goto fail;
        if (dims[0] == 0 || dims[0] > READ_ROWS * 2)
            continue;
        double *t = (double *)buf, mx = 0;
        if (!read_rows(f->fid, name, H5T_NATIVE_DOUBLE, 0, 0, dims[0], t)) {
            read_fail(f, name, err);
            goto fail;
        }
        for (hsize_t r = 0; r < dims[0]; r++)
            mx = t[r] > mx ? t[r] : mx;
        if (!header++)
            fprintf(out, "timing (seconds, max over %llu ranks):\n", (unsigned long long)dims[0]);
        fprintf(out, "  %-9s %.3f\n", gs_phase_names[p], mx);
    }
    H5Eclear2(H5E_DEFAULT);
    if (fflush(out) != 0 || ferror(out))
        gs_fail(err, GS_ESYS, "cannot write the summary: %s (%s)", strerror(errno), f->path);
fail:
    free(buf);
    free(lens);
    H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    return err->code;
}

gs_status gs_h5_export(gs_h5_file *f, const char *format, FILE *out, gs_error *err)
{
    return gs_h5_export_seq(f, format, 0, NULL, 0, out, err);
}

/* --seq: the records' files and lengths to match them to the corpus index. */
static gs_status open_seq(gs_h5_file *f, char *const *corpus, size_t n_corpus, const char *rnames,
                          size_t rstride, gs_hit_seq **hs, gs_error *err)
{
    hsize_t d[2];
    uint32_t *file = NULL;
    uint64_t *len = NULL;
    char alpha[16];
    if (n_corpus != f->n_files)
        return gs_fail(err, GS_EUSAGE,
                       "--corpus needs the %llu file(s) of the scan, in order, not %zu (%s)",
                       (unsigned long long)f->n_files, n_corpus, f->path);
    attr_str(f, "alphabet", alpha, sizeof alpha, err);
    if (err->code == GS_OK && dset_check(f, "/records/file", 1, 0, H5T_INTEGER, 1, d, err)) {
        if (d[0] != f->n_rec)
            gs_fail(err, GS_EINPUT, "not a gscan result file: /records/file is of another length (%s)",
                    f->path);
        file = gs_malloc(f->n_rec * sizeof *file, err, "records");
        len = gs_malloc(f->n_rec * sizeof *len, err, "records");
        if (err->code == GS_OK
            && (!read_rows(f->fid, "/records/file", H5T_NATIVE_UINT32, 0, 0, f->n_rec, file)
                || !read_rows(f->fid, "/records/length", H5T_NATIVE_UINT64, 0, 0, f->n_rec, len)))
            read_fail(f, "/records", err);
        if (err->code == GS_OK)
            gs_hit_seq_open(corpus, n_corpus, rnames ? rnames : "", rstride, file, len,
                            (size_t)f->n_rec, strcmp(alpha, "bytes") != 0, hs, err);
    }
    free(file);
    free(len);
    return err->code;
}

gs_status gs_h5_export_seq(gs_h5_file *f, const char *format, int with_seq, char *const *corpus,
                           size_t n_corpus, FILE *out, gs_error *err)
{
    gs_hit_seq *hs = NULL;
    char *seq = NULL, *fnames = NULL, **fv = NULL;
    H5E_auto2_t old_fn = NULL;
    void *old_data = NULL;
    char *rnames = NULL, *pnames = NULL, *line = NULL;
    uint32_t *plen = NULL, *pat = NULL, *rec = NULL;
    uint64_t *start = NULL, *end = NULL;
    int8_t *strand = NULL;
    uint8_t *dist = NULL;
    size_t rstride = 0, pstride = 0;
    gs_text_format fmt;
    H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    if (gs_text_format_parse(format, &fmt) != 0) {
        gs_fail(err, GS_EUSAGE, "unknown export format '%s' (tsv or bed)", format);
        goto fail;
    }
    if (!f->has_hits) {
        gs_fail(err, GS_EINPUT, "no hits in %s (run gscan scan with --report hits)", f->path);
        goto fail;
    }
    for (int c = 0; c < (f->approx ? 6 : 4); c++) {
        hsize_t dims[2];
        if (!dset_check(f, hit_cols[c], 1, 0, H5T_INTEGER, 1, dims, err))
            goto fail;
    }
    /* Names are looked up at random, so they are held whole; hits stream. */
    if (f->n_rec && (rnames = read_strings(f, "/records/name", 0, f->n_rec, &rstride, err)) == NULL)
        goto fail;
    if (f->n_pat
        && (pnames = read_strings(f, "/patterns/name", 0, f->n_pat, &pstride, err)) == NULL)
        goto fail;
    plen = gs_malloc(f->n_pat * sizeof *plen, err, "pattern lengths");
    pat = gs_malloc(READ_ROWS * sizeof *pat, err, "hits");
    rec = gs_malloc(READ_ROWS * sizeof *rec, err, "hits");
    start = gs_malloc(READ_ROWS * sizeof *start, err, "hits");
    strand = gs_malloc(READ_ROWS * sizeof *strand, err, "hits");
    if (!plen || !pat || !rec || !start || !strand)
        goto fail;
    if (f->approx && ((end = gs_malloc(READ_ROWS * sizeof *end, err, "hits")) == NULL ||
                      (dist = gs_malloc(READ_ROWS * sizeof *dist, err, "hits")) == NULL))
        goto fail;
    if (!read_rows(f->fid, "/patterns/length", H5T_NATIVE_UINT32, 0, 0, f->n_pat, plen)) {
        read_fail(f, "/patterns/length", err);
        goto fail;
    }
    uint32_t longest = 0;
    for (uint64_t i = 0; i < f->n_pat; i++)
        longest = plen[i] > longest ? plen[i] : longest;
    if (with_seq && corpus == NULL && f->n_files) { /* the files the scan was given */
        size_t fstride = 0;
        if ((fnames = read_strings(f, "/files", 0, f->n_files, &fstride, err)) == NULL
            || (fv = gs_malloc(f->n_files * sizeof *fv, err, "files")) == NULL)
            goto fail;
        for (uint64_t i = 0; i < f->n_files; i++)
            fv[i] = fnames + i * fstride;
        corpus = fv;
        n_corpus = (size_t)f->n_files;
    }
    if (with_seq && (open_seq(f, corpus, n_corpus, rnames, rstride, &hs, err) != GS_OK
                   || (seq = gs_malloc((size_t)longest + 1, err, "--seq")) == NULL))
        goto fail;
    /* >= gs_text_hit_row_max */
    line = gs_malloc(rstride + pstride + (seq ? (size_t)longest + 1 : 0) + 64, err, "export line");
    if (line == NULL)
        goto fail;
    gs_text_hits_header(out, fmt, f->approx, seq != NULL);
    for (uint64_t at = 0; at < f->n_hits; at += READ_ROWS) {
        uint64_t k = f->n_hits - at < READ_ROWS ? f->n_hits - at : READ_ROWS;
        if (!read_rows(f->fid, "/hits/pattern", H5T_NATIVE_UINT32, 0, at, k, pat)
            || !read_rows(f->fid, "/hits/record", H5T_NATIVE_UINT32, 0, at, k, rec)
            || !read_rows(f->fid, "/hits/start", H5T_NATIVE_UINT64, 0, at, k, start)
            || !read_rows(f->fid, "/hits/strand", H5T_NATIVE_INT8, 0, at, k, strand)
            || (f->approx && !read_rows(f->fid, "/hits/end", H5T_NATIVE_UINT64, 0, at, k, end))
            || (f->approx && !read_rows(f->fid, "/hits/distance", H5T_NATIVE_UINT8, 0, at, k, dist))) {
            read_fail(f, "/hits", err);
            goto fail;
        }
        for (uint64_t i = 0; i < k; i++) {
            if (pat[i] >= f->n_pat || rec[i] >= f->n_rec || (strand[i] != 1 && strand[i] != -1)) {
                gs_fail(err, GS_EINPUT,
                        "corrupt hit %" PRIu64 ": pattern %" PRIu32 ", record %" PRIu32
                        ", strand %d (%s)",
                        at + i, pat[i], rec[i], strand[i], f->path);
                goto fail;
            }
            gs_text_hit t = {rnames + (size_t)rec[i] * rstride, pnames + (size_t)pat[i] * pstride,
                             start[i], end ? end[i] : start[i] + plen[pat[i]], strand[i], seq,
                             dist ? dist[i] : -1};
            if (seq && gs_hit_seq_get(hs, rec[i], t.start, t.end, strand[i], seq, err) != GS_OK)
                goto fail;
            fwrite(line, 1, gs_text_hit_row(line, fmt, &t), out);
        }
        if (ferror(out))
            break;
    }
    if (fflush(out) != 0 || ferror(out))
        gs_fail(err, GS_ESYS, "cannot write the exported hits: %s (%s)", strerror(errno), f->path);
fail:
    free(rnames);
    free(pnames);
    free(plen);
    free(pat);
    free(rec);
    free(start);
    free(strand);
    free(end);
    free(dist);
    free(line);
    free(seq);
    free(fnames);
    free(fv);
    gs_hit_seq_close(hs);
    H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    return err->code;
}


gs_status gs_h5_export_counts(gs_h5_file *f, FILE *out, gs_error *err)
{
    H5E_auto2_t old_fn = NULL;
    void *old_data = NULL;
    char *names = NULL, *seqs = NULL;
    uint64_t *counts = NULL;
    uint32_t *lens = NULL;
    size_t nstride = 0, sstride = 0;
    H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    counts = gs_malloc(READ_ROWS * 2 * sizeof *counts, err, "counts");
    lens = gs_malloc(READ_ROWS * sizeof *lens, err, "pattern lengths");
    if (counts == NULL || lens == NULL)
        goto fail;
    gs_text_counts_header(out);
    for (uint64_t at = 0; at < f->n_pat && !ferror(out); at += READ_ROWS) {
        uint64_t k = f->n_pat - at < READ_ROWS ? f->n_pat - at : READ_ROWS;
        free(names);
        free(seqs);
        seqs = NULL;
        if ((names = read_strings(f, "/patterns/name", at, k, &nstride, err)) == NULL
            || (seqs = read_strings(f, "/patterns/sequence", at, k, &sstride, err)) == NULL)
            goto fail;
        if (!read_rows(f->fid, "/counts", H5T_NATIVE_UINT64, (hsize_t)f->n_strands, at, k, counts)) {
            read_fail(f, "/counts", err);
            goto fail;
        }
        if (!read_rows(f->fid, "/patterns/length", H5T_NATIVE_UINT32, 0, at, k, lens)) {
            read_fail(f, "/patterns/length", err);
            goto fail;
        }
        for (uint64_t i = 0; i < k; i++)
            gs_text_counts_row(out, names + i * nstride, seqs + i * sstride, lens[i],
                               counts + i * (uint64_t)f->n_strands, f->n_strands);
    }
    if (fflush(out) != 0 || ferror(out))
        gs_fail(err, GS_ESYS, "cannot write the exported counts: %s (%s)", strerror(errno),
                f->path);
fail:
    free(names);
    free(seqs);
    free(counts);
    free(lens);
    H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    return err->code;
}
