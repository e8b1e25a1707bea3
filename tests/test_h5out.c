/* test_h5out.c - the result file: write, read back with the bare HDF5 C API,
 * fail cleanly, and give the same file at any rank count.
 *
 * Run alone it checks every dataset and attribute against values computed
 * here (counts from the hit list, not from h5out), the chunking and filters,
 * the failure cases (missing directory, a path under a regular file, a
 * read-only directory, a full disk simulated with RLIMIT_FSIZE), the text of
 * gscan info / export, and that h5py reads the fixed-length strings. Run
 * under mpiexec with several ranks it writes the same result split over the
 * ranks in two ways (one rank with no hits) and compares both files with a
 * single-process one, dataset by dataset and with h5diff when present.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli/info.h"
#include "io/results/h5out.h"
#include "testlib.h"

static int rank, nranks;
static char dir[256];

/* ---- the fixture -------------------------------------------------------- */

enum { NP = 4, NR = 3, NF = 2 };
static const char *const pat_name[NP] = {"p1", "primer_long_name", "p3", "absent"};
static const char *const pat_text[NP] = {"ACGT", "ACGTNNACGT", "ggcc", "TTTTTTTT"};
static const uint32_t pat_len[NP] = {4, 10, 4, 8};
static const char *const rec_name[NR] = {"chr1", "chr2", "contig_3"};
static const uint64_t rec_len[NR] = {10000000, 1000000, 100000};
static const uint32_t rec_file[NR] = {0, 0, 1};
static const char *const file_name[NF] = {"genome.fa", "dir/more.fa.gz"};

static gs_pattern pats[NP];
static gs_patset ps;
static gs_record recs[NR];
static char *files[NF];
static gs_layout lay;

/* Five hand-made hits: a palindrome on both strands, a reverse-only pattern,
 * one absent pattern. Sorted as contract §3 says. */
static const gs_hit small_hits[] = {
    {10, 0, 0, 1, 0, 0}, {10, 0, 0, -1, 0, 0}, {42, 0, 2, 1, 0, 0}, {7, 1, 1, -1, 0, 0},
    {60, 2, 2, 1, 0, 0},
};
enum { N_SMALL = sizeof small_hits / sizeof *small_hits };

static void fixture_init(void)
{
    for (int i = 0; i < NP; i++) {
        pats[i].name = (char *)pat_name[i];
        pats[i].text = (char *)pat_text[i];
        pats[i].len = pat_len[i];
        pats[i].line = (uint32_t)i + 1;
    }
    ps.v = pats;
    ps.n = NP;
    ps.min_len = 4;
    ps.max_len = 10;
    for (int i = 0; i < NR; i++) {
        recs[i].name = (char *)rec_name[i];
        recs[i].length = rec_len[i];
        recs[i].file = rec_file[i];
    }
    for (int i = 0; i < NF; i++)
        files[i] = (char *)file_name[i];
    lay.rec = recs;
    lay.n_rec = lay.cap_rec = NR;
    lay.files = files;
    lay.n_files = NF;
}

/* About 1.2 M random hits: more than one chunk (256 Ki rows) and more than
 * one write piece (1 Mi rows of /hits/start), sorted and without duplicate
 * tuples (the short record collects many duplicates, hence 1.4 M draws). */
static gs_hit *big_hits(uint64_t *n)
{
    uint64_t seed = 42, want = 1400000, k = 0;
    gs_hit *h = malloc(want * sizeof *h);
    if (h == NULL)
        exit(3);
    for (uint64_t i = 0; i < want; i++) {
        uint32_t r = (uint32_t)gs_test_below(&seed, NR), p = (uint32_t)gs_test_below(&seed, NP - 1);
        h[i].record = r;
        h[i].pattern = p;
        h[i].start = gs_test_below(&seed, rec_len[r] - pat_len[p]);
        h[i].strand = gs_test_below(&seed, 2) ? 1 : -1;
        h[i].distance = 0;
        h[i].end = h[i].start + pat_len[p];
    }
    qsort(h, want, sizeof *h, gs_hit_cmp);
    for (uint64_t i = 0; i < want; i++)
        if (k == 0 || gs_hit_cmp(&h[k - 1], &h[i]) != 0)
            h[k++] = h[i];
    *n = k;
    /* the premise of the piece and chunk checks: more than one write piece */
    CHECK(k > (1u << 20) + 1000);
    return h;
}

/* counts[p][s] straight from a hit list. */
static void count_hits(const gs_hit *h, uint64_t n, uint64_t counts[NP][2])
{
    memset(counts, 0, sizeof(uint64_t) * NP * 2);
    for (uint64_t i = 0; i < n; i++)
        counts[h[i].pattern][h[i].strand > 0 ? 0 : 1]++;
}

static gs_result make_result(const gs_hit *h, uint64_t n, const uint64_t *counts, int with_hits)
{
    gs_result r = {0};
    r.info.command_line = "gscan scan -p pats.txt -o out.h5 genome.fa dir/more.fa.gz";
    r.info.engine = "ac";
    r.info.device = "cpu";
    r.info.alphabet = "dna";
    r.info.strand_mode = "both";
    r.info.report = with_hits ? "hits" : "counts";
    r.info.n_ranks = nranks;
    r.info.n_gpus = 0;
    if (rank == 0) {
        r.patterns = &ps;
        r.layout = &lay;
        r.counts = counts;
    }
    r.n_strands = 2;
    r.with_hits = with_hits;
    r.hits = h;
    r.n_hits = n;
    for (int p = 0; p < GS_N_PHASES; p++)
        r.timing[p] = (p + 1) * 0.25 + rank;
    r.timing[GS_T_WRITE] = 0;
    return r;
}

static const char *in_dir(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* Files in d whose name holds ".tmp.": what a failed or finished write
 * must never leave behind. */
static int count_tmp(const char *d)
{
    int n = 0;
    DIR *dp = opendir(d);
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL)
        n += strstr(e->d_name, ".tmp.") != NULL;
    if (dp)
        closedir(dp);
    return n;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(3);
    }
}

static int file_is(const char *path, const char *text)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

/* ---- reading back with the bare API ------------------------------------- */

static void check_str_attr(hid_t fid, const char *name, const char *want)
{
    hid_t a = H5Aopen(fid, name, H5P_DEFAULT);
    CHECK(a >= 0);
    if (a < 0)
        return;
    hid_t t = H5Aget_type(a);
    CHECK(H5Tget_class(t) == H5T_STRING);
    CHECK(H5Tis_variable_str(t) == 0);
    CHECK(H5Tget_strpad(t) == H5T_STR_NULLPAD);
    size_t w = H5Tget_size(t);
    char *v = calloc(1, w + 1);
    CHECK(H5Aread(a, t, v) >= 0);
    if (want && strcmp(v, want) != 0) {
        fprintf(stderr, "attribute %s is '%s', expected '%s'\n", name, v, want);
        gs_test_failures++;
    }
    if (!want) /* created: ISO 8601 UTC */
        CHECK(strlen(v) == 20 && v[4] == '-' && v[10] == 'T' && v[19] == 'Z');
    free(v);
    H5Tclose(t);
    H5Aclose(a);
}

static int int_attr(hid_t fid, const char *name)
{
    int v = -99;
    hid_t a = H5Aopen(fid, name, H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT, &v) >= 0);
    if (a >= 0)
        H5Aclose(a);
    return v;
}

/* Shape, chunking and filters of one dataset. chunk 0: contiguous. */
static void check_layout(hid_t fid, const char *name, hsize_t n, hsize_t cols, hsize_t chunk,
                         int shuffle)
{
    hid_t d = H5Dopen2(fid, name, H5P_DEFAULT);
    CHECK(d >= 0);
    if (d < 0) {
        fprintf(stderr, "missing dataset %s\n", name);
        return;
    }
    hid_t sp = H5Dget_space(d), pl = H5Dget_create_plist(d);
    hsize_t dims[2] = {0, 0};
    int nd = H5Sget_simple_extent_dims(sp, dims, NULL);
    CHECK(nd == (cols ? 2 : 1));
    CHECK_EQ_U64(dims[0], n);
    if (cols)
        CHECK_EQ_U64(dims[1], cols);
    if (chunk == 0) {
        CHECK(H5Pget_layout(pl) == H5D_CONTIGUOUS);
    } else {
        hsize_t cd[2] = {0, 0};
        CHECK(H5Pget_layout(pl) == H5D_CHUNKED);
        CHECK(H5Pget_chunk(pl, 2, cd) == (cols ? 2 : 1));
        CHECK_EQ_U64(cd[0], chunk);
        int deflate = 0, shuf = 0;
        for (int i = 0; i < H5Pget_nfilters(pl); i++) {
            unsigned flags, cv[4];
            size_t ncv = 4;
            char fname[64];
            H5Z_filter_t id = H5Pget_filter2(pl, (unsigned)i, &flags, &ncv, cv, sizeof fname,
                                             fname, NULL);
            if (id == H5Z_FILTER_DEFLATE) {
                deflate = 1;
                CHECK(ncv >= 1 && cv[0] >= 1 && cv[0] <= 4);
            }
            shuf |= id == H5Z_FILTER_SHUFFLE;
        }
        if (!deflate)
            fprintf(stderr, "%s: no deflate filter\n", name);
        CHECK(deflate);
        CHECK(shuf == shuffle);
    }
    H5Pclose(pl);
    H5Sclose(sp);
    H5Dclose(d);
}

static void *read_all(hid_t fid, const char *name, hid_t ftype_want, hid_t mtype, size_t elem,
                      hsize_t n)
{
    hid_t d = H5Dopen2(fid, name, H5P_DEFAULT);
    void *buf = calloc(n ? n : 1, elem);
    CHECK(d >= 0);
    if (d < 0)
        return buf;
    hid_t t = H5Dget_type(d);
    if (ftype_want >= 0 && H5Tequal(t, ftype_want) <= 0) {
        fprintf(stderr, "%s has another file type\n", name);
        gs_test_failures++;
    }
    CHECK(H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    H5Tclose(t);
    H5Dclose(d);
    return buf;
}

/* A fixed-length, null-padded string column sized to its longest entry. */
static void check_strings(hid_t fid, const char *name, const char *const *want, hsize_t n,
                          int chunked)
{
    size_t w = 1;
    for (hsize_t i = 0; i < n; i++)
        w = strlen(want[i]) > w ? strlen(want[i]) : w;
    hid_t d = H5Dopen2(fid, name, H5P_DEFAULT);
    CHECK(d >= 0);
    if (d < 0)
        return;
    hid_t t = H5Dget_type(d);
    CHECK(H5Tget_class(t) == H5T_STRING);
    CHECK(H5Tis_variable_str(t) == 0);
    CHECK(H5Tget_strpad(t) == H5T_STR_NULLPAD);
    CHECK_EQ_U64(H5Tget_size(t), w);
    char *buf = calloc(n ? n : 1, w);
    CHECK(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    for (hsize_t i = 0; i < n; i++) {
        size_t l = strlen(want[i]);
        CHECK(memcmp(buf + i * w, want[i], l) == 0);
        for (size_t j = l; j < w; j++)
            CHECK(buf[i * w + j] == 0);
    }
    free(buf);
    H5Tclose(t);
    H5Dclose(d);
    check_layout(fid, name, n, 0, chunked ? n : 0, 0);
}

/* Every dataset and attribute of a file written from hits h[0..n). */
static void check_file(const char *path, const gs_hit *h, uint64_t n, int with_hits,
                       const gs_result *r)
{
    uint64_t counts[NP][2];
    count_hits(h, n, counts);
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(fid >= 0);
    if (fid < 0)
        return;
    check_str_attr(fid, "gscan_version", GS_VERSION);
    check_str_attr(fid, "command_line", r->info.command_line);
    check_str_attr(fid, "engine", "ac");
    check_str_attr(fid, "device", "cpu");
    check_str_attr(fid, "alphabet", "dna");
    check_str_attr(fid, "strand_mode", "both");
    check_str_attr(fid, "report", with_hits ? "hits" : "counts");
    check_str_attr(fid, "created", NULL);
    CHECK(int_attr(fid, "n_ranks") == 1);
    CHECK(int_attr(fid, "n_gpus") == 0);

    check_strings(fid, "/patterns/name", pat_name, NP, 1);
    check_strings(fid, "/patterns/sequence", pat_text, NP, 1);
    uint32_t *u32 = read_all(fid, "/patterns/length", H5T_STD_U32LE, H5T_NATIVE_UINT32, 4, NP);
    for (int i = 0; i < NP; i++)
        CHECK_EQ_U64(u32[i], pat_len[i]);
    free(u32);
    check_layout(fid, "/patterns/length", NP, 0, NP, 1);

    check_strings(fid, "/records/name", rec_name, NR, 1);
    uint64_t *u64 = read_all(fid, "/records/length", H5T_STD_U64LE, H5T_NATIVE_UINT64, 8, NR);
    for (int i = 0; i < NR; i++)
        CHECK_EQ_U64(u64[i], rec_len[i]);
    free(u64);
    u32 = read_all(fid, "/records/file", H5T_STD_U32LE, H5T_NATIVE_UINT32, 4, NR);
    for (int i = 0; i < NR; i++)
        CHECK_EQ_U64(u32[i], rec_file[i]);
    free(u32);
    check_layout(fid, "/records/length", NR, 0, NR, 1);
    check_layout(fid, "/records/file", NR, 0, NR, 1);
    check_strings(fid, "/files", file_name, NF, 0);

    u64 = read_all(fid, "/counts", H5T_STD_U64LE, H5T_NATIVE_UINT64, 8, NP * 2);
    for (int p = 0; p < NP; p++)
        for (int s = 0; s < 2; s++)
            CHECK_EQ_U64(u64[p * 2 + s], counts[p][s]);
    free(u64);
    check_layout(fid, "/counts", NP, 2, NP, 1);

    CHECK((H5Lexists(fid, "/hits", H5P_DEFAULT) > 0) == (with_hits != 0));
    if (with_hits) {
        hsize_t chunk = n < (1u << 18) ? n : (1u << 18);
        check_layout(fid, "/hits/pattern", n, 0, chunk, 1);
        check_layout(fid, "/hits/record", n, 0, chunk, 1);
        check_layout(fid, "/hits/start", n, 0, chunk, 1);
        check_layout(fid, "/hits/strand", n, 0, chunk, 0);
        uint32_t *pat = read_all(fid, "/hits/pattern", H5T_STD_U32LE, H5T_NATIVE_UINT32, 4, n);
        uint32_t *rec = read_all(fid, "/hits/record", H5T_STD_U32LE, H5T_NATIVE_UINT32, 4, n);
        uint64_t *st = read_all(fid, "/hits/start", H5T_STD_U64LE, H5T_NATIVE_UINT64, 8, n);
        int8_t *sd = read_all(fid, "/hits/strand", H5T_STD_I8LE, H5T_NATIVE_INT8, 1, n);
        uint64_t bad = 0;
        for (uint64_t i = 0; i < n; i++)
            bad += pat[i] != h[i].pattern || rec[i] != h[i].record || st[i] != h[i].start
                   || sd[i] != h[i].strand;
        CHECK_EQ_U64(bad, 0);
        free(pat);
        free(rec);
        free(st);
        free(sd);
    }

    for (int p = 0; p < GS_N_PHASES; p++) {
        char name[64];
        snprintf(name, sizeof name, "/timing/%s", gs_phase_names[p]);
        check_layout(fid, name, 1, 0, 0, 0);
        double *t = read_all(fid, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 8, 1);
        CHECK(t[0] == r->timing[p]);
        free(t);
    }
    H5Fclose(fid);
}

/* ---- info / export text ------------------------------------------------- */

static char *capture_info(const char *path, int export_fmt, const char *fmt, gs_status *st,
                          gs_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    gs_h5_file *f = NULL;
    *st = gs_h5_open(path, &f, err);
    if (*st == GS_OK)
        *st = export_fmt ? gs_h5_export(f, fmt, out, err) : gs_info_result(f, out, err);
    gs_h5_close(f);
    fclose(out);
    return text;
}

static void expect_has(const char *text, const char *want)
{
    if (text == NULL || strstr(text, want) == NULL) {
        fprintf(stderr, "missing in output: [%s]\n--- output:\n%s---\n", want, text ? text : "");
        gs_test_failures++;
    }
}

static void test_text(void)
{
    uint64_t counts[NP][2];
    count_hits(small_hits, N_SMALL, counts);
    gs_result r = make_result(small_hits, N_SMALL, &counts[0][0], 1);
    gs_error err = {0};
    const char *path = in_dir("small.h5");
    CHECK(gs_h5_write(path, &r, MPI_COMM_SELF, &err) == GS_OK);
    check_file(path, small_hits, N_SMALL, 1, &r);

    gs_status st;
    char *t = capture_info(path, 1, "tsv", &st, &err);
    CHECK(st == GS_OK);
    const char *tsv = "record\tstart\tend\tpattern\tstrand\n"
                      "chr1\t10\t14\tp1\t+\n"
                      "chr1\t10\t14\tp1\t-\n"
                      "chr1\t42\t46\tp3\t+\n"
                      "chr2\t7\t17\tprimer_long_name\t-\n"
                      "contig_3\t60\t64\tp3\t+\n";
    CHECK(t && strcmp(t, tsv) == 0);
    free(t);
    t = capture_info(path, 1, "bed", &st, &err);
    CHECK(st == GS_OK);
    const char *bed = "chr1\t10\t14\tp1\t0\t+\n"
                      "chr1\t10\t14\tp1\t0\t-\n"
                      "chr1\t42\t46\tp3\t0\t+\n"
                      "chr2\t7\t17\tprimer_long_name\t0\t-\n"
                      "contig_3\t60\t64\tp3\t0\t+\n";
    CHECK(t && strcmp(t, bed) == 0);
    free(t);
    gs_error e2 = {0};
    t = capture_info(path, 1, "sam", &st, &e2);
    CHECK(st == GS_EUSAGE && strstr(e2.msg, "sam") != NULL);
    free(t);

    t = capture_info(path, 0, NULL, &st, &err);
    CHECK(st == GS_OK);
    expect_has(t, "  gscan version  " GS_VERSION "\n");
    expect_has(t, "  command line   gscan scan -p pats.txt -o out.h5 genome.fa dir/more.fa.gz\n");
    expect_has(t, "  engine         ac\n  device         cpu\n  alphabet       dna\n"
                  "  strands        both\n  report         hits\n");
    expect_has(t, "  ranks          1\n  gpus           0\n");
    expect_has(t, "files: 2\n  genome.fa\n  dir/more.fa.gz\n");
    expect_has(t, "records: 3 (11100000 residues)\n  chr1\t10000000\n  chr2\t1000000\n"
                  "  contig_3\t100000\n");
    expect_has(t, "patterns: 4 (length 4 to 10)\n");
    expect_has(t, "hits: 5 (forward 3, reverse 2)\n");
    expect_has(t, "patterns with hits: 3, without: 1\n");
    expect_has(t, "top patterns by count:\n"
                  "   1. p1\t2 (forward 1, reverse 1)\n"
                  "   2. p3\t2 (forward 2, reverse 0)\n"
                  "   3. primer_long_name\t1 (forward 0, reverse 1)\n"
                  "timing");
    /* timing: max over ranks of what make_result put in (one rank here) */
    expect_has(t, "timing (seconds, max over 1 ranks):\n  read      0.250\n"
                  "  transfer  0.500\n  scan      0.750\n  reduce    1.000\n  write     ");
    char want_total[64];
    snprintf(want_total, sizeof want_total, "  total     %.3f\n", r.timing[GS_T_TOTAL]);
    expect_has(t, want_total);
    free(t);
    /* total = what the caller measured + the write itself */
    CHECK(r.timing[GS_T_WRITE] > 0);
    CHECK(r.timing[GS_T_TOTAL] == (GS_T_TOTAL + 1) * 0.25 + r.timing[GS_T_WRITE]);
}

/* h5py reads the fixed-length strings and the numbers (skipped without it). */
static void test_h5py(void)
{
    const char *py = NULL;
    if (system("python3 -c 'import h5py' >/dev/null 2>&1") == 0)
        py = "python3";
    else if (system("/usr/bin/python3 -c 'import h5py' >/dev/null 2>&1") == 0)
        py = "/usr/bin/python3";
    if (py == NULL) {
        printf("test_h5out: h5py not found, skipping the h5py check\n");
        return;
    }
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "%s -c \"\n"
             "import h5py, sys\n"
             "f = h5py.File(sys.argv[1], 'r')\n"
             "assert [s.decode() for s in f['patterns/name'][:]] == "
             "['p1', 'primer_long_name', 'p3', 'absent']\n"
             "assert f['patterns/sequence'].asstr()[1] == 'ACGTNNACGT'\n"
             "assert [s.decode() for s in f['records/name'][:]] == ['chr1', 'chr2', 'contig_3']\n"
             "assert f['counts'].dtype == 'uint64' and f['counts'].shape == (4, 2)\n"
             "assert f['counts'][:].tolist() == [[1, 1], [0, 1], [2, 0], [0, 0]]\n"
             "assert f['hits/start'][:].tolist() == [10, 10, 42, 7, 60]\n"
             "assert f['hits/strand'][:].tolist() == [1, -1, 1, -1, 1]\n"
             "assert f.attrs['engine'].decode() == 'ac'\n"
             "assert f['timing/read'].shape == (1,)\n"
             "\" %s",
             py, in_dir("small.h5"));
    CHECK(system(cmd) == 0);
}

/* ---- failures ----------------------------------------------------------- */

/* A failed write: GS_ESYS naming the path, no <out> (or the old one intact),
 * no temporary file, no HDF5 object left open. */
static void expect_fail_as(gs_status want, const char *path, gs_result *r, const char *old,
                           const char *why)
{
    gs_error err = {0};
    gs_status st = gs_h5_write(path, r, MPI_COMM_WORLD, &err);
    if (st != want || strstr(err.msg, path) == NULL) {
        fprintf(stderr, "%s: status %d, message '%s'\n", why, st, err.msg);
        gs_test_failures++;
    }
    if (rank == 0) {
        struct stat st;
        if (old)
            CHECK(file_is(path, old));
        else if (strcmp(path, dir) == 0) /* the output named a directory */
            CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
        else
            CHECK(!exists(path));
        char d[512];
        snprintf(d, sizeof d, "%s", path);
        char *slash = strrchr(d, '/');
        if (slash)
            *slash = '\0';
        if (exists(d))
            CHECK_EQ_U64(count_tmp(d), 0);
    }
    CHECK(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0);
    if (rank == 0)
        printf("test_h5out: %s -> %s\n", why, err.msg);
}

static void expect_fail(const char *path, gs_result *r, const char *old, const char *why)
{
    expect_fail_as(GS_ESYS, path, r, old, why);
}

static void test_full_disk(gs_result *r, const char *old)
{
    const char *path = in_dir("full.h5");
    if (rank == 0 && old)
        write_text(path, old);
    MPI_Barrier(MPI_COMM_WORLD);
    struct rlimit was, lim;
    getrlimit(RLIMIT_FSIZE, &was);
    lim = was;
    lim.rlim_cur = 64 * 1024; /* the hits alone compress to megabytes */
    void (*old_sig)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    expect_fail(path, r, old, "full disk (RLIMIT_FSIZE)");
    CHECK(setrlimit(RLIMIT_FSIZE, &was) == 0);
    signal(SIGXFSZ, old_sig);
    if (rank == 0)
        unlink(path);
}

/* A real full disk: a 256 KiB tmpfs, where the system lets us mount one. */
static void test_enospc(gs_result *r)
{
    const char *mnt = in_dir("tiny");
    char cmd[600];
    int ok = 0;
    if (rank == 0 && geteuid() == 0 && mkdir(mnt, 0755) == 0) {
        snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=256k tmpfs %s 2>/dev/null", mnt);
        ok = system(cmd) == 0;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (ok) {
        char path[512];
        snprintf(path, sizeof path, "%s/out.h5", mnt);
        if (rank == 0)
            write_text(path, "an older result\n");
        MPI_Barrier(MPI_COMM_WORLD);
        expect_fail(path, r, "an older result\n", "full disk (256 KiB tmpfs)");
        if (rank == 0) {
            snprintf(cmd, sizeof cmd, "umount %s", mnt);
            CHECK(system(cmd) == 0);
        }
    } else if (rank == 0) {
        printf("test_h5out: cannot mount a small tmpfs here, ENOSPC case skipped\n");
    }
    if (rank == 0)
        rmdir(mnt);
}

/* A link, a FIFO and a device node named as the output stay what they
 * were (gscan runs as root in containers, where rename() replaces them). */
static void test_not_replaced(void)
{
    uint64_t counts[NP][2] = {{0}};
    gs_result r = make_result(NULL, 0, &counts[0][0], 0);
    char link[512], fifo[512], dev[512], target[512];
    snprintf(target, sizeof target, "%s", in_dir("target.h5"));
    snprintf(link, sizeof link, "%s", in_dir("link.h5"));
    snprintf(fifo, sizeof fifo, "%s", in_dir("fifo.h5"));
    snprintf(dev, sizeof dev, "%s", in_dir("null.h5"));
    write_text(target, "keep me\n");
    CHECK(symlink(target, link) == 0 && mkfifo(fifo, 0600) == 0);
    int have_dev = mknod(dev, S_IFCHR | 0666, makedev(1, 3)) == 0; /* /dev/null's numbers */
    struct {
        const char *path;
        mode_t kind;
    } cases[] = {{link, S_IFLNK}, {fifo, S_IFIFO}, {dev, S_IFCHR}};
    for (int i = 0; i < 3; i++) {
        struct stat st;
        gs_error err = {0};
        if (i == 2 && !have_dev) {
            printf("test_h5out: cannot make a device node here, that case skipped\n");
            continue;
        }
        CHECK(gs_h5_write(cases[i].path, &r, MPI_COMM_SELF, &err) == GS_EUSAGE);
        CHECK(strstr(err.msg, cases[i].path) != NULL && strstr(err.msg, "refusing") != NULL);
        CHECK(lstat(cases[i].path, &st) == 0 && (st.st_mode & S_IFMT) == cases[i].kind);
        unlink(cases[i].path);
    }
    CHECK(file_is(target, "keep me\n"));
    unlink(target);
}

static void test_failures(gs_result *r)
{
    expect_fail(in_dir("no/such/dir/out.h5"), r, NULL, "missing directory");
    expect_fail("/etc/passwd/x.h5", r, NULL, "path under a regular file");
    if (geteuid() != 0) {
        const char *ro = in_dir("ro");
        mkdir(ro, 0555);
        char path[512];
        snprintf(path, sizeof path, "%s/out.h5", ro);
        expect_fail(path, r, NULL, "read-only directory");
        rmdir(ro);
    } else {
        printf("test_h5out: running as root, read-only directory case skipped\n");
    }
    test_full_disk(r, "an older result\n");
    test_enospc(r);
    /* what is not a regular file is refused (a usage error), never replaced */
    expect_fail_as(GS_EUSAGE, dir, r, NULL, "output is a directory");
    if (rank == 0)
        test_not_replaced();

}

/* A hit out of order or out of range is refused before anything is written,
 * the first one named whichever thread of the check finds it: the faults
 * sit in different slices of the check and on their edges (n/2 on 2 cores,
 * n/5 and 2n/5 where the hits make 5 slices). */
static void test_bad_hits(const gs_hit *good, uint64_t n)
{
    gs_hit *h = malloc(n * sizeof *h);
    uint64_t counts[NP][2];
    count_hits(good, n, counts);
    const struct {
        uint64_t at, early; /* at: swapped with the hit before; early: a bad pattern, or 0 */
    } cases[] = {{n - 1, 0}, {n / 2, 0}, {n / 5, 0}, {2 * n / 5, 0}, {n / 2, 1000}, {n - 5, n / 5}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        memcpy(h, good, n * sizeof *h);
        gs_hit t = h[cases[c].at];
        h[cases[c].at] = h[cases[c].at - 1];
        h[cases[c].at - 1] = t;
        if (cases[c].early)
            h[cases[c].early].pattern = NP + 7;
        char want[128];
        if (cases[c].early)
            snprintf(want, sizeof want, "invalid hit %" PRIu64 " on rank 0: pattern %d,",
                     cases[c].early, NP + 7);
        else
            snprintf(want, sizeof want, "hits out of order at hit %" PRIu64 " on rank 0",
                     cases[c].at);
        gs_result r = make_result(h, n, &counts[0][0], 1);
        gs_error err = {0};
        const char *path = in_dir("bad_hits.h5");
        CHECK(gs_h5_write(path, &r, MPI_COMM_WORLD, &err) == GS_ESYS && !exists(path));
        if (!strstr(err.msg, want)) {
            fprintf(stderr, "bad hits case %zu: '%s', want '%s'\n", c, err.msg, want);
            gs_test_failures++;
        }
    }
    free(h);
}

static void test_open_errors(void)
{
    gs_h5_file *f = NULL;
    gs_error err = {0};
    const char *p = in_dir("missing.h5");
    CHECK(gs_h5_open(p, &f, &err) == GS_EINPUT && f == NULL && strstr(err.msg, p));
    gs_error e2 = {0};
    p = in_dir("text.h5");
    write_text(p, "not hdf5\n");
    CHECK(gs_h5_open(p, &f, &e2) == GS_EINPUT && f == NULL && strstr(e2.msg, p));
    /* another program's HDF5 file, in the 1.8 format gscan reads */
    gs_error e3 = {0};
    p = in_dir("other.h5");
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(fapl >= 0 && H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) >= 0);
    hid_t fid = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(fid >= 0);
    H5Fclose(fid);
    H5Pclose(fapl);
    CHECK(gs_h5_open(p, &f, &e3) == GS_EINPUT && f == NULL && strstr(e3.msg, "not a gscan"));
    /* and in the old format (no checksums), which gscan refuses before HDF5
     * parses it */
    gs_error e4 = {0};
    p = in_dir("old.h5");
    fid = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(fid >= 0);
    H5Fclose(fid);
    CHECK(gs_h5_open(p, &f, &e4) == GS_EINPUT && f == NULL && strstr(e4.msg, "old HDF5 format")
          && strstr(e4.msg, p));
    printf("test_h5out: open errors: %s | %s | %s | %s\n", err.msg, e2.msg, e3.msg, e4.msg);
}

static void test_without_hits(void)
{
    uint64_t counts[NP][2];
    count_hits(small_hits, N_SMALL, counts);
    gs_result r = make_result(NULL, 0, &counts[0][0], 0);
    gs_error err = {0};
    const char *path = in_dir("counts_only.h5");
    CHECK(gs_h5_write(path, &r, MPI_COMM_SELF, &err) == GS_OK);
    /* counts checked against the small hit list they came from */
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(fid >= 0 && H5Lexists(fid, "/hits", H5P_DEFAULT) == 0);
    uint64_t *c = read_all(fid, "/counts", H5T_STD_U64LE, H5T_NATIVE_UINT64, 8, NP * 2);
    CHECK(memcmp(c, counts, sizeof counts) == 0);
    free(c);
    H5Fclose(fid);
    gs_status st;
    char want[600];
    snprintf(want, sizeof want, "no hits in %s (run gscan scan with --report hits)", path);
    char *t = capture_info(path, 1, "tsv", &st, &err);
    CHECK(st == GS_EINPUT && strcmp(err.msg, want) == 0);
    free(t);
    gs_error e2 = {0};
    t = capture_info(path, 0, NULL, &st, &e2);
    CHECK(st == GS_OK);
    expect_has(t, "hits: 5 (forward 3, reverse 2), counts only\n");
    free(t);

    /* --report hits with no hit at all: empty datasets, export is the header */
    uint64_t zero[NP][2] = {{0}};
    r = make_result(NULL, 0, &zero[0][0], 1);
    gs_error e3 = {0};
    path = in_dir("no_hits.h5");
    CHECK(gs_h5_write(path, &r, MPI_COMM_SELF, &e3) == GS_OK);
    check_file(path, NULL, 0, 1, &r);
    t = capture_info(path, 1, "tsv", &st, &e3);
    CHECK(st == GS_OK && t && strcmp(t, "record\tstart\tend\tpattern\tstrand\n") == 0);
    free(t);
}

/* ---- same file at any rank count ---------------------------------------- */

static void compare_dset(hid_t a, hid_t b, const char *name)
{
    hid_t da = H5Dopen2(a, name, H5P_DEFAULT), db = H5Dopen2(b, name, H5P_DEFAULT);
    CHECK(da >= 0 && db >= 0);
    if (da < 0 || db < 0) {
        fprintf(stderr, "compare: missing %s\n", name);
        return;
    }
    hid_t ta = H5Dget_type(da), tb = H5Dget_type(db), sa = H5Dget_space(da), sb = H5Dget_space(db);
    hid_t pa = H5Dget_create_plist(da), pb = H5Dget_create_plist(db);
    CHECK(H5Tequal(ta, tb) > 0);
    CHECK(H5Sextent_equal(sa, sb) > 0);
    hsize_t ca[2] = {0, 0}, cb[2] = {0, 0};
    CHECK(H5Pget_layout(pa) == H5Pget_layout(pb));
    if (H5Pget_layout(pa) == H5D_CHUNKED) {
        H5Pget_chunk(pa, 2, ca);
        H5Pget_chunk(pb, 2, cb);
        CHECK(ca[0] == cb[0] && ca[1] == cb[1]);
        CHECK(H5Pget_nfilters(pa) == H5Pget_nfilters(pb));
    }
    size_t bytes = (size_t)H5Sget_simple_extent_npoints(sa) * H5Tget_size(ta);
    char *ba = calloc(1, bytes + 1), *bb = calloc(1, bytes + 1);
    CHECK(H5Dread(da, ta, H5S_ALL, H5S_ALL, H5P_DEFAULT, ba) >= 0);
    CHECK(H5Dread(db, ta, H5S_ALL, H5S_ALL, H5P_DEFAULT, bb) >= 0);
    if (memcmp(ba, bb, bytes) != 0) {
        fprintf(stderr, "compare: %s differs\n", name);
        gs_test_failures++;
    }
    free(ba);
    free(bb);
    H5Pclose(pa);
    H5Pclose(pb);
    H5Sclose(sa);
    H5Sclose(sb);
    H5Tclose(ta);
    H5Tclose(tb);
    H5Dclose(da);
    H5Dclose(db);
}

static void compare_files(const char *x, const char *y)
{
    static const char *const names[] = {
        "/patterns/name", "/patterns/sequence", "/patterns/length", "/records/name",
        "/records/length", "/records/file", "/files", "/counts", "/hits/pattern",
        "/hits/record", "/hits/start", "/hits/strand"};
    hid_t a = H5Fopen(x, H5F_ACC_RDONLY, H5P_DEFAULT), b = H5Fopen(y, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(a >= 0 && b >= 0);
    for (size_t i = 0; a >= 0 && b >= 0 && i < sizeof names / sizeof *names; i++)
        compare_dset(a, b, names[i]);
    CHECK(int_attr(b, "n_ranks") == nranks);
    hid_t t = H5Dopen2(b, "/timing/scan", H5P_DEFAULT), sp = H5Dget_space(t);
    CHECK(H5Sget_simple_extent_npoints(sp) == nranks);
    double *v = calloc((size_t)nranks, sizeof *v);
    CHECK(H5Dread(t, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    for (int r = 0; r < nranks; r++) /* rank r's own value, gathered in rank order */
        CHECK(v[r] == 0.75 + r);
    free(v);
    H5Sclose(sp);
    H5Dclose(t);
    H5Fclose(a);
    H5Fclose(b);
    if (system("h5diff --version >/dev/null 2>&1") == 0) {
        static const char *const objs[] = {"/patterns", "/records", "/files", "/counts", "/hits"};
        for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) {
            char cmd[1400];
            snprintf(cmd, sizeof cmd, "h5diff -q %s %s %s %s", x, y, objs[i], objs[i]);
            if (system(cmd) != 0) {
                fprintf(stderr, "h5diff reports a difference in %s\n", objs[i]);
                gs_test_failures++;
            }
        }
    } else if (rank == 0) {
        printf("test_h5out: h5diff not found, compared through the API only\n");
    }
}

/* Every stored chunk of the hit columns of x and y, byte for byte: the
 * compressed bytes of a chunk depend on its rows only, so any shape of the
 * writer's ring (threads, row groups in flight) must store the same ones, each
 * at its own offset. */
static void compare_chunks(const char *x, const char *y)
{
    static const char *const cols[] = {"/hits/pattern", "/hits/record", "/hits/start",
                                       "/hits/strand"};
    hid_t a = H5Fopen(x, H5F_ACC_RDONLY, H5P_DEFAULT), b = H5Fopen(y, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(a >= 0 && b >= 0);
    for (size_t i = 0; a >= 0 && b >= 0 && i < sizeof cols / sizeof *cols; i++) {
        hid_t da = H5Dopen2(a, cols[i], H5P_DEFAULT), db = H5Dopen2(b, cols[i], H5P_DEFAULT);
        hid_t sp = H5Dget_space(da);
        hsize_t n = 0, chunk[1] = {0}, na = 0, nb = 0;
        hid_t pl = H5Dget_create_plist(da);
        H5Sget_simple_extent_dims(sp, &n, NULL);
        CHECK(H5Pget_chunk(pl, 1, chunk) == 1 && chunk[0] > 0);
        CHECK(H5Dget_num_chunks(da, sp, &na) >= 0 && H5Dget_num_chunks(db, sp, &nb) >= 0);
        CHECK_EQ_U64(na, (n + chunk[0] - 1) / chunk[0]);
        CHECK_EQ_U64(nb, na);
        for (hsize_t off = 0; chunk[0] > 0 && off < n; off += chunk[0]) {
            hsize_t sa = 0, sb = 0;
            uint32_t fa = 1, fb = 1;
            CHECK(H5Dget_chunk_storage_size(da, &off, &sa) >= 0);
            CHECK(H5Dget_chunk_storage_size(db, &off, &sb) >= 0);
            CHECK_EQ_U64(sb, sa);
            char *ba = malloc(sa + 1), *bb = malloc(sa + 1);
            CHECK(H5Dread_chunk(da, H5P_DEFAULT, &off, &fa, ba) >= 0);
            CHECK(H5Dread_chunk(db, H5P_DEFAULT, &off, &fb, bb) >= 0);
            CHECK(fa == 0 && fb == 0); /* every filter applied */
            if (sa != sb || memcmp(ba, bb, sa) != 0) {
                fprintf(stderr, "compare: chunk at row %llu of %s differs\n",
                        (unsigned long long)off, cols[i]);
                gs_test_failures++;
            }
            free(ba);
            free(bb);
        }
        H5Pclose(pl);
        H5Sclose(sp);
        H5Dclose(da);
        H5Dclose(db);
    }
    H5Fclose(a);
    H5Fclose(b);
}

/* The writer's ring (io/h5_direct.c) in other shapes through the tune's
 * io.h5.threads and io.h5.slots:
 * one row group in flight for three threads (every group waits for the one
 * before it to be stored), one thread (the writer compresses all), and more
 * slots than groups. Same file as the default shape, chunk for chunk. */
static void test_ring_shapes(const char *ref, gs_result *r)
{
    static const int shapes[][2] = {{3, 1}, {1, 1}, {4, 64}, {2, 3}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        const char *path = in_dir("ring.h5");
        gs_error err = {0};
        const gs_tune tune = {.io_h5_threads = shapes[i][0], .io_h5_slots = shapes[i][1]};
        r->tune = &tune;
        gs_status st = gs_h5_write(path, r, MPI_COMM_WORLD, &err);
        r->tune = NULL;
        if (st != GS_OK)
            fprintf(stderr, "write with io.h5.threads=%d, io.h5.slots=%d: %s\n", shapes[i][0],
                    shapes[i][1], err.msg);
        CHECK(st == GS_OK);
        int before = gs_test_failures;
        compare_files(ref, path);
        compare_chunks(ref, path);
        if (gs_test_failures != before)
            fprintf(stderr, "  (with io.h5.threads=%d, io.h5.slots=%d)\n", shapes[i][0],
                    shapes[i][1]);
        unlink(path);
    }
}

/* Write hits h[0..n) split at cut[0] <= cut[1] (rank r gets [cut[r-1], cut[r])). */
static void write_split(const char *path, const gs_hit *h, uint64_t n, const uint64_t *counts,
                        uint64_t cut1, uint64_t cut2)
{
    uint64_t lo = 0, hi = n;
    if (rank == 0)
        hi = cut1;
    else if (rank == 1)
        lo = cut1, hi = cut2;
    else
        lo = rank == 2 ? cut2 : n;
    gs_result r = make_result(h + lo, hi - lo, counts, 1);
    gs_error err = {0};
    gs_status st = gs_h5_write(path, &r, MPI_COMM_WORLD, &err);
    if (st != GS_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, err.msg);
        gs_test_failures++;
    }
    CHECK(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0);
}

static void test_mpi(const gs_hit *h, uint64_t n, const uint64_t *counts)
{
    const char *ref = in_dir("serial.h5"), *a = in_dir("mpi_uneven.h5"),
               *b = in_dir("mpi_empty_rank.h5");
    if (rank == 0) {
        int keep = nranks;
        nranks = 1; /* the single-process run, as gscan would write it */
        gs_result r = make_result(h, n, counts, 1);
        gs_error err = {0};
        CHECK(gs_h5_write(ref, &r, MPI_COMM_SELF, &err) == GS_OK);
        check_file(ref, h, n, 1, &r); /* against the hits themselves, not only a file */
        nranks = keep;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    write_split(a, h, n, counts, n / 2, n / 2 + 7); /* rank 1: 7 hits */
    write_split(b, h, n, counts, n / 3, n / 3);     /* rank 1: none */
    if (rank == 0) {
        compare_files(ref, a);
        compare_files(ref, b);
        CHECK_EQ_U64(count_tmp(dir), 0);
    }
    /* failures are agreed: every rank returns GS_ESYS with one message */
    gs_result r = make_result(h, rank == 0 ? n : 0, counts, 1);
    expect_fail(in_dir("no/such/dir/out.h5"), &r, NULL, "missing directory (MPI)");
    test_full_disk(&r, NULL);
    test_enospc(&r);
}

static void remove_dir(void)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL)
        if (e->d_name[0] != '.')
            unlink(in_dir(e->d_name));
    if (dp)
        closedir(dp);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (rank == 0) {
        snprintf(dir, sizeof dir, "h5out.XXXXXX");
        if (mkdtemp(dir) == NULL) {
            perror("mkdtemp");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    fixture_init();
    uint64_t n = 0, counts[NP][2];
    gs_hit *h = big_hits(&n);
    count_hits(h, n, counts);

    if (nranks == 1) {
        gs_result r = make_result(h, n, &counts[0][0], 1);
        gs_error err = {0};
        const char *path = in_dir("big.h5");
        gs_status st = gs_h5_write(path, &r, MPI_COMM_WORLD, &err);
        if (st != GS_OK)
            fprintf(stderr, "write: %s\n", err.msg);
        CHECK(st == GS_OK);
        CHECK(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0);
        CHECK_EQ_U64(count_tmp(dir), 0);
        check_file(path, h, n, 1, &r);
        test_ring_shapes(path, &r);
        test_text();
        test_h5py();
        test_without_hits();
        test_open_errors();
        test_bad_hits(h, n);
        test_failures(&r);
    } else {
        test_mpi(h, n, &counts[0][0]);
    }
    free(h);
    int failures = 0;
    MPI_Allreduce(&gs_test_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        remove_dir();
    MPI_Finalize();
    if (rank != 0)
        return failures ? 1 : 0;
    gs_test_failures = failures;
    return gs_test_done(nranks == 1 ? "test_h5out" : "test_h5out (MPI)");
}
