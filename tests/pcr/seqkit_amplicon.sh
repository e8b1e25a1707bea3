#!/usr/bin/env bash
# seqkit_amplicon.sh - gscan pcr against seqkit amplicon on E. coli K-12
# MG1655 (data/cache) with real, non-degenerate 16S and uidA primers,
# m = 0, 1, 2, where seqkit's rule applies: it reports one product per
# (pair, record, strand), from the first forward site to the last reverse
# one, the longest; gscan reports every product. So with the window open to
# the whole record, gscan's longest product of each (pair, record, kind
# forward or revcomp) must be seqkit's. seqkit's BED counts a '-' product's
# coordinates on the reverse complement (from the record's end); they are
# mapped to forward coordinates here. Exit 77 without seqkit or the genome.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
# shellcheck source=ecoli_pairs.sh
source "$(dirname "$0")/ecoli_pairs.sh"
pcr_setup seqkit ""
# seqkit's three columns, the five 16S and uidA pairs
head -5 pairs.tsv | cut -f1-3 > pairs3.tsv && mv pairs3.tsv pairs.tsv
L=$(seqkit fx2tab -n -l ec.fa | cut -f2)
ms="0 1 2"
[ "${GS_TEST_QUICK:-0}" = 1 ] && ms="0 2" # seqkit takes ~15 s for each m > 0
for m in $ms; do
  seqkit amplicon -p pairs.tsv -m $m --bed ec.fa 2>/dev/null |
    awk -v L="$L" -v OFS='\t' '{ s = $2; e = $3; if ($6 == "-") { s = L - $3; e = L - $2 }
      print $4, $1, s, e, ($6 == "+" ? "forward" : "revcomp") }' | LC_ALL=C sort > want.tsv
  "$GSCAN" pcr -q -p pairs.tsv --max-mismatches $m --product-size "1-$L" -o - ec.fa | tail -n +2 |
    awk -v OFS='\t' '$5 == "forward" || $5 == "revcomp" { k = $1 OFS $2 OFS $5
        if (!(k in row) || $4 - $3 > size[k]) { row[k] = $1 OFS $2 OFS $3 OFS $4 OFS $5; size[k] = $4 - $3 } }
      END { for (k in row) print row[k] }' | LC_ALL=C sort > got.tsv
  if [ -s want.tsv ] && cmp -s want.tsv got.tsv; then
    echo "m=$m: the $(wc -l < got.tsv) longest products agree"
  else
    echo "FAIL m=$m"; diff want.tsv got.tsv | head -5; fails=$((fails + 1))
  fi
done
[ "$fails" = 0 ]
