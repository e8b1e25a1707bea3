#!/usr/bin/env bash
# test.sh - build gscan twice (Release, and Debug with ASan+UBSan) and run the
# whole test suite in both. GPU tests skip (exit 77) where no GPU is visible;
# CUDA code is still compiled whenever nvcc is found.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh all
scripts/fetch-examples.sh
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGS_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
# the Slurm scripts, the fault runs (ulimit -v, LD_PRELOAD) and the example
# workflow are shell,
# checked once above; so are the three longest shell suites (rank counts, the
# LZ index against plain scans, unindexed inputs), whose code the unit tests
# run under the sanitizers: the whole command stays under 15 minutes
(cd build-asan && GS_TEST_QUICK=1 ctest --output-on-failure -j"$jobs" -LE 'slurm|faults|workflow' \
  -E '^(mpi_ranks|lz_compare|input_unindexed)$')
