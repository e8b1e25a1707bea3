#!/usr/bin/env bash
# crispr.sh - CRISPR off-targets: GUIDES guides of 20 nt cut from the genome,
# each followed by its PAM NGG, scanned with --max-mismatches K (K = 4 and
# 6), both strands, hits, with --exact-3p 3 (the PAM exact: mismatches in
# the spacer only) and without (all 23 positions may mismatch, as before
# the rule existed), on the GPU and on the CPU (-t THREADS). Prints per
# row the median whole-process wall seconds of REPS runs, the hits, and
# whether the GPU's hits equal the CPU's (h5diff of /hits).
#
#   bench/inputs/crispr.sh GSCAN [GENOME]
#   GENOME: FASTA (plain or gzip); default: a random one of N residues in
#   24 records made by gscan gen (N: 3G, a human-size genome).
#   GUIDES (100), KS ("4 6"), BULGES ("0": --max-bulges B for each, e.g.
#   "0 1 2"), X3 ("3 0"), REPS (3), THREADS (16),
#   DEVICES ("gpu cpu"), GS_WORK (/tmp/gs_crispr), TUNE (one --tune KEY=VALUE
#   for both devices, e.g. match.zone.scan=1: the zone scan instead of the
#   seed filter at K = 4)
set -uo pipefail
G=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
w=${GS_WORK:-/tmp/gs_crispr}
mkdir -p "$w" || exit 1
genome=${2:-}
[ -n "$genome" ] && genome=$(cd "$(dirname "$genome")" && pwd)/$(basename "$genome")
cd "$w" || exit 1
if [ -z "$genome" ]; then
  genome=$w/genome.fa
  [ -s genome.fa ] || "$G" gen -o genome -n "${N:-3G}" -r 24 -k 1 -s 21 >/dev/null || exit 1
fi
reps=${REPS:-3} T=${THREADS:-16} n_guides=${GUIDES:-100}
# guides: 20-mers of ACGT from the first 64 MiB of sequence, spread evenly
# (every (clean / GUIDES)-th clean 20-mer at stride 20; no rand(): awks
# differ in its seeding;
# a human chromosome may open with megabases of N)
gzip -cdf "$genome" | head -c 67108864 | grep -v '^>' | tr -d '\n\r' |
  awk -v n="$n_guides" '{ s = s toupper($0) }
    function clean(at) { return substr(s, at, 20) ~ /^[ACGT]+$/ }
    END { for (at = 1; at + 20 <= length(s); at += 20) c += clean(at) # clean 20-mers at stride 20
      step = int(c / n); k = 0; i = 0
      for (at = 1; k < n && step > 0 && at + 20 <= length(s); at += 20)
        if (clean(at) && i++ % step == 0) printf "guide%d\t%sNGG\n", k++, substr(s, at, 20) }' >guides.txt
[ "$(wc -l <guides.txt)" = "$n_guides" ] || { echo "crispr.sh: could not cut $n_guides guides" >&2; exit 1; }

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
run() { # out.h5, scan args...: the median wall seconds of reps runs
  local out=$1 i t0 t1
  shift
  for ((i = 0; i < reps; i++)); do
    t0=$(date +%s.%N)
    "$G" scan -q "$@" -p guides.txt --report hits -o "$out" "$genome" >/dev/null ||
      { echo "FAIL: scan $*" >&2; return 1; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
  done | median
}
n_hits() { h5dump -H -d /hits/start "$1" 2>/dev/null | awk -F'[( )]+' '/DATASPACE/ { print $(NF - 1); exit }'; }

echo "crispr.sh: $n_guides guides of 20 nt + NGG, both strands, $(basename "$genome"), median of $reps"
printf '| K | bulges | exact-3p | device | wall s | hits | GPU = CPU |\n| --- | --- | --- | --- | --- | --- | --- |\n'
for K in ${KS:-4 6}; do
  for B in ${BULGES:-0}; do
    for x in ${X3:-3 0}; do
      for dev in ${DEVICES:-gpu cpu}; do
        threads=()
        [ "$dev" = cpu ] && threads=(-t "$T")
        s=$(run "$dev.h5" -d "$dev" "${threads[@]}" ${TUNE:+--tune "$TUNE"} --max-mismatches "$K" \
          --max-bulges "$B" --exact-3p "$x")
        same=-
        if [ "$dev" = cpu ] && [ -s gpu.h5 ]; then
          h5diff -q gpu.h5 cpu.h5 /hits /hits >/dev/null && same=yes || same=NO
        fi
        printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$K" "$B" "$x" "$dev" "$s" "$(n_hits "$dev.h5")" "$same"
      done
      rm -f gpu.h5 cpu.h5
    done
  done
done
