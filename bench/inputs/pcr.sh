#!/usr/bin/env bash
# pcr.sh - gscan pcr against ipcress: 20 published primer pairs (16S V1-V9
# regions, 23S, and protein-coding markers), K = 2 mismatches, over V+1
# strains of a real bacterial genome (gscan gen --base --variants: 1000
# strains of E. coli K-12 are 4.7 GB). Rows: gscan -d gpu, gscan -d cpu -t
# THREADS, and ipcress -m 2 as P parallel processes over P slices of the
# strains (whole records); the median of REPS whole-process runs each, then
# whether gscan's products (without --exact-3p, which ipcress lacks) equal
# ipcress's, coordinates and mismatches included (tests/pcr/ipcress.sh
# maps the columns the same way).
#
# ipcress's default seed (-S 12) counts an IUPAC code among a primer's 12
# 3'-most positions as a mismatch even where the base is one it stands for
# (341F's W, 806R's W and N, ...): its mismatch counts are then higher and a
# site at the limit is lost. With -S 0 (the whole primer) its products equal
# gscan's exactly, degenerate primers included (375 = 375 products at V = 3),
# but it ran ~90x slower there (7.5 min for 19 MB on 2 processes). So the
# timed row uses the default seed, and the comparison says which products
# agree in place and kind and which differ only in mismatch counts;
# IPCRESS_SEED=0 times and compares the exact configuration instead.
#
#   bench/inputs/pcr.sh GSCAN
#   V (999), REPS (3), THREADS (16), P (16), EXACT3P (3: when this gscan
#   takes --exact-3p; 0: none), DEVICES ("gpu cpu"), IPCRESS (1: the ipcress
#   row and the comparison), IPCRESS_SEED (12, ipcress's default), BASE (a FASTA, default
#   .devdata/ecoli_mg1655.fa.gz), GS_WORK (/tmp/gs_pcr)
set -uo pipefail
G=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
V=${V:-999} reps=${REPS:-3} T=${THREADS:-16} P=${P:-16} E3=${EXACT3P:-3}
BASE=${BASE:-$root/.devdata/ecoli_mg1655.fa.gz}
w=${GS_WORK:-/tmp/gs_pcr}
mkdir -p "$w" && cd "$w" || exit 1
[ -s strains.fa ] || "$G" gen -o strains --base "$BASE" --variants "$V" -k 1 -s 11 >/dev/null ||
  exit 1

# name, A, B, smallest and largest product (whitespace-separated: ipcress
# reads the same file). 16S: Lane 1991 (27F, 1492R), Klindworth 2013
# (341F/785R), Parada 2016 and Apprill 2015 (515F-Y, 806RB), Parada 2016
# (926R), Chelius 2001 (799F, 1193R), Sogin 2006 (967F), Turner 1999
# (1391R), Turner 1999 / Lane 1991 (1115F), Muyzer 1993 (341F, 518R),
# Edwards 1989 (8F); 23S: Hunt 2006; rpoB: Dahllof 2000; gyrB: Yamamoto
# 1995 (UP-1, UP-2r); uidA: Frahm 2003; stx1, eae: Paton 1998; nifH: Poly
# 2001 (PolF, PolR); amoA: Rotthauwe 1997.
cat > pairs.tsv <<'PAIRS'
V1-V9_27F-1492R	AGAGTTTGATCMTGGCTCAG	GGTTACCTTGTTACGACTT	1300	1600
V1-V2_27F-338R	AGAGTTTGATCMTGGCTCAG	GCTGCCTCCCGTAGGAGT	250	400
V1-V3_8F-534R	AGAGTTTGATCCTGGCTCAG	ATTACCGCGGCTGCTGG	400	600
V3-V4_341F-785R	CCTACGGGNGGCWGCAG	GACTACHVGGGTATCTAATCC	380	500
V4_515F-806R	GTGYCAGCMGCCGCGGTAA	GGACTACNVGGGTWTCTAAT	250	350
V4-V5_515F-926R	GTGYCAGCMGCCGCGGTAA	CCGYCAATTYMTTTRAGTTT	350	450
V5-V7_799F-1193R	AACMGGATTAGATACCCKG	ACGTCATCCCCACCTTCC	350	450
V6-V8_967F-1391R	CAACGCGAAGAACCTTACC	GACGGGCGGTGTGTRCA	380	500
V7-V9_1115F-1492R	CAACGAGCGCAACCCT	GGTTACCTTGTTACGACTT	350	450
V3_341F-518R	CCTACGGGAGGCAGCAG	ATTACCGCGGCTGCTGG	150	220
V6_967F-1046R	CAACGCGAAGAACCTTACC	CGACAGCCATGCANCACCT	60	140
V4_519F-806R	CAGCMGCCGCGGTAATWC	GGACTACHVGGGTWTCTAAT	250	330
23S_129F-2241R	CYGAATGGGRVAACC	ACCGCCCCAGTHAAACT	1900	2300
rpoB_1698F-2041R	AACATCGGTTTGATCAAC	CGTTGCATGTTGGTACCCAT	300	400
gyrB_UP-1-UP-2r	GAAGTCATCATGACCGTTCTGCAYGCNGGNGGNAARTTYGA	AGCAGGGTACGGATGTGCGAGCCRTCNACRTCNGCRTCNGTCAT	1100	1400
uidA_784F-866R	GTGTGATATCTACCCGCTTCGC	AGAACGGTTTGTGGTTAATCAGGA	60	120
stx1_F-R	ATAAATCGCCATTCGTTGACTAC	AGAACGCCCACTGAGATCATC	150	250
eae_F-R	GACCCGGCACAAGCATAAGC	CCACCTGCAGCAACAAGAGG	350	450
nifH_PolF-PolR	TGCGAYCCSAARGCBGACTC	ATSGCCATCATYTCRCCGGA	300	400
amoA_1F-2R	GGGGTTTCTACTGGTGGT	CCCCTCKGSAAAGCCTTCTTC	450	550
PAIRS

printf '>t\nACGT\n' > tiny.fa
e3=()
if [ "$E3" != 0 ] && "$G" pcr -q --exact-3p "$E3" -p pairs.tsv -o tiny.tsv tiny.fa 2>/dev/null; then
  e3=(--exact-3p "$E3")
elif [ "$E3" != 0 ]; then
  echo "note: this gscan does not take --exact-3p $E3; rows without it"
fi

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
timed() { # command...: wall seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null || return 1
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
gscan_run() { "$G" pcr -q -p pairs.tsv --max-mismatches 2 "$@" strains.fa; }
ipcress_run() { # P processes, one slice each
  printf "%s\n" slice.*.fa | xargs -P "$P" -I{} sh -c \
    "ipcress -i pairs.tsv -s {} -m 2 -S ${IPCRESS_SEED:-12} 2>/dev/null > {}.ip"
}
row() { # label, command...
  local label=$1 i s
  shift
  s=$(for ((i = 0; i < reps; i++)); do timed "$@" || echo FAIL; done | median)
  printf '| %s | %s | %s |\n' "$label" "$s" \
    "$(awk -v s="$s" -v b="$(stat -c %s strains.fa)" 'BEGIN { printf "%.0f", b / 1e6 / s }')"
}

echo "strains: $((V + 1)) records, $(stat -c %s strains.fa) bytes; 20 pairs, K = 2 ${e3[*]}"
printf '| run | s (median of %d) | MB/s |\n| --- | --- | --- |\n' "$reps"
for dev in ${DEVICES:-gpu cpu}; do
  args=(-d "$dev")
  [ "$dev" = cpu ] && args+=(-t "$T")
  row "gscan pcr -d $dev ${args[*]:2}" gscan_run "${args[@]}" "${e3[@]}" -o products.h5
done
[ "${IPCRESS:-1}" = 0 ] && exit 0
command -v ipcress >/dev/null || { echo "no ipcress (apt-get install exonerate)"; exit 0; }
[ -s slice.0.fa ] || awk -v p="$P" -v n="$(grep -c '^>' strains.fa)" '
  /^>/ { f = "slice." int(r++ * p / n) ".fa" } { print > f }' strains.fa
row "ipcress -m 2, $P processes" ipcress_run

# the same products: gscan without --exact-3p against ipcress
gscan_run -o - | tail -n +2 | LC_ALL=C sort > gscan.tsv
cat slice.*.fa.ip | grep '^ipcress:' |
  awk 'FILENAME == "pairs.tsv" { next }
    { sub(/:filter\(unmasked\)$/, "", $2)
      print $3 "\t" $2 "\t" $6 "\t" $6 + $4 "\t" $11 "\t" $7 "\t" $10 "\t" $4 }' pairs.tsv - |
  LC_ALL=C sort > ipcress.tsv
if cmp -s gscan.tsv ipcress.tsv; then
  echo "same products: $(wc -l < gscan.tsv) (gscan pcr and ipcress), mismatches included"
else
  place() { cut -f1-5 "$1" | LC_ALL=C sort -u; }
  echo "products: gscan $(wc -l < gscan.tsv), ipcress $(wc -l < ipcress.tsv);" \
    "same place and kind: $(LC_ALL=C comm -12 <(place gscan.tsv) <(place ipcress.tsv) | wc -l);" \
    "identical rows: $(LC_ALL=C comm -12 gscan.tsv ipcress.tsv | wc -l)" \
    "(ipcress -S ${IPCRESS_SEED:-12}: see the note at the top)"
fi
