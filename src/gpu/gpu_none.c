/* gpu_none.c - the GPU interface of a build without CUDA: no device, ever. */
#include "gpu.h"

int gs_gpu_device_count(void) { return 0; }

void gs_gpu_warm(int device) { (void)device; }

int gs_gpu_bus_id(int device, char *id, size_t cap)
{
    (void)device; (void)id; (void)cap;
    return -1;
}

gs_status gs_gpu_open(const gs_gpu_args *a, const gs_keyset *ks, gs_gpu **g, gs_error *err)
{
    (void)a; (void)ks;
    *g = NULL;
    return gs_fail(err, GS_ESYS, "no GPU available (this gscan was built without CUDA)");
}

gs_status gs_gpu_submit(gs_gpu *g, const gs_segment *seg, gs_error *err)
{
    (void)g; (void)seg;
    return gs_fail(err, GS_ESYS, "no GPU available (this gscan was built without CUDA)");
}

gs_status gs_gpu_submit_run(gs_gpu *g, const gs_segment *seg, size_t n, unsigned *ticket,
                            gs_error *err)
{
    (void)n; (void)ticket;
    return gs_gpu_submit(g, seg, err);
}

int gs_gpu_pin(void *p, size_t bytes) { (void)p; (void)bytes; return 0; }

void gs_gpu_unpin(void *p) { (void)p; }

gs_status gs_gpu_submit_raw(gs_gpu *g, const gs_segment *seg, const gs_raw_text *raw, size_t n,
                            unsigned *ticket, gs_error *err)
{
    (void)g; (void)seg; (void)raw; (void)n; (void)ticket;
    return gs_fail(err, GS_ESYS, "no GPU available (this gscan was built without CUDA)");
}

gs_status gs_gpu_submit_laid(gs_gpu *g, const uint8_t *buf, const gs_laid *v, int v_pinned,
                             gs_run_seg **hit, size_t *hit_cap, size_t n, unsigned *ticket,
                             gs_error *err)
{
    (void)g; (void)buf; (void)v; (void)v_pinned; (void)hit; (void)hit_cap; (void)n; (void)ticket;
    return gs_fail(err, GS_ESYS, "no GPU available (this gscan was built without CUDA)");
}

gs_status gs_gpu_wait(gs_gpu *g, unsigned ticket, gs_error *err)
{
    (void)g; (void)ticket;
    return gs_fail(err, GS_ESYS, "no GPU available (this gscan was built without CUDA)");
}

gs_status gs_gpu_finish(gs_gpu *g, uint64_t *key_counts, gs_hit_runs *runs, gs_gpu_times *t,
                        gs_error *err)
{
    (void)g; (void)key_counts; (void)runs; (void)t;
    return gs_fail(err, GS_ESYS, "no GPU available (this gscan was built without CUDA)");
}

gs_status gs_gpu_take_runs(gs_gpu *g, gs_hit_runs *runs, gs_error *err)
{
    (void)g; (void)runs;
    return gs_fail(err, GS_ESYS, "no GPU available (this gscan was built without CUDA)");
}

gs_status gs_gpu_take_tally(gs_gpu *g, gs_tally *t, gs_error *err)
{
    (void)g; (void)t;
    return gs_fail(err, GS_ESYS, "no GPU available (this gscan was built without CUDA)");
}

void gs_gpu_set_copy_threads(gs_gpu *g, int threads) { (void)g; (void)threads; }

void gs_gpu_set_seqcap(gs_gpu *g, gs_seqcap *cap) { (void)g; (void)cap; }

void gs_gpu_close(gs_gpu *g) { (void)g; }
