#!/usr/bin/env bash
# many-files.sh - the cost of a file: N small genomes (one record of L
# residues each, cut from one random 200 kb sequence) scanned for 1000
# 12-mers, counts only, as a directory argument, on R ranks each (default
# "1 4"). Prints per run: wall seconds and the result file's plan and scan
# phases (rank 0), so the per-file planning can be read against the scan.
#
#   bench/inputs/many-files.sh GSCAN [N=100000] [L=1000] [RUNS=3]
#   GS_RANKS="1 4" GS_DEVICE=cpu|gpu (default auto)
set -uo pipefail
G=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
n=${2:-100000} len=${3:-1000} runs=${4:-3}
w=${GS_WORK:-/tmp/gs_many}
mkdir -p "$w/g"
if [ "$(find "$w/g" -name '*.fa' | wc -l)" != "$n" ]; then
  rm -rf "$w/g" && mkdir -p "$w/g"
  python3 - "$w/g" "$n" "$len" <<'PY'
import random, sys
d, n, L = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
random.seed(7)
base = "".join(random.choice("ACGT") for _ in range(200000))
for i in range(n):
    o = random.randrange(0, len(base) - L)
    with open(f"{d}/g{i:06d}.fa", "w") as f:
        f.write(f">g{i}\n{base[o:o + L]}\n")
PY
  python3 -c 'import random; random.seed(8); print("\n".join("".join(random.choice("ACGT") for _ in range(12)) for _ in range(1000)))' >"$w/k.txt"
fi
phase() { h5dump -y -d "/timing/$2" "$1" 2>/dev/null | awk '/DATA \{/ { getline; sub(",", "", $1); print $1; exit }'; }
printf '| files | ranks | run | wall s | plan s | scan s |\n| --- | --- | --- | --- | --- | --- |\n'
for r in ${GS_RANKS:-1 4}; do
  for i in $(seq "$runs"); do
    t0=$(date +%s.%N)
    mpiexec -n "$r" "$G" scan -q -d "${GS_DEVICE:-auto}" -p "$w/k.txt" -o "$w/r.h5" "$w/g" || exit 1
    t1=$(date +%s.%N)
    printf '| %s | %s | %s | %.2f | %s | %s |\n' "$n" "$r" "$i" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
      "$(phase "$w/r.h5" plan)" "$(phase "$w/r.h5" scan)"
  done
done
