#!/usr/bin/env bash
# filter-check.sh - the GPU seed filter of engine bv in one device call:
#  1. the gpu_approx cases that exercise it (tests/gpu/approx.sh, its
#     "filter-*" workloads: primers of 18..30 with and without N, K = 0..4,
#     both modes and strands, --best-per-site, blocks of 37 / 1000 / 16M,
#     224 GPU runs;
#     the GPU with the filter and with --tune match.seed.filter=-1 against
#     the CPU;
#     ONLY overrides the regex, e.g. "filter|short|genome" for the workloads
#     where keys take the filter too);
#  2. the primer screen of bench/gpu/approx.sh (table b), GPU only: the
#     filter against --tune match.seed.filter=-1 (the full scan), median of 3 whole
#     processes each, and that both wrote the same hits.
#
#   bench/gpu/filter-check.sh BUILD_DIR FASTA [CACHE]
#
# BUILD_DIR: a CUDA build (gscan); FASTA: the ~1 GiB of real DNA of the
# primer screen; CACHE: data/cache (the E. coli case). About 5-7 minutes.
# Exits non-zero when a case failed or the hits differ.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR FASTA [CACHE]" >&2; exit 1; }
root=$(cd "$(dirname "$0")/../.." && pwd)
status=0
GS_APPROX_ONLY=${ONLY:-filter} \
  bash "$root/tests/gpu/approx.sh" "$1/gscan" "${3:-$root/data/cache}" | grep -v '^PASS' || status=1
LOG2N="" CPU_RUNS=0 bash "$root/bench/gpu/approx.sh" "$1" "$2" "${WORK:-/tmp/gs_filter}" || status=1
exit $status
