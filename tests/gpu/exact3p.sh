#!/usr/bin/env bash
# exact3p.sh - --exact-3p on the GPU (engine bv) against the CPU, end to end
# through `gscan scan`: --max-mismatches and --max-edits, both strands and
# forward only, K = 0..4, exact-3p 1..5 (and longer than some patterns),
# with and without --best-per-site; hits and counts compared with h5diff.
# What it covers on the device: the zone tested in the mismatch kernels and
# before a seed is verified, each edit end's distance and start under the
# zone in gs_bv_finish (keys of <= 64), on the host for longer keys, and
# the dropped ends cut off after the sort. The reference is bf on the small
# workload and the CPU bv elsewhere (test_approx checks bv against bf).
# Workloads: keys of 4..64 with IUPAC codes, N runs and lowercase; primers
# of 18..30 (the seed filter, also off: --tune match.seed.filter=-1);
# CRISPR-like guides (20 + NGG); keys of 65..300 (lanes, per-start counts).
#
#   tests/gpu/exact3p.sh build-cu/gscan
#
# prints PASS or FAIL per case and a summary; exits 77 where no GPU is
# visible (GS_APPROX_DEVICE=cpu runs the "GPU" side on the CPU: a check of
# this script itself on a machine without a GPU).
set -uo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DEV=${GS_APPROX_DEVICE:-gpu}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
printf '>r\nACGTACGT\n' >probe.fa
printf 'ACGT\n' >probe.txt
if ! "$GSCAN" scan -q -d "$DEV" --max-edits 1 -p probe.txt -o probe.h5 probe.fa 2>/dev/null; then
  echo "exact3p.sh: no GPU visible, skipped"
  exit 77
fi
fails=0 runs=0
check() { # name, then the command that must succeed
  local name=$1
  shift
  runs=$((runs + 1))
  if "$@"; then echo "PASS $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}
scan_same() { # ref_engine fasta patterns block scan-options...: GPU = CPU
  local ref=$1 fa=$2 pat=$3 block=$4
  shift 4
  "$GSCAN" scan -q -d cpu -e "$ref" "$@" --report hits -p "$pat" -o ref.h5 "$fa" &&
    "$GSCAN" scan -q -d "$DEV" -e bv --block-size "$block" "$@" --report hits -p "$pat" \
      -o out.h5 "$fa" &&
    h5diff -q ref.h5 out.h5 /counts /counts >/dev/null && h5diff -q ref.h5 out.h5 /hits /hits >/dev/null
}
# name ref "K values" "exact-3p values" block fasta patterns [scan options]
run_cases() {
  local name=$1 ref=$2 ks=$3 xs=$4 block=$5 fa=$6 pat=$7
  shift 7
  for mode in mismatches edits; do
    for strand in both forward; do
      for K in $ks; do
        for x in $xs; do
          for bps in "" --best-per-site; do
            check "$name --max-$mode $K --exact-3p $x --strand $strand $bps $*" \
              scan_same "$ref" "$fa" "$pat" "$block" --max-$mode "$K" --exact-3p "$x" \
              --strand "$strand" $bps "$@"
          done
        done
      done
    done
  done
}

"$GSCAN" gen -o w1 -s 31 -n 20K -r 40 -k 30 --min-length 5 --max-length 64 --planted 0.8 \
  --mutations 2 --degenerate 0.2 --lowercase 0.1 --n-runs 10
run_cases short-keys bf "0 1 2 4" "1 3 5" 16M w1.fa w1.patterns

"$GSCAN" gen -o wf -s 32 -n 200K -r 3 -k 100 --min-length 18 --max-length 30 --planted 0.9 \
  --mutations 3 --degenerate 0.1 --n-runs 10
run_cases primers bv "2 4" "3" 1000 wf.fa wf.patterns
run_cases primers-full-scan bv "2 4" "3" 16M wf.fa wf.patterns --tune match.seed.filter=-1

# guides: 20 residues of the text and NGG, some planted with mismatches
"$GSCAN" gen -o wc -s 33 -n 300K -r 1 -k 40 --min-length 20 --max-length 20 --planted 1 \
  --mutations 3
awk -F'\t' '{ print $1 "\t" $2 "NGG" }' wc.patterns >guides.txt
run_cases guides bv "3 4" "3" 16M wc.fa guides.txt

"$GSCAN" gen -o wl -s 34 -n 100K -r 2 -k 6 --min-length 65 --max-length 300 --planted 1 \
  --mutations 4 --degenerate 0.05
run_cases long-keys bv "1 4" "2 70" 16M wl.fa wl.patterns

echo "exact3p.sh: $((runs - fails)) passed, $fails failed"
[ $fails = 0 ]
