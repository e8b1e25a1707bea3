/* ac.cu - the GPU Aho-Corasick engine: compile the automaton on the host,
 * launch ac.cuh's kernel.
 *
 * The automaton is the host one the CPU engine scans too (match/ac_trie.h:
 * dense rows of A symbols, 4 DNA codes or the byte classes of the keys plus
 * one class for every byte no key contains, a full DFA), rewritten here into
 * the Mealy form ac.cuh describes: only internal states keep a
 * row, and an edge into a leaf goes to the leaf's nearest internal suffix
 * state with a flag. The kernel variant (16- or 32-bit entries, table and
 * counts in shared or global memory) is chosen here from the sizes and the
 * device's shared-memory limit; docs/performance.md (GPU) has the numbers.
 *
 * Counts only, with more keys than one counts-only automaton can hold in
 * shared memory (16000 8-mers on both strands: 32,000 keys), the general
 * kernel would add every key end to a 64-bit counter in global memory, about
 * one atomic a residue on a genome (0.22 s of kernel a GiB on an H100). The
 * keys are instead sorted and cut into the fewest parts whose counts-only
 * automata each fit, and each segment is scanned once per part, the parts
 * side by side in one launch of the fast kernel (a row of blocks a part)
 * instead of one slow one. Parts own disjoint keys, so their counts add
 * up.
 */
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "ac.cuh"
extern "C" {
#include "match/ac_trie.h"
}

typedef void (*gs_ac_fn)(gs_ac_view, gs_gpu_scan);

typedef struct ac_state {
    int compact; /* counts only through gs_acc_kernel */
    uint32_t *d_wdelta;
    gs_acc_view cv;
    uint16_t *d_cdelta, *d_orep;
    int32_t *d_ofirst;
    void (*cfn)(gs_acc_views, gs_gpu_scan);
    gs_ac_view v;
    void *d_delta;
    int32_t *d_edge;
    gs_ac_out *d_outs;
    uint8_t *d_cls;
    gs_ac_fn fn;
    size_t smem;
    int threads, grid;
    std::vector<struct ac_state *> parts; /* counts only: one compact state a part */
} ac_state;

/* The automaton on the host, in the device's layout. */
typedef struct ac_host {
    uint32_t A, n_int;
    uint8_t cls[256];
    std::vector<uint32_t> delta; /* [n_int * A] internal state | flag (bit 31) */
    std::vector<int32_t> edge_out;
    std::vector<gs_ac_out> outs;
    /* the counts-only forms (gs_acc_kernel): narrow when the ids fit in 15
     * bits, wide when they fit in 16 */
    int narrow, wide;
    uint32_t n_out;
    std::vector<uint16_t> cdelta, orep;
    std::vector<uint32_t> wdelta;
    std::vector<int32_t> ofirst;
} ac_host;

static const uint32_t AC_FLAG32 = 0x80000000u;

/* The counts-only forms of h (ac.cuh's gs_acc_kernel) from automaton t:
 * entries (output id + 1) << 16 | internal state (wide), or 0x8000 | output
 * id / state (narrow); each output's internal suffix state and first key. */
static void ac_lay_compact(const gs_ac_trie &t, const std::vector<int32_t> &iid,
                           const std::vector<int32_t> &rep, const std::vector<int32_t> &rid,
                           ac_host *h)
{
    const uint32_t A = h->A, n_int = h->n_int;
    const int32_t *out_key = (const int32_t *)t.key, *dict = (const int32_t *)t.dict;
    std::vector<int32_t> oid(t.n, -1);
    uint32_t n_out = 0;
    for (uint32_t s = 0; s < t.n; s++)
        if (out_key[s] >= 0 || dict[s] >= 0)
            oid[s] = (int32_t)n_out++;
    h->n_out = n_out;
    h->narrow = n_int <= 0x8000u && n_out <= 0x8000u;
    h->wide = n_int <= 0x10000u && n_out < 0xFFFFu;
    if (h->wide)
        h->wdelta.assign((size_t)n_int * A, 0);
    if (h->narrow)
        h->cdelta.assign((size_t)n_int * A, 0);
    for (uint32_t s = 0; s < t.n && (h->wide || h->narrow); s++) {
        if (!t.inner[s])
            continue;
        for (uint32_t c = 0; c < A; c++) {
            uint32_t u = t.go[(size_t)s * A + c];
            size_t at = (size_t)iid[s] * A + c;
            if (h->wide)
                h->wdelta[at] = (uint32_t)(oid[u] + 1) << 16 | (uint32_t)iid[rep[u]];
            if (h->narrow)
                h->cdelta[at] = oid[u] >= 0 ? (uint16_t)(0x8000u | oid[u]) : (uint16_t)iid[u];
        }
    }
    if (h->wide || h->narrow) {
        h->orep.assign(std::max<uint32_t>(n_out, 1), 0);
        h->ofirst.assign(std::max<uint32_t>(n_out, 1), -1);
        for (uint32_t s = 0; s < t.n; s++)
            if (oid[s] >= 0) {
                h->orep[oid[s]] = (uint16_t)iid[rep[s]];
                h->ofirst[oid[s]] = rid[out_key[s] >= 0 ? (int32_t)s : dict[s]];
            }
    }
}

/* Re-lay the host automaton (ac_trie.h) in the device's Mealy form: only
 * internal states keep a row (numbered breadth-first, root first), an edge
 * into a leaf goes to the leaf's nearest internal suffix state with a flag
 * and its first output in edge_out. */
static gs_status ac_build(const gs_keyset *ks, ac_host *h, gs_error *err)
{
    gs_ac_trie t;
    if (gs_ac_trie_build(ks, &t, err) != GS_OK)
        return err->code;
    const uint32_t A = h->A = t.A;
    if (ks->alphabet == GS_ALPHA_DNA)
        memset(h->cls, 0, 256);
    else
        memcpy(h->cls, t.cls, 256);
    const int32_t *out_key = (const int32_t *)t.key, *dict = (const int32_t *)t.dict;
    try {
        /* each state's nearest internal suffix state (itself if internal) */
        std::vector<int32_t> rep(t.n, 0), iid(t.n, -1), rid(t.n, -1);
        for (uint32_t s = 1; s < t.n; s++)
            rep[s] = t.inner[s] ? (int32_t)s : rep[t.fail[s]];
        uint32_t n_int = 0;
        for (uint32_t s = 0; s < t.n; s++)
            if (t.inner[s])
                iid[s] = (int32_t)n_int++;
        for (uint32_t s = 0; s < t.n; s++)
            if (out_key[s] >= 0) {
                rid[s] = (int32_t)h->outs.size();
                gs_ac_out o = {(uint32_t)out_key[s], gs_key_len(ks, (uint32_t)out_key[s]), -1, 0};
                h->outs.push_back(o);
            }
        for (uint32_t s = 0; s < t.n; s++)
            if (rid[s] >= 0 && dict[s] >= 0)
                h->outs[rid[s]].next = rid[dict[s]];
        if (h->outs.empty())
            h->outs.push_back(gs_ac_out{0, 0, -1, 0});
        h->n_int = n_int;
        h->delta.assign((size_t)n_int * A, 0);
        h->edge_out.assign((size_t)n_int * A, -1);
        for (uint32_t s = 0; s < t.n; s++) {
            if (!t.inner[s])
                continue;
            size_t row = (size_t)iid[s] * A;
            for (uint32_t c = 0; c < A; c++) {
                uint32_t u = t.go[(size_t)s * A + c];
                int32_t first = out_key[u] >= 0 ? (int32_t)u : dict[u];
                uint32_t e = (uint32_t)iid[rep[u]];
                if (first >= 0) {
                    e |= AC_FLAG32;
                    h->edge_out[row + c] = rid[first];
                }
                h->delta[row + c] = e;
            }
        }
        ac_lay_compact(t, iid, rep, rid, h);
    } catch (const std::bad_alloc &) {
        gs_ac_trie_free(&t);
        return gs_fail(err, GS_ESYS, "out of memory (gpu ac engine automaton)");
    }
    gs_ac_trie_free(&t);
    return GS_OK;
}

static void ac_close(void *p)
{
    ac_state *st = (ac_state *)p;
    if (st == NULL)
        return;
    cudaFree(st->d_delta);
    cudaFree(st->d_edge);
    cudaFree(st->d_outs);
    cudaFree(st->d_cls);
    cudaFree(st->d_cdelta);
    cudaFree(st->d_wdelta);
    cudaFree(st->d_orep);
    cudaFree(st->d_ofirst);
    for (ac_state *p : st->parts)
        ac_close(p);
    delete st;
}

static gs_ac_fn ac_pick(int e16, int dna, int stab)
{
    static const gs_ac_fn fns[2][2][2] = {
        {{gs_ac_kernel<uint32_t, false, false>, gs_ac_kernel<uint32_t, false, true>},
         {gs_ac_kernel<uint32_t, true, false>, gs_ac_kernel<uint32_t, true, true>}},
        {{gs_ac_kernel<uint16_t, false, false>, gs_ac_kernel<uint16_t, false, true>},
         {gs_ac_kernel<uint16_t, true, false>, gs_ac_kernel<uint16_t, true, true>}}};
    return fns[e16][dna][stab];
}

/* Shared memory of the counts-only kernel (0: it does not fit). */
static size_t ac_compact_smem(const ac_host *h, int wide, size_t budget)
{
    if (wide ? !h->wide : !h->narrow)
        return 0;
    size_t tb = ((size_t)h->n_int * h->A * (wide ? 4 : 2) + 15) / 16 * 16;
    size_t ob = wide ? 0 : ((size_t)h->n_out * 2 + 15) / 16 * 16;
    size_t smem = tb + ob + (size_t)h->n_out * 4;
    return smem <= budget ? smem : 0;
}

/* The counts-only kernel, wide entries when they fit in shared memory. */
static gs_status ac_open_compact(const gs_keyset *ks, const gs_gpu_dev *dev, ac_host *h,
                                 size_t budget, ac_state *st, gs_error *err)
{
    const int wide = ac_compact_smem(h, 1, budget) != 0;
    size_t tb = ((size_t)h->n_int * h->A * (wide ? 4 : 2) + 15) / 16 * 16;
    size_t ob = wide ? 0 : ((size_t)h->n_out * 2 + 15) / 16 * 16;
    size_t smem = tb + ob + (size_t)h->n_out * 4;
    int dna = ks->alphabet == GS_ALPHA_DNA;
    h->cdelta.resize(tb / 2, 0);
    h->wdelta.resize(tb / 4, 0);
    h->orep.resize(std::max<size_t>(ob / 2, 8), 0);
    if (gs_gpu_upload((void **)&st->d_cdelta, h->cdelta.data(), wide ? 0 : tb, err) ||
        gs_gpu_upload((void **)&st->d_wdelta, h->wdelta.data(), wide ? tb : 0, err) ||
        gs_gpu_upload((void **)&st->d_orep, h->orep.data(), h->orep.size() * 2, err) ||
        gs_gpu_upload((void **)&st->d_ofirst, h->ofirst.data(), h->ofirst.size() * 4, err) ||
        gs_gpu_upload((void **)&st->d_outs, h->outs.data(), h->outs.size() * sizeof(gs_ac_out),
                      err) ||
        gs_gpu_upload((void **)&st->d_cls, h->cls, 256, err))
        return err->code;
    st->cv.outs = st->d_outs;
    st->cv.cls = st->d_cls;
    st->cv.delta = wide ? (const void *)st->d_wdelta : (const void *)st->d_cdelta;
    st->cv.orep = st->d_orep;
    st->cv.ofirst = st->d_ofirst;
    st->cv.A = h->A;
    st->cv.n_out = h->n_out;
    st->cv.overlap = gs_keyset_overlap(ks);
    st->cv.chunk = std::max<uint32_t>(64, (8 * st->cv.overlap + 31) / 32 * 32); /* the least */
    st->cv.table_bytes = (uint32_t)tb;
    st->cv.orep_bytes = (uint32_t)ob;
    st->smem = smem;
    st->threads = smem <= 56 * 1024 ? 256 : smem <= 112 * 1024 ? 512 : 1024;
    st->cfn = dna ? (wide ? gs_acc_kernel<true, true> : gs_acc_kernel<true, false>)
                  : (wide ? gs_acc_kernel<false, true> : gs_acc_kernel<false, false>);
    if (gs_gpu_fit_grid(st->cfn, st->threads, smem, dev, &st->grid, err) != GS_OK)
        goto fail;
    st->compact = 1;
    return GS_OK;
fail:
    return err->code;
}

/* Counts only: the keys, sorted (shared prefixes stay in one part), cut
 * into the fewest parts (at most MAX_PARTS) whose counts-only automata each
 * fit in budget, one compact state a part in st->parts. *done: 0 when no
 * cut fits (the caller uses the general kernel). least (gpu.ac.parts, 0:
 * 2): the fewest parts to try (tests put part edges in small key sets). */
enum { MAX_PARTS = GS_ACC_MAX_VIEWS };
static_assert((int)MAX_PARTS <= (int)GS_GPU_WORK_COUNTERS, "a work counter a part");
static gs_status ac_open_parts(const gs_keyset *ks, const gs_gpu_dev *dev, uint32_t least,
                               size_t budget, ac_state *st, int *done, gs_error *err)
{
    *done = 0;
    std::vector<uint32_t> ids(ks->n_keys);
    for (uint32_t k = 0; k < ks->n_keys; k++)
        ids[k] = k;
    std::sort(ids.begin(), ids.end(), [ks](uint32_t a, uint32_t b) {
        uint32_t la = gs_key_len(ks, a), lb = gs_key_len(ks, b);
        int c = memcmp(gs_key(ks, a), gs_key(ks, b), std::min(la, lb));
        return c < 0 || (c == 0 && la < lb);
    });
    for (uint32_t P = std::max<uint32_t>(least, 2); P <= MAX_PARTS && P <= ks->n_keys; P++) {
        std::vector<ac_host> hs(P);
        std::vector<gs_keyset> subs(P);
        std::vector<std::vector<uint64_t>> offs(P);
        std::vector<std::vector<uint8_t>> bytes(P);
        bool fit = true;
        for (uint32_t p = 0; p < P && fit; p++) {
            uint32_t lo = (uint32_t)((uint64_t)ks->n_keys * p / P);
            uint32_t hi = (uint32_t)((uint64_t)ks->n_keys * (p + 1) / P);
            gs_keyset &sub = subs[p];
            sub = *ks;
            sub.n_keys = hi - lo;
            sub.min_len = UINT32_MAX;
            sub.max_len = 0;
            offs[p].push_back(0);
            for (uint32_t i = lo; i < hi; i++) {
                uint32_t len = gs_key_len(ks, ids[i]);
                const uint8_t *key = gs_key(ks, ids[i]);
                bytes[p].insert(bytes[p].end(), key, key + len);
                offs[p].push_back(bytes[p].size());
                sub.min_len = std::min(sub.min_len, len);
                sub.max_len = std::max(sub.max_len, len);
            }
            sub.key_off = offs[p].data();
            sub.key_bytes = bytes[p].data();
            sub.span = sub.max_len; /* counts only: exact keys */
            if (ac_build(&sub, &hs[p], err) != GS_OK)
                return err->code;
            for (gs_ac_out &o : hs[p].outs) /* the part's key ids -> the keyset's */
                o.key = ids[lo + o.key];
            fit = ac_compact_smem(&hs[p], 1, budget) || ac_compact_smem(&hs[p], 0, budget);
        }
        if (!fit)
            continue;
        for (uint32_t p = 0; p < P; p++) {
            ac_state *ps = new (std::nothrow) ac_state();
            if (ps == NULL)
                return gs_fail(err, GS_ESYS, "out of memory (gpu ac engine)");
            st->parts.push_back(ps);
            if (ac_open_compact(&subs[p], dev, &hs[p], budget, ps, err) != GS_OK)
                return err->code;
        }
        /* the dynamic shared memory limit is the kernel function's, not the
         * launch's: parts sharing a function get the largest of theirs */
        for (ac_state *a : st->parts) {
            size_t most = 0;
            for (ac_state *b : st->parts)
                if (b->cfn == a->cfn)
                    most = std::max(most, b->smem);
            cudaError_t e = cudaFuncSetAttribute(a->cfn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 (int)most);
            if (e != cudaSuccess)
                return gs_gpu_cuda_fail(err, e, "cudaFuncSetAttribute", __FILE__, __LINE__);
        }
        st->compact = 1;
        *done = 1;
        return GS_OK;
    }
    return GS_OK;
}

/* gpu.ac.compact -1, or gpu.ac.parts set, skips the one compact automaton
 * of all keys (the parts are tried all the same). */
static gs_status ac_open(const gs_keyset *ks, const gs_gpu_dev *dev, const gs_gpu_args *a,
                         size_t text_cap, void **state, gs_error *err)
{
    (void)text_cap;
    const int want_hits = a->want_hits;
    ac_host h;
    ac_state *st = NULL;
    std::vector<uint16_t> d16;
    size_t es, tbytes, cbytes, budget;
    int e16, stab;
    gs_status rc = ac_build(ks, &h, err);
    if (rc != GS_OK)
        return rc;
    st = new (std::nothrow) ac_state();
    if (st == NULL)
        return gs_fail(err, GS_ESYS, "out of memory (gpu ac engine)");
    budget = dev->smem_optin - 256 - 64;
    if (!want_hits && a->tune->gpu_ac_compact >= 0 && a->tune->gpu_ac_parts == 0
        && (ac_compact_smem(&h, 1, budget) || ac_compact_smem(&h, 0, budget))) {
        if (ac_open_compact(ks, dev, &h, budget, st, err) != GS_OK)
            goto fail;
        *state = st;
        return GS_OK;
    }
    if (!want_hits && ks->mode == GS_MATCH_EXACT) {
        int done = 0;
        if (ac_open_parts(ks, dev, (uint32_t)a->tune->gpu_ac_parts, budget, st, &done, err) != GS_OK)
            goto fail;
        if (done) {
            *state = st;
            return GS_OK;
        }
    }
    e16 = h.n_int <= 0x8000u;
    es = e16 ? 2 : 4;
    tbytes = ((size_t)h.n_int * h.A * es + 15) / 16 * 16;
    cbytes = (size_t)ks->n_keys * 4;
    stab = tbytes <= budget;
    st->v.smem_counts = (stab ? tbytes : 0) + cbytes <= budget;
    st->smem = (stab ? tbytes : 0) + (st->v.smem_counts ? cbytes : 0);
    st->threads = st->smem <= 56 * 1024 ? 256 : st->smem <= 112 * 1024 ? 512 : 1024;
    st->fn = ac_pick(e16, ks->alphabet == GS_ALPHA_DNA, stab);

    if (e16) {
        try {
            d16.resize(tbytes / 2, 0);
        } catch (const std::bad_alloc &) {
            gs_fail(err, GS_ESYS, "out of memory (gpu ac engine)");
            goto fail;
        }
        for (size_t i = 0; i < h.delta.size(); i++)
            d16[i] = (uint16_t)((h.delta[i] & 0x7FFFu) | (h.delta[i] & AC_FLAG32 ? 0x8000u : 0));
        if (gs_gpu_upload(&st->d_delta, d16.data(), tbytes, err) != GS_OK)
            goto fail;
    } else {
        h.delta.resize(tbytes / 4, 0);
        if (gs_gpu_upload(&st->d_delta, h.delta.data(), tbytes, err) != GS_OK)
            goto fail;
    }
    if (gs_gpu_upload((void **)&st->d_edge, h.edge_out.data(), h.edge_out.size() * 4, err) ||
        gs_gpu_upload((void **)&st->d_outs, h.outs.data(), h.outs.size() * sizeof(gs_ac_out),
                      err) ||
        gs_gpu_upload((void **)&st->d_cls, h.cls, 256, err))
        goto fail;

    st->v.delta = st->d_delta;
    st->v.edge_out = st->d_edge;
    st->v.outs = st->d_outs;
    st->v.cls = st->d_cls;
    st->v.A = h.A;
    st->v.n_keys = ks->n_keys;
    st->v.overlap = gs_keyset_overlap(ks);
    st->v.chunk = std::max<uint32_t>(512, (8 * st->v.overlap + 31) / 32 * 32);
    st->v.table_bytes = (uint32_t)(stab ? tbytes : 0);
    if (gs_gpu_fit_grid(st->fn, st->threads, st->smem, dev, &st->grid, err) != GS_OK)
        goto fail;
    *state = st;
    return GS_OK;
fail:
    ac_close(st);
    return err->code;
}

/* A counts-only automaton's chunk on segment a, when it has `blocks` blocks
 * of `threads`: a chunk a thread where that covers the segment, never
 * under st->cv.chunk (8 overlaps: a thread warms up over one before its
 * chunk) nor, on long segments, over 512, so that threads that finish early
 * take more. A thread's residues are scanned one after another, so a fixed
 * 512 left a 16 MiB segment on 32 blocks, a quarter of an H100, for as long
 * as 128 would take on all of it. *grid: the blocks that have chunks. */
static uint32_t ac_chunk(const ac_state *st, const gs_gpu_scan *a, unsigned blocks, int threads,
                         unsigned *grid)
{
    const size_t work = std::min<size_t>((size_t)a->own + st->cv.overlap, a->len);
    const size_t each = (gs_gpu_div_up(work, (size_t)blocks * threads) + 31) / 32 * 32;
    const uint32_t chunk = (uint32_t)std::max<size_t>(
        st->cv.chunk, std::min<size_t>(each, std::max<uint32_t>(512, st->cv.chunk)));
    *grid = std::min(blocks, gs_gpu_div_up(gs_gpu_div_up(work, chunk), threads));
    return chunk;
}

/* Counts only: one launch for the counts-only automata (parts, or the one
 * of all keys) sharing a kernel function, a row of blocks each with its own
 * work counter; the counters after the first come zeroed from here (the
 * pipeline zeroes the first). */
static gs_status ac_scan_compact(ac_state *const *ps, size_t n, const gs_gpu_scan *a,
                                 cudaStream_t s, gs_error *err)
{
    if (n > 1)
        GS_CUDA_CHECK(cudaMemsetAsync(a->work + 1, 0, (n - 1) * sizeof *a->work, s));
    {
        std::vector<char> sent(n, 0);
        gs_gpu_scan at = *a;
        for (size_t i = 0; i < n; i++) {
            if (sent[i])
                continue;
            gs_acc_views vs;
            std::vector<ac_state *> row;
            int threads = 0, fill = ps[i]->grid;
            size_t smem = 0;
            for (size_t j = i; j < n; j++)
                if (!sent[j] && ps[j]->cfn == ps[i]->cfn) {
                    sent[j] = 1;
                    row.push_back(ps[j]);
                    threads = std::max(threads, ps[j]->threads);
                    smem = std::max(smem, ps[j]->smem);
                    fill = std::min(fill, ps[j]->grid);
                }
            /* the rows share the blocks that fill the device */
            const unsigned rows = (unsigned)row.size(),
                           blocks = std::max(1u, (unsigned)fill / rows);
            unsigned grid = 0;
            for (unsigned r = 0; r < rows; r++) {
                unsigned g;
                vs.v[r] = row[r]->cv;
                vs.v[r].chunk = ac_chunk(row[r], a, blocks, threads, &g);
                grid = std::max(grid, g);
            }
            ps[i]->cfn<<<dim3(grid, rows), threads, smem, s>>>(vs, at);
            GS_CUDA_LAUNCH_CHECK();
            at.work += rows;
        }
    }
    return GS_OK;
fail:
    return err->code;
}

static gs_status ac_scan(void *state, const gs_gpu_scan *a, cudaStream_t s, gs_error *err)
{
    ac_state *st = (ac_state *)state;
    if (a->own == 0)
        return GS_OK;
    if (!st->parts.empty())
        return ac_scan_compact(st->parts.data(), st->parts.size(), a, s, err);
    if (st->compact && a->hits == NULL)
        return ac_scan_compact(&st, 1, a, s, err);
    /* the general kernel splits start positions */
    unsigned grid = (unsigned)std::min<size_t>(
        st->grid, gs_gpu_div_up((a->own + st->v.chunk - 1) / st->v.chunk, st->threads));
    st->fn<<<grid, st->threads, st->smem, s>>>(st->v, *a);
    GS_CUDA_LAUNCH_CHECK();
    return GS_OK;
fail:
    return err->code;
}

const gs_gpu_engine gs_gpu_engine_ac = {"ac", ac_open, ac_scan, ac_close};
