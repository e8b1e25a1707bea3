#!/usr/bin/env bash
# tally-cost.sh - what `--tally record` costs: 1000 primers (20-24 nt, half
# cut from the genome) over V+1 strains of a real bacterial genome (gscan
# gen --base --variants: 0.1% SNPs, 0.01% short indels; 1000 strains of
# E. coli are 4.7 GB) and over EST-like records (R records of ~500 residues),
# counts only, both strands. Each run with and without --tally record on
# each device, the median of REPS whole-process runs, in the same run; then
# the LZ index of the strains (gscan index --lz) scanned with and without.
# The EST-like records are also scanned for 1000 random 8-mers: tens of
# millions of hits, where the tally costs most.
#
#   bench/inputs/tally-cost.sh GSCAN
#   V (999), R (2100000), REPS (3), DEVICES ("gpu cpu"), THREADS (16),
#   LZ (1: the index rows; building it takes minutes at 1000 strains;
#   only: the index rows alone), EST (1: the EST-like rows),
#   BASE (a FASTA, default .devdata/ecoli_mg1655.fa.gz), GS_WORK (/tmp/gs_tally)
set -uo pipefail
G=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
V=${V:-999} R=${R:-2100000} reps=${REPS:-3} T=${THREADS:-16}
BASE=${BASE:-$root/.devdata/ecoli_mg1655.fa.gz}
w=${GS_WORK:-/tmp/gs_tally}
mkdir -p "$w" && cd "$w" || exit 1
[ -s strains.fa ] || "$G" gen -o strains --base "$BASE" --variants "$V" -k 1000 \
  --min-length 20 --max-length 24 -s 11 >/dev/null || exit 1
[ "${EST:-1}" = 0 ] || [ -s est.fa ] || "$G" gen -o est -n $((R * 500)) -r "$R" -k 1000 --min-length 20 \
  --max-length 24 -s 12 >/dev/null || exit 1
[ "${EST:-1}" = 0 ] || [ -s k8.patterns ] || "$G" gen -o k8 -n 1000 -k 1000 --min-length 8 \
  --max-length 8 -s 13 >/dev/null || exit 1

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
run() { # label, args...: the median wall seconds of reps runs
  local i t0 t1 label=$1
  shift
  for ((i = 0; i < reps; i++)); do
    t0=$(date +%s.%N)
    "$G" scan -q "$@" -o "$w/r.h5" >/dev/null || { echo "FAIL $label" >&2; return 1; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
  done | median
}
row() { # corpus label, device, args...
  local what=$1 dev=$2 plain with
  shift 2
  local devargs=(-d "$dev")
  [ "$dev" = cpu ] && devargs+=(-t "$T")
  plain=$(run "$what $dev" "${devargs[@]}" "$@") || return
  with=$(run "$what $dev tally" "${devargs[@]}" --tally record "$@") || return
  printf '| %s | %s | %s | %s | %s |\n' "$what" "$dev" "$plain" "$with" \
    "$(awk -v a="$plain" -v b="$with" 'BEGIN { printf "%+.1f%%", 100 * (b - a) / a }')"
}
sz() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.2f GB", b / 1e9 }'; }
echo "strains: $((V + 1)) records, $(sz strains.fa); 1000 primers"
printf '| corpus | device | counts s | --tally record s | cost |\n| --- | --- | --- | --- | --- |\n'
for dev in ${DEVICES:-gpu cpu}; do
  [ "${LZ:-1}" = only ] && break
  row "strains" "$dev" -p strains.patterns strains.fa
  [ "${EST:-1}" = 0 ] || row "EST-like, $R records" "$dev" -p est.patterns est.fa
  # many hits: 1000 random 8-mers hit the EST-like records ~30 M times
  [ "${EST:-1}" = 0 ] || row "EST-like, $R records, 1000 8-mers" "$dev" -p k8.patterns est.fa
done
if [ "${LZ:-1}" != 0 ]; then
  [ -s strains.gsx ] || "$G" index --lz -o strains.gsx strains.fa >/dev/null || exit 1
  for dev in ${DEVICES:-gpu cpu}; do
    row "strains --index" "$dev" -p strains.patterns --index strains.gsx
  done
fi
