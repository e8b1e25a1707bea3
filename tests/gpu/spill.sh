#!/usr/bin/env bash
# spill.sh (GPU) - hits beyond --max-memory on the GPU path: the feeder
# takes each batch's hits as they come back and spills them at the budget.
# NNNN on both strands (two hits a residue) over a few MB, -d gpu with
# --max-memory 1M at 1 and 2 ranks, HDF5 and TSV: the same /hits and text
# as the CPU run without a limit, something spilled, no folder left.
# Approximate hits the same way (the GPU's bv engine): --max-mismatches and
# --max-edits, with and without --best-per-site, with --tally record, at 1
# and 2 ranks: /hits, /counts and /tally of the CPU run without a limit.
# --verify with both passes spilling: the GPU's hits against the CPU's.
# Exits 77 where no GPU is visible.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MPIEXEC=${MPIEXEC:-mpiexec}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
printf '>r\nACGT\n' >probe.fa
printf 'ACG\n' >probe.txt
if ! "$GSCAN" scan -q -d gpu -p probe.txt -o probe.h5 probe.fa 2>/dev/null; then
  echo "spill.sh: no GPU visible, skipped"
  exit 77
fi
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
"$GSCAN" gen -o w -s 3 -n 4M -r 7 -k 1 >/dev/null
"$GSCAN" index w.fa
printf 'a\tNNNN\nb\tACGT\nc\tAAAA\n' > p.tsv
"$GSCAN" scan -q -d cpu -p p.tsv --report hits -o ref.h5 w.fa
"$GSCAN" scan -q -d cpu -p p.tsv --report hits -o ref.tsv w.fa
for n in 1 2; do
  run=("$GSCAN")
  [ $n -gt 1 ] && run=("$MPIEXEC" -n $n "$GSCAN")
  for fmt in h5 tsv; do
    rm -f out.$fmt
    "${run[@]}" scan -q -d gpu -p p.tsv --report hits --max-memory 1M --debug time \
      --block-size 256K -o out.$fmt w.fa 2> err || { fail "$n ranks, $fmt: exit $?"; cat err; continue; }
    grep -q spilled err || fail "$n ranks, $fmt: nothing spilled"
    if [ $fmt = h5 ]; then
      h5diff -q ref.h5 out.h5 /hits /hits >/dev/null || fail "$n ranks, h5: /hits differ"
    else
      cmp -s ref.tsv out.tsv || fail "$n ranks, tsv: differs"
    fi
    ! find . -maxdepth 1 -name '.*gscan-spill*' | grep -q . || fail "$n ranks, $fmt: folder left"
  done
done
# --verify: the GPU pass's spilled hits against the CPU reference pass's
rm -f v.h5
"$GSCAN" scan -q -d gpu -p p.tsv --report hits --verify --max-memory 1M --debug time \
  --block-size 256K -o v.h5 w.fa 2> err || { fail "--verify: exit $?"; cat err; }
grep -q "reference pass spilled" err || fail "--verify: the reference pass spilled nothing"
grep -q "verify: .* agree" err || fail "--verify: $(grep verify err)"
h5diff -q ref.h5 v.h5 /hits /hits >/dev/null || fail "--verify: /hits differ"
# approximate: rank 0 thins and counts the merged stream
"$GSCAN" gen -o a -s 5 -n 1M -r 5 -k 1 >/dev/null
"$GSCAN" index a.fa
printf 'a\tACGTAC\nb\tNNNNNN\nc\tAAAAAAA\n' > a.tsv
for m in "--max-mismatches 2" "--max-edits 1"; do
  for b in "" "--best-per-site"; do
    # shellcheck disable=SC2086
    set -- -p a.tsv $m $b --report hits --tally record
    "$GSCAN" scan -q -d cpu "$@" -o aref.h5 a.fa
    for n in 1 2; do
      run=("$GSCAN")
      [ $n -gt 1 ] && run=("$MPIEXEC" -n "$n" "$GSCAN")
      rm -f aout.h5
      "${run[@]}" scan -q -d gpu "$@" --max-memory 1M --debug time --block-size 256K \
        -o aout.h5 a.fa 2> err || { fail "$m $b at $n: exit $?"; cat err; continue; }
      grep -q spilled err || fail "$m $b at $n: nothing spilled"
      for d in /hits /counts /tally; do
        h5diff -q aref.h5 aout.h5 $d $d >/dev/null || fail "$m $b at $n: $d differ"
      done
    done
  done
done
! find . -maxdepth 1 -name '.*gscan-spill*' | grep -q . || fail "approximate: folder left"
[ $fails = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "spill (GPU): all passed"
