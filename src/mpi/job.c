/* job.c - the phases of one scan over MPI (see job.h).
 *
 * Data movement: rank 0 decides how the corpus is read. Plain FASTA files
 * with a usable .fai (or, without one, an index rank 0 builds in memory on
 * its threads, fai_parallel.c), and BGZF files with both their .fai and .gzi,
 * are "ranges": rank 0 broadcasts the layout and the plan, and each rank
 * reads only its own pieces (pread, or the BGZF blocks that hold them).
 * Anything else (gzip, raw, pipes, FIFOs and stdin, FASTA that cannot be
 * indexed, BGZF without its indexes) is "streamed": rank 0 reads it once and
 * deals blocks to the ranks. One process builds an index only when that pays
 * (index_pays: several threads, a file the page cache holds) and otherwise
 * streams the files itself; a stale .fai is an error at any rank count.
 * Building on rank 0 and broadcasting the table, rather than on every rank,
 * reads the file once for the index wherever the ranks run (a shared file
 * system serves one reader, not N). Hits of the ranges mode form contiguous runs of
 * the global order per rank and are written in place; streamed hits are
 * gathered to rank 0 first. An LZ77 hybrid index (--index) is a fourth
 * mode: every rank reads the index, scans its share of the kernel string
 * and derives the occurrences it owns (src/lz); hits are gathered as when
 * streamed.
 */
#define _POSIX_C_SOURCE 200809L
#include "job.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/gs_hitsort.h"
#include "gpu/gpu.h"
#include "io/seq/fai.h"
#include "io/results/h5out.h"
#include "io/seq/patterns.h"
#include "io/seq/seqformat.h"
#include "io/stream/replace_file.h"
#include "io/results/text_out.h"
#include "lz/lz.h"
#include "match/engine.h"
#include "match/keyset.h"
#include "match/sites.h"
#include "scan/pipeline.h"
#include "comm/comm.h"
#include "plan.h"
#include "progress.h"
#include "sources.h"

enum { MODE_LOCAL, MODE_RANGES, MODE_STREAMED, MODE_LZ };

typedef struct job {
    const gs_scan_opts *o;
    MPI_Comm comm;
    int rank, size;
    gs_patset ps;
    gs_keyset ks;
    const gs_engine *engine;
    int use_gpu, gpu_device, n_gpus, threads;
    size_t block; /* residues per block: --block-size, else by device */
    size_t overlap;
    int mode;
    int readers;           /* reading threads per rank: ranges mode, else 1 */
    gs_layout layout;      /* rank 0; every rank in ranges mode */
    gs_fai_entry *rec_fai; /* ranges mode: [n_rec] */
    gs_seqfile *fds;       /* ranges mode: [readers][n_files], each reader's files */
    gs_plan plan;          /* ranges mode: size x readers parts; rank r reads parts
                            * r x readers .. (r + 1) x readers - 1 */
    uint64_t *rec_len;     /* ranges mode: [n_rec], the lengths the plan cuts */
    uint64_t *file_residues; /* ranges mode: [n_files] */
    gs_lz_index lz;        /* MODE_LZ: the whole index, on every rank */
    uint64_t bytes_read;
    double progress_t0, progress_last;
    gs_progress prog;        /* every rank's residues, summed on rank 0 */
    double t[GS_N_PHASES];
} job;

/* ---- phase 1: patterns, engine, device --------------------------------- */

/* Refuse an output that would replace something other than a regular
 * file, or an input of the run (a corpus file or its indexes, the pattern
 * file, the config, the --index file), before any work is done: the writers
 * check again when they rename. */
static gs_status check_output(const gs_scan_opts *o, gs_error *err)
{
    if (!strcmp(o->out, "-"))
        return GS_OK;
    size_t n = 0, len = 0;
    for (size_t f = 0; f < o->n_corpus; f++)
        len += 2 * (strlen(o->corpus[f]) + 5); /* FILE.fai and FILE.gzi */
    const char **in = gs_malloc((3 * o->n_corpus + 3) * sizeof *in, err, "inputs");
    char *names = gs_malloc(len + 1, err, "inputs"), *p = names;
    if (in == NULL || names == NULL) {
        free(in);
        free(names);
        return GS_ESYS;
    }
    for (size_t f = 0; f < o->n_corpus; f++) {
        in[n++] = o->corpus[f];
        for (int k = 0; k < 2; k++) {
            in[n++] = p;
            p += sprintf(p, "%s.%s", o->corpus[f], k ? "gzi" : "fai") + 1;
        }
    }
    in[n++] = o->patterns;
    in[n++] = o->config;
    in[n++] = o->index;
    gs_status st = gs_out_check(o->out, in, n, err);
    free(in);
    free(names);
    return st;
}

/* --seq reads hits back through each corpus file's .fai: say one is missing
 * before the scan, not after it. */
static gs_status check_seq(const gs_scan_opts *o, gs_error *err)
{
    for (size_t f = 0; o->with_seq && f < o->n_corpus; f++) {
        char fai[4096];
        if ((size_t)snprintf(fai, sizeof fai, "%s.fai", o->corpus[f]) >= sizeof fai ||
            access(fai, R_OK) != 0)
            return gs_fail(err, GS_EINPUT,
                           "--seq reads the corpus through its index: run gscan index (%s)",
                           o->corpus[f]);
    }
    return GS_OK;
}

/* The collective steps come first, so that a rank whose pattern file fails
 * still takes part in them and reaches the agreement after this phase. */
static gs_status setup(job *j, gs_error *err)
{
    const gs_scan_opts *o = j->o;
    int local_rank, local_size;
    gs_mpi_node_rank(j->comm, &local_rank, &local_size);
    /* the GPU is used when the engine (auto: ac, or bv when approximate) has
     * a GPU counterpart in the engine table */
    const gs_engine *named = strcmp(o->engine, "auto") ? gs_engine_find(o->engine) : NULL;
    const gs_engine *cand = named ? named : o->match ? &gs_engine_bv : &gs_engine_ac;
    int ndev = o->device == GS_DEV_CPU || cand->gpu == NULL ? 0 : gs_gpu_device_count();
    j->use_gpu = ndev > 0;
    j->gpu_device = ndev ? local_rank % ndev : 0;
    int mine = j->use_gpu && local_rank < ndev;
    GS_MPI_CHECK(MPI_Allreduce(&mine, &j->n_gpus, 1, MPI_INT, MPI_SUM, j->comm));
    j->threads = o->threads;
    if (j->threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        j->threads = cores > local_size ? (int)(cores / local_size) : 1;
    }
    /* A GPU wants large copies; CPU workers share blocks out, so a small
     * corpus (one bacterial genome) must still cut into many */
    j->block = o->block ? (size_t)o->block : j->use_gpu ? GS_BLOCK_GPU : GS_BLOCK_CPU;
    if (o->device == GS_DEV_GPU && cand->gpu == NULL)
        return gs_fail(err, GS_EUSAGE, "engine %s%s has no GPU version yet (--device gpu)",
                       cand->name, o->match ? " (approximate matching)" : "");
    for (size_t f = 0; o->verify && j->rank == 0 && f < o->n_corpus; f++)
        if (!gs_input_seekable(o->corpus[f]))
            return gs_fail(err, GS_EUSAGE,
                           "--verify reads the corpus twice, a pipe or stdin only once: "
                           "write it to a file first (%s)",
                           o->corpus[f]);
    if (o->device == GS_DEV_GPU && ndev == 0)
#ifdef GS_HAVE_CUDA
        return gs_fail(err, GS_ESYS, "--device gpu: no GPU is visible (rank %d)", j->rank);
#else
        return gs_fail(err, GS_ESYS, "--device gpu: no GPU in this build (built without CUDA)");
#endif

    if (j->rank == 0 && (check_output(o, err) != GS_OK || check_seq(o, err) != GS_OK))
        return err->code;
    gs_status st = gs_patset_load(o->patterns, o->seqs, o->n_seqs, o->alphabet, &j->ps, err);
    if (st == GS_OK && o->match != GS_MATCH_EXACT)
        st = gs_keyset_build_approx(&j->ps, o->both_strands, o->match, o->max_dist, &j->ks, err);
    else if (st == GS_OK)
        st = gs_keyset_build(&j->ps, o->alphabet, o->both_strands, o->max_expansions, &j->ks, err);
    if (st != GS_OK)
        return st;
    j->overlap = gs_keyset_overlap(&j->ks);

    if (!strcmp(o->engine, "auto"))
        j->engine = j->use_gpu && o->match == GS_MATCH_EXACT ? &gs_engine_ac : gs_engine_auto(&j->ks);
    else
        j->engine = gs_engine_find(o->engine);
    if (j->engine == NULL)
        return gs_fail(err, GS_EUSAGE, "unknown engine '%s' (--engine)", o->engine);
    if (!gs_engine_can(j->engine, &j->ks))
        return gs_fail(err, GS_EUSAGE, "engine %s does %s matching only (--engine)", j->engine->name,
                       o->match ? "exact" : "approximate");
    if (j->use_gpu && j->engine->gpu == NULL)
        return gs_fail(err, GS_EUSAGE, "engine %s runs on the CPU only (--engine %s with --device gpu)",
                       j->engine->name, j->engine->name);
    return GS_OK;
}

/* ---- phase 2: layout and plan ------------------------------------------ */

enum { READ_STREAM, READ_PLAIN, READ_PLAIN_LEAD, READ_BGZF };

/* How a file can be read by ranges: READ_PLAIN when it is plain FASTA
 * (starts with '>'), READ_PLAIN_LEAD when it is plain and starts with a
 * UTF-8 BOM or blanks (FASTA if a header follows: only an index built in
 * memory can say, never a .fai), READ_BGZF when it is BGZF with both FILE.fai
 * and FILE.gzi next to it (whether they still fit is checked when they are
 * loaded), else READ_STREAM: gzip, raw, or BGZF without its indexes (rank 0
 * does not index a compressed file on the fly: that would read it twice). */
static int read_kind(const char *path, gs_input_format fmt)
{
    if (fmt == GS_INPUT_RAW || !gs_input_seekable(path))
        return READ_STREAM; /* a pipe is not sniffed here: its bytes go to the reader */
    gs_seq_head h;
    gs_error ignored = {0};
    if (gs_seq_detect_path(path, 4096, &h, &ignored) != GS_OK) /* a page is enough to tell */
        return READ_STREAM; /* the reader reports it */
    gs_compression c = h.comp;
    if (c == GS_COMP_NONE)
        return h.format == GS_SEQ_FASTA && h.start == 0 ? READ_PLAIN
               : h.format == GS_SEQ_FASTA || h.format == GS_SEQ_UNDECIDED ? READ_PLAIN_LEAD
                                                                          : READ_STREAM;
    if (c != GS_COMP_BGZF)
        return READ_STREAM;
    size_t l = strlen(path) + 5;
    char *idx = malloc(l);
    int both = 0;
    if (idx) {
        snprintf(idx, l, "%s.fai", path);
        both = access(idx, F_OK) == 0;
        snprintf(idx, l, "%s.gzi", path);
        both = both && access(idx, F_OK) == 0;
    }
    free(idx);
    return both ? READ_BGZF : READ_STREAM;
}

/* Is indexing an unindexed plain file in memory worth it for one process?
 * It costs a second pass over the bytes, cheap only when the first leaves
 * them in the page cache (the file fits in half the memory) and done on
 * several threads (one thread streaming reads it once). And the ranges path
 * costs a read call per segment, so for records much shorter than a block
 * (EST sets: 500 bp) one stream is faster today (docs/performance.md): the
 * first 1 MiB decides, more than 16 headers there streams. */
static int index_pays(const job *j, const char *path)
{
    struct stat st;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (j->threads < 2 || stat(path, &st) != 0 || pages <= 0 || page <= 0 ||
        (uint64_t)st.st_size > (uint64_t)pages * (uint64_t)page / 2)
        return 0;
    enum { SAMPLE = 1 << 20, MAX_HEADERS = 16 };
    char *b = malloc(SAMPLE);
    FILE *f = b ? fopen(path, "rb") : NULL;
    size_t n = f ? fread(b, 1, SAMPLE, f) : 0, headers = 0;
    for (const char *p = b, *end = b + n; headers <= MAX_HEADERS;) {
        const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        if (nl == NULL)
            break;
        headers += nl + 1 < end && nl[1] == '>';
        p = nl + 1;
    }
    if (f)
        fclose(f);
    free(b);
    return headers <= MAX_HEADERS;
}

/* Rank 0: indexes for every file, or *ok = 0 when some file must be streamed. */
static gs_status load_indexes(job *j, gs_fai *fai, int *ok, gs_error *err)
{
    *ok = 1;
    if (gs_corpus_check((const char *const *)j->o->corpus, j->o->n_corpus, err) != GS_OK)
        return err->code;
    for (size_t f = 0; f < j->o->n_corpus; f++) {
        const char *path = j->o->corpus[f];
        int kind = read_kind(path, j->o->format);
        if (kind == READ_STREAM) {
            *ok = 0;
            return GS_OK;
        }
        gs_status st = kind == READ_PLAIN_LEAD ? GS_OK : gs_fai_load(path, NULL, &fai[f], err);
        if (st != GS_OK)
            return st; /* a stale or malformed index is the user's to fix */
        if (fai[f].omits_dups)
            fprintf(stderr,
                    "gscan: warning: %s.fai leaves out records whose name repeats (samtools "
                    "faidx keeps the first): not used; gscan index writes one that keeps them\n",
                    path);
        if (fai[f].n == 0 && (kind == READ_BGZF || (j->size == 1 && !index_pays(j, path)))) {
            *ok = 0; /* one process streams rather than read the file twice */
            return GS_OK;
        }
        if (fai[f].n == 0) {
            gs_error build = {0};
            const char *split = getenv("GS_INDEX_SPLIT"); /* tests: bytes per range */
            if (gs_fai_build(path, j->threads, &(gs_tune){.io_fai_split = split ? strtoull(split, NULL, 10) : 0},
                             &fai[f], &build) != GS_OK) {
                if (build.code != GS_EINPUT)
                    return gs_fail(err, build.code, "%s", build.msg);
                *ok = 0; /* cannot be indexed (htslib's rules): stream it */
                return GS_OK;
            }
        }
    }
    return GS_OK;
}

/* MPI_Bcast of bytes from rank 0 in messages of at most 1 GiB (counts are int). */
static void bcast_bytes(void *buf, uint64_t bytes, MPI_Comm comm)
{
    for (uint64_t off = 0; off < bytes; off += 1u << 30) {
        uint64_t n = bytes - off < (1u << 30) ? bytes - off : (1u << 30);
        GS_MPI_CHECK(MPI_Bcast((char *)buf + off, (int)n, MPI_BYTE, 0, comm));
    }
}

/* Send rank 0's layout and index entries to every rank as two large
 * buffers, whatever the number of records: the block of names as it is,
 * then length, file, offset, linebases, linewidth of every record. */
static gs_status bcast_layout(job *j, gs_error *err)
{
    if (j->size == 1)
        return GS_OK;
    uint64_t hdr[2] = {j->layout.n_rec, j->layout.names_len};
    GS_MPI_CHECK(MPI_Bcast(hdr, 2, MPI_UINT64_T, 0, j->comm));
    const size_t n_rec = (size_t)hdr[0];
    uint64_t *v = gs_malloc(5 * n_rec * sizeof *v + 1, err, "layout broadcast");
    if (v == NULL)
        MPI_Abort(j->comm, GS_ESYS); /* cannot take part in the broadcast */
    if (j->rank != 0) {
        j->layout.names_len = (size_t)hdr[1];
        j->layout.names = gs_malloc(j->layout.names_len + 1, err, "layout");
        j->layout.rec = gs_calloc(n_rec + 1, sizeof *j->layout.rec, err, "layout");
        j->rec_fai = gs_calloc(n_rec + 1, sizeof *j->rec_fai, err, "layout");
        if (j->layout.names == NULL || j->layout.rec == NULL || j->rec_fai == NULL)
            MPI_Abort(j->comm, GS_ESYS);
    } else {
        for (size_t i = 0; i < n_rec; i++) {
            uint64_t *x = v + 5 * i;
            x[0] = j->layout.rec[i].length;
            x[1] = j->layout.rec[i].file;
            x[2] = j->rec_fai[i].offset;
            x[3] = j->rec_fai[i].linebases;
            x[4] = j->rec_fai[i].linewidth;
        }
    }
    bcast_bytes(j->layout.names, j->layout.names_len, j->comm);
    bcast_bytes(v, 5 * n_rec * sizeof *v, j->comm);
    if (j->rank != 0) {
        j->layout.n_rec = j->layout.cap_rec = n_rec;
        gs_layout_point_names(&j->layout);
        for (size_t i = 0; i < n_rec; i++) {
            const uint64_t *x = v + 5 * i;
            j->layout.rec[i].length = x[0];
            j->layout.rec[i].file = (uint32_t)x[1];
            j->rec_fai[i] = (gs_fai_entry){.name = j->layout.rec[i].name, .length = x[0],
                                           .offset = x[2], .linebases = (uint32_t)x[3],
                                           .linewidth = (uint32_t)x[4]};
        }
    }
    free(v);
    return GS_OK;
}

/* Rank 0: the layout and index entries of every record from the loaded
 * indexes, the names in one block (the index's own block when there is one
 * file, else copied file after file). fai[] gives up what it moves. */
static gs_status take_layout(job *j, gs_fai *fai, gs_error *err)
{
    const size_t n_files = j->o->n_corpus;
    size_t n = 0, bytes = 0;
    for (size_t f = 0; f < n_files; f++) {
        n += fai[f].n;
        for (size_t i = 0; fai[f].names == NULL && i < fai[f].n; i++)
            bytes += strlen(fai[f].v[i].name) + 1;
        bytes += fai[f].names ? fai[f].names_len : 0;
    }
    gs_layout *l = &j->layout;
    const int take = n_files == 1 && fai[0].names;
    l->rec = gs_calloc(n + 1, sizeof *l->rec, err, "layout");
    if (take) { /* the entries themselves too: no copy of a large array */
        j->rec_fai = fai[0].v;
        fai[0].v = NULL;
    } else {
        j->rec_fai = gs_calloc(n + 1, sizeof *j->rec_fai, err, "layout");
    }
    if (l->rec == NULL || j->rec_fai == NULL)
        return GS_ESYS;
    if (take) {
        l->names = fai[0].names;
        fai[0].names = NULL;
    } else if ((l->names = gs_malloc(bytes + 1, err, "layout")) == NULL) {
        return GS_ESYS;
    } else {
        char *p = l->names;
        for (size_t f = 0; f < n_files; f++) {
            if (fai[f].names) {
                memcpy(p, fai[f].names, fai[f].names_len);
                p += fai[f].names_len;
            }
            for (size_t i = 0; fai[f].names == NULL && i < fai[f].n; i++) {
                size_t len = strlen(fai[f].v[i].name) + 1;
                memcpy(p, fai[f].v[i].name, len);
                p += len;
            }
        }
    }
    l->names_len = bytes;
    for (size_t f = 0; f < n_files; f++) {
        const gs_fai_entry *v = take ? j->rec_fai : fai[f].v;
        for (size_t i = 0; i < fai[f].n; i++) {
            l->rec[l->n_rec] = (gs_record){.name = v[i].name, .length = v[i].length,
                                           .file = (uint32_t)f};
            if (!take)
                j->rec_fai[l->n_rec] = v[i];
            l->n_rec++;
        }
    }
    l->cap_rec = l->n_rec;
    if (take) {
        fai[0].n = 0; /* its names and entries moved into the job */
        return GS_OK;
    }
    gs_layout_point_names(l); /* the copies */
    for (size_t i = 0; i < l->n_rec; i++)
        j->rec_fai[i].name = l->rec[i].name;
    return GS_OK;
}

/* Indexed ranges and an index's kernel can be read by several threads,
 * each with its own part: --readers, else for files half the threads (1..8)
 * with a GPU, which leaves the host's cores to reading, and a quarter (1..4)
 * on the CPU, where the workers need them (docs/performance.md, the whole
 * job row by row). An index's readers unpack its kernel, 4.8 M short pieces
 * for 1000 strains: CPU work on a par with matching them. So for an index
 * every thread reads on the CPU (readers and workers then share the cores
 * as the work comes), and three quarters with a GPU (the rest copy into
 * pinned memory): on 16 cores 0.29 s against 0.42 s with the file default
 * on the CPU, 0.48 against 0.55 s with a GPU (docs/performance.md, §5). */
static int readers(const job *j, int index)
{
    const int t = j->threads, gpu = j->use_gpu;
    const int share = index ? (gpu ? t * 3 / 4 : t) : gpu ? t / 2 : t / 4;
    const int most = index ? GS_MAX_READERS : gpu ? 8 : 4;
    return j->o->readers ? j->o->readers : share < 1 ? 1 : share > most ? most : share;
}

/* --index: every rank reads the index; the plan is its share of the kernel
 * (gs_lz_src_init). Patterns longer than the index's M would miss the
 * occurrences that cross phrase boundaries outside the kernel. */
static gs_status open_lz(job *j, gs_error *err)
{
    gs_status st = gs_lz_read(j->o->index, j->threads, &j->lz, err);
    j->mode = MODE_LZ;
    j->readers = readers(j, 1); /* each unpacks its part of the kernel; rank 0's
                                 * count, so that the ranks' parts tile it */
    GS_MPI_CHECK(MPI_Bcast(&j->readers, 1, MPI_INT, 0, j->comm));
    j->bytes_read = j->lz.file_bytes;
    for (uint32_t p = 0; st == GS_OK && p < j->ps.n; p++)
        if (j->ps.v[p].len > j->lz.max_pat)
            st = gs_fail(err, GS_EINPUT,
                         "pattern '%s' has %u residues; the index serves patterns of at most %u "
                         "(gscan index --lz --max-pattern-length) (%s)",
                         j->ps.v[p].name, j->ps.v[p].len, j->lz.max_pat, j->o->index);
    if (st == GS_OK) /* only the windows the patterns' span needs are scanned */
        st = gs_lz_trim(&j->lz, j->ks.span, j->threads, err);
    return st;
}

static gs_status make_plan(job *j, gs_error *err)
{
    const gs_scan_opts *o = j->o;
    gs_status st = GS_OK;
    if (o->index)
        return open_lz(j, err);
    int mode[2] = {MODE_LOCAL, 1}; /* the mode and the readers per rank */
    gs_fai *fai = NULL;
    double t[3] = {gs_now(), 0, 0}; /* GS_DEBUG_TIME: the plan's steps */
    if (j->rank == 0) {
        int ok = 0;
        fai = gs_calloc(o->n_corpus, sizeof *fai, err, "indexes");
        st = fai ? load_indexes(j, fai, &ok, err) : GS_ESYS;
        mode[0] = ok ? MODE_RANGES : j->size > 1 ? MODE_STREAMED : MODE_LOCAL;
        if (ok)
            mode[1] = readers(j, 0);
        t[1] = gs_now();
        if (st == GS_OK && ok)
            st = take_layout(j, fai, err);
    }
    if (fai) {
        for (size_t f = 0; f < o->n_corpus; f++)
            gs_fai_free(&fai[f]);
        free(fai);
    }
    t[2] = gs_now();
    if (gs_mpi_agree(j->comm, err) != GS_OK)
        return err->code;
    GS_MPI_CHECK(MPI_Bcast(mode, 2, MPI_INT, 0, j->comm));
    j->mode = mode[0];
    j->readers = mode[1];
    const int parts = j->size * j->readers;
    if (j->mode != MODE_RANGES)
        return GS_OK;

    if ((st = bcast_layout(j, err)) == GS_OK) {
        j->rec_len = gs_malloc(j->layout.n_rec * sizeof *j->rec_len + 1, err, "plan");
        j->file_residues = gs_calloc(o->n_corpus, sizeof *j->file_residues, err, "plan");
        if (j->rec_len == NULL || j->file_residues == NULL)
            st = GS_ESYS;
        for (size_t i = 0; st == GS_OK && i < j->layout.n_rec; i++) {
            j->rec_len[i] = j->layout.rec[i].length;
            j->file_residues[j->layout.rec[i].file] += j->rec_len[i];
        }
        /* Rank 0 computes the plan and sends its ranges; the plan is a pure
         * function, so the others could compute it, but one source of truth
         * is simpler to reason about when layouts grow large. */
        if (st == GS_OK && j->rank == 0)
            st = gs_partition_plan(j->rec_len, j->layout.n_rec, parts, j->overlap, &j->plan, err);
    }
    if (gs_mpi_agree(j->comm, err) != GS_OK)
        return err->code;
    if (j->rank != 0) {
        j->plan = (gs_plan){.len = j->rec_len, .n_rec = j->layout.n_rec, .n_ranks = parts,
                            .overlap = j->overlap};
        j->plan.parts = gs_malloc((size_t)parts * sizeof *j->plan.parts, err, "plan");
        if (j->plan.parts == NULL)
            MPI_Abort(j->comm, GS_ESYS); /* cannot take part in the broadcast */
    }
    bcast_bytes(j->plan.parts, (size_t)parts * sizeof *j->plan.parts, j->comm);
    GS_MPI_CHECK(MPI_Bcast(&j->plan.total, 1, MPI_UINT64_T, 0, j->comm));
    /* no block larger than the whole corpus: a GPU's pinned buffers (three
     * blocks) cost ~1 ms a MiB to allocate, 50 ms of a phage's whole run */
    if (o->block == 0 && j->plan.total < j->block)
        j->block = j->plan.total > 4096 ? (size_t)j->plan.total : 4096;

    j->layout.files = o->corpus; /* borrowed: job_free gives them back */
    j->layout.n_files = o->n_corpus;
    j->fds = gs_malloc((size_t)j->readers * o->n_corpus * sizeof *j->fds, err, "files");
    for (size_t f = 0; j->fds && f < (size_t)j->readers * o->n_corpus; f++)
        j->fds[f] = (gs_seqfile){.path = o->corpus[f % o->n_corpus], .fd = -1};
    /* each reader opens only the files its part has pieces of (for BGZF
     * that loads the .gzi and checks its tail against the file); readers
     * share nothing, so a BGZF block cache needs no lock */
    for (int r = 0; j->fds && st == GS_OK && r < j->readers; r++) {
        gs_seqfile *fds = j->fds + (size_t)r * o->n_corpus;
        const gs_part *part = &j->plan.parts[j->rank * j->readers + r];
        if (part->lo == part->hi)
            continue;
        /* a part's pieces lie in the files of its first and last records and
         * in every nonempty file between */
        const uint32_t f0 = j->layout.rec[part->rec].file, f1 = j->layout.rec[part->last].file;
        for (uint32_t f = f0; f <= f1; f++) {
            if (f != f0 && f != f1 && j->file_residues[f] == 0)
                continue;
            if ((st = gs_seqfile_open(o->corpus[f], &fds[f], err)) != GS_OK)
                break;
            /* BGZF: a reader inflates each segment's blocks on its share of
             * the rank's threads (inflating, not parsing, is its work) */
            if (fds[f].bgzf &&
                (st = gs_bgzf_set_threads(fds[f].bgzf, j->threads / j->readers, err)) != GS_OK)
                break;
        }
    }
    if (j->rank == 0 && getenv("GS_DEBUG_TIME")) /* the plan's steps in docs/performance.md */
        fprintf(stderr,
                "gscan: plan: indexes %.3f s, layout %.3f s, cut and files %.3f s (%zu records, "
                "%d parts)\n",
                t[1] - t[0], t[2] - t[1], gs_now() - t[2], j->layout.n_rec, parts);
    return j->fds ? st : GS_ESYS;
}

/* ---- phase 3: scan ------------------------------------------------------ */

static void print_progress(job *j, uint64_t all, double now)
{
    double mb = (double)all / 1e6, rate = mb / (now - j->progress_t0 + 1e-9);
    if (j->plan.total) { /* ranges mode: the whole plan's residues */
        double pct = 100.0 * (double)all / (double)j->plan.total;
        fprintf(stderr, "\rgscan: %5.1f%% (%.1f M residues, %d rank%s, %.0f M/s)   ",
                pct < 100.0 ? pct : 100.0, mb, j->size, j->size > 1 ? "s" : "", rate);
    } else {
        fprintf(stderr, "\rgscan: %.1f M residues scanned (%d rank%s, %.0f M/s)   ", mb, j->size,
                j->size > 1 ? "s" : "", rate);
    }
}

/* Every rank reports its residues (at most every 0.2 s); rank 0 prints the
 * whole job's. */
static void show_progress(void *ctx, uint64_t residues)
{
    job *j = ctx;
    double now = gs_now();
    if (now - j->progress_last < 0.2)
        return;
    j->progress_last = now;
    uint64_t all = gs_progress_update(&j->prog, residues);
    if (j->rank == 0)
        print_progress(j, all, now);
}

/* One pass over this rank's share with the given engine. layout receives the
 * records met by a local or rank-0 stream (NULL: discard them). */
static gs_status scan_pass(job *j, const gs_engine *engine, int use_gpu, gs_layout *layout,
                           gs_scan_res *res, double *t_send, gs_error *err)
{
    const gs_scan_opts *o = j->o;
    gs_scan_cfg cfg = {.ks = &j->ks, .engine = engine, .use_gpu = use_gpu,
                       .gpu_device = j->gpu_device, .threads = j->threads,
                       .want_hits = o->report_hits || o->match != GS_MATCH_EXACT,
                       .block = j->block,
                       .overlap = j->overlap};
    /* rank 0's stderr decides: it is the one that prints */
    int show = j->rank == 0 && (o->progress > 0 || (o->progress < 0 && isatty(2)));
    GS_MPI_CHECK(MPI_Bcast(&show, 1, MPI_INT, 0, j->comm));
    if (show) {
        cfg.progress = show_progress;
        cfg.progress_ctx = j;
        j->progress_t0 = gs_now();
        j->progress_last = 0;
        gs_progress_start(&j->prog, j->comm); /* without it: rank 0's share only */
    }
    gs_layout scratch = {0};
    gs_reader *reader = NULL;
    gs_status st = GS_OK;
    if (j->mode == MODE_LZ) {
        /* primaries need their positions even when only counts are asked */
        gs_lz_src ls[GS_MAX_READERS];
        gs_source src[GS_MAX_READERS];
        const int sep = gs_lz_separator(&j->ps, o->alphabet);
        for (int r = 0; r < j->readers; r++) {
            gs_lz_src_init(&ls[r], &j->lz, j->rank * j->readers + r, j->size * j->readers,
                           j->block, j->overlap, sep);
            src[r] = gs_source_lz(&ls[r]);
        }
        cfg.want_hits = 1;
        size_t n = (size_t)j->ps.n * (size_t)j->ks.n_strands;
        gs_hits kernel_hits = {0};
        st = gs_scan_run(&cfg, src, j->readers, res, err);
        if (st == GS_OK && (res->counts = gs_calloc(n ? n : 1, sizeof *res->counts, err,
                                                    "counts")) == NULL)
            st = GS_ESYS;
        if (st == GS_OK) {
            kernel_hits = res->hits;
            res->hits = (gs_hits){0};
            st = gs_lz_locate(&j->lz, &j->ps, j->ks.n_strands, &kernel_hits, o->report_hits,
                              j->threads, res->counts, &res->hits, err);
        }
    } else if (j->mode == MODE_RANGES) {
        gs_range_src rs[GS_MAX_READERS];
        gs_source src[GS_MAX_READERS];
        for (int r = 0; r < j->readers; r++) {
            gs_range_src_init(&rs[r], &j->plan, j->rank * j->readers + r, &j->layout, j->rec_fai,
                              j->fds + (size_t)r * o->n_corpus, j->block);
            src[r] = gs_source_ranges(&rs[r]);
        }
        st = gs_scan_run(&cfg, src, j->readers, res, err);
        for (int r = 0; r < j->readers; r++)
            j->bytes_read += rs[r].bytes_read;
    } else {
        if (j->rank == 0) {
            gs_reader_opts ro = {.format = o->format, .block = j->block, .overlap = j->overlap,
                                 .any_bytes = o->alphabet == GS_ALPHA_BYTES,
                                 .threads = j->threads};
            st = gs_reader_open((const char *const *)o->corpus, o->n_corpus, &ro,
                                layout ? layout : &scratch, &reader, err);
        }
        gs_source inner = reader ? gs_source_reader(reader) : (gs_source){0};
        if (j->mode == MODE_LOCAL) {
            if (st == GS_OK)
                st = gs_scan_run(&cfg, &inner, 1, res, err);
        } else {
            gs_stream_src ss;
            gs_stream_src_init(&ss, j->comm, inner);
            gs_source src = gs_source_streamed(&ss);
            if (st == GS_OK)
                st = gs_scan_run(&cfg, &src, 1, res, err);
            gs_stream_src_stop(&ss, j->block + j->overlap);
            *t_send += ss.t_send;
        }
        if (reader) {
            j->bytes_read += gs_reader_bytes_in(reader);
            gs_reader_close(reader);
        }
    }
    gs_layout_free(&scratch);
    if (show) { /* the last state, whenever the last report was */
        uint64_t all = gs_progress_finish(&j->prog, st == GS_OK ? res->residues : 0);
        if (j->rank == 0) {
            if (st == GS_OK)
                print_progress(j, all, gs_now());
            fprintf(stderr, "\n");
        }
    }
    return st;
}

/* ---- phase 4: counts and hits ------------------------------------------ */

static gs_status reduce_counts(job *j, const gs_scan_res *res, uint64_t **counts, gs_error *err)
{
    size_t n = (size_t)j->ps.n * (size_t)j->ks.n_strands;
    uint64_t *mine = gs_calloc(n, sizeof *mine, err, "counts");
    *counts = j->rank == 0 ? gs_calloc(n, sizeof **counts, err, "counts") : NULL;
    if (mine == NULL || (j->rank == 0 && *counts == NULL)) {
        free(mine);
        return GS_ESYS;
    }
    if (res->counts) /* already per (pattern, strand) */
        memcpy(mine, res->counts, n * sizeof *mine);
    else
        gs_keyset_fold_counts(&j->ks, res->key_counts, mine);
    for (size_t off = 0; off < n; off += 1u << 27) {
        int c = (int)(n - off < (1u << 27) ? n - off : (1u << 27));
        GS_MPI_CHECK(MPI_Reduce(mine + off, j->rank == 0 ? *counts + off : NULL, c,
                                MPI_UINT64_T, MPI_SUM, 0, j->comm));
    }
    free(mine);
    return GS_OK;
}

/* Streamed mode: the hits of dealt blocks interleave across ranks, so they
 * are gathered to rank 0 and merged there (contract §4 allows either). Rank 0
 * first makes room for all of them, and the ranks agree on that before any
 * hit moves, so a failed allocation cannot leave a sender blocked. */
static gs_status gather_hits(job *j, gs_hits *hits, gs_error *err)
{
    enum { TAG_HITS = 82 };
    const size_t per_msg = ((size_t)1 << 30) / sizeof(gs_hit);
    uint64_t n = hits->n, *all = NULL, total = 0;
    if (j->size == 1)
        return GS_OK; /* rank 0 holds them all */
    if (j->rank == 0 && (all = gs_malloc((size_t)j->size * sizeof *all, err, "hit counts")) == NULL)
        MPI_Abort(j->comm, GS_ESYS);
    GS_MPI_CHECK(MPI_Gather(&n, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, j->comm));
    if (j->rank == 0) {
        for (int r = 0; r < j->size; r++)
            total += all[r];
        gs_hit *v = realloc(hits->v, (total + 1) * sizeof *v);
        if (v == NULL)
            gs_fail(err, GS_ESYS, "out of memory (gathering %llu hits on rank 0)",
                    (unsigned long long)total);
        else {
            hits->v = v;
            hits->cap = total + 1;
        }
    }
    if (gs_mpi_agree(j->comm, err) != GS_OK) {
        free(all);
        return err->code;
    }
    if (j->rank != 0) {
        for (size_t off = 0; off < hits->n; off += per_msg) {
            size_t c = hits->n - off < per_msg ? hits->n - off : per_msg;
            GS_MPI_CHECK(MPI_Send(hits->v + off, (int)(c * sizeof(gs_hit)), MPI_BYTE, 0, TAG_HITS, j->comm));
        }
        gs_hits_free(hits);
        return GS_OK;
    }
    for (int r = 1; r < j->size; r++) {
        for (size_t off = 0; off < all[r]; off += per_msg) {
            size_t c = all[r] - off < per_msg ? all[r] - off : per_msg;
            GS_MPI_CHECK(MPI_Recv(hits->v + hits->n + off, (int)(c * sizeof(gs_hit)), MPI_BYTE, r, TAG_HITS,
                         j->comm, MPI_STATUS_IGNORE));
        }
        hits->n += all[r];
    }
    free(all);
    /* each rank's hits are sorted: merging them is log2(ranks) passes; with
     * no room for the merge's second copy, qsort sorts in place */
    if (gs_hits_sort(hits))
        qsort(hits->v, hits->n, sizeof *hits->v, gs_hit_cmp);
    return GS_OK;
}

/* ---- phase 5: --verify -------------------------------------------------- */

/* The reference of a GPU run is the CPU engine of the same name; a CPU run is
 * checked against a second, independent CPU engine. */
static const gs_engine *reference_engine(const job *j)
{
    if (j->use_gpu)
        return j->engine;
    if (j->ks.mode != GS_MATCH_EXACT) /* the DP reference, or bv to check it */
        return j->engine == &gs_engine_bf ? &gs_engine_bv : &gs_engine_bf;
    return j->engine == &gs_engine_ac ? &gs_engine_rk : &gs_engine_ac;
}

/* Field by field: gs_hit has padding bytes that memcmp would compare too. */
static int same_hits(const gs_hits *a, const gs_hits *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (gs_hit_cmp(&a->v[i], &b->v[i]) != 0)
            return 0;
    return 1;
}

static gs_status verify(job *j, const gs_scan_res *main_res, const uint64_t *counts,
                        gs_job_summary *sum, gs_error *err)
{
    const gs_engine *ref = reference_engine(j);
    gs_scan_res res;
    double t_send = 0, t0 = gs_now();
    gs_status st = scan_pass(j, ref, 0, NULL, &res, &t_send, err);
    if (gs_mpi_agree(j->comm, err) != GS_OK) {
        gs_scan_res_free(&res);
        return err->code;
    }
    /* hits are compared before any gathering: both passes deal the same
     * blocks to the same ranks, so each rank's hits must match */
    int bad_hits = !same_hits(&main_res->hits, &res.hits), any_bad_hits = 0;
    GS_MPI_CHECK(MPI_Allreduce(&bad_hits, &any_bad_hits, 1, MPI_INT, MPI_SUM, j->comm));
    uint64_t *ref_counts = NULL, bad_counts = 0;
    st = reduce_counts(j, &res, &ref_counts, err);
    double t_ref = gs_now() - t0;
    if (st == GS_OK && j->rank == 0)
        for (size_t i = 0; i < (size_t)j->ps.n * (size_t)j->ks.n_strands; i++)
            bad_counts += counts[i] != ref_counts[i];
    GS_MPI_CHECK(MPI_Bcast(&bad_counts, 1, MPI_UINT64_T, 0, j->comm));
    free(ref_counts);
    gs_scan_res_free(&res);
    if (gs_mpi_agree(j->comm, err) != GS_OK)
        return err->code;
    sum->ref_engine = ref->name;
    sum->t_ref = t_ref;
    sum->verified = !bad_counts && !any_bad_hits;
    if (!sum->verified)
        return gs_fail(err, GS_ESYS,
                       "verify: %s on the %s and %s on the cpu disagree: %llu counts and the hits of "
                       "%d rank(s) differ (%s)",
                       j->engine->name, j->use_gpu ? "gpu" : "cpu", ref->name,
                       (unsigned long long)bad_counts, any_bad_hits, j->o->patterns);
    return GS_OK;
}

/* ---- the job ------------------------------------------------------------ */

/* Rank 0, --seq: the corpus files read back through their .fai, matched to
 * the scanned records by name and length (io/hit_seq.h). */
static gs_status open_seq(const job *j, gs_hit_seq **hs, gs_error *err)
{
    const gs_layout *l = &j->layout;
    size_t stride = 1;
    for (size_t r = 0; r < l->n_rec; r++)
        if (strlen(l->rec[r].name) + 1 > stride)
            stride = strlen(l->rec[r].name) + 1;
    char *names = gs_calloc(l->n_rec ? l->n_rec : 1, stride, err, "record names");
    uint32_t *file = gs_malloc((l->n_rec ? l->n_rec : 1) * sizeof *file, err, "records");
    uint64_t *len = gs_malloc((l->n_rec ? l->n_rec : 1) * sizeof *len, err, "records");
    if (names && file && len) {
        for (size_t r = 0; r < l->n_rec; r++) {
            memcpy(names + r * stride, l->rec[r].name, strlen(l->rec[r].name) + 1);
            file[r] = l->rec[r].file;
            len[r] = l->rec[r].length;
        }
        gs_hit_seq_open(j->o->corpus, j->o->n_corpus, names, stride, file, len, l->n_rec,
                        j->o->alphabet == GS_ALPHA_DNA, hs, err);
    }
    free(names);
    free(file);
    free(len);
    return err->code;
}

/* Rank 0: a record name used twice is kept (record ids tell the hits apart,
 * as samtools keeps the first and gscan index keeps all), but said. When
 * the layout is known before the scan (ranges), the names are checked on a
 * thread of their own while the scan runs: millions of ESTs take a tenth of
 * a second that the GPU path leaves a host core for. */
typedef struct dup_check {
    const gs_layout *l;
    long n;
    size_t a, b;
    int running; /* a thread is computing n, a, b */
    pthread_t tid;
} dup_check;

static void *dup_main(void *arg)
{
    dup_check *d = arg;
    gs_error ignored = {0};
    d->n = gs_layout_dup_names(d->l, &d->a, &d->b, &ignored);
    return NULL;
}

static void dup_start(dup_check *d, const gs_layout *l)
{
    d->l = l;
    d->running = pthread_create(&d->tid, NULL, dup_main, d) == 0;
}

static void dup_join(dup_check *d)
{
    if (d->running)
        pthread_join(d->tid, NULL);
    d->running = 0;
}

static void warn_dup_names(dup_check *d, const gs_layout *l, char *const *corpus)
{
    if (d->running) {
        dup_join(d);
    } else {
        d->l = l;
        dup_main(d);
    }
    size_t a = d->a, b = d->b;
    if (d->n > 0)
        fprintf(stderr,
                "gscan: warning: %ld record(s) repeat an earlier record's name, first '%s': "
                "record %zu (%s) and record %zu (%s); hits keep them apart by record id\n",
                d->n, l->rec[b].name, a, corpus[l->rec[a].file], b, corpus[l->rec[b].file]);
}

static void job_free(job *j)
{
    gs_patset_free(&j->ps);
    gs_keyset_free(&j->ks);
    if (j->fds)
        for (size_t f = 0; f < (size_t)j->readers * j->o->n_corpus; f++)
            gs_seqfile_close(&j->fds[f]);
    free(j->fds);
    free(j->rec_fai); /* its names are the layout's */
    if (j->layout.files == j->o->corpus) {
        j->layout.files = NULL;
        j->layout.n_files = 0;
    }
    gs_layout_free(&j->layout);
    gs_plan_free(&j->plan);
    free(j->rec_len);
    free(j->file_residues);
    gs_lz_free(&j->lz);
}

gs_status gs_scan_job(const gs_scan_opts *o, MPI_Comm comm, gs_job_summary *sum, gs_error *err)
{
    job j = {.o = o, .comm = comm, .readers = 1};
    dup_check dups = {0};
    gs_scan_res res = {0};
    uint64_t *counts = NULL;
    memset(sum, 0, sizeof *sum);
    GS_MPI_CHECK(MPI_Comm_rank(comm, &j.rank));
    GS_MPI_CHECK(MPI_Comm_size(comm, &j.size));
    double t_start = gs_now(), t_send = 0;
    j.t[GS_T_INIT] = gs_process_age();

    setup(&j, err);
    if (gs_mpi_agree(comm, err) != GS_OK)
        goto fail;
    j.t[GS_T_SETUP] = gs_now() - t_start;
    if (make_plan(&j, err) != GS_OK || gs_mpi_agree(comm, err) != GS_OK)
        goto fail;
    j.t[GS_T_PLAN] = gs_now() - t_start - j.t[GS_T_SETUP];

    if (j.rank == 0 && j.mode == MODE_RANGES)
        dup_start(&dups, &j.layout);
    scan_pass(&j, j.engine, j.use_gpu, &j.layout, &res, &t_send, err);
    if (gs_mpi_agree(comm, err) != GS_OK)
        goto fail;
    j.t[GS_T_READ] = res.t_read;
    j.t[GS_T_TRANSFER] = res.t_transfer + t_send;
    j.t[GS_T_SCAN] = res.t_scan;
    sum->engine = j.engine->name;
    sum->device = j.use_gpu ? "gpu" : "cpu";
    sum->t_main = res.t_scan;

    double t0 = gs_now();
    reduce_counts(&j, &res, &counts, err);
    if (gs_mpi_agree(comm, err) != GS_OK)
        goto fail;
    if (o->verify && verify(&j, &res, counts, sum, err) != GS_OK)
        goto fail;
    /* Approximate hits are gathered in every mode: --best-per-site sees
     * every hit of a (pattern, record, strand) at once, and the counts are
     * taken from what is reported. Text is one stream from rank 0, so its
     * hits are gathered in any mode too; so are an index scan's, which
     * interleave across ranks as streamed ones do. */
    const int approx = o->match != GS_MATCH_EXACT;
    if ((approx || (o->report_hits && (j.mode == MODE_STREAMED || j.mode == MODE_LZ ||
                                       (o->out_format != GS_OUT_H5 && j.size > 1)))) &&
        gather_hits(&j, &res.hits, err) != GS_OK)
        goto fail;
    if (approx && j.rank == 0) {
        if (o->best_per_site)
            gs_hits_best_per_site(&res.hits);
        size_t n_counts = (size_t)j.ps.n * (size_t)j.ks.n_strands;
        memset(counts, 0, n_counts * sizeof *counts);
        gs_hits_count(&res.hits, j.ks.n_strands, n_counts, counts, j.threads);
    }
    if (approx && !o->report_hits)
        gs_hits_free(&res.hits);
    j.t[GS_T_REDUCE] = gs_now() - t0;
    sum->bytes_read = j.bytes_read;
    sum->reading = j.mode == MODE_RANGES ? "ranges" : j.mode == MODE_STREAMED ? "streamed" : "local";
    if (j.rank == 0)
        warn_dup_names(&dups, &j.layout, o->corpus);

    gs_result r = {
        .info = {.command_line = o->command_line, .engine = j.engine->name,
                 .device = j.use_gpu ? "gpu" : "cpu",
                 .alphabet = o->alphabet == GS_ALPHA_DNA ? "dna" : "bytes",
                 .strand_mode = o->both_strands ? "both" : "forward",
                 .report = o->report_hits ? "hits" : "counts", .n_ranks = j.size, .n_gpus = j.n_gpus,
                 .match = gs_match_mode_name(o->match), .max_dist = (int)o->max_dist,
                 .best_per_site = o->best_per_site},
        .patterns = &j.ps, .layout = j.mode == MODE_LZ ? &j.lz.layout : &j.layout, .counts = counts, .n_strands = j.ks.n_strands,
        .with_hits = o->report_hits, .hits = res.hits.v, .n_hits = res.hits.n};
    if (j.layout.n_files == 0 && j.mode != MODE_LZ) { /* ranks other than 0 of a stream have no layout */
        j.layout.files = o->corpus;
        j.layout.n_files = o->n_corpus;
    }
    memcpy(r.timing, j.t, sizeof r.timing);
    r.timing[GS_T_TOTAL] = j.t[GS_T_INIT] + gs_now() - t_start;
    if (o->out_format == GS_OUT_H5)
        gs_h5_write(o->out, &r, comm, err);
    else if (j.rank == 0 && (!o->with_seq || open_seq(&j, &r.seq, err) == GS_OK))
        gs_text_write(o->out, o->out_format == GS_OUT_BED ? GS_TEXT_BED : GS_TEXT_TSV, &r, err);
    gs_hit_seq_close(r.seq);
    gs_mpi_agree(comm, err);
    sum->n_hits = res.hits.n;
fail:
    dup_join(&dups);
    free(counts);
    gs_scan_res_free(&res);
    job_free(&j);
    return err->code;
}
