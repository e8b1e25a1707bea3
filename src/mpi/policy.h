/* policy.h - the decisions of a scan job, as pure functions.
 *
 * How each file is read, how many threads read, whether an index is worth
 * building, which engine and device run, whether hits travel to rank 0:
 * plain inputs in, a decision out, no MPI and no I/O, so each rule has one
 * home and is tested without a job (tests/test_policy.c). The job and its
 * read modes gather the facts (a file's first bytes, the devices, the ranks)
 * and ask here; the measurements behind the numbers are in
 * docs/performance.md.
 */
#ifndef GS_POLICY_H
#define GS_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "core/gs_error.h"
#include "io/seq/seqformat.h"
#include "match/engine.h"

/* Most reading threads per rank (--readers). */
#define GS_MAX_READERS 64

typedef enum gs_device_kind { GS_DEV_AUTO, GS_DEV_GPU, GS_DEV_CPU } gs_device_kind;

/* Default residues per block: large copies for a GPU; for CPU workers,
 * blocks small enough that one bacterial genome gives every thread work */
#define GS_BLOCK_GPU ((uint64_t)16 << 20)
#define GS_BLOCK_CPU ((uint64_t)256 << 10)
/* ... and for a GPU fed the files' own bytes of long records */
#define GS_BLOCK_GPU_LONG ((uint64_t)4 << 20)

/* ---- reading ------------------------------------------------------------ */

/* How a file can be read: by ranges through an index (plain FASTA; plain
 * text whose first byte is a BOM or a blank, FASTA if a header follows,
 * which only an index built in memory can say; BGZF with its .fai and
 * .gzi), or streamed once. */
typedef enum gs_read_kind { GS_READ_STREAM, GS_READ_PLAIN, GS_READ_PLAIN_LEAD, GS_READ_BGZF } gs_read_kind;

/* What a look at a file found. */
typedef struct gs_file_facts {
    int raw;      /* --input-format raw or fastq */
    int seekable; /* a regular file (gs_input_seekable) */
    int opened;   /* its first bytes could be read */
    gs_seq_format format; /* what they say (io/seq/seqformat.h) */
    size_t start; /* where the first record starts in the text (after a BOM, blanks) */
    int plain;    /* its first bytes are not compressed */
    int bgzf;     /* they are BGZF */
    int has_fai;  /* FILE.fai exists */
    int has_gzi;  /* FILE.gzi exists */
} gs_file_facts;

/* Streamed: raw input, FASTQ (even with a .fai), a pipe (its bytes go to the reader unsniffed), a
 * file that cannot be opened (the reader reports it), gzip, BGZF without
 * both indexes (rank 0 does not index a compressed file on the fly: that
 * would read it twice), or plain text that is not FASTA. Plain FASTA whose
 * first record follows a BOM or blanks (or blanks only, as far as the sniff
 * looked) is GS_READ_PLAIN_LEAD. */
gs_read_kind gs_policy_read_kind(const gs_file_facts *f);

/* What to do with a file readable by ranges. */
typedef enum gs_index_use {
    GS_INDEX_USE,    /* its .fai entries */
    GS_INDEX_BUILD,  /* build them in memory, on the job's threads */
    GS_INDEX_STREAM  /* stream the corpus instead */
} gs_index_use;

/* has_entries: a .fai gave records. Without them, BGZF streams (its .gzi
 * alone cannot seek records), and one process builds an index only when
 * pays(ctx) says it pays (gs_policy_index_pays; asked only then, as its
 * facts cost a read). */
gs_index_use gs_policy_index_use(gs_read_kind kind, int has_entries, int n_ranks,
                                 int (*pays)(void *ctx), void *ctx);

/* Does one process read a plain file with a .fai faster in parts
 * (io/seq/parts.h) than by ranges through the index? sizes(ctx) gives the
 * index's and the file's bytes (0: unknown), asked only for one process, as
 * they cost two stats. Yes when the index is
 * dense: at least GS_POLICY_DENSE_MIN bytes and more than one byte in
 * GS_POLICY_DENSE_RATIO of the file's (mean records under ~1 kB; an EST
 * set's .fai is an eighteenth of it). Loading and laying out an entry a
 * record and reading each through the ranges path then cost more than
 * parsing the records. 16 GiB on one H100 by the .fai / in parts: 500 bp
 * records 3.42 / 2.65 s, 20 kbp 1.21 / 2.12 s (~1.15 s + 67 ns a record by
 * the index, ~2.1 s + 16 ns a record in parts: even near 1 kB). Several
 * ranks keep the index: it is what splits the files among them. */
enum { GS_POLICY_DENSE_MIN = 1 << 16, GS_POLICY_DENSE_RATIO = 32 };
int gs_policy_index_dense(int n_ranks, int (*sizes)(void *ctx, uint64_t *index_bytes,
                                                     uint64_t *file_bytes),
                          void *ctx);

/* Bytes of a file's start that gs_policy_headers looks at. */
enum { GS_POLICY_SAMPLE = 1 << 20, GS_POLICY_MAX_HEADERS = 16 };

/* Headers ('>' after a newline) in b[0 .. n), counted up to
 * GS_POLICY_MAX_HEADERS + 1. */
size_t gs_policy_headers(const char *b, size_t n);

/* Is indexing an unindexed plain file in memory worth it for one process?
 * It costs a second pass over the bytes, cheap only when the first leaves
 * them in the page cache (the file fits in half the memory, mem_bytes; 0:
 * unknown) and done on several threads (one thread streaming reads it
 * once). And the ranges path costs a read call per segment, so for records
 * much shorter than a block (EST sets: 500 bp) one stream is faster today:
 * more than GS_POLICY_MAX_HEADERS headers in the first GS_POLICY_SAMPLE
 * bytes streams. */
int gs_policy_index_pays(int threads, uint64_t file_bytes, uint64_t mem_bytes, size_t headers);

/* The read modes of a job (src/mpi/mode.h). */
typedef enum gs_mode_id { GS_MODE_LOCAL, GS_MODE_RANGES, GS_MODE_STREAMED, GS_MODE_LZ, GS_N_MODES } gs_mode_id;

/* An LZ77 index given: its mode; every file by ranges: ranges; else one
 * process streams its files itself, and several deal rank 0's stream. */
gs_mode_id gs_policy_mode(int lz_index, int by_ranges, int n_ranks);

/* Reading threads per rank: --readers (asked), else for files half the
 * threads (1..8) with a GPU, which leaves the host's cores to reading, and
 * a quarter (1..4) on the CPU, where the workers need them. An index's
 * readers unpack its kernel, 4.8 M short pieces for 1000 strains: CPU work
 * on a par with matching them. So for an index every thread reads on the
 * CPU (readers and workers then share the cores as the work comes), and
 * three quarters with a GPU (the rest copy into pinned memory), up to
 * GS_MAX_READERS. */
int gs_policy_readers(int asked, int threads, int use_gpu, int index);

/* Reading threads of one process that streams plain FASTA or FASTQ in
 * parts (io/seq/parts.h), each parsing as it reads (0.5-1 GB/s a thread):
 * --readers (asked), else with a GPU three quarters of the threads, up to
 * GS_MAX_READERS (parsing is the host's main work there; the rest copy
 * batches into pinned memory), on the CPU a quarter (1..4), as for files
 * read by ranges. 1: one stream. */
int gs_policy_part_readers(int asked, int threads, int use_gpu);

/* Reading threads where the GPU takes the readers' batches as they lie:
 * raw FASTA or BGZF bytes read through an index, text read in parts and
 * packed by the readers (exact DNA keys and no --seq: gs_gpu_packs), or
 * the segments of approximate DNA keys (gs_gpu_in_place; 100 CRISPR guides
 * over 3 GB on one H100: 0.79-0.85 s at 15 readers, 0.87-0.98 s at 8).
 * The feeding thread then copies nothing, so --readers (asked), else every
 * thread but the feeding one, up to GS_LAID_READERS: on 16 cores 15
 * readers beat 8 and 12 (64 GiB plain with .fai: 3.31 s at 8, 2.65 at 12,
 * 2.37 at 15) and 12 and 16 in parts; on 64 cores one rank's 16 GiB took
 * 1.10-1.16 s at 15, 1.29-1.37 at 23 and 31, 1.69-1.77 at 63: the copy
 * into pinned memory is bound by the host's memory, and more readers only
 * pin more batches (docs/performance.md). */
#define GS_LAID_READERS 15
int gs_policy_laid_readers(int asked, int threads);

/* ---- the machine -------------------------------------------------------- */

/* Worker threads per rank: -t (asked), else the cores shared by the ranks of
 * the node, at least 1. */
int gs_policy_threads(int asked, long cores, int ranks_on_node);

/* Whether a rank keeps its threads (and so its pinned memory, first
 * touched by them) on its GPU's NUMA node: host.numa (mode) -1 never, 1
 * whenever the GPU's node is known, 0 (the default) when moreover every
 * rank of the node has a GPU, there are two or more, and every NUMA node
 * with cores for the job has one of their GPUs (covered): one rank alone
 * may use the whole host's memory bandwidth, ranks side by side each their
 * socket's, and no socket's cores are left idle. The cores of the GPU's
 * node that the job may use (node_cores) must be at least the ranks that
 * share it (sharing). */
int gs_policy_numa_bind(int mode, int gpu_node, int ranks_on_node, int gpu_ranks,
                        long node_cores, int sharing, int covered);

/* The one GPU a process keeps in CUDA's view (CUDA_VISIBLE_DEVICES), so
 * that CUDA starts that device alone and not every GPU of the node (each a
 * few tenths of a second at start-up on a multi-GPU host): of visible (the
 * variable's value; NULL when unset: devices 0 .. n_node - 1, n_node counted
 * from the driver's files, 0 when unknown) the entry local_rank mod their
 * count, written to out. Returns that count (the GPUs the process would have
 * seen), or 0 where the view stays as it is: host.visible (mode) -1, an
 * unknown local rank (< 0), fewer than two GPUs, an empty entry, or a value
 * longer than out. The GPU a rank uses is the same either way: index
 * local_rank mod count of what it may see. */
int gs_policy_gpu_view(int mode, const char *visible, int n_node, int local_rank, char *out,
                       size_t cap);

/* Whether node-local rank me is the first of its node on its GPU: ids
 * holds n names of stride bytes each (a rank's GPU by PCI address, "" for
 * a rank without one). Ranks may each see only their own GPU (a narrowed
 * view, Slurm's --gpus-per-task), so device numbers do not compare across
 * ranks: addresses do. The job's GPU count is the sum over its ranks. */
int gs_policy_gpu_first(const char *ids, size_t stride, int n, int me);

/* What bounds a node's memory, each 0 when unknown or unlimited (read in
 * src/cli/memory.c). */
typedef struct gs_memory_limits {
    uint64_t physical;  /* the node's physical memory */
    uint64_t cgroup;    /* the process's cgroup: memory.max (v2) or
                         * memory.limit_in_bytes (v1), the lowest on its path */
    uint64_t rlimit_as; /* RLIMIT_AS */
    uint64_t as_mapped; /* address space already mapped when read (VmSize):
                         * libraries, MPI's and UCX's reservations, which
                         * count against RLIMIT_AS but are not memory to hold */
} gs_memory_limits;

/* Bytes a rank may hold (--max-memory): asked when given, else half the
 * smallest known limit divided among the node's ranks, at least 1M (no
 * limit known: 4G a rank); of RLIMIT_AS only what is not mapped yet
 * counts. */
uint64_t gs_policy_max_memory(uint64_t asked, const gs_memory_limits *l, int ranks_on_node);

/* Blocks where a CPU rank's hits are bounded by max_memory: a segment's
 * hits are held whole while it is scanned (40 bytes a hit: the engine's
 * key hit, its packed key and the sort's scratch), so unless asked, no
 * block is larger than a quarter of each thread's share at 2 hits a
 * residue (160 bytes a residue), and none smaller than 64K. */
uint64_t gs_policy_block_memory(uint64_t block, uint64_t asked, uint64_t max_memory, int threads);

/* Residues per block: --block-size (asked), else by device. */
uint64_t gs_policy_block(uint64_t asked, int use_gpu);
/* The block of a GPU rank that reads plain FASTA by ranges and sends the
 * files' own bytes (raw: exact DNA keys, no BGZF): GS_BLOCK_GPU_LONG where
 * the records average at least that many residues (mean), unless a block
 * was asked for or block is smaller already. Smaller batches pin a smaller
 * pool and overlap reading with copying more finely: 16 GiB of 4 Mbp
 * records in 0.83-1.04 s against 0.99-1.16 s at 16M on one H100 loan;
 * records packed into batches (ESTs, reads) were slower at 4M, so they
 * keep GS_BLOCK_GPU (docs/performance.md). */
uint64_t gs_policy_block_long(uint64_t block, uint64_t asked, int raw, uint64_t mean);
/* Bytes a part of an unindexed file read in parts (io/seq/parts.h; 0: its
 * own 8 MiB), unless io.part asked: on a GPU, at most half the block, since
 * a part goes to the device as its own bytes only where it fits one batch
 * (block + overlap) and is parsed on the host otherwise (twice the host CPU
 * for EST-like and FASTQ text at 4M blocks with 8 MiB parts;
 * docs/performance.md). */
uint64_t gs_policy_part_bytes(uint64_t asked, uint64_t block, int use_gpu);

/* When the corpus is known to hold `total` residues: no block larger than
 * it (at least 4096), unless asked. A GPU's pinned buffers (three blocks)
 * cost ~1 ms a MiB to allocate, 50 ms of a phage's whole run. */
uint64_t gs_policy_block_fit(uint64_t block, uint64_t asked, uint64_t total);

/* The engine whose GPU counterpart decides whether a GPU is used: the one
 * named (not "auto", and known), else ac, or bv when approximate. */
const gs_engine *gs_policy_gpu_candidate(const char *name, int approx);

/* Whether to look for GPUs at all: not with --device cpu, nor for an
 * engine without a GPU counterpart. */
int gs_policy_wants_gpu(gs_device_kind device, const gs_engine *candidate);

/* --device gpu with an engine that has no GPU version: GS_EUSAGE. */
gs_status gs_policy_gpu_engine(gs_device_kind device, const gs_engine *candidate, int approx,
                               gs_error *err);

/* --device gpu and no GPU visible to this rank (visible: devices found):
 * GS_ESYS. */
gs_status gs_policy_gpu_found(gs_device_kind device, int visible, int rank, gs_error *err);

/* The engine that runs: the named one, or for auto ac on a GPU (exact) and
 * gs_engine_auto's pick otherwise. GS_EUSAGE when the name is unknown, the
 * engine cannot do the keyset's matching, or it has no GPU version while a
 * GPU is used. */
gs_status gs_policy_engine(const char *name, int use_gpu, const gs_keyset *ks,
                           const gs_engine **engine, gs_error *err);

/* --verify's reference: the CPU engine of the same name for a GPU run; for a
 * CPU run a second, independent CPU engine (bf for approximate matching, or
 * bv to check bf; rk to check ac, else ac). */
const gs_engine *gs_policy_reference(const gs_engine *engine, int use_gpu, int approx);

/* ---- results ------------------------------------------------------------ */

/* Whether hits are gathered to rank 0 before they are written. Approximate
 * hits are, in every mode: --best-per-site sees every hit of a (pattern,
 * record, strand) at once, and the counts are taken from what is reported.
 * Otherwise only reported hits move: those of a mode whose hits interleave
 * across ranks (mode_gathers), and text, one stream from rank 0, when there
 * are several ranks. */
int gs_policy_gather(int approx, int report_hits, int mode_gathers, int text_out, int n_ranks);

#endif
