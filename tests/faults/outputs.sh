#!/usr/bin/env bash
# outputs.sh - what a cluster does to gscan's outputs: a full disk during the
# HDF5 write, a file-size limit (`ulimit -f`) below the output, an output
# name of the longest valid length, and SIGINT/SIGTERM/SIGHUP during a
# write. Each ends with contract §5's status and one message naming the
# file (the signals: the signal's own status), no OUT and no temporary file
# left, the inputs unchanged; plain gscan and under mpiexec -n 2 and 3.
# The full-disk cases need a small tmpfs: without mount they are skipped and
# the script ends with 77 (after running the rest).
set -uo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MPIEXEC=${MPIEXEC:-mpiexec}
dir=$(mktemp -d)
mounted=
trap '[ -n "$mounted" ] && umount "$dir/full"; rm -rf "$dir"' EXIT
cd "$dir"
fails=0 runs=0 skipped=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
# what an output left behind: OUT itself or any temporary name of it
leftovers() { find . -name "$1*" -o -name '*.tmp.*' | grep -v '^\./full/fill$'; }
expect() { # name, want_rc, out, command... (want_rc 0: the output must exist)
  local name=$1 want_rc=$2 out=$3 rc log n_msgs left
  shift 3
  runs=$((runs + 1))
  log=$(timeout 120 "$@" 2>&1); rc=$?
  # MPICH 4.0's Hydra now and then reports one rank that left with a status
  # before MPI_Finalize as hung up (its banner, exit 1; strace shows the
  # rank's exit_group with the status): its clean-up starts when the rank's
  # PMI socket closes and races the rank's reaping. The run is checked and
  # run once more; a second loss in a row fails.
  if [ "$want_rc" != 0 ] && [ "$rc" = 1 ] && grep -q "EXIT STRING: Hangup (signal 1)" <<<"$log"; then
    left=$(leftovers "$out")
    if [ -n "$left" ] || ! grep -q "gscan: error:.*$(basename "$out")" <<<"$log"; then
      fail "$name: the run Hydra lost left $left, or no message naming $out"
    fi
    rm -f $left
    echo "$name: Hydra reported the rank hung up (exit 1): once more"
    log=$(timeout 120 "$@" 2>&1); rc=$?
  fi
  n_msgs=$(grep -c "gscan: error:" <<<"$log")
  if [ "$want_rc" = 0 ]; then
    left=$(find . -name '*.tmp.*')
    if [ "$rc" != 0 ] || [ ! -f "$out" ] || [ -n "$left" ]; then
      fail "$name: exit $rc (want 0), output $([ -f "$out" ] && echo present || echo missing)"
      echo "$log" | head -5; echo "$left"
    fi
    rm -f "$out"
    return
  fi
  left=$(leftovers "$out")
  if [ "$rc" != "$want_rc" ] || [ "$n_msgs" != 1 ] || ! grep -q "gscan: error:.*$(basename "$out")" <<<"$log" ||
     [ -n "$left" ]; then
    fail "$name: exit $rc (want $want_rc), $n_msgs message(s) (want 1 naming $out), left: $left"
    echo "$log" | head -8
  fi
  rm -f $left
}

"$GSCAN" gen -o c -s 1 -n 200K -r 4 -k 20 --min-length 4 --max-length 6 >/dev/null
# 8 M residues: eight dinucleotides hit every other position, a result of
# 6 MB even compressed, written over about a second
"$GSCAN" gen -o big -s 3 -n 8M -r 4 -k 10 --min-length 6 --max-length 8 >/dev/null
HITS="--report hits -s AC -s AG -s CA -s GA -s CT -s TC -s GT -s TG"
sums=$(md5sum c.fa big.fa)

# A full disk from the start: 1 MiB of tmpfs, filled.
mkdir full
if mount -t tmpfs -o size=1M tmpfs full 2>/dev/null; then
  mounted=1
  dd if=/dev/zero of=full/fill bs=4k 2>/dev/null
  for n in 1 2 3; do
    expect "full disk, HDF5, n=$n" 3 full/x.h5 "$MPIEXEC" -n $n "$GSCAN" scan -q -s ACGT -o full/x.h5 c.fa
  done
  expect "full disk, text" 3 full/x.tsv "$GSCAN" scan -q -s ACGT -o full/x.tsv c.fa
else
  echo "cannot mount a tmpfs here: full-disk cases skipped"; skipped=1
fi

# A file-size limit below the output: EFBIG, not SIGXFSZ. MPI's start-up
# writes a shared-memory file of about 4.2 MB (UCX), so the limit stays above.
limit=5000 # KiB
for n in 1 2 3; do
  expect "ulimit -f, HDF5, n=$n" 3 lim.h5 bash -c "ulimit -f $limit; \"$MPIEXEC\" -n $n \"$GSCAN\" scan -q $HITS -o lim.h5 big.fa"
done
expect "ulimit -f, HDF5, plain gscan" 3 lim.h5 bash -c "ulimit -f $limit; \"$GSCAN\" scan -q $HITS -o lim.h5 big.fa"
expect "ulimit -f, text" 3 lim.tsv bash -c "ulimit -f $limit; \"$GSCAN\" scan -q -s A -o lim.tsv big.fa"
# Below UCX's start-up file (1000 KiB): MPI still starts (its posix
# transport left out), a small result is written, a large one is exit 3;
# gscan gen leaves neither of its two files.
for n in 1 2; do
  expect "ulimit -f 1000, small result, n=$n" 0 small.tsv bash -c "ulimit -f 1000; \"$MPIEXEC\" -n $n \"$GSCAN\" scan -q -s ACGT -o small.tsv c.fa"
  expect "ulimit -f 1000, HDF5, n=$n" 3 lim.h5 bash -c "ulimit -f 1000; \"$MPIEXEC\" -n $n \"$GSCAN\" scan -q $HITS -o lim.h5 big.fa"
done
expect "ulimit -f 1000, gscan gen" 3 g.fa bash -c "ulimit -f 1000; \"$GSCAN\" gen -o g -n 4M -k 10"
[ -e g.patterns ] && fail "gscan gen under ulimit -f left g.patterns"
rm -f g.patterns

# The longest valid output name: "OUT.tmp.<pid>" would not fit.
long=$(printf 'o%.0s' $(seq 251)) # + ".h5" or ".tsv": 254 or 255 bytes
for n in 1 2 3; do
  expect "254-byte name, HDF5, n=$n" 0 "$long.h5" "$MPIEXEC" -n $n "$GSCAN" scan -q -s ACGT -o "$long.h5" c.fa
done
expect "255-byte name, text" 0 "$long.tsv" "$GSCAN" scan -q -s ACGT -o "$long.tsv" c.fa
"$GSCAN" scan -q --report hits -s ACGT -o e.h5 c.fa
expect "255-byte name, export" 0 "$long.tsv" "$GSCAN" export -o "$long.tsv" e.h5
# 250 bytes, and its .gzi 254
expect "250-byte name, index --bgzf" 0 "${long:4}.gz" "$GSCAN" index --bgzf -o "${long:4}.gz" c.fa
rm -f "${long:4}.gz.gzi" e.h5
cp c.fa "${long:4}.fa" # its .fai: 254 bytes
expect "254-byte name, .fai" 0 "${long:4}.fa.fai" "$GSCAN" index "${long:4}.fa"
rm -f "${long:4}.fa"

# A signal during the HDF5 write: caught once the temporary file appears.
# Plain gscan dies of the signal (128 + its number). Under mpiexec the ranks
# get it, as from a terminal (its whole process group), Slurm's scancel (every
# task) or mpiexec (it passes SIGINT and SIGTERM on), and mpiexec reports the
# signal of a rank as its number.
set -m # background jobs keep SIGINT (a shell without job control ignores it there)
ranks() { # the gscan processes below process $1
  ps -e -o pid=,ppid=,comm= | awk -v top="$1" -v me="$(basename "$GSCAN" | cut -c1-15)" '
    {up[$1] = $2; name[$1] = $3}
    END {for (p in up) if (name[p] == me) {q = up[p]; while (q > 1 && q != top) q = up[q]; if (q == top) print p}}'
}
signal_case() { # n (0: plain gscan), signal[, output]
  local n=$1 sig=$2 out=${3:-sig.h5} num pid rc want i left
  num=$(kill -l "$sig")
  runs=$((runs + 1))
  if [ "$n" = 0 ]; then
    "$GSCAN" scan -q $HITS -o "$out" big.fa 2>/dev/null & pid=$!
    want=$((128 + num))
  else
    "$MPIEXEC" -n "$n" "$GSCAN" scan -q $HITS -o sig.h5 big.fa >/dev/null 2>&1 & pid=$!
    want=$num
  fi
  for i in $(seq 3000); do
    [ -n "$(find . -maxdepth 1 -name "$out.tmp.*")" ] && break
    sleep 0.01
  done
  if [ "$n" = 0 ]; then kill -"$sig" $pid; else kill -"$sig" $(ranks $pid); fi
  wait $pid; rc=$?
  left=$(find . -name "$out*")
  # mpiexec (hydra) ORs its ranks' statuses and, once one rank has died,
  # kills those still alive with SIGKILL: on a loaded machine a rank can get
  # that before its own signal, and INT (2) then reads 2 | 9 = 11
  if [ "$n" != 0 ] && [ "$rc" = $((want | 9)) ]; then rc=$want; fi
  if [ "$rc" != "$want" ] || [ -n "$left" ]; then
    fail "$sig during the write of $out, n=$n: exit $rc (want $want), left: $left"
  fi
  rm -f $left
}
for sig in INT TERM HUP; do
  for n in 0 2 3; do
    signal_case $n $sig
  done
done
signal_case 0 TERM sig.tsv # a text output (gs_replace_*)
set +m

[ "$(md5sum c.fa big.fa)" = "$sums" ] || fail "an input changed"
echo "$runs runs, $fails failed"
[ "$fails" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 77
exit 0
