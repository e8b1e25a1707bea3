#!/usr/bin/env bash
# pipeline.sh - the whole GPU path of `gscan scan` (readers parsing into
# page-locked batches, batches packed into GPU launches, hits mapped back)
# against the CPU brute-force engine, end to end: many short records and one
# long one, tiny and default blocks, indexed input with several readers,
# both strands, hits and counts. Exits 77 where no GPU is visible.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
printf '>r\nACGT\n' >probe.fa
printf 'ACG\n' >probe.txt
if ! "$GSCAN" scan -q -d gpu -p probe.txt -o probe.h5 probe.fa 2>/dev/null; then
  echo "pipeline.sh: no GPU visible, skipped"
  exit 77
fi
fails=0 runs=0
check() { # name with_hits: out.h5 against ref.h5
  runs=$((runs + 1))
  if ! h5diff -q ref.h5 out.h5 /counts /counts >/dev/null ||
     { [ "$2" = 1 ] && ! h5diff -q ref.h5 out.h5 /hits /hits >/dev/null; }; then
    echo "FAIL $1"; fails=$((fails + 1))
  fi
}
for seed in 1 2 3; do
  # (block, records): a 37-residue block makes one GPU launch per block, so
  # it runs on the smallest workload only
  case $seed in
    1) gen=(-n 400K -r 800 -k 1000 --min-length 4 --max-length 24); blocks="16M 1000" ;;  # ESTs
    2) gen=(-n 600K -r 2 -k 2000 --min-length 8 --max-length 8); blocks="16M 1000" ;;     # chromosomes
    3) gen=(-n 20K -r 30 -k 300 --min-length 1 --max-length 40); blocks="16M 37" ;;
  esac
  "$GSCAN" gen -o w -s "$seed" "${gen[@]}" --planted 0.6 --degenerate 0.1 --palindromes 0.1 \
    --lowercase 0.1 --n-runs 20 --line-width 60
  for strand in both forward; do
    "$GSCAN" scan -q -d cpu -e bf -t 2 --strand $strand --report hits -p w.patterns -o ref.h5 w.fa
    for block in $blocks; do
      for e in ac wm rk; do
        "$GSCAN" scan -q -d gpu -e $e --block-size $block --strand $strand --report hits \
          -p w.patterns -o out.h5 w.fa
        check "seed=$seed $e strand=$strand block=$block hits" 1
      done
      "$GSCAN" scan -q -d gpu -e ac --block-size $block --strand $strand -p w.patterns -o out.h5 w.fa
      check "seed=$seed ac strand=$strand block=$block counts" 0
    done
    "$GSCAN" index w.fa
    for readers in 1 3; do
      "$GSCAN" scan -q -d gpu -e ac --readers $readers --block-size 4096 --strand $strand \
        --report hits -p w.patterns -o out.h5 w.fa
      check "seed=$seed indexed readers=$readers strand=$strand hits" 1
    done
    rm -f w.fa.fai
  done
done
# n_gpus: the distinct GPUs the ranks took, whether each rank sees all of
# the node's GPUs or (as under Slurm's --gpus-per-task=1) only its own
MPIEXEC=${MPIEXEC:-mpiexec}
n_gpus() { h5dump -a /n_gpus "$1" | awk '/\(0\)/ { print $2 }'; }
if [ -z "${CUDA_VISIBLE_DEVICES+x}" ] && command -v nvidia-smi >/dev/null; then
  seen=$(nvidia-smi -L | grep -c '^GPU') want=$((seen < 2 ? seen : 2))
  cat >own.sh <<'X'
#!/bin/sh
n=$1
shift
export CUDA_VISIBLE_DEVICES=$((${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}} % n))
exec "$@"
X
  "$MPIEXEC" -n 2 "$GSCAN" scan -q -d gpu -p probe.txt -o out.h5 probe.fa
  runs=$((runs + 1)); [ "$(n_gpus out.h5)" = "$want" ] || { echo "FAIL n_gpus $(n_gpus out.h5), not $want"; fails=$((fails + 1)); }
  "$MPIEXEC" -n 2 sh own.sh "$seen" "$GSCAN" scan -q -d gpu -p probe.txt -o out.h5 probe.fa
  runs=$((runs + 1)); [ "$(n_gpus out.h5)" = "$want" ] ||
    { echo "FAIL n_gpus $(n_gpus out.h5) with one GPU a rank, not $want"; fails=$((fails + 1)); }
fi
echo "pipeline.sh: $((runs - fails)) passed, $fails failed"
[ $fails = 0 ]
