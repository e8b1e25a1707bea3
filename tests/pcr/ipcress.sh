#!/usr/bin/env bash
# ipcress.sh - gscan pcr against ipcress (exonerate) on E. coli K-12 MG1655
# (data/cache) with real, non-degenerate primers (16S 27F/1492R, 515F/806R,
# 341F/534R, 968F/1401R, uidA) and a pair of 12-mers that gives all four
# kinds, m = 0, 1, 2: the same products, coordinates and mismatch counts.
#
# ipcress writes "ipcress: SEQ:filter(unmasked) PAIR SIZE P5 POS5 MM5 P3 POS3
# MM3 KIND", POS5 and POS3 the 0-based first residues of the forward- and
# reverse-strand sites and SIZE the product's length. gscan pcr's row is
# (pair, record, start, end, kind, mismatches_5, mismatches_3, size), so
# start = POS5, end = POS5 + SIZE, and POS3 + |P3| = end is checked too.
# Exit 77 without ipcress or the genome.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MPIEXEC=${MPIEXEC:-mpiexec}
# shellcheck source=ecoli_pairs.sh
source "$(dirname "$0")/ecoli_pairs.sh"
pcr_setup ipcress " (apt-get install exonerate)"
for m in 0 1 2; do
  ipcress -i pairs.tsv -s ec.fa -m $m 2>/dev/null | grep '^ipcress:' |
    awk 'FILENAME == "pairs.tsv" { len[$1 "A"] = length($2); len[$1 "B"] = length($3); next }
      { sub(/:filter\(unmasked\)$/, "", $2); end = $6 + $4
        if ($9 + len[$3 $8] != end) print "BAD reverse site " $0
        print $3 "\t" $2 "\t" $6 "\t" end "\t" $11 "\t" $7 "\t" $10 "\t" $4 }' pairs.tsv - |
    LC_ALL=C sort > want.tsv
  "$GSCAN" pcr -q -p pairs.tsv --max-mismatches $m -o - ec.fa | tail -n +2 | LC_ALL=C sort > got.tsv
  kinds=$(cut -f5 got.tsv | sort -u | tr '\n' ' ')
  if cmp -s want.tsv got.tsv; then
    echo "m=$m: $(wc -l < got.tsv) products agree (kinds: $kinds)"
  else
    echo "FAIL m=$m"; diff want.tsv got.tsv | head -5; fails=$((fails + 1))
  fi
done
[ "$(cut -f5 got.tsv | sort -u | wc -l)" = 4 ] || { echo "FAIL: not all four kinds at m=2"; fails=$((fails + 1)); }
"$MPIEXEC" -n 3 "$GSCAN" pcr -q -p pairs.tsv --max-mismatches 2 --block-size 100000 -o - ec.fa |
  tail -n +2 | LC_ALL=C sort > got3.tsv
cmp -s want.tsv got3.tsv || { echo "FAIL m=2 at 3 ranks"; fails=$((fails + 1)); }
[ "$fails" = 0 ]
