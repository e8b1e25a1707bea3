/* h5_amplicons.c - the /amplicons group of a gscan pcr result file,
 * written by rank 0 with the collective steps of h5_write_dset.c (see
 * h5_write.h).
 *
 *   /amplicons               attribute kinds = "forward,revcomp,single_A,single_B"
 *   /amplicons/pair          uint32 [N]  sorted by (record, start, end, pair, kind)
 *   /amplicons/record        uint32 [N]
 *   /amplicons/start, end    uint64 [N]
 *   /amplicons/kind          uint8  [N]  index into the kinds attribute
 *   /amplicons/mismatches_5  uint8  [N]  of the forward-strand site
 *   /amplicons/mismatches_3  uint8  [N]  of the reverse-strand site
 *   /amplicons/pair_name     string [P]
 *   /amplicons/pair_a, pair_b  uint32 [P]  primers: ids into /patterns
 *   /amplicons/pair_min, pair_max  uint64 [P]  product window
 *
 * Products are made on rank 0 (src/mpi/pcr.c) and are few next to hits, so
 * the plain chunked path of rank 0's columns is enough, as for /tally.
 */
#include "h5_write.h"

#include <stddef.h>
#include <string.h>

#include "core/gs_result.h"

void gs_h5w_amp_prepare(const gs_result *res, gs_h5w_amp_meta *am)
{
    memset(am, 0, sizeof *am);
    if (res->n_pairs == 0)
        return;
    am->on = 1;
    am->n_pairs = res->n_pairs;
    am->n_rows = res->n_amplicons;
    am->w_name = 1;
    for (uint64_t i = 0; i < res->n_pairs; i++)
        if (strlen(res->pair_names[i]) > am->w_name)
            am->w_name = strlen(res->pair_names[i]);
}

static void fill_name(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    char *const *names = src;
    for (size_t i = 0; i < n; i++) {
        const char *s = names[from + i];
        size_t l = strlen(s);
        memset((char *)buf + i * width, 0, width);
        memcpy((char *)buf + i * width, s, l < width ? l : width);
    }
}

/* A column of an array of structs: rows of stride bytes, the field at offset. */
typedef struct col_src {
    const void *v;
    size_t stride, offset;
} col_src;

static void fill_col(const void *src, size_t width, uint64_t from, size_t n, void *buf)
{
    const col_src *c = src;
    for (size_t i = 0; i < n; i++)
        memcpy((char *)buf + i * width, (const char *)c->v + (from + i) * c->stride + c->offset,
               width);
}

static const struct amp_col {
    const char *name;
    int of_pairs; /* a column of the pairs, else of the products */
    size_t offset, bytes;
} amp_cols[] = {
    {"/amplicons/pair", 0, offsetof(gs_amplicon, pair), 4},
    {"/amplicons/record", 0, offsetof(gs_amplicon, record), 4},
    {"/amplicons/start", 0, offsetof(gs_amplicon, start), 8},
    {"/amplicons/end", 0, offsetof(gs_amplicon, end), 8},
    {"/amplicons/kind", 0, offsetof(gs_amplicon, kind), 1},
    {"/amplicons/mismatches_5", 0, offsetof(gs_amplicon, mismatches_5), 1},
    {"/amplicons/mismatches_3", 0, offsetof(gs_amplicon, mismatches_3), 1},
    {"/amplicons/pair_a", 1, offsetof(gs_pcr_pair, a), 4},
    {"/amplicons/pair_b", 1, offsetof(gs_pcr_pair, b), 4},
    {"/amplicons/pair_min", 1, offsetof(gs_pcr_pair, min), 8},
    {"/amplicons/pair_max", 1, offsetof(gs_pcr_pair, max), 8},
};

gs_status gs_h5w_amplicons(wctx *w, const gs_result *res, const gs_h5w_amp_meta *am)
{
    if (!am->on)
        return GS_OK;
    gs_h5w_group(w, "/amplicons");
    if (w->e.code == GS_OK)
        gs_h5w_attr_str_on(w, "/amplicons", "kinds", "forward,revcomp,single_A,single_B");
    if (gs_h5w_agree(w) != GS_OK)
        return w->e.code;
    dspec names = {.name = "/amplicons/pair_name", .n = am->n_pairs, .row_bytes = am->w_name,
                   .fill = fill_name, .src = res->pair_names};
    if (gs_h5w_strings(w, &names, 1) != GS_OK)
        return w->e.code;
    for (size_t c = 0; c < sizeof amp_cols / sizeof *amp_cols; c++) {
        const struct amp_col *k = &amp_cols[c];
        col_src src = {k->of_pairs ? (const void *)res->pairs : (const void *)res->amplicons,
                       k->of_pairs ? sizeof(gs_pcr_pair) : sizeof(gs_amplicon), k->offset};
        hid_t ft = k->bytes == 8 ? H5T_STD_U64LE : k->bytes == 4 ? H5T_STD_U32LE : H5T_STD_U8LE;
        hid_t mt = k->bytes == 8   ? H5T_NATIVE_UINT64
                   : k->bytes == 4 ? H5T_NATIVE_UINT32
                                   : H5T_NATIVE_UINT8;
        dspec d = {.name = k->name, .ftype = ft, .mtype = mt, .row_bytes = k->bytes,
                   .n = k->of_pairs ? am->n_pairs : am->n_rows, .fill = fill_col, .src = &src};
        if (gs_h5w_numbers(w, &d) != GS_OK)
            return w->e.code;
    }
    return GS_OK;
}
