#!/usr/bin/env bash
# device.sh - build, test, run end to end and benchmark gscan on the GPU machine.
#
# Run from the project root on the GPU machine with .devdeps/ (MPICH,
# parallel HDF5 and libdivsufsort as Debian packages, with env.sh) and .devdata/ (git-ignored:
# genomes.seq.xz, the hs37chrXtrunc + genome_1 sequences with headers and
# newlines dropped; lambda_virus.fa.gz, ecoli_mg1655.fa.gz and
# vcholerae_o395.fa.gz copied from data/cache/) carried along:
#
#   scripts/device.sh [test] [e2e] [bench]     (default: all three)
#
# Steps: configure and build (Release, CMAKE_CUDA_ARCHITECTURES=90 from
# env.sh), then
#   test: ctest -L gpu (every GPU engine against the CPU brute-force engine);
#   e2e:  the real binary, build-gpu/gscan: --verify with ac, wm and rk on the
#         three genomes and on a gscan gen workload; mpiexec -n 2 (two ranks
#         sharing the GPU) -d gpu against -d cpu, compared with h5diff;
#         tests/mpi/ranks.sh (quick) and failures.sh, where -d auto is the
#         GPU; and a whole-command timing table (-d gpu against -d cpu -t 16, ~1 GiB
#         plain FASTA as one record and as 2,000-residue records), printed last;
#   bench: bench/gpu/bench_gpu over 2^30-residue texts (kernels alone).
# Logs and tables go to $OUT (default out/device/): at most 8 files.
# GS_DEVICE_SANITIZE=1 also runs test_gpu (quick mode) under compute-sanitizer.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
steps=" ${*:-test e2e bench} "
want() { [[ "$steps" == *" $1 "* || "$steps" == *" all "* ]]; }
out=${OUT:-$root/out/device}
mkdir -p "$out"
log() { printf '== %s\n' "$*" | tee -a "$out/device.log"; }

# GS_DEVICE_LOCAL=1: a dry run of the script's own logic on a machine without
# the device setup (no env.sh, no build; GS_GSCAN names the binary).
if [ "${GS_DEVICE_LOCAL:-0}" != 1 ]; then
  source .devdeps/env.sh
  # packages added to .devdeps after env.sh first unpacked it (libdivsufsort)
  for f in .devdeps/libdivsufsort*.deb; do
    [ -f /opt/dep/usr/lib/x86_64-linux-gnu/pkgconfig/libdivsufsort.pc ] || dpkg -x "$f" /opt/dep
  done
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv | tee "$out/gpu.txt"

  log "configure and build"
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release $GS_DEVICE_CMAKE_ARGS >"$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log"; exit 1; }
  # -k: a half-finished target of another stage must not stop the GPU ones
  cmake --build build-gpu -j16 -- -k >>"$out/build.log" 2>&1 || log "some targets failed (see build.log)"
  for t in gscan tests/test_gpu tests/bench_gpu; do
    [ -x "build-gpu/$t" ] || { grep -E "error|Error" "$out/build.log" | head -40; log "missing $t"; exit 1; }
  done
fi

status=0
seq=/tmp/gs_genomes.seq
genome_seq() {
  [ -s "$seq" ] && return
  xz -dc .devdata/genomes.seq.xz >"$seq" 2>/dev/null ||
    python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' \
      .devdata/genomes.seq.xz "$seq"
}
# ---- end to end ------------------------------------------------------------
# Each check appends "PASS|FAIL <what> (<seconds>)" to e2e.log; the timing
# table goes to e2e.md. Work files live in /tmp/gs_e2e (the machine's disk).
G=${GS_GSCAN:-build-gpu/gscan}
w=/tmp/gs_e2e
elog() { printf '%s\n' "$*" | tee -a "$out/e2e.log"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# first value of a /timing dataset (one rank)
phase() {
  h5dump -y -d "/timing/$2" "$1" 2>/dev/null | awk '/DATA \{/ { getline; sub(",", "", $1); print $1; exit }'
}
same_h5() { # a.h5 b.h5: /counts and /hits (when present) equal, by h5diff
  h5diff -q "$1" "$2" /counts /counts || return 1
  if h5ls "$1/hits" >/dev/null 2>&1 || h5ls "$2/hits" >/dev/null 2>&1; then
    h5diff -q "$1" "$2" /hits /hits || return 1
  fi
}

# --verify with engine $2 on corpus "$4..." with patterns $3; $1 names the
# input. A run without the "agree" line is also compared with the CPU
# reference file $w/ref_$1.h5, so a failure says whether the GPU result or
# the comparison is at fault.
verify_run() {
  local name=$1 e=$2 pat=$3 t0 rc
  shift 3
  t0=$(now)
  timeout 300 "$G" scan -q -d gpu --verify -e "$e" --report hits -p "$pat" -o "$w/v.h5" "$@" \
    2>"$w/err"
  rc=$?
  if [ $rc = 0 ] && grep -q "agree on every count and hit" "$w/err"; then
    elog "PASS verify $name -e $e ($(since "$t0") s): $(grep -o 'verify:.*' "$w/err")"
    return 0
  fi
  elog "FAIL verify $name -e $e (exit $rc, $(since "$t0") s): $(tail -2 "$w/err" | tr '\n' ' ')"
  timeout 300 "$G" scan -q -d gpu -e "$e" --report hits -p "$pat" -o "$w/nv.h5" "$@" 2>>"$w/err" &&
    same_h5 "$w/nv.h5" "$w/ref_$name.h5" &&
    elog "     ... but -d gpu -e $e without --verify equals -d cpu -e ac by h5diff" ||
    elog "     ... and -d gpu -e $e without --verify differs from -d cpu -e ac (h5diff)"
  return 1
}

# mpiexec -n 2, -d gpu against -d cpu (ranks share the one GPU)
mpi_run() {
  local name=$1 e=$2 pat=$3 t0
  shift 3
  t0=$(now)
  if timeout 300 mpiexec -n 2 "$G" scan -q -d gpu -e "$e" --report hits -p "$pat" \
       -o "$w/m_gpu.h5" "$@" 2>"$w/err" &&
     timeout 300 mpiexec -n 2 "$G" scan -q -d cpu -t 8 -e "$e" --report hits -p "$pat" \
       -o "$w/m_cpu.h5" "$@" 2>>"$w/err" &&
     same_h5 "$w/m_gpu.h5" "$w/m_cpu.h5"; then
    elog "PASS mpiexec -n 2 $name -e $e: -d gpu and -d cpu equal by h5diff ($(since "$t0") s," \
      "$(h5ls "$w/m_gpu.h5/hits/start" | grep -o '{[0-9]*}') hits)"
    return 0
  fi
  elog "FAIL mpiexec -n 2 $name -e $e ($(since "$t0") s): $(tail -3 "$w/err" | tr '\n' ' ')"
  return 1
}

# median of 3 whole-command runs: prints "wall read transfer scan" (rank 0's
# phases); $1 is the launcher ("" or "mpiexec -n N")
time_run() {
  local t0 launch=$1
  shift
  : >"$w/times"
  for _ in 1 2 3; do
    t0=$(now)
    timeout 300 $launch "$G" scan -q "$@" -o "$w/t.h5" 2>>"$w/err" || return 1
    echo "$(since "$t0") $(phase "$w/t.h5" read) $(phase "$w/t.h5" transfer)" \
      "$(phase "$w/t.h5" scan)" >>"$w/times"
  done
  sort -n "$w/times" | sed -n 2p
}

e2e() {
  local st=0 e f g n
  rm -rf "$w"
  mkdir -p "$w"
  : >"$out/e2e.log"
  command -v h5diff >/dev/null || { elog "FAIL h5diff not found (hdf5-tools in .devdeps)"; return 1; }
  local genomes="$w/ecoli_mg1655.fa.gz $w/vcholerae_o395.fa.gz $w/lambda_virus.fa.gz"
  cp .devdata/ecoli_mg1655.fa.gz .devdata/vcholerae_o395.fa.gz .devdata/lambda_virus.fa.gz "$w/" ||
    { elog "FAIL genomes missing from .devdata"; return 1; }
  local demo=data/patterns/demo.fa
  timeout 120 "$G" gen -o "$w/gen" -n "${GS_E2E_GEN:-20M}" -r 2000 -k 2000 --min-length 4 --max-length 32 \
    --degenerate 0.1 --palindromes 0.1 2>"$w/err" || { elog "FAIL gscan gen: $(cat "$w/err")"; return 1; }
  timeout 300 "$G" scan -q -d cpu -e ac --report hits -p $demo -o "$w/ref_genomes.h5" $genomes &&
    timeout 300 "$G" scan -q -d cpu -e ac --report hits -p "$w/gen.patterns" -o "$w/ref_gen.h5" \
      "$w/gen.fa" || { elog "FAIL cpu reference runs"; st=1; }

  for e in ac wm rk; do
    verify_run genomes $e $demo $genomes || st=1
    verify_run gen $e "$w/gen.patterns" "$w/gen.fa" || st=1
  done
  mpi_run genomes ac $demo $genomes || st=1
  mpi_run gen wm "$w/gen.patterns" "$w/gen.fa" || st=1
  # ctest's MPI suites where -d auto means the GPU: every rank count gives
  # the same file, and an error on any rank gives one message, exit 2, no file
  for f in ranks failures; do
    local t0
    t0=$(now)
    if GS_TEST_QUICK=1 timeout 900 bash "tests/mpi/$f.sh" "$G" >"$w/$f.log" 2>&1; then
      elog "PASS tests/mpi/$f.sh, -d auto = gpu ($(since "$t0") s): $(tail -1 "$w/$f.log")"
    else
      elog "FAIL tests/mpi/$f.sh, -d auto = gpu: $(grep FAIL "$w/$f.log" | head -3 | tr '\n' ' ')"
      st=1
    fi
  done

  # whole-command timing: 2^30 residues of real DNA as plain FASTA
  genome_seq
  cc -O2 -o "$w/mkfasta" bench/gpu/mkfasta.c && cc -O2 -o "$w/kmers" bench/cpu/kmers.c ||
    { elog "FAIL compiling mkfasta/kmers"; return 1; }
  n=${GS_E2E_RESIDUES:-1073741824}
  "$w/mkfasta" "$seq" "$w/one.fa" $n 0 && "$w/mkfasta" "$seq" "$w/many.fa" $n 2000 &&
    "$w/kmers" -n 1000 -k 8 -s 42 "$w/one.fa" >"$w/k8.txt" || { elog "FAIL building the FASTA"; return 1; }
  local gpu
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  {
    echo "### Whole command: gscan scan, 1000 8-mers, forward, counts ($gpu, $(nproc) cores)"
    echo
    echo "$n residues of real DNA (genomes.seq repeated) as plain FASTA, 60-column lines, in"
    echo "the page cache; \`gscan scan -q -e ac --strand forward --report counts -p k8.txt\`;"
    echo "wall = whole command, median of 3; read/transfer/scan = /timing of that run (rank 0)."
    echo "Rows marked indexed ran after \`gscan index\`: each rank reads its own ranges, with"
    echo "\`--readers\` threads (default: a quarter of its threads, at most 4)."
    echo
    echo "| input | device | wall s | residues/s | read s | transfer s | scan s |"
    echo "|---|---|---|---|---|---|---|"
  } >"$out/e2e.md"
  for f in one many; do
    local desc
    desc="1 record ($(du -m "$w/$f.fa" | cut -f1) MB)"
    [ $f = many ] && desc="$(( (n + 1999) / 2000 )) records of 2,000 ($(du -m "$w/$f.fa" | cut -f1) MB)"
    local idx=""
    for g in "gpu" "cpu -t 16" "index" "gpu --readers 1" "gpu" "cpu -t 16 --readers 1" \
      "cpu -t 16" "mpiexec -n 4|gpu" "mpiexec -n 4|cpu -t 4"; do
      local r launch=""
      if [ "$g" = index ]; then
        "$G" index "$w/$f.fa" 2>>"$w/err" || { elog "FAIL gscan index $f"; st=1; break; }
        idx=", indexed"
        continue
      fi
      [[ "$g" == *"|"* ]] && { launch=${g%|*}; g=${g#*|}; }
      r=$(time_run "$launch" -d $g -e ac --strand forward --report counts -p "$w/k8.txt" \
        "$w/$f.fa") || r=failed
      [ -z "$launch" ] && cp "$w/t.h5" "$w/t_${g%% *}.h5" 2>/dev/null
      set -- $r
      if [ "$1" = failed ] || [ $# -lt 4 ]; then
        elog "FAIL timing $f $launch -d $g: $(tail -2 "$w/err" | tr '\n' ' ')"
        st=1
        continue
      fi
      echo "| $desc | ${launch:+$launch, }$g$idx | $1 |" \
        "$(awk -v n=$n -v t="$1" 'BEGIN { printf "%.2f G", n / t / 1e9 }') | $2 | $3 | $4 |" \
        >>"$out/e2e.md"
    done
    if same_h5 "$w/t_gpu.h5" "$w/t_cpu.h5"; then
      elog "PASS timing $f: gpu and cpu counts equal by h5diff"
    else
      elog "FAIL timing $f: gpu and cpu counts differ"
      st=1
    fi
  done
  grep -q '^FAIL' "$out/e2e.log" && st=1
  log "e2e: $(grep -c '^PASS' "$out/e2e.log") passed, $(grep -c '^FAIL' "$out/e2e.log") failed"
  return $st
}

if want test; then
  mkdir -p data/cache
  [ -e data/cache/lambda_virus.fa.gz ] || cp .devdata/lambda_virus.fa.gz data/cache/ 2>/dev/null
  log "ctest -L gpu"
  (cd build-gpu && ctest -L gpu --timeout 300 --output-on-failure 2>&1) | tee "$out/ctest.log"
  grep -q "100% tests passed" "$out/ctest.log" || status=1
  if [ "${GS_DEVICE_SANITIZE:-0}" = 1 ]; then
    log "compute-sanitizer test_gpu (quick)"
    (cd build-gpu/tests && GS_TEST_QUICK=1 GS_TEST_DATA="$root/tests/data" \
      compute-sanitizer --tool memcheck --error-exitcode 9 ./test_gpu 2>&1 | tail -30) |
      tee "$out/sanitizer.log"
  fi
fi

if want e2e; then
  log "end to end: build-gpu/gscan"
  e2e || status=1
fi

if want bench; then
  log "benchmark"
  genome_seq
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
[ -s "$out/e2e.md" ] && cat "$out/e2e.md"
exit $status
