/* noflock.c - flock() as a cluster file system mounted without locks gives
 * it (NFS without lockd, Lustre or GPFS set up without flock): loaded with
 * LD_PRELOAD by tests/faults/cluster.sh, every call fails with ENOLCK. */
#include <errno.h>
#include <sys/file.h>

int flock(int fd, int op)
{
    (void)fd;
    (void)op;
    errno = ENOLCK;
    return -1;
}
