/* h5_aligned.c - h5_aligned FILE ALIGN [some]: every dataset's storage in
 * FILE (its contiguous block, or each chunk) of at least ALIGN bytes starts
 * at a multiple of ALIGN; with "some", at least one is that large. Exit 0
 * when so, 1 naming the first one that is not (tests/faults/cluster.sh). */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct walk {
    hsize_t align;
    unsigned long big, bad;
} walk;

static void check(walk *w, const char *name, haddr_t addr, hsize_t size)
{
    if (addr == HADDR_UNDEF || size < w->align)
        return;
    w->big++;
    if (addr % w->align) {
        w->bad++;
        printf("%s: %llu bytes at %llu, not a multiple of %llu\n", name, (unsigned long long)size,
               (unsigned long long)addr, (unsigned long long)w->align);
    }
}

static herr_t visit(hid_t root, const char *name, const H5O_info_t *info, void *arg)
{
    walk *w = arg;
    if (info->type != H5O_TYPE_DATASET)
        return 0;
    hid_t d = H5Dopen2(root, name, H5P_DEFAULT), dcpl = d >= 0 ? H5Dget_create_plist(d) : -1;
    if (dcpl < 0)
        return -1;
    if (H5Pget_layout(dcpl) != H5D_CHUNKED) {
        check(w, name, H5Dget_offset(d), H5Dget_storage_size(d));
    } else {
        hid_t space = H5Dget_space(d);
        hsize_t n = 0;
        H5Dget_num_chunks(d, space, &n);
        for (hsize_t i = 0; i < n; i++) {
            hsize_t off[2];
            unsigned mask;
            haddr_t addr;
            hsize_t size;
            if (H5Dget_chunk_info(d, space, i, off, &mask, &addr, &size) >= 0)
                check(w, name, addr, size);
        }
        H5Sclose(space);
    }
    H5Pclose(dcpl);
    H5Dclose(d);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    walk w = {strtoull(argv[2], NULL, 10), 0, 0};
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0 || w.align == 0 || H5Ovisit(f, H5_INDEX_NAME, H5_ITER_INC, visit, &w) < 0)
        return 2;
    H5Fclose(f);
    if (argc > 3 && !strcmp(argv[3], "some") && w.big == 0) {
        printf("no dataset storage of %llu bytes or more\n", (unsigned long long)w.align);
        return 1;
    }
    return w.bad ? 1 : 0;
}
