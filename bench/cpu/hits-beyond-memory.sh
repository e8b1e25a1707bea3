#!/usr/bin/env bash
# hits-beyond-memory.sh - a hits-heavy scan (NNNN on both strands over
# random DNA: two hits a residue) in memory and under --max-memory budgets
# that force spilling: wall time, peak RSS (/usr/bin/time -v), the scan
# and write phases (/timing), what spilled (--debug time), and that /hits
# is the same. Usage: bench/cpu/hits-beyond-memory.sh build/gscan
# (N=24M residues, BUDGETS="256M 64M", THREADS=2; the in-memory run needs
# ~34 bytes a hit resident, 1.6 GB at 50 M hits).
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
N=${N:-24M} BUDGETS=${BUDGETS:-"256M 64M"} THREADS=${THREADS:-2}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$GSCAN" gen -o c -s 7 -n "$N" -r 4 -k 1 >/dev/null
"$GSCAN" index c.fa
printf 'a\tNNNN\n' > n.tsv
phase() { h5dump -d "/timing/$2" "$1" 2>/dev/null | grep -o '(0): [0-9.e-]*' | cut -c6-; }
row() { # LABEL OUT [options...]
  local label=$1 out=$2
  shift 2
  /usr/bin/time -v "$GSCAN" scan -t "$THREADS" -p n.tsv --report hits --debug time -o "$out" \
    "$@" c.fa 2> err
  local wall rss
  wall=$(grep 'Elapsed (wall' err | awk '{print $NF}')
  rss=$(grep 'Maximum resident' err | awk '{print $NF}')
  printf '| %s | %s | %s MB | %s | %s | %s |\n' "$label" "$wall" "$((rss / 1024))" \
    "$(phase "$out" scan)" "$(phase "$out" write)" \
    "$(grep -o 'spilled [0-9]* hits in [0-9]* runs ([0-9]* bytes' err || echo -)"
}
echo "| run | wall | peak RSS | scan s | write s | spilled |"
echo "|---|---|---|---|---|---|"
row "in memory" ref.h5
for b in $BUDGETS; do
  row "--max-memory $b" "s$b.h5" --max-memory "$b"
  h5diff -q ref.h5 "s$b.h5" /hits /hits || echo "FAIL: /hits differ at --max-memory $b"
done
echo "hits: $(h5dump -H ref.h5 | grep -A2 '"start"' | grep -o '( [0-9]* )')"
