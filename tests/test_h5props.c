/* test_h5props.c - the file-access properties of gscan's HDF5 files
 * (src/io/results/h5_props.c): file locking off for reading and writing;
 * for writing, collective metadata, alignment (1 MiB, or io.h5.align) and
 * the --mpi-hint hints, which must reach ROMIO (MPI_File_get_info on the
 * file HDF5 opened reports them back). */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/results/h5_props.h"
#include "testlib.h"

static void check_locking_off(hid_t fapl)
{
#ifdef GS_HAVE_H5_FILE_LOCKING
    hbool_t use = 1, ignore = 0;
    CHECK(H5Pget_file_locking(fapl, &use, &ignore) >= 0);
    CHECK(use == 0);
#else
    (void)fapl; /* this HDF5 cannot say: HDF5_USE_FILE_LOCKING=FALSE does it */
#endif
}

static void check_align(const gs_tune *t, hsize_t want)
{
    hid_t fapl = gs_h5_fapl_write(MPI_COMM_WORLD, t, (gs_h5_mpi_hints){NULL, 0});
    hsize_t threshold = 0, align = 0;
    CHECK(fapl >= 0);
    CHECK(H5Pget_alignment(fapl, &threshold, &align) >= 0);
    CHECK_EQ_U64(align, want);
    CHECK_EQ_U64(threshold, want);
    H5Pclose(fapl);
}

/* The value of key in info, or "" when absent. */
static const char *info_get(MPI_Info info, const char *key, char *buf, int size)
{
    int flag = 0;
    buf[0] = '\0';
    if (info != MPI_INFO_NULL)
        MPI_Info_get(info, key, size - 1, buf, &flag);
    return flag ? buf : "";
}

/* The hints reach the fapl, and ROMIO reports them back on the file HDF5
 * opened with it. */
static void test_hints(void)
{
    char *v[] = {"cb_buffer_size=4194304", "romio_no_indep_rw=false"};
    hid_t fapl = gs_h5_fapl_write(MPI_COMM_WORLD, NULL, (gs_h5_mpi_hints){v, 2});
    CHECK(fapl >= 0);
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Info info = MPI_INFO_NULL;
    char buf[MPI_MAX_INFO_VAL + 1];
    CHECK(H5Pget_fapl_mpio(fapl, &comm, &info) >= 0);
    CHECK(!strcmp(info_get(info, "romio_cb_write", buf, sizeof buf), "enable"));
    CHECK(!strcmp(info_get(info, "cb_buffer_size", buf, sizeof buf), "4194304"));
    CHECK(!strcmp(info_get(info, "romio_no_indep_rw", buf, sizeof buf), "false"));
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    hbool_t coll = 0;
    CHECK(H5Pget_all_coll_metadata_ops(fapl, &coll) >= 0 && coll);
    coll = 0;
    CHECK(H5Pget_coll_metadata_write(fapl, &coll) >= 0 && coll);
    check_locking_off(fapl);

    char path[] = "h5props.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    hid_t fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(fid >= 0);
    MPI_File *fh = NULL;
    if (fid >= 0 && H5Fget_vfd_handle(fid, H5P_DEFAULT, (void **)&fh) >= 0 && fh) {
        MPI_Info used = MPI_INFO_NULL;
        CHECK(MPI_File_get_info(*fh, &used) == MPI_SUCCESS);
        CHECK(!strcmp(info_get(used, "cb_buffer_size", buf, sizeof buf), "4194304"));
        CHECK(!strcmp(info_get(used, "romio_cb_write", buf, sizeof buf), "enable"));
        if (used != MPI_INFO_NULL)
            MPI_Info_free(&used);
    } else {
        CHECK(!"no MPI_File handle");
    }
    if (fid >= 0)
        H5Fclose(fid);
    unlink(path);
    H5Pclose(fapl);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    hid_t r = gs_h5_fapl_read();
    CHECK(r >= 0);
    check_locking_off(r);
    H5Pclose(r);

    gs_tune t = {0};
    check_align(NULL, 1 << 20); /* the default */
    check_align(&t, 1 << 20);
    t.io_h5_align = 64 << 10;
    check_align(&t, 64 << 10);
    t.io_h5_align = 1; /* off: HDF5's own default */
    check_align(&t, 1);
    test_hints();
    MPI_Finalize();
    return gs_test_done("test_h5props");
}
