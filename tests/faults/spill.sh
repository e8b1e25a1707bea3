#!/usr/bin/env bash
# spill.sh - hits beyond --max-memory: a hits-heavy scan (NNNN on both
# strands, two hits a residue) under a 1M budget spills sorted runs beside
# the output and merges them into the file. At 1, 2 and 3 ranks, for HDF5
# (/hits by h5diff) and TSV (byte for byte), the result is the one of the
# run without a limit, the spill folder is gone afterwards, and the runs
# did spill (--debug time says how many). A spill that meets a file-size
# limit (ulimit -f) or a full file system (a small tmpfs, where mount is
# permitted) is exit 3 naming the folder, with no result and no folder
# left. --seq reads the residues of the merged hits. --verify compares the
# spilled hits of its two passes at 1 and 2 ranks. SIGTERM while spilling
# leaves no folder. A run under `ulimit -v` that runs out of memory without
# a limit (exit 3) completes with one, and with the default, which
# follows RLIMIT_AS.
#
# spill.sh GSCAN approx: hits that are thinned, counted or tallied after
# the scan: approximate matching (--max-mismatches and --max-edits, both
# strands, with and without --best-per-site, with --tally record), --tally
# with exact --report hits, an approximate tally in counts mode, and
# --verify of approximate hits.
# NNNNNN makes one site of a whole record and strand (its best hit at the
# record's start, the rest of the record waiting on it), ACGTAC and
# AAAAAAA short ones. Under a 1M budget every run spills and gives, at 1, 2
# and 3 ranks, the file (/hits, /counts, /tally) and the TSV of the run
# without a limit.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MPIEXEC=${MPIEXEC:-mpiexec}
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/same_h5.sh
source "$root/tests/lib/same_h5.sh"
dir=$(mktemp -d)
trap 'umount "$dir/small" 2>/dev/null || true; rm -rf "$dir"' EXIT
cd "$dir"
fails=0 runs=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
left() { find . -maxdepth 2 -name '.*gscan-spill*' | grep -q .; }
ranks() { # the command line of gscan at $1 ranks
  run=("$GSCAN")
  [ "$1" -gt 1 ] && run=("$MPIEXEC" -n "$1" "$GSCAN")
  return 0
}
# spilled LABEL N OUT ARGS...: a scan of w.fa at N ranks under a 1M budget
# into OUT, which must spill and leave no folder
spilled() {
  local label=$1 out=$3
  ranks "$2"
  shift 3
  rm -f "$out"
  if ! "${run[@]}" scan -q --max-memory 1M --debug time -o "$out" "$@" w.fa 2> err; then
    fail "$label: exit $?"; cat err; return 1
  fi
  grep -q 'spilled' err || fail "$label: nothing spilled"
  ! left || fail "$label: spill folder left"
}

if [ "${2:-}" = approx ]; then
  "$GSCAN" gen -o w -s 3 -n 200K -r 7 -k 1 >/dev/null
  "$GSCAN" index w.fa
  printf 'a\tACGTAC\nb\tNNNNNN\nc\tAAAAAAA\n' > a.tsv
  for m in "--max-mismatches 2" "--max-edits 1"; do
    for b in "" "--best-per-site"; do
      # shellcheck disable=SC2086
      set -- -p a.tsv $m $b --report hits
      "$GSCAN" scan -q "$@" --tally record -o ref.h5 w.fa
      "$GSCAN" scan -q "$@" -o ref.tsv w.fa
      for n in 1 2 3; do
        # h5 at 3 ranks (whose collective write is slow here) with --best-per-site only
        if [ $n -lt 3 ] || [ -n "$b" ]; then
          spilled "$m $b at $n" $n out.h5 "$@" --tally record &&
            same ref.h5 out.h5 "$m $b at $n" /hits /tally
        fi
        spilled "$m $b at $n, tsv" $n out.tsv "$@" &&
          { cmp -s ref.tsv out.tsv || fail "$m $b at $n, tsv: differs"; }
      done
    done
  done
  spilled "--verify, approximate" 1 av.h5 -p a.tsv --max-edits 1 --report hits --verify &&
    "$GSCAN" scan -q -p a.tsv --max-edits 1 --report hits -o avref.h5 w.fa &&
    same avref.h5 av.h5 "--verify, approximate" /hits
  grep -q 'verify: .* agree' err || fail "--verify, approximate: $(grep verify err)"
  # exact hits with a tally; an approximate tally of hits not written
  "$GSCAN" scan -q -p a.tsv --report hits --tally record -o tref.h5 w.fa
  "$GSCAN" scan -q -p a.tsv --max-edits 1 --best-per-site --tally file -o cref.h5 w.fa
  for n in 1 2 3; do
    spilled "exact --tally at $n" $n t.h5 -p a.tsv --report hits --tally record &&
      same tref.h5 t.h5 "exact --tally at $n" /hits /tally
    spilled "approximate --tally at $n" $n c.h5 -p a.tsv --max-edits 1 --best-per-site \
      --tally file && same cref.h5 c.h5 "approximate --tally at $n" /tally
  done
  [ $fails = 0 ] || { echo "$fails failure(s) in $runs comparisons"; exit 1; }
  echo "spill (approx): all $runs comparisons passed"
  exit 0
fi
"$GSCAN" gen -o w -s 3 -n 600K -r 7 -k 1 >/dev/null
"$GSCAN" index w.fa
printf 'a\tNNNN\nb\tACGT\nc\tAAAA\n' > p.tsv
"$GSCAN" scan -q -p p.tsv --report hits -o ref.h5 w.fa
"$GSCAN" scan -q -p p.tsv --report hits -o ref.tsv w.fa
for n in 1 2 3; do
  ranks $n
  for fmt in h5 tsv; do
    spilled "$n ranks, $fmt" $n out.$fmt -p p.tsv --report hits || continue
    if [ $fmt = h5 ]; then
      same ref.h5 out.h5 "$n ranks, h5" /hits
    else
      cmp -s ref.tsv out.tsv || fail "$n ranks, tsv: differs"
    fi
  done
  # a gzip input is streamed by rank 0 and its hits gathered
  gzip -c w.fa > wz.fa.gz
  rm -f z.h5
  "${run[@]}" scan -q -p p.tsv --report hits --max-memory 1M -o z.h5 wz.fa.gz ||
    fail "$n ranks, gzip: exit $?"
  h5diff -q ref.h5 z.h5 /hits /hits >/dev/null || fail "$n ranks, gzip: /hits differ"
done
# --seq reads each hit's residues as rank 0 writes the merged stream
"$GSCAN" scan -q -p p.tsv --seq -o seq_ref.tsv w.fa
"$MPIEXEC" -n 2 "$GSCAN" scan -q -p p.tsv --seq --max-memory 1M -o seq.tsv w.fa ||
  fail "--seq, 2 ranks: exit $?"
cmp -s seq_ref.tsv seq.tsv || fail "--seq, 2 ranks: differs"
# --verify compares the spilled hits of both passes, each a sorted stream
for n in 1 2; do
  spilled "--verify at $n" $n v.h5 -p p.tsv --report hits --verify &&
    same ref.h5 v.h5 "--verify at $n" /hits
  grep -q 'verify: .* agree' err || fail "--verify at $n: $(grep verify err)"
  grep -q 'reference pass spilled' err || fail "--verify at $n: the reference pass spilled nothing"
done
# a signal while spilling removes the folder (and the temporary result)
"$GSCAN" gen -o big -s 4 -n 6M -r 3 -k 1 >/dev/null
printf 'a\tNNNN\n' > n.tsv
"$GSCAN" scan -q -p n.tsv --report hits --max-memory 1M -o sig.h5 big.fa 2>/dev/null &
pid=$!
for _ in $(seq 100); do left && break; sleep 0.1; done
left || echo "note: no spill folder seen before the run ended"
kill -TERM $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
! left || fail "SIGTERM: spill folder left"
[ ! -e sig.h5 ] && [ -z "$(ls sig.h5.tmp.* 2>/dev/null)" ] || fail "SIGTERM: a result left"
# a file-size limit met while spilling: exit 3, the folder named, nothing left
set +e
(ulimit -f 200; "$GSCAN" scan -q -p p.tsv --report hits --max-memory 1M -o f.h5 w.fa 2> err)
rc=$?
set -e
[ $rc = 3 ] || fail "ulimit -f: exit $rc, not 3"
grep -q 'gscan-spill' err || { fail "ulimit -f: the folder not named"; cat err; }
[ ! -e f.h5 ] && ! left || fail "ulimit -f: a result or the folder left"
# a full file system, where a small tmpfs can be mounted
mkdir small
if mount -t tmpfs -o size=512k tmpfs small 2>/dev/null; then
  set +e
  "$GSCAN" scan -q -p p.tsv --report hits --max-memory 1M -o small/f.h5 w.fa 2> err
  rc=$?
  set -e
  [ $rc = 3 ] || fail "full tmpfs: exit $rc, not 3"
  grep -q 'No space left.*gscan-spill' err || { fail "full tmpfs: message"; cat err; }
  [ -z "$(ls -A small)" ] || fail "full tmpfs: left $(ls -A small)"
  umount small
else
  echo "note: tmpfs cannot be mounted here: the full-disk case skipped"
fi
# under an address-space limit: 12.6 M hits take 440 MB resident at once
# without spilling (up to 40 bytes a hit while they are made into records),
# and fail under 600000 KB of address space; with --max-memory 64M they fit
lim=600000
set +e
(ulimit -v $lim; "$GSCAN" scan -q -p n.tsv --report hits --max-memory 64G -o v1.h5 big.fa 2> err)
rc=$?
set -e
[ $rc = 3 ] || echo "note: without a limit the run under ulimit -v gave exit $rc (expected 3)"
(ulimit -v $lim; "$GSCAN" scan -q -p n.tsv --report hits --max-memory 64M -o v2.h5 big.fa) ||
  fail "ulimit -v with --max-memory 64M: exit $?"
# the default follows RLIMIT_AS: half of it, so the same run needs no flag
(ulimit -v $lim; "$GSCAN" scan -q -p n.tsv --report hits -o v3.h5 big.fa) ||
  fail "ulimit -v with the default --max-memory: exit $?"
h5diff -q v2.h5 v3.h5 /hits /hits >/dev/null 2>&1 || fail "ulimit -v: the default's /hits differ"
[ -s v2.h5 ] && [ "$(h5dump -H v2.h5 2>/dev/null | grep -c 'DATASPACE  SIMPLE { ( 12582894 )')" -ge 1 ] ||
  fail "ulimit -v: not the 12582894 hits expected"
! left || fail "ulimit -v: spill folder left"
[ $fails = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "spill: all passed"
