#!/usr/bin/env bash
# approx-peers.sh - approximate primer search on the CPU: gscan against
# seqkit locate -m K and Hyperscan's hs_expr_ext, whole process, same threads.
#
# Workload: E. coli MG1655 (data/cache/ecoli_mg1655.fa.gz, 4.64 Mbp), N
# primers of 18-30 nt cut from it (seeded), K mismatches or edits, both
# strands (seqkit and Hyperscan get each primer and its reverse complement).
# Checks that gscan's mismatch hits equal seqkit's and Hyperscan's match
# count. Environment: RUNS (3), THREADS (2), K (3), N (100), SEED (7),
# PEERS ("seqkit hs"; empty: gscan alone). Writes approx-peers.tsv (medians) to the work
# directory ($GS_BENCH_DIR or /tmp/gscan-bench).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=${RUNS:-3} THREADS=${THREADS:-2} K=${K:-3} N=${N:-100} SEED=${SEED:-7}
PEERS=${PEERS-seqkit hs}
work=${GS_BENCH_DIR:-/tmp/gscan-bench}
build=${GS_BUILD:-$root/build-bench}
mkdir -p "$work"
[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DGS_CUDA=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target gscan >/dev/null
gscan=$build/gscan
cd "$work"
[ -f ecoli.fa ] || zcat "$root/data/cache/ecoli_mg1655.fa.gz" > ecoli.fa
# primers: N stretches of 18-30 nt, seeded; p.fa/p2.seq for the peers
python3 - "$N" "$SEED" <<'EOF'
import random, sys
n, seed = int(sys.argv[1]), int(sys.argv[2])
random.seed(seed)
seq = ''.join(l.strip() for l in open('ecoli.fa') if not l.startswith('>')).upper()
comp = {'A': 'T', 'C': 'G', 'G': 'C', 'T': 'A'}
with open('primers.txt', 'w') as t, open('primers.fa', 'w') as f, open('primers2.seq', 'w') as h:
    for i in range(n):
        m = random.randint(18, 30)
        at = random.randrange(len(seq) - m)
        p = seq[at:at + m]
        t.write('pr%d\t%s\n' % (i + 1, p))
        f.write('>pr%d\n%s\n' % (i + 1, p))
        h.write(p + '\n' + ''.join(comp[c] for c in reversed(p)) + '\n')
EOF
if [[ " $PEERS " == *" hs "* ]]; then
  cc -O2 "$root/bench/cpu/hs_count.c" -lhs -lpthread -o hs_count
fi
tm() { # label command...: append "label wall user" of one run
  local label=$1
  shift
  /usr/bin/time -f "%e %U" -o t.out "$@" >/dev/null 2>&1
  echo "$label $(cat t.out)" >> runs.txt
}
: > runs.txt
for _ in $(seq "$RUNS"); do
  tm gscan-mismatches "$gscan" scan -q -t "$THREADS" --max-mismatches "$K" --report hits -p primers.txt -o m.h5 ecoli.fa
  tm gscan-edits "$gscan" scan -q -t "$THREADS" --max-edits "$K" --report hits -p primers.txt -o e.h5 ecoli.fa
  [[ " $PEERS " == *" seqkit "* ]] && tm seqkit-m "$(command -v seqkit)" locate -j "$THREADS" -m "$K" -f primers.fa ecoli.fa
  if [[ " $PEERS " == *" hs "* ]]; then
    tm hs-hamming ./hs_count -t "$THREADS" -m "$K" primers2.seq ecoli.fa
    tm hs-edits ./hs_count -t "$THREADS" -e "$K" primers2.seq ecoli.fa
  fi
done
# medians, and the hit check
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
awk '{ print $1 }' runs.txt | sort -u | while read -r label; do
  printf '%s\t%s\t%s\n' "$label" "$(awk -v l="$label" '$1 == l { print $2 }' runs.txt | median)" \
    "$(awk -v l="$label" '$1 == l { print $3 }' runs.txt | median)"
done > approx-peers.tsv
printf 'tool\twall_s\tuser_s\n'; cat approx-peers.tsv
gm=$("$gscan" info m.h5 | awk '/^hits:/ { print $2 }')
echo "gscan --max-mismatches $K: $gm hits"
if [[ " $PEERS " == *" seqkit "* ]]; then
  sk=$(seqkit locate -j "$THREADS" -m "$K" -f primers.fa ecoli.fa | tail -n +2 | wc -l)
  echo "seqkit locate -m $K: $sk hits"
  [ "$sk" = "$gm" ] || { echo "hit counts differ"; exit 4; }
fi
