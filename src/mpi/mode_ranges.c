/* mode_ranges.c - the ranges mode: each rank reads only its pieces of the
 * plan, through the files' .fai indexes (see mode.h).
 *
 * Plain FASTA files with a usable .fai (or, without one, an index rank 0
 * builds in memory on its threads, io/seq/fai_build.c), and BGZF files with both
 * their .fai and .gzi, are read by ranges: rank 0 broadcasts the layout and
 * the plan, and each rank reads its own pieces (pread, or the BGZF blocks
 * that hold them). A stale .fai is an error at any rank count. Building on
 * rank 0 and broadcasting the table, rather than on every rank, reads the
 * file once for the index wherever the ranks run (a shared file system
 * serves one reader, not N). The hits of a rank form contiguous runs of the
 * global order and are written in place.
 */
#define _POSIX_C_SOURCE 200809L
#include "mode.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "comm/comm.h"
#include "core/gs_parallel.h"
#include "gpu/gpu.h"
#include "io/seq/fai.h"
#include "io/seq/seqformat.h"
#include "io/stream/bgzf.h"
#include "plan.h"
#include "sources.h"

typedef struct ranges {
    gs_layout layout;         /* every rank's copy of rank 0's */
    gs_fai_entry *rec_fai;    /* [n_rec]: each record's index entry (names: the layout's) */
    uint64_t *rec_len;        /* [n_rec]: the lengths the plan cuts */
    uint64_t *file_residues;  /* [n_files] */
    gs_plan plan;             /* size x readers parts; rank r reads parts
                               * r x readers .. (r + 1) x readers - 1 */
    gs_seqfile *fds;          /* [readers][n_files]: each reader's files */
    size_t n_fds;
    gs_range_src rs[GS_MAX_READERS];
    int any_bgzf;             /* some file is BGZF (gs_policy_block_long) */
    double t[3];              /* rank 0, --debug time: start, indexes, layout */
} ranges;

/* ---- rank 0: can every file be read by ranges? ------------------------- */

/* Whether path exists next to a file: FILE.<ext>. */
static int beside(const char *path, const char *ext)
{
    char name[4096];
    return (size_t)snprintf(name, sizeof name, "%s.%s", path, ext) < sizeof name &&
           access(name, F_OK) == 0;
}

static gs_read_kind read_kind(const char *path, gs_input_format fmt)
{
    /* FASTQ, forced or not, streams: the reader says when it is not */
    gs_file_facts f = {.raw = fmt == GS_INPUT_RAW || fmt == GS_INPUT_FASTQ,
                       .seekable = gs_input_seekable(path)};
    gs_seq_head h;
    gs_error ignored = {0};
    /* a pipe is not sniffed here: its bytes go to the reader; a file that
     * cannot be read is the reader's to report; a page is enough to tell */
    if (!f.raw && f.seekable && gs_seq_detect_path(path, 4096, &h, &ignored) == GS_OK) {
        f.opened = 1;
        f.format = h.format;
        f.start = h.start;
        f.plain = h.comp == GS_COMP_NONE;
        f.bgzf = h.comp == GS_COMP_BGZF;
        f.has_fai = f.bgzf && beside(path, "fai");
        f.has_gzi = f.bgzf && beside(path, "gzi");
    }
    return gs_policy_read_kind(&f);
}

/* A small file, read whole once: its sniff, the index's say and the index
 * itself come from these bytes (100,000 small genomes spent their plan in
 * four opens, thirteen stats and a map each). */
enum { SMALL_FILE = 1 << 16 };

typedef struct small_file {
    uint8_t *b; /* NULL: not read this way */
    size_t n;
} small_file;

/* The whole of a plain regular file of at most SMALL_FILE bytes into sf
 * (the caller frees sf->b), or sf->b = NULL: the general path looks at it. */
static void read_small(const char *path, small_file *sf)
{
    struct stat st;
    size_t got = 0, n = 0;
    sf->b = NULL;
    /* stat first: opening a FIFO would take its writer from the reader */
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > SMALL_FILE)
        return;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= SMALL_FILE) {
        n = (size_t)st.st_size;
        sf->b = malloc(n + 1);
    }
    while (sf->b && got <= n) { /* one byte more than fstat said: a file still growing */
        ssize_t k = read(fd, sf->b + got, n + 1 - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    if (sf->b && (got != n || gs_bgzf_sniff(sf->b, n) != GS_COMP_NONE)) {
        free(sf->b);
        sf->b = NULL;
    }
    sf->n = n;
}

static gs_read_kind small_kind(const small_file *sf)
{
    gs_seq_head h;
    gs_seq_sniff(GS_COMP_NONE, sf->b, sf->n, 1, &h);
    gs_file_facts f = {.seekable = 1, .opened = 1, .format = h.format, .start = h.start,
                       .plain = 1};
    return gs_policy_read_kind(&f);
}

/* A file, for the facts the policy asks for only when it needs them
 * (index_pays, index_sizes). */
typedef struct facts_ctx {
    const char *path;
    int threads;
    uint64_t mem; /* the node's memory, bytes (0: unknown) */
    const small_file *sf;
} facts_ctx;

static uint64_t node_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

/* The facts of gs_policy_index_pays; the first MiB (or the whole of a
 * smaller file) is read only when the others leave it a say. */
static int index_pays(void *arg)
{
    const facts_ctx *c = arg;
    if (c->sf->b)
        return gs_policy_index_pays(c->threads, c->sf->n, c->mem,
                                    gs_policy_headers((const char *)c->sf->b, c->sf->n));
    struct stat st;
    uint64_t size = stat(c->path, &st) == 0 ? (uint64_t)st.st_size : UINT64_MAX;
    if (!gs_policy_index_pays(c->threads, size, c->mem, 0))
        return 0;
    size_t want = size < GS_POLICY_SAMPLE ? (size_t)size : GS_POLICY_SAMPLE;
    char *b = malloc(want + 1);
    FILE *f = b ? fopen(c->path, "rb") : NULL;
    size_t n = f ? fread(b, 1, want, f) : 0;
    size_t headers = gs_policy_headers(b, n);
    if (f)
        fclose(f);
    free(b);
    return gs_policy_index_pays(c->threads, size, c->mem, headers);
}

/* The sizes gs_policy_index_dense asks for: path's .fai's and its own
 * (UINT64_MAX where its stat fails), two stats before the index is loaded;
 * 0 without a .fai. */
static int index_sizes(void *arg, uint64_t *index_bytes, uint64_t *file_bytes)
{
    const facts_ctx *c = arg;
    char name[4096];
    struct stat fst, ist;
    if ((size_t)snprintf(name, sizeof name, "%s.fai", c->path) >= sizeof name ||
        stat(name, &ist) != 0)
        return 0;
    *index_bytes = (uint64_t)ist.st_size;
    *file_bytes = c->sf->b                      ? c->sf->n
                  : stat(c->path, &fst) == 0 ? (uint64_t)fst.st_size
                                               : UINT64_MAX;
    return 1;
}

/* One file's index entries into *fai, or *ok = 0 when it must be streamed. */
static gs_status load_index(const gs_job *j, const char *path, uint64_t mem, gs_fai *fai, int *ok,
                            char *dups, int *bgzf, gs_error *err)
{
    small_file sf = {0};
    if (j->o->format == GS_INPUT_AUTO || j->o->format == GS_INPUT_FASTA)
        read_small(path, &sf);
    gs_read_kind kind = sf.b ? small_kind(&sf) : read_kind(path, j->o->format);
    facts_ctx pc = {path, j->threads, mem, &sf};
    if (kind == GS_READ_PLAIN && j->o->tune.io_fai_dense >= 0 &&
        gs_policy_index_dense(j->size, index_sizes, &pc))
        kind = GS_READ_STREAM; /* read in parts: the whole corpus streams */
    if (kind == GS_READ_BGZF)
        __atomic_store_n(bgzf, 1, __ATOMIC_RELAXED);
    gs_status st = kind == GS_READ_STREAM || kind == GS_READ_PLAIN_LEAD
                       ? GS_OK
                       : gs_fai_load(path, &j->o->tune, fai, err);
    if (st != GS_OK)
        goto done; /* a stale or malformed index is the user's to fix */
    *dups = fai->omits_dups; /* warned about in file order (load_indexes) */
    gs_index_use use = gs_policy_index_use(kind, fai->n > 0, j->size, index_pays, &pc);
    *ok = use != GS_INDEX_STREAM;
    if (use != GS_INDEX_BUILD)
        goto done;
    gs_error build = {0};
    if ((sf.b ? gs_fai_build_bytes(path, sf.b, sf.n, fai, &build)
              : gs_fai_build(path, j->threads, &j->o->tune, fai, &build)) != GS_OK) {
        if (build.code != GS_EINPUT || fai->changed)
            st = gs_fail(err, build.code, "%s", build.msg);
        else
            *ok = 0; /* cannot be indexed (htslib's rules): stream it */
    }
done:
    free(sf.b);
    return st;
}

/* The files' indexes on a team of threads: each takes the next file; the
 * first file in corpus order that fails or must be streamed (stop) decides,
 * as a loop over the files would. 100,000 small genomes spend their plan
 * here, in opens and sniffs, not in reading. */
typedef struct index_team {
    const gs_job *j;
    gs_fai *fai;
    char *dups;          /* [n_files]: the .fai leaves out repeated names */
    int bgzf;            /* some file is BGZF */
    uint64_t mem;
    size_t next;         /* the next file to take (atomic) */
    size_t stop;         /* n_files, or the first file that failed or streams */
    gs_status st;        /* that file's status (GS_OK: it streams) */
    gs_error err;        /* and error */
    pthread_mutex_t lock;
} index_team;

static void *index_worker(void *arg)
{
    index_team *t = *(index_team **)arg;
    const size_t n = t->j->o->n_corpus;
    for (;;) {
        size_t f = __atomic_fetch_add(&t->next, 1, __ATOMIC_RELAXED);
        if (f >= n || f > __atomic_load_n(&t->stop, __ATOMIC_RELAXED))
            return NULL;
        gs_error e = {0};
        int ok = 1;
        gs_status st = load_index(t->j, t->j->o->corpus[f], t->mem, &t->fai[f], &ok, &t->dups[f],
                                  &t->bgzf, &e);
        if (st == GS_OK && ok)
            continue;
        pthread_mutex_lock(&t->lock);
        if (f < t->stop) {
            t->stop = f;
            t->st = st;
            t->err = e;
        }
        pthread_mutex_unlock(&t->lock);
    }
}

/* Indexes for every file, or *ok = 0 when some file must be streamed;
 * *bgzf: some file is BGZF. */
static gs_status load_indexes(const gs_job *j, gs_fai *fai, int *ok, int *bgzf, gs_error *err)
{
    const size_t n = j->o->n_corpus;
    *ok = 1;
    if (gs_corpus_check((const char *const *)j->o->corpus, n, err) != GS_OK)
        return err->code;
    index_team t = {.j = j, .fai = fai, .mem = node_memory(), .stop = n,
                    .lock = PTHREAD_MUTEX_INITIALIZER};
    if ((t.dups = gs_calloc(n + 1, 1, err, "indexes")) == NULL)
        return GS_ESYS;
    index_team *team[GS_PARALLEL_MAX];
    int n_threads = gs_parallel_threads(j->threads, n);
    for (int k = 0; k < n_threads; k++)
        team[k] = &t;
    gs_run_parallel(index_worker, team, sizeof *team, n_threads);
    for (size_t f = 0; f < n && f <= t.stop; f++)
        if (t.dups[f])
            fprintf(stderr,
                    "gscan: warning: %s.fai leaves out records whose name repeats (samtools "
                    "faidx keeps the first): not used; gscan index writes one that keeps them\n",
                    j->o->corpus[f]);
    free(t.dups);
    *bgzf = t.bgzf;
    if (t.stop < n && t.st != GS_OK) {
        *err = t.err;
        return t.st;
    }
    *ok = t.stop == n;
    return GS_OK;
}

/* take_layout's copy, in shares of at most LAY_SHARE records of one file:
 * share c copies records [i0, i1) of file f to layout record at, their
 * names to names byte name_at (34 M ESTs took 1.5 s on one thread). */
enum { LAY_SHARE = 1 << 20 };
typedef struct lay_share {
    ranges *s;
    const gs_fai *fai;
    size_t f, i0, i1, at, name_at;
} lay_share;

static void *lay_copy(void *arg)
{
    const lay_share *c = arg;
    const gs_fai *x = &c->fai[c->f];
    gs_layout *l = &c->s->layout;
    char *p = l->names + c->name_at;
    if (x->names && c->i1 > c->i0) { /* the share's names lie together in the index's block */
        const char *b = x->v[c->i0].name, *e = x->v[c->i1 - 1].name;
        memcpy(p, b, (size_t)(e - b) + strlen(e) + 1);
    }
    for (size_t i = c->i0, r = c->at; i < c->i1; i++, r++) {
        const gs_fai_entry *v = &x->v[i];
        char *name = p + (x->names ? (size_t)(v->name - x->v[c->i0].name) : 0);
        if (x->names == NULL) { /* one allocation a name (gs_fai_build) */
            size_t n = strlen(v->name) + 1;
            memcpy(p, v->name, n);
            p += n;
        }
        l->rec[r] = (gs_record){.name = name, .length = v->length, .file = (uint32_t)c->f};
        c->s->rec_fai[r] = *v;
        c->s->rec_fai[r].name = name;
    }
    return NULL;
}

/* The name bytes of file f's records (NULs included). */
typedef struct name_bytes {
    const gs_fai *fai;
    size_t f;
    size_t bytes;
} name_bytes;

static void *count_names(void *arg)
{
    name_bytes *c = arg;
    const gs_fai *x = &c->fai[c->f];
    c->bytes = x->names ? x->names_len : 0;
    for (size_t i = 0; x->names == NULL && i < x->n; i++)
        c->bytes += strlen(x->v[i].name) + 1;
    return NULL;
}

/* The layout and index entries of every record from the loaded indexes,
 * the names in one block: the index's own block and entries when there is
 * one file with one (no copy of a large array), else copied on the
 * threads. fai[] gives up what it moves. */
static gs_status take_layout(ranges *s, gs_fai *fai, size_t n_files, int threads, gs_error *err)
{
    gs_layout *l = &s->layout;
    size_t n = 0, n_shares = 0, bytes = 0;
    for (size_t f = 0; f < n_files; f++) {
        n += fai[f].n;
        n_shares += fai[f].names ? (fai[f].n + LAY_SHARE - 1) / LAY_SHARE : fai[f].n > 0;
    }
    const int take = n_files == 1 && fai[0].names;
    l->rec = gs_calloc(n + 1, sizeof *l->rec, err, "layout");
    s->rec_fai = take ? fai[0].v : gs_calloc(n + 1, sizeof *s->rec_fai, err, "layout");
    name_bytes *nb = take ? NULL : gs_calloc(n_files, sizeof *nb, err, "layout");
    lay_share *sh = take ? NULL : gs_calloc(n_shares, sizeof *sh, err, "layout");
    if (l->rec == NULL || s->rec_fai == NULL || (!take && (nb == NULL || sh == NULL)))
        goto fail;
    if (take) {
        l->names = fai[0].names;
        l->names_len = fai[0].names_len;
        fai[0] = (gs_fai){0}; /* its names and entries moved into the layout */
        for (size_t i = 0; i < n; i++)
            l->rec[i] = (gs_record){.name = s->rec_fai[i].name, .length = s->rec_fai[i].length};
        l->n_rec = l->cap_rec = n;
        return GS_OK;
    }
    for (size_t f = 0; f < n_files; f++)
        nb[f] = (name_bytes){.fai = fai, .f = f};
    gs_run_items(count_names, nb, sizeof *nb, n_files, threads);
    for (size_t f = 0; f < n_files; f++)
        bytes += nb[f].bytes;
    if ((l->names = gs_malloc(bytes + 1, err, "layout")) == NULL)
        goto fail;
    l->names_len = bytes;
    size_t k = 0, at = 0, name_at = 0;
    for (size_t f = 0; f < n_files; at += fai[f].n, name_at += nb[f++].bytes) {
        const gs_fai *x = &fai[f];
        if (x->names == NULL && x->n > 0)
            sh[k++] = (lay_share){s, fai, f, 0, x->n, at, name_at};
        for (size_t i0 = 0; x->names && i0 < x->n; i0 += LAY_SHARE)
            sh[k++] = (lay_share){s, fai, f, i0, x->n - i0 < LAY_SHARE ? x->n : i0 + LAY_SHARE,
                                  at + i0, name_at + (size_t)(x->v[i0].name - x->names)};
    }
    gs_run_items(lay_copy, sh, sizeof *sh, k, threads);
    l->n_rec = l->cap_rec = n;
    free(nb);
    free(sh);
    return GS_OK;
fail:
    free(nb);
    free(sh);
    return GS_ESYS;
}

static void ranges_free(gs_job *j);

gs_status gs_ranges_probe(gs_job *j, int *by_ranges, gs_error *err)
{
    const size_t n_files = j->o->n_corpus;
    ranges *s = gs_calloc(1, sizeof *s, err, "plan");
    gs_fai *fai = gs_calloc(n_files ? n_files : 1, sizeof *fai, err, "indexes");
    gs_status st = s && fai ? GS_OK : GS_ESYS;
    *by_ranges = 0;
    j->ms = s;
    if (st == GS_OK) {
        s->t[0] = gs_now();
        st = load_indexes(j, fai, by_ranges, &s->any_bgzf, err);
        s->t[1] = gs_now();
    }
    if (st == GS_OK && *by_ranges)
        st = take_layout(s, fai, n_files, j->threads, err);
    for (size_t f = 0; fai && f < n_files; f++)
        gs_fai_free(&fai[f]);
    free(fai);
    if (s)
        s->t[2] = gs_now();
    if (st != GS_OK || !*by_ranges)
        ranges_free(j);
    return st;
}

/* ---- every rank: the layout, the plan, the files ------------------------ */

/* Rank 0's layout and index entries to every rank as two large buffers,
 * whatever the number of records: the block of names as it is, then
 * length, file, offset, linebases, linewidth of every record. */
static void bcast_layout(const gs_job *j, ranges *s, gs_error *err)
{
    gs_layout *l = &s->layout;
    uint64_t hdr[3] = {l->n_rec, l->names_len, (uint64_t)s->any_bgzf};
    GS_MPI_CHECK(MPI_Bcast(hdr, 3, MPI_UINT64_T, 0, j->comm));
    s->any_bgzf = (int)hdr[2];
    const size_t n_rec = (size_t)hdr[0];
    uint64_t *v = gs_malloc(5 * n_rec * sizeof *v + 1, err, "layout broadcast");
    if (v == NULL)
        gs_mpi_abort(j->comm, GS_ESYS); /* cannot take part in the broadcast */
    if (j->rank != 0) {
        l->names_len = (size_t)hdr[1];
        l->names = gs_malloc(l->names_len + 1, err, "layout");
        l->rec = gs_calloc(n_rec + 1, sizeof *l->rec, err, "layout");
        s->rec_fai = gs_calloc(n_rec + 1, sizeof *s->rec_fai, err, "layout");
        if (l->names == NULL || l->rec == NULL || s->rec_fai == NULL)
            gs_mpi_abort(j->comm, GS_ESYS);
    }
    for (size_t i = 0; j->rank == 0 && i < n_rec; i++) {
        uint64_t *x = v + 5 * i;
        x[0] = l->rec[i].length;
        x[1] = l->rec[i].file;
        x[2] = s->rec_fai[i].offset;
        x[3] = s->rec_fai[i].linebases;
        x[4] = s->rec_fai[i].linewidth;
    }
    gs_mpi_bcast_bytes(l->names, l->names_len, 0, j->comm);
    gs_mpi_bcast_bytes(v, 5 * n_rec * sizeof *v, 0, j->comm);
    if (j->rank != 0) {
        l->n_rec = l->cap_rec = n_rec;
        gs_layout_point_names(l);
        for (size_t i = 0; i < n_rec; i++) {
            const uint64_t *x = v + 5 * i;
            l->rec[i].length = x[0];
            l->rec[i].file = (uint32_t)x[1];
            s->rec_fai[i] = (gs_fai_entry){.name = l->rec[i].name, .length = x[0],
                                           .offset = x[2], .linebases = (uint32_t)x[3],
                                           .linewidth = (uint32_t)x[4]};
        }
    }
    free(v);
}

/* The record lengths the plan cuts, the residues of each file, and the
 * layout's own copy of the file names. */
static gs_status lengths(const gs_job *j, ranges *s, gs_error *err)
{
    gs_layout *l = &s->layout;
    const size_t n_files = j->o->n_corpus;
    s->rec_len = gs_malloc(l->n_rec * sizeof *s->rec_len + 1, err, "plan");
    s->file_residues = gs_calloc(n_files ? n_files : 1, sizeof *s->file_residues, err, "plan");
    l->files = gs_calloc(n_files ? n_files : 1, sizeof *l->files, err, "layout");
    if (s->rec_len == NULL || s->file_residues == NULL || l->files == NULL)
        return GS_ESYS;
    for (; l->n_files < n_files; l->n_files++)
        if ((l->files[l->n_files] = strdup(j->o->corpus[l->n_files])) == NULL)
            return gs_fail(err, GS_ESYS, "out of memory (layout)");
    for (size_t i = 0; i < l->n_rec; i++) {
        s->rec_len[i] = l->rec[i].length;
        s->file_residues[l->rec[i].file] += s->rec_len[i];
    }
    return GS_OK;
}

/* Rank 0 computes the plan and sends its ranges; the plan is a pure
 * function, so the others could compute it, but one source of truth is
 * simpler to reason about when layouts grow large. */
static gs_status cut(const gs_job *j, ranges *s, gs_error *err)
{
    const int parts = j->size * j->readers;
    gs_status st = lengths(j, s, err);
    if (st == GS_OK && j->rank == 0)
        st = gs_partition_plan(s->rec_len, s->layout.n_rec, parts, j->overlap, &s->plan, err);
    if (gs_mpi_agree(j->comm, err) != GS_OK)
        return err->code;
    if (j->rank != 0) {
        s->plan = (gs_plan){.len = s->rec_len, .n_rec = s->layout.n_rec, .n_ranks = parts,
                            .overlap = j->overlap};
        s->plan.parts = gs_malloc((size_t)parts * sizeof *s->plan.parts, err, "plan");
        if (s->plan.parts == NULL)
            gs_mpi_abort(j->comm, GS_ESYS); /* cannot take part in the broadcast */
    }
    gs_mpi_bcast_bytes(s->plan.parts, (size_t)parts * sizeof *s->plan.parts, 0, j->comm);
    GS_MPI_CHECK(MPI_Bcast(&s->plan.total, 1, MPI_UINT64_T, 0, j->comm));
    s->plan.circular = j->o->circular;
    return GS_OK;
}

/* Each reader's table of the files, closed: a reader opens a file when it
 * reaches its first piece there and closes it when done with it (for BGZF
 * opening loads the .gzi and checks its tail against the file), so a run
 * of 100,000 files holds one open per reader; readers share nothing, so a
 * BGZF block cache needs no lock. */
static gs_status open_files(const gs_job *j, ranges *s, gs_error *err)
{
    const size_t n_files = j->o->n_corpus;
    s->n_fds = (size_t)j->readers * n_files;
    if ((s->fds = gs_malloc(s->n_fds * sizeof *s->fds + 1, err, "files")) == NULL)
        return GS_ESYS;
    for (size_t f = 0; f < s->n_fds; f++)
        s->fds[f] = (gs_seqfile){.path = j->o->corpus[f % n_files], .fd = -1};
    return GS_OK;
}

static gs_status ranges_plan(gs_job *j, gs_error *err)
{
    if (j->ms == NULL && (j->ms = gs_calloc(1, sizeof(ranges), err, "plan")) == NULL)
        gs_mpi_abort(j->comm, GS_ESYS); /* cannot take part in the broadcasts */
    ranges *s = j->ms;
    gs_status st = GS_OK;
    if (j->size > 1)
        bcast_layout(j, s, err);
    if (cut(j, s, err) != GS_OK)
        return err->code;
    j->total = s->plan.total;
    j->block = (size_t)gs_policy_block_fit(j->block, j->o->block, j->total);
    j->block = (size_t)gs_policy_block_long(
        j->block, j->o->block,
        j->use_gpu && !s->any_bgzf && gs_gpu_takes_laid(&j->ks, j->o->with_seq),
        j->total / (s->layout.n_rec ? s->layout.n_rec : 1));
    st = open_files(j, s, err);
    if (j->rank == 0 && (j->o->tune.debug & GS_DEBUG_TIME)) /* docs/performance.md */
        fprintf(stderr,
                "gscan: plan: indexes %.3f s, layout %.3f s, cut and files %.3f s (%zu records, "
                "%d parts)\n",
                s->t[1] - s->t[0], s->t[2] - s->t[1], gs_now() - s->t[2], s->layout.n_rec,
                j->size * j->readers);
    return st;
}

/* ---- a pass -------------------------------------------------------------- */

static gs_status ranges_open(gs_job *j, gs_pass *p, gs_error *err)
{
    (void)err;
    ranges *s = j->ms;
    for (int r = 0; r < j->readers; r++) {
        gs_range_src_init(&s->rs[r], &s->plan, j->rank * j->readers + r, &s->layout, s->rec_fai,
                          s->fds + (size_t)r * j->o->n_corpus, j->block);
        /* BGZF: a reader inflates each segment's blocks on its share of the
         * rank's threads (inflating, not parsing, is its work) */
        s->rs[r].bgzf_threads = j->threads / j->readers;
        s->rs[r].bgzf_inflate = j->o->tune.io_bgzf_inflate;
        p->src[r] = gs_source_ranges(&s->rs[r]);
    }
    p->n_src = j->readers;
    return GS_OK;
}

static gs_status ranges_close(gs_job *j, gs_pass *p, gs_status st, gs_error *err)
{
    (void)err;
    const ranges *s = j->ms;
    for (int r = 0; r < j->readers; r++)
        p->bytes_read += s->rs[r].bytes_read;
    return st;
}

static const gs_layout *ranges_layout(const gs_job *j)
{
    return &((const ranges *)j->ms)->layout;
}

static void ranges_free(gs_job *j)
{
    ranges *s = j->ms;
    if (s == NULL)
        return;
    for (size_t f = 0; s->fds && f < s->n_fds; f++)
        gs_seqfile_close(&s->fds[f]);
    free(s->fds);
    free(s->rec_fai); /* its names are the layout's */
    gs_layout_free(&s->layout);
    gs_plan_free(&s->plan);
    free(s->rec_len);
    free(s->file_residues);
    free(s);
    j->ms = NULL;
}

const gs_mode gs_mode_ranges = {.name = "ranges", .names = GS_NAMES_BESIDE, .plan = ranges_plan,
                                .open = ranges_open, .close = ranges_close,
                                .layout = ranges_layout, .free = ranges_free};
