#!/usr/bin/env bash
# device.sh - build, test and benchmark the CUDA engines on the GPU machine.
#
# Run from the project root on the GPU machine with .devdeps/ (MPICH and
# parallel HDF5, see ../shared/device/README.md) and .devdata/ (git-ignored:
# genomes.seq.xz, the hs37chrXtrunc + genome_1 sequences with headers and
# newlines dropped, and lambda_virus.fa.gz) carried along:
#
#   scripts/device.sh [all|test|bench]     (default all)
#
# Steps: configure and build (Release, CMAKE_CUDA_ARCHITECTURES=90 from
# env.sh), ctest -L gpu, then bench/gpu/bench_gpu over 2^30-residue texts.
# Logs and the benchmark table go to $OUT (default out/device/).
# GS_DEVICE_SANITIZE=1 also runs test_gpu (quick mode) under compute-sanitizer.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
what=${1:-all}
out=${OUT:-$root/out/device}
mkdir -p "$out"
log() { printf '== %s\n' "$*" | tee -a "$out/device.log"; }

source .devdeps/env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
  --format=csv | tee "$out/gpu.txt"

log "configure and build"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release $GS_DEVICE_CMAKE_ARGS >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
# -k: a half-finished target of another stage must not stop the GPU ones
cmake --build build-gpu -j16 -- -k >>"$out/build.log" 2>&1 || log "some targets failed (see build.log)"
for t in tests/test_gpu tests/bench_gpu; do
  [ -x "build-gpu/$t" ] || { grep -E "error|Error" "$out/build.log" | head -40; log "missing $t"; exit 1; }
done

status=0
if [ "$what" = all ] || [ "$what" = test ]; then
  mkdir -p data/cache
  [ -e data/cache/lambda_virus.fa.gz ] || cp .devdata/lambda_virus.fa.gz data/cache/ 2>/dev/null
  log "ctest -L gpu"
  (cd build-gpu && ctest -L gpu --output-on-failure 2>&1) | tee "$out/ctest.log"
  grep -q "100% tests passed" "$out/ctest.log" || status=1
  if [ "${GS_DEVICE_SANITIZE:-0}" = 1 ]; then
    log "compute-sanitizer test_gpu (quick)"
    (cd build-gpu/tests && GS_TEST_QUICK=1 GS_TEST_DATA="$root/tests/data" \
      compute-sanitizer --tool memcheck --error-exitcode 9 ./test_gpu 2>&1 | tail -30) |
      tee "$out/sanitizer.log"
  fi
fi

if [ "$what" = all ] || [ "$what" = bench ]; then
  log "benchmark"
  seq=/tmp/gs_genomes.seq
  if [ ! -s "$seq" ]; then
    xz -dc .devdata/genomes.seq.xz >"$seq" 2>/dev/null ||
      python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' \
        .devdata/genomes.seq.xz "$seq"
  fi
  build-gpu/tests/bench_gpu --genome "$seq" --out "$out/bench.md" 2>&1 | tee "$out/bench.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  if [ "${GS_DEVICE_PROFILE:-0}" = 1 ]; then
    # one Nsight Compute report per kernel of interest, as text (clocks left alone)
    for w in "ac genome 1000 gs_acc_kernel" \
             "rk binary 256 gs_rk_kernel"; do
      set -- $w
      log "ncu $1 $2 $3"
      ncu --clock-control none --set full -k "regex:$4" -c 1 --print-summary none \
        build-gpu/tests/bench_gpu --genome "$seq" --one "$1" "$2" "$3" >>"$out/ncu.txt" 2>&1
    done
  fi
fi
log "done (status $status)"
exit $status
