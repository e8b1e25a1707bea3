#!/usr/bin/env bash
# est.sh - an EST-like corpus (thousands of short records read through
# its .fai) gives the brute-force engine's result at 1, 2 and 3 ranks (hits
# at 1 and 2, counts at 1 and 3), 1 and 2 threads, 1 and 2 reading threads
# per rank, and blocks that split the longer records: /counts, /hits and
# /records compared with h5diff. The reference reads the same file without its index (the streaming
# reader), so the index path (one block of names, read-ahead of short
# records, the layout broadcast, the plan) is checked against an independent
# one. The corpus has empty records, names longer than a line, names that
# repeat (both paths must warn, naming the same first pair), line widths that
# differ between records, lowercase and N runs, and real DNA (lambda phage)
# when data/cache has it.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MPIEXEC=${MPIEXEC:-mpiexec}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# random text and patterns (some cut from the text, some with IUPAC codes);
# then the text, plus lambda when present, is dealt into records
"$GSCAN" gen -o g -s 31 -n 600K -k 100 --min-length 7 --max-length 14 --planted 0.7 \
  --degenerate 0.1 --lowercase 0.05 --n-runs 40
{
  grep -v '^>' g.fa | tr -d '\n'
  lambda=$root/data/cache/lambda_virus.fa.gz
  [ -f "$lambda" ] && zcat "$lambda" | grep -v '^>' | tr -d '\n\r'
} >text.seq
awk -v seed=7 'BEGIN { srand(seed) }
  { text = $0 }
  END {
    n = length(text); at = 1; r = 0
    long = "x"; while (length(long) < 300) long = long "_long_est_name"
    while (at <= n) {
      r++
      u = rand()
      len = u < 0.03 ? 0 : u < 0.06 ? int(1000 + rand() * 3000) : int(20 + rand() * 250)
      if (at + len > n + 1) len = n + 1 - at
      name = "est" r
      if (r % 97 == 0) name = "est" int(r / 2)         # repeats an earlier name
      if (r % 501 == 0) name = long r                 # longer than any line
      printf(">%s %s\n", name, (r % 3 ? "cDNA clone" : ""))
      w = (r % 4 == 0) ? 50 : (r % 4 == 1) ? 60 : (r % 4 == 2) ? 70 : 80
      for (i = 0; i < len; i += w) print substr(text, at + i, (len - i < w ? len - i : w))
      at += len
    }
  }' text.seq >est.fa
cp est.fa ref.fa # the same text with no index: read by the streaming reader
"$GSCAN" index est.fa
nrec=$(wc -l <est.fa.fai)
[ "$nrec" -gt 2500 ] || fail "only $nrec records"
awk '$2 == 0 { e++ } END { exit !(e > 30) }' est.fa.fai || fail "too few empty records"

same() { # a.h5 b.h5 label datasets...
  local a=$1 b=$2 label=$3 d
  shift 3
  for d in "$@"; do
    h5diff -q "$a" "$b" "$d" "$d" >/dev/null 2>&1 || { fail "$label: $d differs"; return; }
  done
}
warning() { grep -o "warning: [0-9]* record(s) repeat.*" "$1" | sed 's/ (\(est\|ref\)\.fa)/ (FILE)/g'; }

[ "$(stat -c %s est.fa.fai)" -ge 65536 ] || fail "the index is too small to be dense"
# one reference run: its /counts serve the counts runs too
"$GSCAN" scan -q --report hits --strand both -p g.patterns -e bf -d cpu -t 1 -o ref.h5 ref.fa 2>ref.err
[ -n "$(warning ref.err)" ] || fail "the reference did not warn about repeated names"
for report in hits counts; do
  opts=(-q --report "$report" --strand both -p g.patterns)
  sets=(/counts /records)
  [ "$report" = hits ] && sets+=(/hits)
  # 3 ranks write counts only: on a 2-core machine an oversubscribed
  # collective hit write spends seconds busy-polling (ranks.sh covers it)
  runs=("1 1 1 16M" "1 2 2 16M" "2 1 1 2K" "2 1 2 16M")
  [ "$report" = counts ] && runs=("1 2 1 16M" "3 1 1 1500")
  # one rank streams a file of short records (in parts, with two readers)
  # rather than read it through its dense .fai, unless told to use it
  # (io.fai.dense=-1): both paths checked
  runs+=("1 2 2 16M io.fai.dense=-1")
  for run in "${runs[@]}"; do
    read -r n t r block tune <<<"$run"
    label="$report n=$n -t $t --readers $r --block-size $block${tune:+ --tune $tune}"
    if ! "$MPIEXEC" -n "$n" "$GSCAN" scan "${opts[@]}" -d cpu -t "$t" --readers "$r" \
      --block-size "$block" ${tune:+--tune "$tune"} --debug time -o est.h5 est.fa 2>est.err; then
      fail "$label: exit status"; cat est.err; continue
    fi
    way=stream; grep -q "^gscan: plan: indexes" est.err && way=index
    want=index; [ "$n" = 1 ] && [ -z "$tune" ] && want=stream
    [ "$way" = "$want" ] || fail "$label: read by $way, not by $want"
    same ref.h5 est.h5 "$label" "${sets[@]}"
    [ "$(warning est.err)" = "$(warning ref.err)" ] ||
      fail "$label: warning differs: '$(warning est.err)' vs '$(warning ref.err)'"
  done
done
# the record table: every record of the index, in its order, names whole
rows=$(h5dump -H -d /records/name est.h5 | grep -o 'DATASPACE  SIMPLE { ( [0-9]* )' | grep -o '[0-9]*')
[ "$rows" = "$nrec" ] || fail "/records/name has $rows rows, the index $nrec"
if [ $fails -gt 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "est: $nrec records, 8 runs agree with the brute-force engine"
