/* h5_open.c - open a result file and check it before anything is read.
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
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libdeflate.h>

#include "h5_file.h"
#include "h5_internal.h"
#include "h5_props.h"

const char *const gs_h5_hit_cols[6] = {"/hits/pattern",  "/hits/record",   "/hits/start",
                                       "/hits/strand",   "/hits/distance", "/hits/end"};

/* deflate's largest expansion, and room for small files' fixed overheads */
enum { MAX_RATIO = 1032, SLACK = 1 << 20 };

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
int gs_h5_path_checked(const gs_h5_file *f, const char *name)
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
 * pre-1.8 format: no checksums to check) or PATH_BAD. */
static gs_status path_fail(const gs_h5_file *f, const char *what, int r, gs_error *err)
{
    char why[256];
    if (r == PATH_OLD)
        gs_fail(err, GS_EINPUT,
                "result file in the old HDF5 format without checksums (%s); "
                "convert it with h5repack -L -f GZIP=6 (%s)", what, f->s.path);
    else {
        gs_h5_reason(why, sizeof why);
        gs_fail(err, GS_EINPUT, "cannot read %s: %s (%s)", what, why, f->s.path);
        abandoned = 1; /* HDF5 1.10 keeps what it failed to load: see gs_h5_close */
    }
    return err->code;
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

gs_status gs_h5_dset_check(gs_h5_file *f, const char *name, H5T_class_t cls, int flags,
                           hsize_t dims[2], gs_error *err)
{
    const char *why = NULL;
    const int rank = flags & GS_DS_2D ? 2 : 1, whole = !(flags & GS_DS_LAZY);
    hid_t d = -1, sp = -1, t = -1;
    dims[0] = 0;
    dims[1] = 1;
    int found = gs_h5_path_checked(f, name);
    if (found < 0)
        return path_fail(f, name, found, err);
    if (found == 0 || (d = open_dset_guarded(f->fid, name)) < 0
        || (sp = H5Dget_space(d)) < 0 || (t = H5Dget_type(d)) < 0) {
        why = abandoned ? "has a layout HDF5 cannot open" : "is missing";
        goto done;
    }
    int r = H5Sget_simple_extent_ndims(sp);
    if (r != rank || H5Sget_simple_extent_dims(sp, dims, NULL) < 0
        || (rank == 2 && (dims[1] < 1 || dims[1] > 2))) {
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
    if (size == 0 || !gs_h5_fits(f, dims[0], (uint64_t)size * dims[1])
        || !gs_h5_fits(f, dims[0], size + 1)) {
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
        return gs_fail(err, GS_EINPUT, "not a gscan result file: %s %s (%s)", name, why, f->s.path);
    return GS_OK;
}

/* The file exists, is a regular file we may read, carries a superblock of
 * version 2 or later, and HDF5 opens it. */
static gs_status open_file(const char *path, gs_h5_file **out, gs_error *err)
{
    struct stat st;
    /* looked at before anything opens it: a FIFO would wait for a writer
     * (and HDF5 cannot read one) */
    errno = 0;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, R_OK) != 0)
        return errno ? gs_fail_open(err, "result file", path)
                     : gs_fail(err, GS_EINPUT, "cannot open result file: not a regular file (%s)",
                               path);
    int sb = superblock_version(path);
    if (sb < 0) /* no signature where HDF5 looks for one */
        return gs_fail(err, GS_EINPUT, "not an HDF5 file (%s)", path);
    gs_h5_file *f = *out = gs_calloc(1, sizeof *f, err, "result file");
    if (f == NULL)
        return GS_ESYS;
    f->fid = -1;
    if ((f->s.path = strdup(path)) == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (%s)", path);
    if (sb < 2) {
        char what[64];
        snprintf(what, sizeof what, "superblock version %d", sb);
        return path_fail(f, what, PATH_OLD, err);
    }
    hid_t fapl = gs_h5_fapl_read();
    if (fapl >= 0) {
        f->fid = H5Fopen(path, H5F_ACC_RDONLY, fapl);
        H5Pclose(fapl);
    }
    if (f->fid < 0) {
        char why[256];
        gs_h5_reason(why, sizeof why);
        return gs_fail(err, GS_EINPUT, "cannot open HDF5 file: %s (%s)", why, path);
    }
    f->limit = (uint64_t)st.st_size * MAX_RATIO + SLACK;
    f->bytes = (uint64_t)st.st_size;
    return GS_OK;
}

/* The root group, /patterns and /records are of the checksummed format,
 * and the root says it is gscan's. */
static gs_status check_root(gs_h5_file *f, gs_error *err)
{
    H5O_info_t root;
    int got = H5Oget_info2(f->fid, &root, H5O_INFO_HDR) < 0 ? PATH_BAD
              : root.hdr.version < 2                      ? PATH_OLD
                                                          : 1;
    if (got < 0)
        return path_fail(f, "the root group", got, err);
    int pat = gs_h5_path_checked(f, "/patterns"), rec = gs_h5_path_checked(f, "/records");
    if (pat < 0 || rec < 0)
        return path_fail(f, pat < 0 ? "/patterns" : "/records", pat < 0 ? pat : rec, err);
    if (H5Aexists(f->fid, "gscan_version") <= 0 || pat == 0 || rec == 0) {
        H5Eclear2(H5E_DEFAULT);
        return gs_fail(err, GS_EINPUT, "not a gscan result file (%s)", f->s.path);
    }
    return GS_OK;
}

/* The pattern, record and file tables and the counts, each column of the
 * length of its table. */
static gs_status check_tables(gs_h5_file *f, gs_error *err)
{
    hsize_t pd[2], rd[2], fd[2], cd[2], hd[2];
    if (gs_h5_dset_check(f, "/patterns/name", H5T_STRING, 0, pd, err) != GS_OK
        || gs_h5_dset_check(f, "/records/name", H5T_STRING, 0, rd, err) != GS_OK
        || gs_h5_dset_check(f, "/files", H5T_STRING, 0, fd, err) != GS_OK
        || gs_h5_dset_check(f, "/counts", H5T_INTEGER, GS_DS_2D, cd, err) != GS_OK)
        return err->code;
    f->s.n_pat = pd[0];
    f->s.n_rec = rd[0];
    f->s.n_files = fd[0];
    f->s.n_strands = (int)cd[1];
    /* the columns read alongside those above must match their lengths */
    static const struct {
        const char *name;
        H5T_class_t cls;
        int of_records;
    } same[] = {{"/patterns/sequence", H5T_STRING, 0},
                {"/patterns/length", H5T_INTEGER, 0},
                {"/records/length", H5T_INTEGER, 1}};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        if (gs_h5_dset_check(f, same[i].name, same[i].cls, 0, hd, err) != GS_OK)
            return err->code;
        if (hd[0] != (same[i].of_records ? f->s.n_rec : f->s.n_pat))
            return gs_fail(err, GS_EINPUT, "not a gscan result file: %s is of another length (%s)",
                           same[i].name, f->s.path);
    }
    if (cd[0] != f->s.n_pat)
        return gs_fail(err, GS_EINPUT, "not a gscan result file: /counts is of another length (%s)",
                       f->s.path);
    return GS_OK;
}

/* /hits, when present: four columns of one length, and the two of the
 * approximate modes both or neither. */
static gs_status check_hits(gs_h5_file *f, gs_error *err)
{
    hsize_t hd[2];
    int hits = gs_h5_path_checked(f, "/hits");
    if (hits < 0)
        return path_fail(f, "/hits", hits, err);
    f->s.has_hits = hits > 0;
    if (!f->s.has_hits)
        return GS_OK;
    for (int c = 0; c < 4; c++) {
        if (gs_h5_dset_check(f, gs_h5_hit_cols[c], H5T_INTEGER, GS_DS_LAZY, hd, err) != GS_OK)
            return err->code;
        if (c > 0 && hd[0] != f->s.n_hits)
            return gs_fail(err, GS_EINPUT, "%s is missing or of another length (%s)",
                           gs_h5_hit_cols[c], f->s.path);
        f->s.n_hits = hd[0];
    }
    const char *const *acols = gs_h5_hit_cols + 4;
    int have = 0;
    for (int c = 0; c < 2; c++)
        if (gs_h5_path_checked(f, acols[c]) != 0) { /* -1: gs_h5_dset_check says why */
            if (gs_h5_dset_check(f, acols[c], H5T_INTEGER, GS_DS_LAZY, hd, err) != GS_OK)
                return err->code;
            if (hd[0] != f->s.n_hits)
                return gs_fail(err, GS_EINPUT, "%s is of another length (%s)", acols[c],
                               f->s.path);
            have++;
        }
    if (have == 1)
        return gs_fail(err, GS_EINPUT, "/hits/distance and /hits/end come together (%s)",
                       f->s.path);
    f->s.approx = have == 2;
    return GS_OK;
}

gs_status gs_h5_open(const char *path, gs_h5_file **out, gs_error *err)
{
    gs_h5_quiet q = gs_h5_quiet_begin();
    gs_h5_file *f = NULL;
    gs_status st = open_file(path, &f, err);
    if (st == GS_OK)
        st = check_root(f, err);
    if (st == GS_OK)
        st = check_tables(f, err);
    if (st == GS_OK)
        st = check_hits(f, err);
    if (st != GS_OK) {
        gs_h5_close(f);
        f = NULL;
    }
    *out = f;
    gs_h5_quiet_end(q);
    return st;
}

const gs_h5_shape *gs_h5_shape_of(const gs_h5_file *f)
{
    return &f->s;
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
    free((char *)f->s.path);
    free(f);
}
