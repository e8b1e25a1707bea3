#!/usr/bin/env bash
# fastq.sh - reads as fast as records: N residues of real DNA as 150 bp
# FASTQ reads (plain, and gzip -1 in 16 members), and the same residues as
# an EST-like FASTA of 500 bp records, scanned for 1000 21-mers cut from the
# sequence, both strands, counts with --tally file; GPU and CPU -t THREADS
# whole-process wall time, the median of REPS runs, as G residues per
# second. Peers on a SUBSET of the reads where they are on PATH (seqkit
# locate -j THREADS; bbduk.sh with the same threads), with gscan on the same
# subset and threads in the same run.
#
#   bench/inputs/fastq.sh GSCAN SEQ
#   SEQ: bare sequence (headers and newlines dropped: scripts/device.sh makes
#   /tmp/gs_genomes.seq from .devdata/genomes.seq.xz)
#   RESIDUES (8589934592: 8 Gi residues, a 17 GiB FASTQ), REPS (3),
#   THREADS (16), DEVICES ("gpu cpu"), SUBSET (268435456 residues),
#   GS_WORK (/tmp/gs_fastq)
set -uo pipefail
G=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
seq=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
root=$(cd "$(dirname "$0")/../.." && pwd)
N=${RESIDUES:-8589934592} reps=${REPS:-3} T=${THREADS:-16} sub=${SUBSET:-268435456}
w=${GS_WORK:-/tmp/gs_fastq}
mkdir -p "$w" && cd "$w" || exit 1
cc -O2 -o mkfasta "$root/bench/gpu/mkfasta.c" && cc -O2 -o kmers "$root/bench/cpu/kmers.c" || exit 1
[ -s reads.fq ] || ./mkfasta "$seq" reads.fq "$N" 150 || exit 1
[ -s est.fa ] || ./mkfasta "$seq" est.fa "$N" 500 60 || exit 1
[ -s sub.fq ] || ./mkfasta "$seq" sub.fq "$sub" 150 || exit 1
if [ ! -s reads.fq.gz ]; then # gzip -1 in 16 members, compressed at once
  split -n 16 -d reads.fq part. && ls part.* | xargs -P 16 -n 1 gzip -1 &&
    cat part.*.gz > reads.fq.gz && rm -f part.* || exit 1
fi
[ -s k.txt ] || ./kmers -n 1000 -k 21 -s 42 est.fa > k.txt || exit 1

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
wall() { # command...: the median wall seconds of reps runs
  local i t0 t1
  for ((i = 0; i < reps; i++)); do
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || { echo "FAIL: $*" >&2; return 1; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
  done | median
}
row() { # label, residues, seconds
  printf '| %s | %.2f | %s | %.2f |\n' "$1" "$(awk -v n="$2" 'BEGIN { print n / 2^30 }')" "$3" \
    "$(awk -v n="$2" -v s="$3" 'BEGIN { print n / s / 1e9 }')"
}
gs() { "$G" scan -q "$@" -p k.txt --tally file -o "$w/r.h5"; }
echo "$(stat -c %s reads.fq) bytes of FASTQ, $(stat -c %s reads.fq.gz) gzip, $(stat -c %s est.fa) EST-like FASTA"
printf '| run | Gi residues | s | G residues/s |\n| --- | --- | --- | --- |\n'
for dev in ${DEVICES:-gpu cpu}; do
  d=(-d "$dev")
  [ "$dev" = cpu ] && d+=(-t "$T")
  row "gscan $dev, FASTQ 150 bp" "$N" "$(wall gs "${d[@]}" reads.fq)"
  row "gscan $dev, FASTQ gzip -1" "$N" "$(wall gs "${d[@]}" reads.fq.gz)"
  row "gscan $dev, EST-like FASTA 500 bp" "$N" "$(wall gs "${d[@]}" est.fa)"
done
row "gscan cpu -t $T, subset" "$sub" "$(wall gs -d cpu -t "$T" sub.fq)"
if command -v seqkit >/dev/null; then
  row "seqkit locate -j $T, subset" "$sub" "$(wall seqkit locate -j "$T" -f <(awk '{ print ">k" NR; print }' k.txt) sub.fq)"
fi
if command -v bbduk.sh >/dev/null; then
  row "bbduk k=21 t=$T, subset" "$sub" "$(wall bbduk.sh in=sub.fq ref=<(awk '{ print ">k" NR; print }' k.txt) k=21 t="$T" stats=bbduk.stats out=null)"
fi
