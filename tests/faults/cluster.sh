#!/usr/bin/env bash
# cluster.sh - gscan's HDF5 files on a cluster file system: no file locks
# needed (flock() failing as on Lustre/GPFS mounted without it, or NFS without
# a lock daemon), datasets aligned to the stripe size (io.h5.align, 1 MiB by
# default), MPI-IO hints passed through (--mpi-hint, also from a config), a
# malformed hint a usage error naming the option; and the result the same
# with and without each setting at 1, 2 and 3 ranks, and under a stack
# limit (ulimit -s) too small for MPI's own calls; a process limit (ulimit
# -u) that leaves no thread to start is exit 3 naming it.
# Usage: cluster.sh GSCAN INJECT.so H5_ALIGNED (tests/faults/inject.c,
# tests/faults/h5_aligned.c).
set -uo pipefail
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
GSCAN=$(abs "$1") INJECT=$(abs "$2") ALIGNED=$(abs "$3")
MPIEXEC=${MPIEXEC:-mpiexec}
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/same_h5.sh
source "$root/tests/lib/same_h5.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fails=0 runs=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

"$GSCAN" gen -o c -s 7 -n 1M -r 8 -k 60 --min-length 6 --max-length 8 >/dev/null
printf 'AAAA\nACGT\nCCGA\nTTAG\nGATC\nCATG\nGGCC\nTACA\n' > k4.txt
sums=$(md5sum c.fa k4.txt)
"$GSCAN" scan -q -p k4.txt --report hits -o ref.h5 c.fa || fail "reference run"
"$GSCAN" export ref.h5 > ref.tsv || fail "reference export"

# gscan alone (n = 1) or under mpiexec -n n
ranks() {
  local n=$1
  shift
  if [ "$n" = 1 ]; then timeout 120 "$GSCAN" "$@"; else timeout 120 "$MPIEXEC" -n "$n" "$GSCAN" "$@"; fi
}
# name, n, extra options...: a run that must succeed and equal the reference
run() {
  local name=$1 n=$2 out
  shift 2
  rm -f out.h5
  out=$(ranks "$n" scan -q -p k4.txt --report hits -o out.h5 "$@" c.fa 2>&1) ||
    { fail "$name n=$n: exit $?: $out"; return 1; }
  same ref.h5 out.h5 "$name n=$n" /hits
}

for n in 1 2 3; do
  run default $n && { "$ALIGNED" out.h5 1048576 any || fail "default n=$n: not aligned to 1M"; }
  run "align 4K" $n --tune io.h5.align=4K && { "$ALIGNED" out.h5 4096 some || fail "align 4K n=$n"; }
  run "align off" $n --tune io.h5.align=1
  run hints $n --mpi-hint romio_cb_write=enable --mpi-hint cb_buffer_size=1048576 \
      --mpi-hint striping_unit=1048576 --mpi-hint striping_factor=2 --mpi-hint cb_nodes=1
  # flock() fails everywhere: the write, gscan info and gscan export need none.
  rm -f out.h5
  GS_NO_FLOCK=1 LD_PRELOAD=$INJECT ranks $n scan -q -p k4.txt --report hits -o out.h5 c.fa 2>&1 ||
    fail "no flock n=$n: scan"
  out=$(GS_NO_FLOCK=1 LD_PRELOAD=$INJECT "$GSCAN" info out.h5 2>&1) || fail "no flock n=$n: info: $out"
  if ! GS_NO_FLOCK=1 LD_PRELOAD=$INJECT "$GSCAN" export out.h5 > out.tsv 2>err.txt || ! cmp -s out.tsv ref.tsv; then
    fail "no flock n=$n: export: $(head -3 err.txt)"
  fi
done
# A stack limit below what MPI's collective write needs (ulimit -s 128 KiB
# overflowed it, SIGSEGV): gscan runs on a thread that sizes its own stack,
# with the same result.
for n in 1 2; do
  rm -f out.h5
  out=$( (ulimit -s 128; ranks "$n" scan -q -p k4.txt --report hits -o out.h5 c.fa) 2>&1) &&
    same ref.h5 out.h5 "ulimit -s 128 n=$n" /hits || fail "ulimit -s 128 n=$n: exit $?: $out"
done
# A process limit (ulimit -u) that leaves no thread to start: exit 3, one
# message naming the thread and the limit, no result file. Root alone can
# run as a user with no other processes (the limit counts them all): the
# lowest limit one scan thread starts at (MPI's own threads vary), then 8.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  mkdir -m 777 nproc && cp c.fa k4.txt nproc/ && chmod 755 "$dir"
  as_user() { (cd nproc && setpriv --reuid=54321 --regid=54321 --clear-groups bash -c "$1"); }
  lim=""
  for u in $(seq 2 64); do
    as_user "ulimit -u $u; '$GSCAN' scan -q -t 1 -p k4.txt -o t.h5 c.fa" >/dev/null 2>&1 &&
      { lim=$u; break; }
  done 2>/dev/null # below MPI's own need, the start aborts: the shell's notice too
  rm -f nproc/t.h5*
  if [ -z "$lim" ]; then
    fail "ulimit -u: no limit up to 64 let one scan thread start"
  else
    runs=$((runs + 1))
    out=$(as_user "ulimit -u $lim; '$GSCAN' scan -q -t 8 -p k4.txt -o t.h5 c.fa" 2>&1); rc=$?
    if [ $rc != 3 ] || [ "$(grep -c 'gscan: error:' <<<"$out")" != 1 ] ||
       ! grep -qF "the process limit (ulimit -u) is $lim" <<<"$out" || [ -n "$(ls nproc/t.h5* 2>/dev/null)" ]; then
      fail "ulimit -u $lim, 8 threads: exit $rc (want 3): $out"
    fi
  fi
  rm -rf nproc
fi
printf 'mpi-hint = romio_cb_write=enable\nmpi-hint = cb_buffer_size=2097152\n' > hints.conf
run "hints from a config" 3 --config hints.conf

# A malformed hint: exit 1 (2 in a config), one message naming the option
# (or the file and line), no output file.
bad() { # name, want_rc, want_text, options...
  local name=$1 want=$2 text=$3 out rc
  shift 3
  rm -f out.h5
  out=$("$GSCAN" scan -q -p k4.txt -o out.h5 "$@" c.fa 2>&1); rc=$?
  if [ $rc != "$want" ] || [ "$(grep -c 'gscan: error:' <<<"$out")" != 1 ] ||
     ! grep -qF -- "$text" <<<"$out" || [ -n "$(ls out.h5* 2>/dev/null)" ]; then
    fail "$name: exit $rc (want $want): $out"
  fi
}
bad "hint without =" 1 "not 'romio_cb_write' (--mpi-hint)" \
    --mpi-hint romio_cb_write
bad "hint without key" 1 "(--mpi-hint)" --mpi-hint =enable
bad "hint without value" 1 "(--mpi-hint)" --mpi-hint=cb_nodes=
bad "hint key too long" 1 "(--mpi-hint)" --mpi-hint "$(printf 'k%.0s' {1..300})=1"
printf 'quiet = true\nmpi-hint = striping_factor\n' > bad.conf
bad "hint without = in a config" 2 "bad.conf:2" --config bad.conf
bad "align not a size" 1 "io.h5.align" --tune io.h5.align=big

[ "$(md5sum c.fa k4.txt)" = "$sums" ] || fail "inputs changed"
echo "cluster: $runs result comparisons, $fails failures"
[ $fails = 0 ]
