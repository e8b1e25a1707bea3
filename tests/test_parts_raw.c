/* test_parts_raw.c - the parts reader's loose road (gs_parts_next_raw,
 * io/seq/parts_loose.c) against its streaming road (gs_parts_next).
 *
 * The loose road gives a part's records as they lie in the file, for the
 * device to drop line ends and blanks; here that drop is done by the test
 * (the rule the kernel in src/gpu/raw.cu follows) and every segment (record
 * id, position, owned starts, residues) and the joined record table must be
 * the streaming road's. The corpora: FASTA with lines of every width, CRLF,
 * blanks and tabs inside lines, blank lines, empty records and names with
 * descriptions; FASTQ with '@' and '+' opening qualities, CRLF and empty
 * reads; and traps each part must leave to the streaming reader (a '>'
 * inside a line, blank lines between FASTQ records, a quality one byte
 * short, a record longer than a segment, no final line end), with parts of
 * 37 bytes to 4 KiB on two and three lanes, taken in turn and on threads of
 * their own, and batches that end inside a part (the rest of the part is
 * read again into the next; FASTQ parts mapped, with and without their
 * page tables made at once, and read whole; reads named and unnamed, whose
 * loose parts keep only their lengths), given a segment at a time and in
 * runs laid as a batch's table (gs_parts_next_run, with random limits on
 * a run's entries and fresh batches between runs). The test also
 * checks that the clean corpora took the loose road, and that the walk over
 * a part's records finds the same fed a few bytes at a time as the reader
 * feeds it while reading.
 */
#define _POSIX_C_SOURCE 200809L
#include "io/seq/parts.h"
#include "core/gs_dna2.h"
#include "io/seq/parts_loose.h"
#include "testlib.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BLOCK = 5000, OVERLAP = 7, MAX_SEGS = 200000 };

typedef struct seg_out {
    uint32_t record, file;
    uint64_t base;
    size_t own;
    char *res;
    size_t len;
} seg_out;

typedef struct run {
    seg_out *v;
    size_t n;
    size_t loose; /* segments given as loose texts */
    size_t coded; /* of them, as 2-bit codes */
    gs_layout lay;
    char *warning;
} run;

static int by_pos(const void *a, const void *b)
{
    const seg_out *x = a, *y = b;
    if (x->record != y->record)
        return x->record < y->record ? -1 : 1;
    return x->base < y->base ? -1 : x->base > y->base;
}

static void keep(run *R, const gs_segment *s, const uint8_t *res, size_t len)
{
    if (R->n == MAX_SEGS)
        exit(3);
    seg_out *o = &R->v[R->n++];
    *o = (seg_out){s->record, s->file, s->base, s->own, malloc(len + 1), len};
    memcpy(o->res, res, len);
}

/* The device's rule for a loose text. */
static size_t drop(const uint8_t *t, size_t span, uint8_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < span; i++)
        if (!(t[i] == '\n' || t[i] == '\r' || t[i] == ' ' || t[i] == '\t'))
            out[k++] = t[i];
    return k;
}

/* The device's rule for a text of 2-bit codes: len residues, four a byte
 * from the low bits, A C T G for 0 1 2 3; the last byte's unused bits 0. */
static void uncode(const uint8_t *t, size_t len, uint8_t *out)
{
    for (size_t i = 0; i < len; i++)
        out[i] = "ACTG"[t[i / 4] >> 2 * (i % 4) & 3];
    CHECK(len % 4 == 0 || t[len / 4] >> 2 * (len % 4) == 0);
}

/* One lane as the pipeline's reader uses it: its batch buffer, what it
 * gave. raw 2: loose texts a run at a time where the lane gives them so
 * (gs_parts_next_run), laid as a batch's table. */
typedef struct lane_run {
    gs_parts *ps;
    int i, raw;
    uint8_t *buf, *scratch;
    size_t used;
    uint64_t laid_out; /* raw 2: the batch's packed text so far */
    unsigned batches;
    uint64_t rs;
    run R;
    gs_status st;
    gs_error err;
} lane_run;

/* A fresh batch: nothing of the last may be read. */
static void fresh(lane_run *L)
{
    memset(L->buf, '#', 2 * (BLOCK + OVERLAP));
    L->used = 0;
    L->laid_out = 0;
}

/* A run of loose texts from lane L into its batch (raw 2), kept as the
 * segments they stand for: 0 where the lane gives none (next_raw then). */
static int step_run(lane_run *L)
{
    const size_t cap = 2 * (BLOCK + OVERLAP);
    gs_laid v[64];
    const size_t at0 = L->used + 3; /* the buffer's offset in a batch's, as it may be */
    gs_laid_run r = {.v = v, .max = 1 + gs_test_below(&L->rs, 64), .at0 = (uint32_t)at0,
                     .out0 = (uint32_t)L->laid_out, .bytes_below = BLOCK - L->used,
                     .out_cap = BLOCK + OVERLAP};
    L->st = gs_parts_next_run(gs_parts_lane(L->ps, L->i), L->buf + L->used, &r, &L->err);
    if (L->st != GS_OK)
        return 0;
    CHECK(r.n <= r.max);
    uint64_t residues = 0, out = L->laid_out;
    for (size_t k = 0; k < r.n; k++) {
        CHECK_EQ_U64(v[k].out, out);
        CHECK(v[k].at >= at0 && v[k].at - at0 + gs_laid_bytes(&v[k]) <= r.bytes);
        CHECK(out + v[k].len <= r.out_cap);
        CHECK(k == 0 || v[k].at >= v[k - 1].at + gs_laid_bytes(&v[k - 1]));
        CHECK(k == 0 || v[k - 1].at - at0 + gs_laid_bytes(&v[k - 1]) < r.bytes_below);
        const uint8_t *text = L->buf + (v[k].at - at0 + L->used);
        if (v[k].span == 0) {
            uncode(text, v[k].len, L->scratch);
            L->R.coded++;
        }
        CHECK(v[k].len > 0 && (v[k].span == 0 || drop(text, v[k].span, L->scratch) == v[k].len));
        gs_segment s = {.record = r.record + (uint32_t)k, .len = v[k].len, .own = v[k].len,
                        .file = r.file};
        keep(&L->R, &s, L->scratch, v[k].len);
        L->R.loose++;
        residues += v[k].len;
        out += v[k].len + 1;
    }
    CHECK_EQ_U64(r.residues, residues);
    CHECK(r.n == 0 || r.bytes == v[r.n - 1].at - at0 + gs_laid_bytes(&v[r.n - 1]));
    L->used += r.bytes;
    L->laid_out = out;
    if (r.full || cap - L->used < BLOCK + OVERLAP || L->used >= BLOCK ||
        gs_test_below(&L->rs, 7) == 0)
        fresh(L);
    return r.n > 0 || r.full;
}

/* One segment from lane L, by the loose road (raw) or the streaming one:
 * 0 at the lane's end or on an error. */
static int step(lane_run *L)
{
    const size_t cap = 2 * (BLOCK + OVERLAP);
    if (L->raw == 2 && (step_run(L) || L->st != GS_OK))
        return L->st == GS_OK;
    gs_segment s;
    gs_raw_text t = {0};
    int more;
    L->st = L->raw ? gs_parts_next_raw(gs_parts_lane(L->ps, L->i), L->buf + L->used,
                                       cap - L->used, &s, &t, &more, &L->err)
                   : gs_parts_next(gs_parts_lane(L->ps, L->i), L->scratch, &s, &more, &L->err);
    if (L->st != GS_OK || !more)
        return 0;
    if (t.span) {
        CHECK(s.text + t.span == L->buf + L->used + t.bytes);
        size_t k = s.len;
        if (t.codes) {
            CHECK_EQ_U64(t.span, (s.len + 3) / 4);
            uncode(s.text, s.len, L->scratch);
            L->R.coded++;
        } else {
            k = drop(s.text, t.span, L->scratch);
        }
        CHECK_EQ_U64(k, s.len);
        keep(&L->R, &s, L->scratch, k);
        L->R.loose++;
    } else {
        keep(&L->R, &s, s.text, s.len);
    }
    if (L->raw) { /* as the pipeline's reader fills a batch */
        L->used += t.bytes;
        L->laid_out += s.len + 1;
        if (cap - L->used < BLOCK + OVERLAP || ++L->batches % 5 == 0)
            fresh(L);
    }
    return 1;
}

static void *lane_thread(void *arg)
{
    while (step(arg))
        ;
    return NULL;
}

/* io.fastq.map of the runs (parts_map.c: mapped, or read whole). */
static gs_tune tune;
/* Reads unnamed (gs_reader_opts.drop_read_names: a loose part keeps only
 * its reads' lengths, and the join lays their rows). */
static int drop_names;
/* A file cut to cut_to bytes once the parts are open (cut_path NULL: none). */
static const char *cut_path;
static off_t cut_to;

/* Read files in parts of part bytes on lanes lanes, by the loose road
 * (raw) or the streaming one, the lanes on threads of their own or taken
 * in turn on this one. The first error in lane order is the run's. */
static gs_status read_parts(const char *const *files, size_t nf, uint64_t part, int lanes, int raw,
                            int threads, run *R, gs_error *err)
{
    gs_reader_opts o = {.format = GS_INPUT_AUTO, .block = BLOCK, .overlap = OVERLAP, .tune = &tune,
                        .drop_read_names = drop_names};
    gs_parts *ps = NULL;
    *R = (run){.v = calloc(MAX_SEGS, sizeof(seg_out))};
    if (gs_parts_open(files, nf, &o, part, lanes, &R->lay, &ps, err) != GS_OK || ps == NULL) {
        gs_parts_close(ps);
        return err->code ? err->code : gs_fail(err, GS_ESYS, "not read in parts");
    }
    if (cut_path && truncate(cut_path, cut_to) != 0)
        exit(3);
    lane_run L[3];
    pthread_t th[3];
    for (int i = 0; i < lanes; i++) {
        L[i] = (lane_run){.ps = ps, .i = i, .raw = raw, .buf = malloc(2 * (BLOCK + OVERLAP)),
                          .scratch = malloc(BLOCK + OVERLAP), .st = GS_OK, .rs = 7 + (uint64_t)i};
        L[i].R.v = calloc(MAX_SEGS, sizeof(seg_out));
        if (threads && pthread_create(&th[i], NULL, lane_thread, &L[i]) != 0)
            exit(3);
    }
    for (int live = lanes; !threads && live > 0;)
        for (int i = 0; i < lanes; i++)
            if (L[i].buf && !step(&L[i])) {
                free(L[i].buf);
                L[i].buf = NULL;
                live--;
            }
    gs_status st = GS_OK;
    for (int i = 0; i < lanes; i++) {
        if (threads)
            pthread_join(th[i], NULL);
        if (L[i].st != GS_OK && st == GS_OK) {
            st = L[i].st;
            *err = L[i].err;
        }
        memcpy(R->v + R->n, L[i].R.v, L[i].R.n * sizeof *R->v);
        R->n += L[i].R.n;
        R->loose += L[i].R.loose;
        R->coded += L[i].R.coded;
        free(L[i].R.v);
        free(L[i].buf);
        free(L[i].scratch);
    }
    if (st == GS_OK)
        st = gs_parts_finish(ps, err);
    const char *w = gs_parts_warning(ps);
    R->warning = w ? strdup(w) : NULL;
    gs_parts_close(ps);
    qsort(R->v, R->n, sizeof *R->v, by_pos);
    return st;
}

static void run_free(run *R)
{
    for (size_t i = 0; i < R->n; i++)
        free(R->v[i].res);
    free(R->v);
    free(R->warning);
    gs_layout_free(&R->lay);
}

/* B against A (the streaming road): the same segments, records, warning. */
/* Whether the loose roads give texts as 2-bit codes: -1 either, 0 none, 1 some. */
static int expect_codes = -1;

static void compare(const char *label, uint64_t part, int lanes, const run *A, const run *B,
                    int want_loose)
{
    CHECK_EQ_U64(B->n, A->n);
    for (size_t i = 0; i < A->n && i < B->n; i++) {
        const seg_out *x = &A->v[i], *y = &B->v[i];
        int eq = x->record == y->record && x->file == y->file && x->base == y->base &&
                 x->own == y->own &&
                 x->len == y->len && memcmp(x->res, y->res, x->len) == 0;
        if (!eq)
            fprintf(stderr, "%s, parts of %llu, %d lanes: segment %zu differs\n", label,
                    (unsigned long long)part, lanes, i);
        CHECK(eq);
        if (!eq)
            break;
    }
    CHECK_EQ_U64(B->lay.n_rec, A->lay.n_rec);
    for (size_t i = 0; i < A->lay.n_rec && i < B->lay.n_rec; i++) {
        CHECK(strcmp(A->lay.rec[i].name, B->lay.rec[i].name) == 0);
        CHECK_EQ_U64(B->lay.rec[i].length, A->lay.rec[i].length);
        CHECK_EQ_U64(B->lay.rec[i].file, A->lay.rec[i].file);
    }
    CHECK((A->warning == NULL) == (B->warning == NULL));
    CHECK(A->warning == NULL || strcmp(A->warning, B->warning) == 0);
    if (want_loose && B->loose <= B->n / 2)
        fprintf(stderr, "%s, parts of %llu, %d lanes: %zu of %zu segments loose\n", label,
                (unsigned long long)part, lanes, B->loose, B->n);
    if (want_loose)
        CHECK(B->loose > B->n / 2);
    if (expect_codes >= 0 && (B->coded > 0) != expect_codes)
        fprintf(stderr, "%s, parts of %llu, %d lanes: %zu texts as codes\n", label,
                (unsigned long long)part, lanes, B->coded);
    CHECK(expect_codes < 0 || (B->coded > 0) == expect_codes);
}

/* Both roads over files, the loose one with its lanes taken in turn and
 * on threads of their own: the same segments, records, warning, status
 * and (in turn) message. */
static void same(const char *label, const char *const *files, size_t nf, int want_loose)
{
    static const uint64_t parts[] = {37, 200, 1000, 4096};
    for (size_t p = 0; p < sizeof parts / sizeof *parts; p++)
        for (int lanes = 2; lanes <= 3; lanes++) {
            run A, B, C, D;
            gs_error ea = {0}, eb = {0}, ec = {0}, ed = {0};
            gs_status sa = read_parts(files, nf, parts[p], lanes, 0, 0, &A, &ea);
            gs_status sb = read_parts(files, nf, parts[p], lanes, 1, 0, &B, &eb);
            gs_status sc = read_parts(files, nf, parts[p], lanes, 1, 1, &C, &ec);
            gs_status sd = read_parts(files, nf, parts[p], lanes, 2, (int)(p % 2), &D, &ed);
            CHECK_EQ_U64(sb, sa);
            CHECK_EQ_U64(sc, sa);
            CHECK_EQ_U64(sd, sa);
            if (sa != GS_OK && sa == sb && strcmp(ea.msg, eb.msg) != 0)
                fprintf(stderr, "%s: %s | %s\n", label, ea.msg, eb.msg);
            CHECK(sa == GS_OK || strcmp(ea.msg, eb.msg) == 0);
            CHECK_EQ_U64(A.loose, 0);
            if (sa == GS_OK && sb == GS_OK)
                compare(label, parts[p], lanes, &A, &B, want_loose);
            if (sa == GS_OK && sc == GS_OK)
                compare(label, parts[p], lanes, &A, &C, want_loose);
            if (sa == GS_OK && sd == GS_OK)
                compare(label, parts[p], lanes, &A, &D, want_loose);
            run_free(&A);
            run_free(&B);
            run_free(&C);
            run_free(&D);
        }
}

/* The walk fed a few bytes at a time (as the reader feeds it a piece at a
 * time) finds what it finds fed the whole part at once. */
static void walk_in_pieces(const char *label, const char *b, size_t n, int fastq, uint64_t *rs)
{
    gs_loose whole = {0}, cut = {0};
    gs_error err = {0};
    gs_loose_begin(&whole, fastq, BLOCK);
    CHECK(gs_loose_feed(&whole, (const uint8_t *)b, n, n, &err) == GS_OK);
    gs_loose_begin(&cut, fastq, BLOCK);
    char *c = malloc(n + 1); /* the bytes not yet read are not the file's */
    memset(c, '#', n + 1);
    for (size_t have = 0; have < n && cut.state == GS_LOOSE_WALKING;) {
        size_t was = have;
        have += 1 + gs_test_below(rs, have % 3 ? 40 : 700);
        have = have > n ? n : have;
        memcpy(c + was, b + was, have - was);
        CHECK(gs_loose_feed(&cut, (const uint8_t *)c, have, n, &err) == GS_OK);
    }
    free(c);
    CHECK_EQ_U64(cut.state, whole.state);
    CHECK_EQ_U64(cut.n, whole.n);
    if (whole.state == GS_LOOSE_DONE)
        CHECK_EQ_U64(cut.lines, whole.lines);
    int same = cut.n == whole.n;
    for (size_t i = 0; same && i < whole.n; i++)
        same = cut.v[i].seq == whole.v[i].seq && cut.v[i].span == whole.v[i].span &&
               cut.v[i].residues == whole.v[i].residues && cut.v[i].name == whole.v[i].name &&
               cut.v[i].name_len == whole.v[i].name_len;
    if (!same)
        fprintf(stderr, "%s: the walk fed in pieces differs\n", label);
    CHECK(same);
    gs_loose_free(&whole);
    gs_loose_free(&cut);
}

static void put(const char *path, const char *s, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(s, 1, n, f) != n || fclose(f) != 0)
        exit(3);
}

/* A growing text. */
static char *T;
static size_t Tn;
static void add(const char *s)
{
    size_t n = strlen(s);
    T = realloc(T, Tn + n + 1);
    memcpy(T + Tn, s, n + 1);
    Tn += n;
}

static void residues(uint64_t *rs, size_t n, size_t width, int crlf, int blanks)
{
    static const char alpha[] = "ACGTacgtNRY";
    char line[8];
    for (size_t i = 0; i < n; i++) {
        line[0] = alpha[gs_test_below(rs, sizeof alpha - 1)];
        line[1] = 0;
        add(line);
        if (blanks && gs_test_below(rs, 40) == 0)
            add(gs_test_below(rs, 2) ? " " : "\t");
        if ((i + 1) % width == 0 || i + 1 == n)
            add(crlf ? "\r\n" : "\n");
    }
}

static void fasta(uint64_t *rs, int recs, int crlf, int trap)
{
    Tn = 0;
    add("");
    for (int r = 0; r < recs; r++) {
        char h[64];
        snprintf(h, sizeof h, ">r%d%s%s", r, r % 4 ? " a description" : "", crlf ? "\r\n" : "\n");
        add(h);
        size_t n = r % 9 == 3 ? 0 : 1 + gs_test_below(rs, 300);
        if (trap == 1 && r == recs / 2)
            n = 3 * BLOCK; /* longer than a segment */
        residues(rs, n, 10 + gs_test_below(rs, 70), crlf, r % 3 == 0);
        if (r % 7 == 0)
            add(crlf ? "\r\n" : "\n");
        if (trap == 2 && r == recs / 2)
            add("ACGT>joined\n");
    }
    if (trap == 3)
        Tn--; /* no final line end */
}

static void fastq(uint64_t *rs, int recs, int crlf, int trap)
{
    const char *nl = crlf ? "\r\n" : "\n";
    Tn = 0;
    add("");
    for (int r = 0; r < recs; r++) {
        char h[64];
        snprintf(h, sizeof h, "@q%d%s%s", r, r % 3 ? " x" : "", nl);
        add(h);
        size_t n = r % 11 == 5 ? 0 : r % 4 ? 60 : 1 + gs_test_below(rs, 300);
        char *s = malloc(n + 1), *q = malloc(n + 1);
        for (size_t i = 0; i < n; i++) { /* most reads bases only, a fifth not */
            s[i] = r % 5 ? "ACGT"[gs_test_below(rs, 4)] : "ACGTNa"[gs_test_below(rs, 6)];
            q[i] = "@+IG#"[gs_test_below(rs, 5)];
        }
        s[n] = q[n] = 0;
        add(s);
        add(nl);
        add(r % 2 ? "+" : "+again");
        add(nl);
        if (trap == 1 && r == recs / 2 && n > 0)
            q[n - 1] = 0; /* a quality one byte short */
        add(q);
        add(nl);
        if (trap == 2 && r == recs / 3)
            add(nl); /* a blank line between records */
        free(s);
        free(q);
    }
    if (trap == 3)
        Tn -= strlen(nl);
}

int main(void)
{
    uint64_t rs = 29;
    if (gs_test_tmpdir("parts_raw") == NULL)
        return 77;
    char p0[256], p1[256];
    const char *two[] = {p0, p1};
    for (int crlf = 0; crlf <= 1; crlf++) {
        snprintf(p0, sizeof p0, "%s", gs_test_tmp_path("a.fa"));
        snprintf(p1, sizeof p1, "%s", gs_test_tmp_path("b.fq"));
        fasta(&rs, 300, crlf, 0);
        put(p0, T, Tn);
        walk_in_pieces("FASTA", T, Tn, 0, &rs);
        fastq(&rs, 400, crlf, 0);
        put(p1, T, Tn);
        walk_in_pieces("FASTQ", T, Tn, 1, &rs);
        expect_codes = 0;
        same(crlf ? "FASTA, CRLF" : "FASTA", two, 1, 1);
        /* mapped or read whole, reads as codes by either coder or as bytes */
        for (tune.io_fastq_map = -1; tune.io_fastq_map <= 1; tune.io_fastq_map++)
            for (tune.io_fastq_codes = -1; tune.io_fastq_codes <= 1; tune.io_fastq_codes++) {
                expect_codes = tune.io_fastq_map >= 0 && gs_dna2_on(tune.io_fastq_codes);
                same(crlf ? "FASTQ, CRLF" : "FASTQ", two + 1, 1, 1);
            }
        tune.io_fastq_map = tune.io_fastq_codes = 0;
        expect_codes = -1;
        same("FASTA and FASTQ", two, 2, 1);
        drop_names = 1;
        same(crlf ? "FASTQ unnamed, CRLF" : "FASTQ unnamed", two + 1, 1, 1);
        same("FASTA and FASTQ unnamed", two, 2, 1);
        drop_names = 0;
    }
    static const char *traps[] = {"", "long record / short quality", "joined '>' / blank line",
                                  "no final line end"};
    for (int trap = 1; trap <= 3; trap++) {
        snprintf(p0, sizeof p0, "%s", gs_test_tmp_path("t.fa"));
        snprintf(p1, sizeof p1, "%s", gs_test_tmp_path("t.fq"));
        fasta(&rs, 200, 0, trap);
        put(p0, T, Tn);
        walk_in_pieces("FASTA trap", T, Tn, 0, &rs);
        fastq(&rs, 300, 0, trap);
        put(p1, T, Tn);
        walk_in_pieces("FASTQ trap", T, Tn, 1, &rs);
        fprintf(stderr, "trap: %s\n", traps[trap]);
        same("FASTA trap", two, 1, 0);
        same("FASTQ trap", two + 1, 1, 0);
        drop_names = 1;
        same("FASTQ trap, unnamed", two + 1, 1, 0);
        drop_names = 0;
    }
    /* a FASTQ file (one part, given loose) cut short at its first page's
     * end once its parts are open: the part is mapped (parts_map.c) at the
     * size it had, and the walk's read past the new end is an input error
     * naming the file, not SIGBUS */
    snprintf(p0, sizeof p0, "%s", gs_test_tmp_path("c.fa"));
    snprintf(p1, sizeof p1, "%s", gs_test_tmp_path("c.fq"));
    fasta(&rs, 100, 0, 0);
    put(p0, T, Tn);
    cut_to = (off_t)sysconf(_SC_PAGESIZE);
    for (int recs = 1; recs == 1 || Tn < (size_t)cut_to + 200; recs++)
        fastq(&rs, recs, 0, 0);
    CHECK(Tn <= BLOCK + OVERLAP);
    cut_path = p1;
    for (int threads = 0; threads <= 1 && Tn <= BLOCK + OVERLAP; threads++) {
        put(p1, T, Tn);
        run R;
        gs_error err = {0};
        CHECK(read_parts(two, 2, 1 << 20, 2, 1, threads, &R, &err) == GS_EINPUT);
        CHECK(strstr(err.msg, "changed while being read") != NULL && strstr(err.msg, "c.fq") != NULL);
        if (strstr(err.msg, "changed while being read") == NULL)
            fprintf(stderr, "cut file: %s\n", err.msg);
        run_free(&R);
    }
    cut_path = NULL;
    free(T);
    gs_test_tmp_remove();
    return gs_test_done("test_parts_raw");
}
