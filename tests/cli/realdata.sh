#!/usr/bin/env bash
# realdata.sh - gscan on real genomes against an independent method: the
# counts of data/patterns/demo.fa in E. coli K-12 and lambda phage made once
# with `seqkit locate` (tests/data/real/*.tsv say how), per record, pattern
# and strand, and lambda's hits position by position. Every engine, and
# plain and gzip input; lambda through a pipe and a FIFO equals the file.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! "$root/scripts/fetch-examples.sh" bowtie2-examples ragout-examples >/dev/null 2>&1; then
  echo "realdata.sh: SKIPPED: cannot unpack the example genomes (apt-get download failed)"; exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
cache=$root/data/cache
zcat "$cache/ecoli_mg1655.fa.gz" > ecoli.fa
zcat "$cache/lambda_virus.fa.gz" > lambda.fa
grep -v '^#' "$root/tests/data/real/demo_seqkit_counts.tsv" | sort > want_counts.tsv
grep -v '^#' "$root/tests/data/real/lambda_seqkit_hits.tsv" | sort > want_hits.tsv
fails=0
for e in ac wm rk; do
  for input in plain gzip; do
    if [ $input = plain ]; then files=(ecoli.fa lambda.fa); else files=("$cache/ecoli_mg1655.fa.gz" "$cache/lambda_virus.fa.gz"); fi
    "$GSCAN" scan -q -e $e --report hits -p "$root/data/patterns/demo.fa" -o r.h5 "${files[@]}"
    "$GSCAN" export r.h5 --format tsv > hits.tsv
    tail -n +2 hits.tsv | awk -F'\t' -v OFS='\t' '{c[$1 OFS $4 OFS $5]++} END {for (k in c) print k, c[k]}' | sort > got_counts.tsv
    tail -n +2 hits.tsv | awk -F'\t' -v OFS='\t' '$1 ~ /NC_001416/ {print $1, $2, $5, $4}' | sort > got_hits.tsv
    if ! diff -q want_counts.tsv got_counts.tsv >/dev/null; then
      echo "FAIL $e $input: counts differ from seqkit:"; diff want_counts.tsv got_counts.tsv | head; fails=$((fails + 1))
    fi
    if ! diff -q want_hits.tsv got_hits.tsv >/dev/null; then
      echo "FAIL $e $input: lambda hits differ from seqkit:"; diff want_hits.tsv got_hits.tsv | head; fails=$((fails + 1))
    fi
  done
done
# lambda through a pipe ("-") and a FIFO: the same records, counts and hits
# as the file
pat=$root/data/patterns/demo.fa
"$GSCAN" scan -q --report hits -p "$pat" -o file.h5 lambda.fa
cat lambda.fa | "$GSCAN" scan -q --report hits -p "$pat" -o pipe.h5 -
rm -f ff && mkfifo ff && { zcat "$cache/lambda_virus.fa.gz" > ff & }
"$GSCAN" scan -q --report hits -p "$pat" -o fifo.h5 ff
wait
for r in pipe fifo; do
  for d in /records /counts /hits; do
    if ! h5diff -q file.h5 $r.h5 $d $d >/dev/null 2>&1; then
      echo "FAIL lambda through a $r: $d differs from the file"; fails=$((fails + 1)); break
    fi
  done
done
echo "realdata.sh: $((8 - fails)) passed, $fails failed"
[ $fails = 0 ]
