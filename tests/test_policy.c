/* test_policy.c - each rule of the scan job's policy (src/mpi/policy.h),
 * branch by branch, without MPI or files: how a file is read, whether an
 * index is used, built or skipped, the mode, readers, threads, block size,
 * device and engine, the --verify reference and the gather rule. */
#define _GNU_SOURCE /* CPU_COUNT (mpi/host.h) */
#include <string.h>

#include "match/keyset.h"
#include "mpi/host.h"
#include "mpi/policy.h"
#include "testlib.h"

static void test_read_kind(void)
{
    const gs_file_facts plain = {.seekable = 1, .opened = 1, .format = GS_SEQ_FASTA, .plain = 1};
    gs_file_facts f = plain;
    CHECK(gs_policy_read_kind(&f) == GS_READ_PLAIN);
    f.raw = 1; /* --input-format raw: streamed */
    CHECK(gs_policy_read_kind(&f) == GS_READ_STREAM);
    f = plain;
    f.seekable = 0; /* a pipe */
    CHECK(gs_policy_read_kind(&f) == GS_READ_STREAM);
    f = plain;
    f.opened = 0; /* could not be opened */
    CHECK(gs_policy_read_kind(&f) == GS_READ_STREAM);
    f = plain;
    f.format = GS_SEQ_EMPTY; /* nothing but a BOM and blanks */
    CHECK(gs_policy_read_kind(&f) == GS_READ_STREAM);
    f = plain;
    f.start = 3; /* a BOM or blanks before the first header */
    CHECK(gs_policy_read_kind(&f) == GS_READ_PLAIN_LEAD);
    f = plain;
    f.format = GS_SEQ_UNDECIDED; /* blanks as far as the sniff looked */
    CHECK(gs_policy_read_kind(&f) == GS_READ_PLAIN_LEAD);
    f = plain;
    f.format = GS_SEQ_RAW; /* raw text, or residues before the first header */
    CHECK(gs_policy_read_kind(&f) == GS_READ_STREAM);
    f = plain;
    f.format = GS_SEQ_FASTQ; /* FASTQ streams */
    CHECK(gs_policy_read_kind(&f) == GS_READ_STREAM);
    const gs_file_facts bgzf = {.seekable = 1, .opened = 1, .bgzf = 1, .has_fai = 1, .has_gzi = 1};
    f = bgzf;
    CHECK(gs_policy_read_kind(&f) == GS_READ_BGZF);
    f.has_gzi = 0;
    CHECK(gs_policy_read_kind(&f) == GS_READ_STREAM);
    f = bgzf;
    f.has_fai = 0;
    CHECK(gs_policy_read_kind(&f) == GS_READ_STREAM);
    f = bgzf;
    f.format = GS_SEQ_FASTQ; /* with samtools fqidx's .fai: streamed all the same */
    CHECK(gs_policy_read_kind(&f) == GS_READ_STREAM);
    f = bgzf;
    f.bgzf = 0; /* gzip */
    CHECK(gs_policy_read_kind(&f) == GS_READ_STREAM);
}

static int asked;
static int pays_yes(void *ctx)
{
    (void)ctx;
    asked++;
    return 1;
}
static int pays_no(void *ctx)
{
    (void)ctx;
    asked++;
    return 0;
}

static void test_index_use(void)
{
    asked = 0;
    CHECK(gs_policy_index_use(GS_READ_STREAM, 0, 1, pays_yes, NULL) == GS_INDEX_STREAM);
    CHECK(gs_policy_index_use(GS_READ_PLAIN, 1, 1, pays_no, NULL) == GS_INDEX_USE);
    CHECK(gs_policy_index_use(GS_READ_BGZF, 1, 4, pays_no, NULL) == GS_INDEX_USE);
    CHECK(gs_policy_index_use(GS_READ_BGZF, 0, 4, pays_yes, NULL) == GS_INDEX_STREAM);
    CHECK(asked == 0); /* pays is asked only where it decides */
    CHECK(gs_policy_index_use(GS_READ_PLAIN, 0, 4, pays_no, NULL) == GS_INDEX_BUILD);
    CHECK(gs_policy_index_use(GS_READ_PLAIN_LEAD, 0, 2, pays_no, NULL) == GS_INDEX_BUILD);
    CHECK(asked == 0);
    CHECK(gs_policy_index_use(GS_READ_PLAIN, 0, 1, pays_no, NULL) == GS_INDEX_STREAM);
    CHECK(gs_policy_index_use(GS_READ_PLAIN, 0, 1, pays_yes, NULL) == GS_INDEX_BUILD);
    CHECK(gs_policy_index_use(GS_READ_PLAIN_LEAD, 0, 1, pays_yes, NULL) == GS_INDEX_BUILD);
    CHECK(asked == 3);
}

static void test_index_pays(void)
{
    const uint64_t gib = (uint64_t)1 << 30;
    CHECK(gs_policy_index_pays(2, gib, 4 * gib, 0));
    CHECK(gs_policy_index_pays(8, 2 * gib, 4 * gib, GS_POLICY_MAX_HEADERS));
    CHECK(!gs_policy_index_pays(1, gib, 4 * gib, 0));     /* one thread streams once */
    CHECK(!gs_policy_index_pays(8, 2 * gib + 1, 4 * gib, 0)); /* over half the memory */
    CHECK(!gs_policy_index_pays(8, gib, 0, 0));           /* memory unknown */
    CHECK(!gs_policy_index_pays(8, UINT64_MAX, 4 * gib, 0)); /* size unknown */
    CHECK(!gs_policy_index_pays(8, gib, 4 * gib, GS_POLICY_MAX_HEADERS + 1)); /* short records */

    const char *few = ">a\nACGT\n>b\nAC\n>c\n";
    CHECK_EQ_U64(gs_policy_headers(few, strlen(few)), 2); /* the first header follows no newline */
    char many[4096];
    size_t n = 0;
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(many + n, sizeof many - n, "ACGT\n>r%d\n", i);
    CHECK_EQ_U64(gs_policy_headers(many, n), GS_POLICY_MAX_HEADERS + 1); /* counting stops */
    CHECK_EQ_U64(gs_policy_headers("ACGT\n", 5), 0);
    CHECK_EQ_U64(gs_policy_headers("", 0), 0);
    CHECK_EQ_U64(gs_policy_headers("AC\n>", 4), 1);
    CHECK_EQ_U64(gs_policy_headers("AC\n>", 3), 0); /* a newline that ends the sample */
}

/* The sizes a test gives gs_policy_index_dense, and whether it asked. */
typedef struct sizes_ctx {
    int have; /* a .fai */
    uint64_t index_bytes, file_bytes;
    int asked;
} sizes_ctx;

static int give_sizes(void *arg, uint64_t *index_bytes, uint64_t *file_bytes)
{
    sizes_ctx *c = arg;
    c->asked++;
    *index_bytes = c->index_bytes;
    *file_bytes = c->file_bytes;
    return c->have;
}

static int dense(uint64_t index_bytes, uint64_t file_bytes, int n_ranks)
{
    sizes_ctx c = {1, index_bytes, file_bytes, 0};
    return gs_policy_index_dense(n_ranks, give_sizes, &c);
}

/* One rank reads a file in parts when its .fai is dense; several keep it. */
static void test_index_dense(void)
{
    const uint64_t gib = (uint64_t)1 << 30;
    CHECK(dense(gib / 17, gib, 1));      /* 500 bp ESTs */
    CHECK(!dense(gib / 17, gib, 2));     /* the index splits the files */
    CHECK(!dense(300, gib, 1));          /* 4 Mbp records */
    CHECK(!dense(gib / 700, gib, 1));    /* 20 kbp records */
    CHECK(!dense(gib / 32, gib, 1));     /* ~1 kB records: the line */
    CHECK(dense(gib / 32 + 1, gib, 1));
    CHECK(!dense(GS_POLICY_DENSE_MIN - 1, 1 << 20, 1)); /* a small index */
    CHECK(dense(GS_POLICY_DENSE_MIN, 1 << 20, 1));
    CHECK(!dense(GS_POLICY_DENSE_MIN, UINT64_MAX, 1)); /* size unknown */
    sizes_ctx none = {0, gib, gib, 0}; /* no .fai */
    CHECK(!gs_policy_index_dense(1, give_sizes, &none));
    sizes_ctx ranks = {1, gib / 17, gib, 0};
    CHECK(!gs_policy_index_dense(2, give_sizes, &ranks));
    CHECK_EQ_U64(ranks.asked, 0); /* several ranks cost no stat */
}

static void test_mode_and_readers(void)
{
    CHECK(gs_policy_mode(1, 1, 4) == GS_MODE_LZ);
    CHECK(gs_policy_mode(0, 1, 1) == GS_MODE_RANGES);
    CHECK(gs_policy_mode(0, 1, 4) == GS_MODE_RANGES);
    CHECK(gs_policy_mode(0, 0, 1) == GS_MODE_LOCAL);
    CHECK(gs_policy_mode(0, 0, 2) == GS_MODE_STREAMED);

    CHECK(gs_policy_readers(3, 16, 1, 0) == 3); /* --readers wins */
    CHECK(gs_policy_readers(0, 16, 1, 0) == 8); /* files, GPU: half, at most 8 */
    CHECK(gs_policy_readers(0, 32, 1, 0) == 8);
    CHECK(gs_policy_readers(0, 6, 1, 0) == 3);
    CHECK(gs_policy_readers(0, 16, 0, 0) == 4); /* files, CPU: a quarter, at most 4 */
    /* parts of unindexed FASTA and FASTQ: three quarters of the threads
     * with a GPU (at most 64), as files on the CPU; --readers wins */
    CHECK(gs_policy_part_readers(0, 16, 1) == 12 && gs_policy_part_readers(0, 100, 1) == 64);
    CHECK(gs_policy_part_readers(0, 16, 0) == 4 && gs_policy_part_readers(0, 2, 0) == 1);
    CHECK(gs_policy_part_readers(1, 16, 1) == 1 && gs_policy_part_readers(3, 2, 0) == 3);
    /* batches taken as they lie: all threads but the feeding one, up to 15 */
    CHECK(gs_policy_laid_readers(0, 16) == 15 && gs_policy_laid_readers(0, 64) == 15);
    CHECK(gs_policy_laid_readers(0, 8) == 7 && gs_policy_laid_readers(31, 64) == 31);
    CHECK(gs_policy_laid_readers(0, 1) == 1 && gs_policy_laid_readers(0, 2) == 1);
    CHECK(gs_policy_laid_readers(4, 16) == 4);
    CHECK(gs_policy_readers(0, 8, 0, 0) == 2);
    CHECK(gs_policy_readers(0, 3, 0, 0) == 1);  /* at least 1 */
    CHECK(gs_policy_readers(0, 1, 1, 0) == 1);
    CHECK(gs_policy_readers(0, 16, 0, 1) == 16); /* index, CPU: every thread */
    CHECK(gs_policy_readers(0, 16, 1, 1) == 12); /* index, GPU: three quarters */
    CHECK(gs_policy_readers(0, 200, 0, 1) == GS_MAX_READERS);
    CHECK(gs_policy_readers(0, 1, 1, 1) == 1);
}

static void test_machine(void)
{
    CHECK(gs_policy_threads(5, 64, 4) == 5);
    CHECK(gs_policy_threads(0, 64, 4) == 16);
    CHECK(gs_policy_threads(0, 6, 4) == 1);
    /* --max-memory: asked, else half the least of physical, cgroup and
     * RLIMIT_AS (0: none; less what is mapped) among the node's ranks, at
     * least 1M */
    const uint64_t G = 1ULL << 30;
    gs_memory_limits none = {0, 0, 0, 0}, phys = {64 * G, 0, 0, 0}, cg = {64 * G, 8 * G, 0, 0},
                     as = {64 * G, 8 * G, 2 * G, 0}, tiny = {64 * G, 0, 4ULL << 20, 0};
    CHECK(gs_policy_max_memory(3 << 20, &as, 4) == 3 << 20);
    CHECK(gs_policy_max_memory(0, &none, 1) == 4 * G);
    CHECK(gs_policy_max_memory(0, &phys, 1) == 32 * G);
    CHECK(gs_policy_max_memory(0, &phys, 4) == 8 * G);
    CHECK(gs_policy_max_memory(0, &cg, 2) == 2 * G);
    CHECK(gs_policy_max_memory(0, &as, 1) == 1 * G);
    CHECK(gs_policy_max_memory(0, &as, 0) == 1 * G);
    CHECK(gs_policy_max_memory(0, &tiny, 8) == 1 << 20);
    /* under RLIMIT_AS only what is not mapped yet: 600M less 300M mapped */
    gs_memory_limits mapped = {64 * G, 0, 600ULL << 20, 300ULL << 20},
                     full = {64 * G, 0, 600ULL << 20, 700ULL << 20};
    CHECK(gs_policy_max_memory(0, &mapped, 1) == 150ULL << 20);
    CHECK(gs_policy_max_memory(0, &full, 1) == 1 << 20);
    /* blocks where hits spill: within a quarter of a thread's share */
    CHECK(gs_policy_block_memory(16 << 20, 0, 64 * G, 16) == 16 << 20);
    CHECK(gs_policy_block_memory(16 << 20, 0, 1 * G, 16) == G / 16 / 160);
    CHECK(gs_policy_block_memory(16 << 20, 0, 1 << 20, 2) == 64 << 10);
    CHECK(gs_policy_block_memory(16 << 20, 16 << 20, 1 << 20, 2) == 16 << 20);
    CHECK(gs_policy_threads(0, 4, 4) == 1);
    CHECK(gs_policy_threads(0, -1, 1) == 1); /* cores unknown */

    /* host.numa: two GPU ranks on a node keep to their GPUs' nodes; one
     * rank alone, a rank without a GPU, a node with a CPU rank among GPU
     * ranks, an unknown node, or too few cores there: no binding */
    CHECK(gs_policy_numa_bind(0, 1, 2, 2, 16, 1, 1) == 1);
    CHECK(gs_policy_numa_bind(0, 0, 8, 8, 16, 4, 1) == 1);
    CHECK(gs_policy_numa_bind(0, 0, 2, 2, 16, 2, 0) == 0); /* both GPUs on one socket */
    CHECK(gs_policy_numa_bind(1, 0, 2, 2, 16, 2, 0) == 1);
    CHECK(gs_policy_numa_bind(0, 1, 1, 1, 16, 1, 1) == 0);
    CHECK(gs_policy_numa_bind(1, 1, 1, 1, 16, 1, 0) == 1);
    CHECK(gs_policy_numa_bind(0, -1, 2, 0, 0, 2, 0) == 0);
    CHECK(gs_policy_numa_bind(0, 1, 3, 2, 16, 1, 1) == 0);
    CHECK(gs_policy_numa_bind(1, 1, 2, 2, 1, 2, 1) == 0);
    CHECK(gs_policy_numa_bind(-1, 1, 2, 2, 16, 1, 1) == 0);
    /* host.visible: a rank keeps the GPU it takes, local rank mod the GPUs
     * it may see, whether listed by CUDA_VISIBLE_DEVICES or counted */
    char keep[16];
    CHECK(gs_policy_gpu_view(0, NULL, 4, 1, keep, sizeof keep) == 4 && !strcmp(keep, "1"));
    CHECK(gs_policy_gpu_view(0, NULL, 4, 6, keep, sizeof keep) == 4 && !strcmp(keep, "2"));
    const char *list = "3,1,GPU-8f2a";
    CHECK(gs_policy_gpu_view(0, list, 0, 0, keep, sizeof keep) == 3 && !strcmp(keep, "3"));
    CHECK(gs_policy_gpu_view(0, list, 0, 4, keep, sizeof keep) == 3 && !strcmp(keep, "1"));
    CHECK(gs_policy_gpu_view(0, list, 0, 2, keep, sizeof keep) == 3 && !strcmp(keep, "GPU-8f2a"));
    CHECK(gs_policy_gpu_view(0, NULL, 1, 0, keep, sizeof keep) == 0);  /* one GPU: as it is */
    CHECK(gs_policy_gpu_view(0, NULL, 0, 0, keep, sizeof keep) == 0);  /* count unknown */
    CHECK(gs_policy_gpu_view(0, NULL, -1, 0, keep, sizeof keep) == 0); /* no driver */
    CHECK(gs_policy_gpu_view(0, "2", 0, 1, keep, sizeof keep) == 0);   /* one visible */
    CHECK(gs_policy_gpu_view(0, "NoDevFiles", 0, 0, keep, sizeof keep) == 0);
    CHECK(gs_policy_gpu_view(0, "", 0, 0, keep, sizeof keep) == 0);
    CHECK(gs_policy_gpu_view(0, "0,,1", 0, 0, keep, sizeof keep) == 0); /* empty entry */
    CHECK(gs_policy_gpu_view(0, "0,1,", 0, 0, keep, sizeof keep) == 0);
    CHECK(gs_policy_gpu_view(0, "0,GPU-0123456789abcdef", 0, 1, keep, sizeof keep) == 0); /* long */
    CHECK(gs_policy_gpu_view(-1, NULL, 4, 1, keep, sizeof keep) == 0); /* host.visible=-1 */
    CHECK(gs_policy_gpu_view(0, NULL, 4, -1, keep, sizeof keep) == 0); /* local rank unknown */
    /* the process's own view: the entry kept, the variable rewritten; left
     * alone under host.visible=-1 */
    setenv("CUDA_VISIBLE_DEVICES", "5,GPU-ab,7", 1);
    CHECK(gs_host_gpu_view(0, -1) == 0 && !strcmp(getenv("CUDA_VISIBLE_DEVICES"), "5,GPU-ab,7"));
    CHECK(gs_host_gpu_view(4, 0) == 3 && !strcmp(getenv("CUDA_VISIBLE_DEVICES"), "GPU-ab"));
    CHECK(gs_host_gpu_view(4, 0) == 0 && !strcmp(getenv("CUDA_VISIBLE_DEVICES"), "GPU-ab"));
    unsetenv("CUDA_VISIBLE_DEVICES");
    /* the GPUs a job counts: a node's ranks by their GPUs' addresses, each
     * seeing only its own (all device 0) or sharing one round-robin */
    const char ids[5][8] = {"06.0", "07.0", "", "06.0", "09.0"};
    CHECK(gs_policy_gpu_first(ids[0], 8, 5, 0) == 1);
    CHECK(gs_policy_gpu_first(ids[0], 8, 5, 1) == 1);
    CHECK(gs_policy_gpu_first(ids[0], 8, 5, 2) == 0); /* no GPU */
    CHECK(gs_policy_gpu_first(ids[0], 8, 5, 3) == 0); /* shares rank 0's */
    CHECK(gs_policy_gpu_first(ids[0], 8, 5, 4) == 1);
    CHECK(gs_policy_gpu_first(ids[0], 8, 5, 5) == 0);
    /* sysfs cpulists */
    cpu_set_t set;
    CHECK(gs_cpulist_parse("0-3,8,10-11\n", &set) == 0 && CPU_COUNT(&set) == 7 &&
          CPU_ISSET(8, &set) && CPU_ISSET(11, &set) && !CPU_ISSET(4, &set));
    CHECK(gs_cpulist_parse("", &set) == 0 && CPU_COUNT(&set) == 0);
    CHECK(gs_cpulist_parse("3-1", &set) == -1);
    CHECK(gs_cpulist_parse("0-3;5", &set) == -1);
    CHECK(gs_cpulist_parse("x", &set) == -1);

    CHECK_EQ_U64(gs_policy_block(1000, 1), 1000);
    CHECK_EQ_U64(gs_policy_block(0, 1), GS_BLOCK_GPU);
    CHECK_EQ_U64(gs_policy_block(0, 0), GS_BLOCK_CPU);
    CHECK_EQ_U64(gs_policy_block_fit(GS_BLOCK_GPU, 0, 100000), 100000);
    CHECK_EQ_U64(gs_policy_block_fit(GS_BLOCK_GPU, 0, 100), 4096);
    CHECK_EQ_U64(gs_policy_block_fit(GS_BLOCK_GPU, 0, 0), 4096);
    CHECK_EQ_U64(gs_policy_block_fit(GS_BLOCK_GPU, 0, GS_BLOCK_GPU + 1), GS_BLOCK_GPU);
    CHECK_EQ_U64(gs_policy_block_fit(1 << 20, 1 << 20, 100), 1 << 20); /* asked: kept */
    /* a GPU fed raw bytes of long records takes smaller batches; asked
     * blocks, packed short records, other paths and small corpora keep theirs */
    CHECK_EQ_U64(gs_policy_block_long(GS_BLOCK_GPU, 0, 1, (uint64_t)5 << 20), GS_BLOCK_GPU_LONG);
    CHECK_EQ_U64(gs_policy_block_long(GS_BLOCK_GPU, 0, 1, 500), GS_BLOCK_GPU);
    CHECK_EQ_U64(gs_policy_block_long(GS_BLOCK_GPU, 0, 0, 1 << 30), GS_BLOCK_GPU);
    CHECK_EQ_U64(gs_policy_block_long(GS_BLOCK_GPU, GS_BLOCK_GPU, 1, 1 << 30), GS_BLOCK_GPU);
    CHECK_EQ_U64(gs_policy_block_long(100000, 0, 1, 1 << 30), 100000);
    /* parts of unindexed files fit a GPU's batch; io.part asked, the CPU
     * and the default block keep theirs (0: the reader's own) */
    CHECK_EQ_U64(gs_policy_part_bytes(0, GS_BLOCK_GPU, 1), 0);
    CHECK_EQ_U64(gs_policy_part_bytes(0, (uint64_t)4 << 20, 1), (uint64_t)2 << 20);
    CHECK_EQ_U64(gs_policy_part_bytes(0, 4096, 1), (uint64_t)64 << 10);
    CHECK_EQ_U64(gs_policy_part_bytes(0, GS_BLOCK_CPU, 0), 0);
    CHECK_EQ_U64(gs_policy_part_bytes(1 << 20, (uint64_t)4 << 20, 1), 1 << 20);
}

static void test_device(void)
{
    gs_error err = {0};
    CHECK(gs_policy_gpu_candidate("auto", 0) == &gs_engine_ac);
    CHECK(gs_policy_gpu_candidate("auto", 1) == &gs_engine_bv);
    CHECK(gs_policy_gpu_candidate("wm", 0) == &gs_engine_wm);
    CHECK(gs_policy_gpu_candidate("bf", 1) == &gs_engine_bf);
    CHECK(gs_policy_gpu_candidate("nosuch", 0) == &gs_engine_ac); /* reported later */

    CHECK(gs_policy_wants_gpu(GS_DEV_AUTO, &gs_engine_ac));
    CHECK(gs_policy_wants_gpu(GS_DEV_GPU, &gs_engine_ac));
    CHECK(!gs_policy_wants_gpu(GS_DEV_CPU, &gs_engine_ac));
    CHECK(!gs_policy_wants_gpu(GS_DEV_AUTO, &gs_engine_bf));

    CHECK(gs_policy_gpu_engine(GS_DEV_AUTO, &gs_engine_bf, 0, &err) == GS_OK);
    CHECK(gs_policy_gpu_engine(GS_DEV_GPU, &gs_engine_ac, 0, &err) == GS_OK);
    CHECK(gs_policy_gpu_engine(GS_DEV_GPU, &gs_engine_bf, 1, &err) == GS_EUSAGE);
    CHECK(strstr(err.msg, "bf (approximate matching) has no GPU") != NULL);

    gs_error e2 = {0};
    CHECK(gs_policy_gpu_found(GS_DEV_AUTO, 0, 0, &e2) == GS_OK);
    CHECK(gs_policy_gpu_found(GS_DEV_GPU, 1, 0, &e2) == GS_OK);
    CHECK(gs_policy_gpu_found(GS_DEV_GPU, 0, 3, &e2) == GS_ESYS);
    CHECK(strstr(e2.msg, "--device gpu") != NULL);
}

static void test_engine(void)
{
    gs_keyset exact = {.mode = GS_MATCH_EXACT}, approx = {.mode = GS_MATCH_MISMATCHES};
    const gs_engine *e = NULL;
    gs_error err = {0};
    CHECK(gs_policy_engine("auto", 1, &exact, &e, &err) == GS_OK && e == &gs_engine_ac);
    CHECK(gs_policy_engine("auto", 0, &exact, &e, &err) == GS_OK && e == gs_engine_auto(&exact));
    CHECK(gs_policy_engine("auto", 1, &approx, &e, &err) == GS_OK && e == &gs_engine_bv);
    CHECK(gs_policy_engine("rk", 0, &exact, &e, &err) == GS_OK && e == &gs_engine_rk);
    CHECK(err.code == GS_OK);

    gs_error e1 = {0}, e2 = {0}, e3 = {0};
    CHECK(gs_policy_engine("nosuch", 0, &exact, &e, &e1) == GS_EUSAGE && e == NULL);
    CHECK(strstr(e1.msg, "unknown engine 'nosuch'") != NULL);
    CHECK(gs_policy_engine("ac", 0, &approx, &e, &e2) == GS_EUSAGE);
    CHECK(strstr(e2.msg, "engine ac does exact matching only") != NULL);
    CHECK(gs_policy_engine("bf", 1, &exact, &e, &e3) == GS_EUSAGE);
    CHECK(strstr(e3.msg, "engine bf runs on the CPU only") != NULL);

    CHECK(gs_policy_reference(&gs_engine_wm, 1, 0) == &gs_engine_wm); /* GPU: its CPU twin */
    CHECK(gs_policy_reference(&gs_engine_ac, 0, 0) == &gs_engine_rk);
    CHECK(gs_policy_reference(&gs_engine_wm, 0, 0) == &gs_engine_ac);
    CHECK(gs_policy_reference(&gs_engine_bv, 0, 1) == &gs_engine_bf);
    CHECK(gs_policy_reference(&gs_engine_bf, 0, 1) == &gs_engine_bv);
}

static void test_gather(void)
{
    /* approx, report, mode gathers, text, ranks */
    CHECK(gs_policy_gather(1, 0, 0, 0, 1)); /* approximate: always */
    CHECK(!gs_policy_gather(0, 0, 1, 1, 4)); /* counts only: never */
    CHECK(gs_policy_gather(0, 1, 1, 0, 4)); /* streamed, lz */
    CHECK(!gs_policy_gather(0, 1, 0, 0, 4)); /* ranges, HDF5: written in place */
    CHECK(gs_policy_gather(0, 1, 0, 1, 4)); /* text: one stream from rank 0 */
    CHECK(!gs_policy_gather(0, 1, 0, 1, 1));
}

int main(void)
{
    test_read_kind();
    test_index_use();
    test_index_pays();
    test_index_dense();
    test_mode_and_readers();
    test_machine();
    test_device();
    test_engine();
    test_gather();
    return gs_test_done("test_policy");
}
