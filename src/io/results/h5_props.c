/* h5_props.c - the file-access properties of gscan's HDF5 files, in one
 * place used by every H5Fcreate and H5Fopen of src/io/results.
 *
 * Why each property:
 * - File locking off. HDF5 1.10 flock()s a file it opens; on Lustre or GPFS
 *   mounted without flock, or NFS without a lock daemon, that fails ("unable
 *   to lock file") or hangs. gscan needs no locks: the writer creates a
 *   temporary name no one else opens and renames it when it is complete
 *   (h5out.c), and readers only read a finished file. Where the HDF5 build
 *   lacks the property (before 1.10.7), the HDF5_USE_FILE_LOCKING=FALSE
 *   environment variable does the same (docs/slurm.md).
 * - The MPI-IO driver with romio_cb_write=enable: collective buffering for
 *   every write makes ROMIO share an I/O error with all ranks (its
 *   independent fallback for non-interleaved writes does not), so HDF5 fails
 *   on every rank at the same call. The user's hints (--mpi-hint) follow, so
 *   they can override it, and ROMIO_HINTS still applies beneath both.
 * - Collective metadata reads and writes: every rank makes the same HDF5
 *   calls in the same order (h5_write_dset.c), so metadata can be read by
 *   one rank and broadcast, and written by aggregators in few large writes,
 *   instead of every rank reading the same small blocks (a storm of small
 *   requests on a metadata server at hundreds of ranks).
 * - Alignment: a dataset or chunk of at least io.h5.align bytes starts on a
 *   multiple of it, the stripe size, so no large write straddles two stripes
 *   (two servers, two locks). Smaller objects stay packed.
 * - The 1.8 file format: superblock 2 and object header 2 carry checksums,
 *   which readers (HDF5's and ours, h5_open.c) check before they parse any
 *   message, so a damaged file is an error, never a parse of bad bytes; HDF5
 *   1.8 and later read it.
 */
#define _POSIX_C_SOURCE 200809L
#include "h5_props.h"

#include <string.h>

uint64_t gs_h5_align(const gs_tune *tune)
{
    uint64_t a = tune ? tune->io_h5_align : 0;
    return a == 0 ? GS_H5_ALIGN_DEFAULT : a;
}

/* File locking off where this HDF5 has the property; 0, or < 0. */
static herr_t locking_off(hid_t fapl)
{
#ifdef GS_HAVE_H5_FILE_LOCKING
    return H5Pset_file_locking(fapl, 0, 1);
#else
    (void)fapl;
    return 0;
#endif
}

hid_t gs_h5_fapl_read(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && locking_off(fapl) < 0) {
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

/* *info: gscan's hints, then the user's. 1, or 0 when MPI refused one. */
static int make_info(gs_h5_mpi_hints hints, MPI_Info *out)
{
    MPI_Info info = MPI_INFO_NULL;
    if (MPI_Info_create(&info) != MPI_SUCCESS)
        return 0;
    int ok = MPI_Info_set(info, "romio_cb_write", "enable") == MPI_SUCCESS;
    for (size_t i = 0; ok && i < hints.n; i++) {
        /* "KEY=VALUE", checked by the option parser; the key is cut at '=' */
        char key[MPI_MAX_INFO_KEY + 1];
        const char *eq = strchr(hints.v[i], '=');
        size_t len = eq ? (size_t)(eq - hints.v[i]) : 0;
        if (len == 0 || len >= sizeof key)
            continue;
        memcpy(key, hints.v[i], len);
        key[len] = '\0';
        ok = MPI_Info_set(info, key, eq + 1) == MPI_SUCCESS;
    }
    if (!ok)
        MPI_Info_free(&info);
    *out = info;
    return ok;
}

hid_t gs_h5_fapl_write(MPI_Comm comm, const gs_tune *tune, gs_h5_mpi_hints hints)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return -1;
    MPI_Info info = MPI_INFO_NULL;
    uint64_t align = gs_h5_align(tune);
    /* H5Pset_fapl_mpio keeps its own copy of info */
    herr_t e = make_info(hints, &info) ? H5Pset_fapl_mpio(fapl, comm, info) : -1;
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (e < 0 || H5Pset_all_coll_metadata_ops(fapl, 1) < 0
        || H5Pset_coll_metadata_write(fapl, 1) < 0
        || H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0
        || (align > 1 && H5Pset_alignment(fapl, (hsize_t)align, (hsize_t)align) < 0)
        || locking_off(fapl) < 0) {
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}
