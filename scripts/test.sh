#!/usr/bin/env bash
# test.sh - build gscan twice (Release, and Debug with ASan+UBSan) and test it.
#
#   scripts/test.sh          the README's test command (under 15 minutes on a
#                            2-core machine): the whole suite on the Release
#                            build, with the suites that have a quick form
#                            (GS_TEST_QUICK=1: fewer rank counts, workloads and
#                            rounds) in it, and the unit tests under the
#                            sanitizers
#   scripts/test.sh long     what CI adds after it: those suites in full, and
#                            the sanitizer build under the shell suites too
#
# GPU tests skip (exit 77) where no GPU is visible; CUDA code is still
# compiled whenever nvcc is found.
set -euo pipefail
mode=${1:-quick}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh all
scripts/fetch-examples.sh
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGS_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
# the suites with a quick form (the full ones run in the long mode)
heavy='^(mpi_ranks|cli_engines|lz_compare|test_engines|test_approx|test_inflate_parallel|test_fai_parallel|mpi_failures)$'
if [ "$mode" = quick ]; then
  (cd build && GS_TEST_QUICK=1 ctest --output-on-failure -j"$jobs")
  # the unit tests and the error tables, where the sanitizers see most of
  # gscan's own code; test_approx (three minutes here) waits for the long mode
  (cd build-asan && GS_TEST_QUICK=1 ctest --output-on-failure -j"$jobs" \
    -R '^(test_.*|cli_errors|cli_output)$' -E '^test_approx$')
elif [ "$mode" = long ]; then
  (cd build && ctest --output-on-failure -j"$jobs" -R "$heavy")
  # the Slurm scripts, the workflow and the fault runs (ulimit -v, LD_PRELOAD)
  # are shell, checked once above; so are the three longest shell suites
  (cd build-asan && GS_TEST_QUICK=1 ctest --output-on-failure -j"$jobs" -LE 'slurm|faults|workflow' \
    -E '^(mpi_ranks|lz_compare|input_unindexed|test_.*|cli_errors|cli_output)$')
  (cd build-asan && GS_TEST_QUICK=1 ctest --output-on-failure -j"$jobs" -R '^test_approx$')
else
  echo "usage: scripts/test.sh [long]" >&2
  exit 1
fi
