#!/usr/bin/env bash
# tally.sh - `gscan scan --tally record|file|sample` against a tally made
# here with awk from the hits of the brute-force engine (--report hits -e bf,
# its /hits columns read with h5dump) and the corpus's own headers: random
# corpora of several files (one in a subdirectory, one gzip), many records,
# record names repeated across files, empty records and N runs, a samples
# sheet naming files by path and by base name and records by name. Counts
# and hits mode, exact (engines ac, wm, rk, bf) and approximate
# (--max-mismatches, --max-edits, with and without --best-per-site), 1 to 3
# ranks, an LZ index (--index); the tally's sums equal /counts; gscan export
# --matrix, --presence, --long and --coverage against awk over the same
# reference.
#
# tally.sh GSCAN [gpu]: with gpu, every tallied run uses the GPU (engines ac,
# wm, rk, and bv for approximate runs) against the same CPU reference; exit
# 77 where no GPU is visible.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
device=${2:-cpu}
MPIEXEC=${MPIEXEC:-mpiexec}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fails=0 runs=0
dev=() engines="ac wm rk bf"
if [ "$device" = gpu ]; then
  printf '>r\nACGT\n' > probe.fa
  if ! "$GSCAN" scan -q -d gpu -s ACG -o probe.h5 probe.fa 2>/dev/null; then
    echo "tally.sh: no GPU visible, skipped"
    exit 77
  fi
  dev=(-d gpu) engines="ac wm rk"
fi
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# ---- the corpus ----------------------------------------------------------
"$GSCAN" gen -o a -s 21 -n 40K -r 40 -k 30 --min-length 5 --max-length 7 --planted 0.8 \
  --mutations 1 --n-runs 8 >/dev/null
"$GSCAN" gen -o b -s 22 -n 20K -r 25 -k 1 --n-runs 3 >/dev/null # names seq1.. again
"$GSCAN" gen -o c -s 23 -n 12K -r 12 -k 1 >/dev/null
printf '>empty_a\n' >> a.fa                 # empty records, at a file's end
printf '>empty_b\n>lone x\nACGTNNNNACGTACGT\n' >> b.fa
mkdir sub && mv c.fa sub/c.fa
gzip -c b.fa > b.fa.gz
files=(a.fa sub/c.fa b.fa)      # plain: read by ranges
zfiles=(a.fa sub/c.fa b.fa.gz)  # one gzip: streamed by rank 0
pat=a.patterns
# the sheet: a.fa by its path, sub/c.fa by its base name, b.fa's records by
# name (their names also stand in a.fa, which its file row covers first)
{
  printf '# sample sheet\n\na.fa\tgut\nc.fa\tsoil\n'
  grep '^>' b.fa | sed 's/^>//; s/ .*//' | awk '{ print $1 "\t" (NR % 2 ? "water" : "gut") }'
} > sheet.tsv

# records.txt: file index, record name, in corpus order (from the headers)
records() {
  local i=0 f
  for f in "$@"; do
    grep '^>' "$f" | sed 's/^>//; s/[ \t].*//' | awk -v i=$i '{ print i "\t" $1 }'
    i=$((i + 1))
  done
}
records "${files[@]}" > records.txt

# units.txt (unit of each record, in record order) and names.txt (unit
# names in unit order) for a unit kind.
units() {
  case $1 in
    record) awk '{ print NR - 1 }' records.txt > units.txt; cut -f2 records.txt > names.txt ;;
    file) cut -f1 records.txt > units.txt; printf '%s\n' "${files[@]}" > names.txt ;;
    sample)
      printf '%s\n' "${files[@]}" > files.txt
      awk -F'\t' 'FILENAME == "sheet.tsv" {
          if ($0 == "" || $0 ~ /^#/) next
          if (!($2 in seen)) { seen[$2] = 1; order[++ns] = $2 }
          row[$1] = $2; next }
        FILENAME == "files.txt" {
          base = $1; sub(/.*\//, "", base)
          fs[FNR - 1] = ($1 in row) ? row[$1] : (base in row) ? row[base] : ""; next }
        { s = fs[$1] != "" ? fs[$1] : row[$2]; rs[FNR] = s; owned[s] = 1; n = FNR }
        END {
          for (k = 1; k <= ns; k++) if (order[k] in owned) { id[order[k]] = u++; print order[k] > "names.txt" }
          for (r = 1; r <= n; r++) print id[rs[r]] > "units.txt"
        }' sheet.tsv files.txt records.txt ;;
  esac
}

# col FILE DATASET: one value a line.
col() {
  local t
  t=$(mktemp -p "$dir")
  h5dump -d "$2" -y -w 1 -o "$t" "$1" >/dev/null 2>&1 || : > "$t"
  tr -d ' ,' < "$t" | sed '/^$/d'
  rm -f "$t"
}

# ref.txt: unit, pattern, strand, count[, best] from the hits of ref.h5.
reference() {
  local approx=$1
  paste <(col ref.h5 /hits/record) <(col ref.h5 /hits/pattern) <(col ref.h5 /hits/strand) \
    <(if [ "$approx" = 1 ]; then col ref.h5 /hits/distance; else col ref.h5 /hits/record | sed 's/.*/0/'; fi) |
    awk -v approx="$approx" 'NR == FNR { u[NR - 1] = $1; next }
      { k = u[$1] "\t" $2 "\t" $3; c[k]++; if (!(k in b) || $4 < b[k]) b[k] = $4 }
      END { for (k in c) print k "\t" c[k] (approx ? "\t" b[k] : "") }' units.txt - |
    sort -t$'\t' -k1,1n -k2,2n -k3,3nr > ref.txt
}

tally_of() {
  paste <(col "$1" /tally/unit) <(col "$1" /tally/pattern) <(col "$1" /tally/strand) \
    <(col "$1" /tally/count) <(if [ "$2" = 1 ]; then col "$1" /tally/best_distance; fi) |
    sed 's/\t$//'
}

# check OUT.h5 LABEL APPROX: its tally is ref.txt, its n_units that of
# names.txt, and its sums /counts.
check() {
  local out=$1 label=$2 approx=$3
  runs=$((runs + 1))
  if ! tally_of "$out" "$approx" | cmp -s - ref.txt; then
    fail "$label: tally differs from the reference"; tally_of "$out" "$approx" | diff -a - ref.txt | head -5 || true; return
  fi
  local nu
  nu=$(h5dump -a /tally/n_units "$out" | awk '/\(0\)/ { print $2 }')
  [ "$nu" = "$(wc -l < names.txt)" ] || fail "$label: n_units $nu, expected $(wc -l < names.txt)"
  local sums counts
  sums=$(tally_of "$out" 0 | awk '{ s[$2 "\t" $3] += $4 } END { for (k in s) print k "\t" s[k] }' | sort)
  counts=$(col "$out" /counts | awk -v n="$(col "$out" /patterns/length | wc -l)" \
    '{ p = int((NR - 1) / 2); st = (NR - 1) % 2 ? -1 : 1; if ($1 > 0) print p "\t" st "\t" $1 }' | sort)
  [ "$sums" = "$counts" ] || fail "$label: the tally's sums are not /counts"
}

run() { "$@" >/dev/null 2>err.txt || { fail "exit $? from: $* ($(head -c 300 err.txt))"; return 1; }; }

# scan UNIT LABEL APPROX [RANKS] ARGS...: a tallied run checked against ref.txt.
tallied() {
  local unit=$1 label=$2 approx=$3 n=$4 sheet=()
  shift 4
  [ $unit = sample ] && sheet=(--samples sheet.tsv)
  local mpi=()
  [ "$n" -gt 1 ] && read -r -a mpi <<<"$MPIEXEC -n $n"
  run "${mpi[@]}" "$GSCAN" scan -q "${dev[@]}" -p $pat --tally $unit "${sheet[@]}" -o t.h5 "$@" &&
    check t.h5 "$label ($unit, $n rank(s))" "$approx"
}
# Runs of 3 ranks cost ~10 s each on 2 busy cores: one exact, one
# approximate (none in the sanitizer pass, GS_TEST_QUICK).
three=3; [ "${GS_TEST_QUICK:-0}" = 1 ] && three=2

# ---- exact: engines, reports, ranks, inputs -------------------------------
run "$GSCAN" scan -q -p $pat -e bf --report hits -o ref.h5 "${files[@]}"
units record; reference 0
for e in $engines; do
  tallied record "exact -e $e counts" 0 1 -e $e "${files[@]}"
done
tallied record "exact hits" 0 1 --report hits "${files[@]}"
tallied record "exact 2 ranks hits" 0 2 --report hits --block-size 2K "${files[@]}"
tallied record "exact stdin" 0 1 - < <(cat "${files[@]}") # the same records, file "-"
# counts: the scan tallies its runs of keys; records cut into many segments
# on two threads, the segments of one record in different runs
tallied record "exact counts blocks" 0 2 -t 2 --block-size 1K "${files[@]}"
units file; reference 0
tallied file "exact counts" 0 1 -e wm "${files[@]}"
tallied file "exact hits" 0 1 --report hits -e rk "${files[@]}"
tallied file "exact gzip counts" 0 2 -t 1 "${zfiles[@]}"
# counts: each batch's keys counted by file as they come (a GPU's), a file's
# rows from several ranks and segments combined
tallied file "exact counts blocks" 0 $three -t 2 --block-size 1K "${files[@]}"
units sample; reference 0
tallied sample "exact counts" 0 1 "${files[@]}"
tallied sample "exact hits" 0 1 --report hits -e ${engines##* } "${files[@]}"
tallied sample "exact gzip" 0 1 -t 2 "${zfiles[@]}"
tallied sample "exact counts" 0 $three --block-size 2K "${files[@]}"

# ---- approximate ------------------------------------------------------------
approx_case() { # UNIT RANKS REPORT MODE...
  local unit=$1 n=$2 report=$3
  shift 3
  run "$GSCAN" scan -q -p $pat -e bf "$@" --report hits -o ref.h5 "${files[@]}"
  units "$unit"; reference 1
  tallied "$unit" "$* $report" 1 "$n" "$@" --report "$report" --block-size 1K "${files[@]}"
}
approx_case record 1 counts --max-mismatches 1
approx_case record 2 hits --max-mismatches 2 --best-per-site
approx_case record 1 hits --max-edits 1
approx_case sample 1 counts --max-edits 1 --best-per-site
approx_case sample $three counts --max-edits 1
approx_case file 2 counts --max-mismatches 1 --best-per-site

# ---- an LZ index: one unit per record, file or sample ----------------------
run "$GSCAN" index --lz -o x.gsx "${files[@]}"
run "$GSCAN" scan -q -p $pat -e bf --report hits -o ref.h5 "${files[@]}"
for unit in record file sample; do
  units $unit; reference 0
  tallied $unit "index" 0 1 --index x.gsx
done
tallied sample "index" 0 2 --index x.gsx --report hits

# ---- export: matrix, presence, long, coverage -------------------------------
pnames() { col "$1" /patterns/name | sed 's/^"//; s/\\000"$//; s/"$//'; }
for approx in 0 1; do
  units sample
  m=(); [ $approx = 1 ] && m=(--max-edits 1)
  run "$GSCAN" scan -q -p $pat -e bf "${m[@]}" --report hits -o ref.h5 "${files[@]}"
  reference $approx
  run "$GSCAN" scan -q "${dev[@]}" -p $pat "${m[@]}" --tally sample --samples sheet.tsv -o t.h5 \
    "${files[@]}"
  pnames t.h5 > pnames.txt
  for form in matrix presence long coverage; do
    runs=$((runs + 1))
    case $form in
      matrix) args=(--matrix sample) ;; presence) args=(--matrix sample --presence) ;;
      long) args=(--long) ;; coverage) args=(--coverage) ;;
    esac
    "$GSCAN" export t.h5 "${args[@]}" -o got.tsv
    awk -F'\t' -v form=$form -v approx=$approx -v OFS='\t' '
      FILENAME == "pnames.txt" { pn[np++] = $1; next }
      FILENAME == "names.txt" { un[nu++] = $1; next }
      { c[$1, $2] += $4; if (!(($1, $2) in b) || $5 < b[$1, $2]) b[$1, $2] = $5
        if (form == "long") print un[$1], pn[$2], ($3 > 0 ? "+" : "-"), $4 (approx ? "\t" $5 : "") > "want_rows.tsv" }
      END {
        if (form == "long") { printf "unit\tpattern\tstrand\tcount%s\n", approx ? "\tbest_distance" : ""; exit }
        if (form == "coverage") {
          printf "pattern\tunits_hit\tunits_total\tfraction%s\n", approx ? "\texact\twithin_k\tnot_hit" : ""
          for (p = 0; p < np; p++) {
            h = 0; e = 0
            for (u = 0; u < nu; u++) if ((u, p) in c) { h++; if (b[u, p] == 0) e++ }
            printf "%s\t%d\t%d\t%.4f", pn[p], h, nu, h / nu
            if (approx) printf "\t%d\t%d\t%d", e, h - e, nu - h
            printf "\n"
          }
          exit
        }
        printf "unit"; for (p = 0; p < np; p++) printf "\t%s", pn[p]; printf "\n"
        for (u = 0; u < nu; u++) {
          printf "%s", un[u]
          for (p = 0; p < np; p++) { v = c[u, p] + 0; printf "\t%d", form == "presence" ? (v > 0) : v }
          printf "\n"
        }
      }' pnames.txt names.txt ref.txt > want.tsv
    [ $form = long ] && cat want_rows.tsv >> want.tsv
    cmp -s got.tsv want.tsv || { fail "export $form (approx $approx)"; diff got.tsv want.tsv | head -5 || true; }
  done
done
# a matrix of another unit names the file and what it holds
runs=$((runs + 1))
if "$GSCAN" export t.h5 --matrix file >/dev/null 2>err.txt; then
  fail "--matrix file of a sample tally: exit 0"
elif ! grep -q "t.h5 holds a tally by sample, not by file" err.txt; then
  fail "--matrix file of a sample tally: $(cat err.txt)"
fi

echo "tally: $runs checks, $fails failed"
[ $fails = 0 ]
