/* policy.c - the decisions of a scan job (see policy.h). */
#include "policy.h"

#include <stdio.h>
#include <string.h>

#include "match/keyset.h"

gs_read_kind gs_policy_read_kind(const gs_file_facts *f)
{
    if (f->raw || !f->seekable || !f->opened)
        return GS_READ_STREAM;
    if (f->plain)
        return f->format == GS_SEQ_FASTA && f->start == 0 ? GS_READ_PLAIN
               : f->format == GS_SEQ_FASTA || f->format == GS_SEQ_UNDECIDED ? GS_READ_PLAIN_LEAD
                                                                            : GS_READ_STREAM;
    /* a FASTQ file's .fai (samtools fqidx) is not read: FASTQ streams */
    return f->bgzf && f->has_fai && f->has_gzi && f->format != GS_SEQ_FASTQ ? GS_READ_BGZF
                                                                           : GS_READ_STREAM;
}

gs_index_use gs_policy_index_use(gs_read_kind kind, int has_entries, int n_ranks,
                                 int (*pays)(void *ctx), void *ctx)
{
    if (kind == GS_READ_STREAM)
        return GS_INDEX_STREAM;
    if (has_entries)
        return GS_INDEX_USE;
    if (kind == GS_READ_BGZF || (n_ranks == 1 && !pays(ctx)))
        return GS_INDEX_STREAM; /* one process streams rather than read the file twice */
    return GS_INDEX_BUILD;
}

int gs_policy_index_dense(int n_ranks, int (*sizes)(void *ctx, uint64_t *index_bytes,
                                                     uint64_t *file_bytes),
                          void *ctx)
{
    uint64_t index_bytes, file_bytes;
    return n_ranks == 1 && sizes(ctx, &index_bytes, &file_bytes) &&
           index_bytes >= GS_POLICY_DENSE_MIN && index_bytes > file_bytes / GS_POLICY_DENSE_RATIO;
}

size_t gs_policy_headers(const char *b, size_t n)
{
    size_t headers = 0;
    for (const char *p = b, *end = b + n; headers <= GS_POLICY_MAX_HEADERS;) {
        const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        if (nl == NULL)
            break;
        headers += nl + 1 < end && nl[1] == '>';
        p = nl + 1;
    }
    return headers;
}

int gs_policy_index_pays(int threads, uint64_t file_bytes, uint64_t mem_bytes, size_t headers)
{
    if (threads < 2 || mem_bytes == 0 || file_bytes > mem_bytes / 2)
        return 0;
    return headers <= GS_POLICY_MAX_HEADERS;
}

gs_mode_id gs_policy_mode(int lz_index, int by_ranges, int n_ranks)
{
    if (lz_index)
        return GS_MODE_LZ;
    if (by_ranges)
        return GS_MODE_RANGES;
    return n_ranks > 1 ? GS_MODE_STREAMED : GS_MODE_LOCAL;
}

int gs_policy_readers(int asked, int threads, int use_gpu, int index)
{
    const int t = threads;
    const int share = index ? (use_gpu ? t * 3 / 4 : t) : use_gpu ? t / 2 : t / 4;
    const int most = index ? GS_MAX_READERS : use_gpu ? 8 : 4;
    return asked ? asked : share < 1 ? 1 : share > most ? most : share;
}

int gs_policy_part_readers(int asked, int threads, int use_gpu)
{
    return gs_policy_readers(asked, threads, use_gpu, use_gpu);
}

int gs_policy_laid_readers(int asked, int threads)
{
    if (asked)
        return asked;
    return threads < 2 ? 1 : threads - 1 > GS_LAID_READERS ? GS_LAID_READERS : threads - 1;
}

int gs_policy_threads(int asked, long cores, int ranks_on_node)
{
    if (asked > 0)
        return asked;
    return cores > ranks_on_node ? (int)(cores / ranks_on_node) : 1;
}

int gs_policy_numa_bind(int mode, int gpu_node, int ranks_on_node, int gpu_ranks,
                        long node_cores, int sharing, int covered)
{
    if (mode < 0 || gpu_node < 0 || sharing < 1 || node_cores < sharing)
        return 0;
    return mode > 0 || (ranks_on_node >= 2 && gpu_ranks == ranks_on_node && covered);
}

int gs_policy_gpu_first(const char *ids, size_t stride, int n, int me)
{
    if (me < 0 || me >= n || ids[(size_t)me * stride] == '\0')
        return 0;
    const char *mine = ids + (size_t)me * stride;
    for (int i = 0; i < me; i++)
        if (strncmp(ids + (size_t)i * stride, mine, stride) == 0)
            return 0;
    return 1;
}

int gs_policy_gpu_view(int mode, const char *visible, int n_node, int local_rank, char *out,
                       size_t cap)
{
    if (mode < 0 || local_rank < 0 || cap == 0)
        return 0;
    if (visible == NULL) {
        if (n_node < 2)
            return 0;
        int w = snprintf(out, cap, "%d", local_rank % n_node);
        return w > 0 && (size_t)w < cap ? n_node : 0;
    }
    int n = 0;
    for (const char *e = visible;; e++) { /* count the entries, none empty */
        size_t len = strcspn(e, ",");
        if (len == 0)
            return 0;
        n++;
        e += len;
        if (*e == '\0')
            break;
    }
    const char *e = visible;
    for (int k = local_rank % n; k > 0; k--)
        e += strcspn(e, ",") + 1;
    size_t len = strcspn(e, ",");
    if (n < 2 || len >= cap)
        return 0;
    memcpy(out, e, len);
    out[len] = '\0';
    return n;
}

uint64_t gs_policy_max_memory(uint64_t asked, const gs_memory_limits *l, int ranks_on_node)
{
    if (asked)
        return asked;
    const uint64_t as_free = l->rlimit_as == 0 ? 0
                             : l->rlimit_as > l->as_mapped + (2u << 20) ? l->rlimit_as - l->as_mapped
                                                                        : (2u << 20);
    const uint64_t v[] = {l->physical, l->cgroup, as_free};
    uint64_t least = 0;
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        if (v[i] && (least == 0 || v[i] < least))
            least = v[i];
    if (least == 0)
        return (uint64_t)4 << 30;
    uint64_t share = least / 2 / (uint64_t)(ranks_on_node > 1 ? ranks_on_node : 1);
    return share < (1u << 20) ? (1u << 20) : share;
}

uint64_t gs_policy_block_memory(uint64_t block, uint64_t asked, uint64_t max_memory, int threads)
{
    uint64_t cap = max_memory / (uint64_t)(threads > 1 ? threads : 1) / 160;
    cap = cap < (64u << 10) ? (64u << 10) : cap;
    return asked || block <= cap ? block : cap;
}

uint64_t gs_policy_block(uint64_t asked, int use_gpu)
{
    return asked ? asked : use_gpu ? GS_BLOCK_GPU : GS_BLOCK_CPU;
}

uint64_t gs_policy_block_long(uint64_t block, uint64_t asked, int raw, uint64_t mean)
{
    return asked || !raw || mean < GS_BLOCK_GPU_LONG || block < GS_BLOCK_GPU_LONG
               ? block
               : GS_BLOCK_GPU_LONG;
}

uint64_t gs_policy_part_bytes(uint64_t asked, uint64_t block, int use_gpu)
{
    const uint64_t most = (uint64_t)8 << 20, least = (uint64_t)64 << 10;
    if (asked || !use_gpu || block / 2 >= most)
        return asked;
    return block / 2 > least ? block / 2 : least;
}

uint64_t gs_policy_block_fit(uint64_t block, uint64_t asked, uint64_t total)
{
    if (asked == 0 && total < block)
        return total > 4096 ? total : 4096;
    return block;
}

const gs_engine *gs_policy_gpu_candidate(const char *name, int approx)
{
    const gs_engine *named = strcmp(name, "auto") ? gs_engine_find(name) : NULL;
    return named ? named : approx ? &gs_engine_bv : &gs_engine_ac;
}

int gs_policy_wants_gpu(gs_device_kind device, const gs_engine *candidate)
{
    return device != GS_DEV_CPU && candidate->gpu != NULL;
}

gs_status gs_policy_gpu_engine(gs_device_kind device, const gs_engine *candidate, int approx,
                               gs_error *err)
{
    if (device == GS_DEV_GPU && candidate->gpu == NULL)
        return gs_fail(err, GS_EUSAGE, "engine %s%s has no GPU version yet (--device gpu)",
                       candidate->name, approx ? " (approximate matching)" : "");
    return GS_OK;
}

gs_status gs_policy_gpu_found(gs_device_kind device, int visible, int rank, gs_error *err)
{
    if (device != GS_DEV_GPU || visible > 0)
        return GS_OK;
#ifdef GS_HAVE_CUDA
    return gs_fail(err, GS_ESYS, "--device gpu: no GPU is visible (rank %d)", rank);
#else
    (void)rank;
    return gs_fail(err, GS_ESYS, "--device gpu: no GPU in this build (built without CUDA)");
#endif
}

gs_status gs_policy_engine(const char *name, int use_gpu, const gs_keyset *ks,
                           const gs_engine **engine, gs_error *err)
{
    const gs_engine *e;
    if (!strcmp(name, "auto"))
        e = use_gpu && ks->mode == GS_MATCH_EXACT ? &gs_engine_ac : gs_engine_auto(ks);
    else
        e = gs_engine_find(name);
    *engine = e;
    if (e == NULL)
        return gs_fail(err, GS_EUSAGE, "unknown engine '%s' (--engine)", name);
    if (!gs_engine_can(e, ks))
        return gs_fail(err, GS_EUSAGE, "engine %s does %s matching only (--engine)", e->name,
                       ks->mode != GS_MATCH_EXACT ? "exact" : "approximate");
    if (use_gpu && e->gpu == NULL)
        return gs_fail(err, GS_EUSAGE,
                       "engine %s runs on the CPU only (--engine %s with --device gpu)", e->name,
                       e->name);
    return GS_OK;
}

const gs_engine *gs_policy_reference(const gs_engine *engine, int use_gpu, int approx)
{
    if (use_gpu)
        return engine;
    if (approx) /* the DP reference, or bv to check it */
        return engine == &gs_engine_bf ? &gs_engine_bv : &gs_engine_bf;
    return engine == &gs_engine_ac ? &gs_engine_rk : &gs_engine_ac;
}

int gs_policy_gather(int approx, int report_hits, int mode_gathers, int text_out, int n_ranks)
{
    return approx || (report_hits && (mode_gathers || (text_out && n_ranks > 1)));
}
