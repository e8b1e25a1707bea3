#!/usr/bin/env bash
# mpi_init.sh - where MPI_Init's time goes on the GPU machine (.devdeps):
# MPI_Init and MPI_Finalize alone, singleton, with the parts MPICH loads at
# init (hwloc topology, UCX modules) narrowed one at a time.
source .devdeps/env.sh
mpicc bench/startup/mpi_init.c -o /tmp/mi || exit 1
for v in "" "HWLOC_COMPONENTS=-linuxio,-pci,-opencl,-cuda,-nvml,-rsmi,-levelzero,-gl" \
         "HWLOC_COMPONENTS=-cuda,-nvml" "HWLOC_COMPONENTS=-opencl" "HWLOC_COMPONENTS=-pci" \
         "HWLOC_COMPONENTS=-linuxio" "HWLOC_COMPONENTS=-gl,-rsmi,-levelzero" \
         "UCX_MODULES=^cuda,gdrcopy,ib,rdmacm,cma" "MPIR_CVAR_NOLOCAL=1"; do
  echo "== $v"; for i in 1 2 3; do env $v /tmp/mi 2>&1 | grep init; done
done
ls /opt/dep/usr/lib/x86_64-linux-gnu/hwloc/ 2>/dev/null
