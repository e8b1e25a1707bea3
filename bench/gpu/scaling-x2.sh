#!/usr/bin/env bash
# scaling-x2.sh - strong and weak scaling of the whole job on the GPUs of one
# host, one rank per GPU: STRONG GiB in all (default 4) and WEAK GiB per GPU
# (default 1) of real DNA in 1 GiB FASTA files of 4 Mbp records, indexed,
# 16000 8-mers, both strands, counts; median of 3 whole-process runs each;
# the counts of every rank count are compared. Each row also gives the
# /timing phases of its median run, the largest over the ranks (init, plan,
# read, scan, write, total), and the wall time outside them (start-up, exit).
#
#   bench/gpu/scaling-x2.sh BUILD_DIR WORK_DIR GENOME_SEQ [MAX_GPUS]
#
# GS_SCAN_ARGS: more options for every scan, e.g. "--readers 12" for the
# readers diagnostic rows.
set -uo pipefail
b=$1 w=$2 seq=$3 max=${4:-$(nvidia-smi -L | wc -l)}
STRONG=${STRONG:-4} WEAK=${WEAK:-1}
G=$b/gscan
mkdir -p "$w"
now() { date +%s.%N; }
cc -O2 -o "$w/mkfasta" bench/gpu/mkfasta.c && cc -O2 -o "$w/kmers" bench/cpu/kmers.c || exit 1
gib=1073741824 n_files=$((STRONG > WEAK * max ? STRONG : WEAK * max))
for ((i = 0; i < n_files; i++)); do
  [ -s "$w/g$i.fa.fai" ] || { "$w/mkfasta" "$seq" "$w/g$i.fa" $gib 4194304 60 && "$G" index "$w/g$i.fa"; } &
done
wait
sync # files just written are still being flushed: not while timing
"$w/kmers" -n 16000 -k 8 -s 42 "$w/g0.fa" >"$w/k.txt" || exit 1
files() { local i; for ((i = 0; i < $1; i++)); do printf '%s ' "$w/g$i.fa"; done; } # the first N files
phases="init plan read scan write total"
# the largest value over the ranks of /timing/$2 in file $1
phase() {
  h5dump -y -d "/timing/$2" "$1" 2>/dev/null |
    awk '/DATA \{/ { on = 1; next } /\}/ { on = 0 } on { gsub(",", " "); for (i = 1; i <= NF; i++) if ($i > m) m = $i }
         END { printf "%.3f", m }'
}
run() { # n files... -> "wall phases..." of the median of 3 runs
  local n=$1; shift
  : >"$w/t"
  for _ in 1 2 3; do
    local t0; t0=$(now)
    # shellcheck disable=SC2086
    mpiexec -n "$n" "$G" scan -q -d gpu -p "$w/k.txt" -o "$w/s$n.h5" ${GS_SCAN_ARGS:-} "$@" || return 1
    local wall; wall=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
    echo "$wall $(for p in $phases; do printf '%s ' "$(phase "$w/s$n.h5" $p)"; done)" >>"$w/t"
  done
  sort -n "$w/t" | sed -n 2p
}
# row STUDY N GIB "wall phases..." EFFICIENCY
row() {
  set -- "$1" "$2" "$3" $4 "$5"
  echo "| $1 | $2 | $3 | $4 | ${11} | $5 | $6 | $7 | $8 | $9 | ${10} | $(awk -v a="$4" -v b="${10}" 'BEGIN { printf "%.3f", a - b }') |"
}
echo "| study | GPUs | GiB | wall s (median of 3) | efficiency | init | plan | read | scan | write | total | outside |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
# shellcheck disable=SC2046
s1=$(run 1 $(files "$STRONG")); cp "$w/s1.h5" "$w/strong1.h5"
row strong 1 "$STRONG" "$s1" 1.00
for n in $(seq 2 "$max"); do
  # shellcheck disable=SC2046
  t=$(run "$n" $(files "$STRONG"))
  h5diff -q "$w/strong1.h5" "$w/s$n.h5" /counts /counts || echo "counts differ at $n GPUs"
  row strong "$n" "$STRONG" "$t" "$(awk -v a="${s1%% *}" -v b="${t%% *}" -v n="$n" 'BEGIN { printf "%.2f", a / b / n }')"
done
# shellcheck disable=SC2046
w1=$(run 1 $(files "$WEAK"))
row weak 1 "$WEAK" "$w1" 1.00
for n in $(seq 2 "$max"); do
  # shellcheck disable=SC2046
  t=$(run "$n" $(files $((WEAK * n))))
  row weak "$n" $((WEAK * n)) "$t" "$(awk -v a="${w1%% *}" -v b="${t%% *}" 'BEGIN { printf "%.2f", a / b }')"
done
