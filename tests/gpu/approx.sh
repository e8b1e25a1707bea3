#!/usr/bin/env bash
# approx.sh - approximate matching on the GPU (engine bv) against the CPU,
# end to end through `gscan scan`: --max-mismatches and --max-edits, with
# and without --best-per-site, both strands and forward only, K = 0..4,
# hits and counts compared with h5diff (start, end, distance, strand,
# pattern, record). The reference is the CPU DP (bf) on the small workload
# and the CPU bv engine elsewhere (test_approx checks bv against bf).
# Workloads from `gscan gen`: keys of 1..4 residues (K = 0), 12..64 with
# IUPAC codes, lowercase, N runs and 300 records, keys of 65..1100 (the
# wavefront kernels), tiny blocks (37 and 1000 residues: segment edges);
# a real genome from data/cache with primers cut from it (some mutated, some
# with IUPAC codes). Also --verify, -d auto, and the usage errors.
# The seed filter (keys of >= 4 (K + 1) residues, src/match/seeds.h) runs
# wherever it applies; the "filter-*" workloads (primers of 18..30 with and
# without N, K = 0..4) also run the GPU's full scan (--tune match.seed.filter=-1) and
# compare both with the CPU (bf, bv), at blocks of 37, 1000 and 16M.
# The "exact3p-*" workloads add --exact-3p 1..5 (and one longer than some
# patterns): the zone tested in the mismatch kernels and before a seed is
# verified, edit ends rescored under the zone in gs_bv_finish (keys of
# <= 64) or on the host (longer keys), dropped ends cut off after the sort;
# short keys with IUPAC codes, primers with the filter on and off,
# CRISPR-like guides (20 + NGG), long keys. The "zone-*" workloads check
# the zone-first scan on the GPU (see there).
#
#   tests/gpu/approx.sh build-cu/gscan [data/cache]
#
# prints PASS or FAIL per case and a summary; exits 77 where no GPU is
# visible (GS_APPROX_DEVICE=cpu runs the "GPU" side on the CPU: a check of
# this script itself on a machine without a GPU; GS_APPROX_ONLY=REGEX runs
# only the workloads whose name matches, "verify" for the --verify cases).
set -uo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
CACHE=${2:-$(cd "$(dirname "$0")/../.." && pwd)/data/cache}
DEV=${GS_APPROX_DEVICE:-gpu}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
printf '>r\nACGTACGT\n' >probe.fa
printf 'ACGT\n' >probe.txt
if ! "$GSCAN" scan -q -d "$DEV" --max-edits 1 -p probe.txt -o probe.h5 probe.fa 2>/dev/null; then
  echo "approx.sh: no GPU visible, skipped"
  exit 77
fi
fails=0 runs=0
variants="" # match.seed.filter values the GPU side also runs with (the default always)
only=${GS_APPROX_ONLY:-.} # a regex: only the workloads (and "verify") whose name matches
result() { # name status
  runs=$((runs + 1))
  if [ "$2" = 0 ]; then echo "PASS $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}
same() { # ref.h5 out.h5: counts and hits equal
  h5diff -q "$1" "$2" /counts /counts >/dev/null && h5diff -q "$1" "$2" /hits /hits >/dev/null
}

# name ref_engine min_len "K values" "blocks" fasta patterns; $tune (--tune
# KEY=VALUE ...) goes to both sides, and so does --exact-3p X for each X of $x3s
run_cases() {
  local name=$1 ref=$2 fa=$5 pat=$6
  [[ "$name" =~ $only ]] || return 0
  for mode in mismatches edits; do
    for strand in both forward; do
      for K in $3; do
        for x in ${x3s:-none}; do
        for bps in "" --best-per-site; do
          opts=(--max-$mode "$K" --strand "$strand" $bps --report hits -p "$pat")
          [ "$x" = none ] || opts+=(--exact-3p "$x")
          r=$ref; [ -n "$bps" ] && r=bv # the post-pass is the same code on both sides
          # shellcheck disable=SC2086 # $tune: words
          "$GSCAN" scan ${tune:-} -q -d cpu -e "$r" -t "$(nproc)" "${opts[@]}" -o ref.h5 "$fa" || { result "$name ref" 1; continue; }
          for block in $4; do
            for nof in "" $variants; do
              st=0
              # shellcheck disable=SC2086
              "$GSCAN" scan ${tune:-} ${nof:+--tune match.seed.filter=$nof} -q -d "$DEV" -e bv --block-size "$block" "${opts[@]}" -o out.h5 "$fa" && same ref.h5 out.h5 || st=1
              result "$name --max-$mode $K ${x3s:+--exact-3p $x }--strand $strand ${bps:-all-hits} block=$block${nof:+ nofilter} (vs $r)" $st
            done
          done
        done
        done
      done
    done
  done
}

# keys of 1..4 residues: K = 0 only (K must stay below the shortest key)
"$GSCAN" gen -o w0 -s 7 -n 20K -r 5 -k 40 --min-length 1 --max-length 4 --degenerate 0.3 \
  --lowercase 0.1 --n-runs 5
run_cases tiny-keys bf "0" "16M 37" w0.fa w0.patterns

# keys of 12..64 residues (one 32- or 64-bit word), IUPAC, N runs, lowercase, many records
"$GSCAN" gen -o w1 -s 1 -n 30K -r 300 -k 60 --min-length 12 --max-length 64 --planted 0.7 \
  --mutations 2 --degenerate 0.2 --lowercase 0.1 --n-runs 20
run_cases short-keys bf "0 1 2 3 4" "16M 1000" w1.fa w1.patterns

# bigger text, one record: blocks of 1000 cut it into hundreds of segments
"$GSCAN" gen -o w2 -s 2 -n 1M -r 2 -k 300 --min-length 16 --max-length 40 --planted 0.8 \
  --mutations 3 --degenerate 0.1 --n-runs 10
run_cases one-record bv "0 2 4" "16M 1000" w2.fa w2.patterns

# keys of 65..1100 residues: edits on lanes of 64-bit words, mismatches counted per start
"$GSCAN" gen -o w3 -s 3 -n 300K -r 3 -k 24 --min-length 65 --max-length 1100 --planted 1 \
  --mutations 4 --degenerate 0.1 --n-runs 5
run_cases long-keys bv "0 1 4" "16M 3000" w3.fa w3.patterns

# few keys (<= 8 a length class): the edit kernel that reads the text from
# the read-only cache (bv_direct.cuh), one to eight 64-bit words a thread
"$GSCAN" gen -o w4 -s 6 -n 400K -r 3 -k 8 --min-length 12 --max-length 512 --planted 1 \
  --mutations 3 --degenerate 0.1 --lowercase 0.1 --n-runs 8
variants=-1 # keys of <= 64 take the seed filter unless it is off
run_cases few-keys bv "0 1 4" "16M 1000 37" w4.fa w4.patterns
variants=""
# the same, every class of <= 8 words on that kernel (a short text sends keys
# of 3 to 8 words to lanes), and every class on the shared-memory kernel
tune="--tune match.seed.filter=-1 --tune gpu.bv.direct=1" run_cases few-keys-direct bv "0 4" "16M 1000" w4.fa w4.patterns
tune="--tune match.seed.filter=-1 --tune gpu.bv.direct=-1" run_cases few-keys-shared bv "0 4" "16M 1000" w4.fa w4.patterns

# the seed filter: primers of 18..30, every fourth with one N (as in the GPU
# primer screen) and a few with other IUPAC codes, planted with up to 4
# edits, N runs and lowercase in the text; filter and full scan against bf
"$GSCAN" gen -o wf -s 5 -n 200K -r 7 -k 120 --min-length 18 --max-length 30 --planted 0.9 \
  --mutations 3 --degenerate 0.1 --lowercase 0.1 --n-runs 30
awk -F'\t' 'NR % 4 == 0 { p = $2; i = 2 + NR % (length(p) - 2); $2 = substr(p, 1, i - 1) "N" substr(p, i + 1) }
  { print $1 "\t" $2 }' wf.patterns >wf-n.patterns
variants=-1
run_cases filter-primers bf "0 1 2 3 4" "16M 37" wf.fa wf-n.patterns
# plain ACGT primers only, one record
"$GSCAN" gen -o wg -s 6 -n 300K -r 1 -k 200 --min-length 18 --max-length 30 --planted 0.9 \
  --mutations 4 --n-runs 5
run_cases filter-plain bv "0 3" "16M 1000" wg.fa wg.patterns
variants=""

# a real genome, primers cut from it (every fifth mutated, some with IUPAC codes)
genome=""
for g in "$CACHE/ecoli_mg1655.fa.gz" "$CACHE/lambda_virus.fa.gz"; do
  [ -e "$g" ] && { genome=$g; break; }
done
if [ -n "$genome" ]; then
  zcat "$genome" | head -c 2000000 | awk "$(cat <<'AWK'
  /^>/ { rec++; next } { line[++n] = $0; r[n] = rec }
  END { srand(11); k = 0
    while (k < 100) { i = 1 + int(rand() * (n - 1)); if (r[i] != r[i + 1]) continue
      s = line[i] line[i + 1]; len = 18 + int(rand() * 13); if (length(s) < len) continue
      at = 1 + int(rand() * (length(s) - len + 1)); p = toupper(substr(s, at, len))
      if (p ~ /[^ACGT]/) continue
      if (k % 5 == 0) p = substr(p, 1, 5) "N" substr(p, 7)
      if (k % 7 == 0) p = substr(p, 1, 9) "R" substr(p, 11)
      printf "primer%d\t%s\n", k, p; k++ } }
AWK
)">primers.txt
  run_cases "genome=$(basename "$genome")" bv "0 3" "16M 5000" "$genome" primers.txt
else
  echo "SKIP real genome: no ecoli_mg1655.fa.gz or lambda_virus.fa.gz under $CACHE"
fi

# --exact-3p: the zone on every kernel path
x3s="1 3 5" run_cases exact3p-short-keys bf "0 1 2 4" "16M 1000" w1.fa w1.patterns
variants=-1
x3s=3 run_cases exact3p-primers bv "2 4" "16M 1000" wf.fa wf-n.patterns
variants=""
"$GSCAN" gen -o wc -s 33 -n 300K -r 1 -k 40 --min-length 20 --max-length 20 --planted 1 \
  --mutations 3
awk -F'\t' '{ print $1 "\t" $2 "NGG" }' wc.patterns >guides.txt
x3s=3 run_cases exact3p-guides bv "3 4" "16M" wc.fa guides.txt
x3s="2 70" run_cases exact3p-long-keys bv "1 4" "16M" w3.fa w3.patterns

# The zone-first scan (src/gpu/bv_zone.cuh; which keys: src/match/zones.h),
# the "zone-*" workloads: mismatches with --exact-3p, /hits and /counts of
# the GPU equal to bf's and the CPU bv's, with the zone scan as shipped
# (match.zone.scan=0: keys off the seed filter), for every selective key
# (=1: the seed filter's too) and off (=-1: the zone tested before a hit is
# pushed). Guides of 20 + NGG cut from the text where it ends in GG (0..3
# spacer residues changed, every 5th with an IUPAC code: many keys share a
# zone), alone, by 1000, and with primers of other zones and their own K /
# exact_3p columns; K = 0..6, both strands and forward, blocks down to 61;
# a text of several records with N runs and lowercase, and the real genome.
# They run only when GS_APPROX_ONLY names them (gpu_zone), not in the
# gpu_approx_* tests.

# guides FASTA N SEED: N guides of 20 + NGG from 23-mers of the FASTA's
# lines that end in GG (no other non-base)
guides() {
  awk -v n="$2" -v seed="$3" '
    BEGIN { srand(seed) }
    /^>/ { next }
    { s = toupper($0); L = length(s)
      for (at = 1; at + 22 <= L; at += 7) {
        w = substr(s, at, 23)
        if (w ~ /[^ACGT]/ || substr(w, 22, 2) != "GG" || rand() > 0.2) continue
        cand[++c] = substr(w, 1, 20) } }
    END { for (k = 0; k < n && c > 0; k++) {
        p = cand[1 + int(rand() * c)]
        for (j = int(rand() * 4); j > 0; j--) { i = 1 + int(rand() * 20)
          p = substr(p, 1, i - 1) substr("ACGT", 1 + int(rand() * 4), 1) substr(p, i + 1) }
        if (k % 5 == 0) { i = 1 + int(rand() * 20)
          p = substr(p, 1, i - 1) substr("RYKMN", 1 + k % 5, 1) substr(p, i + 1) }
        printf "guide%d\t%sNGG\n", k, p } }' "$1"
}

# name "K values" "x3 values" "blocks" fasta patterns
zone_cases() {
  local name=$1 fa=$5 pat=$6
  [[ "$name" =~ $only ]] || return 0
  for strand in both forward; do
    for K in $2; do
      for x in $3; do
        opts=(--max-mismatches "$K" --exact-3p "$x" --strand "$strand" --report hits -p "$pat")
        local what="$name --max-mismatches $K --exact-3p $x --strand $strand"
        if ! "$GSCAN" scan -q -d cpu -e bf -t "$(nproc)" "${opts[@]}" -o ref.h5 "$fa"; then
          result "$what ref" 1
          continue
        fi
        st=0
        "$GSCAN" scan -q -d cpu -e bv "${opts[@]}" -o cpu.h5 "$fa" && same ref.h5 cpu.h5 || st=1
        result "$what cpu bv (vs bf)" $st
        for block in $4; do
          for zs in 0 1 -1; do
            st=0
            "$GSCAN" scan --tune match.zone.scan=$zs -q -d "$DEV" -e bv --block-size "$block" \
              "${opts[@]}" -o out.h5 "$fa" && same ref.h5 out.h5 || st=1
            result "$what block=$block match.zone.scan=$zs (vs bf)" $st
          done
        done
      done
    done
  done
}

if [ -n "${GS_APPROX_ONLY:-}" ] && [[ zone =~ $only ]]; then # gpu_zone, not the gpu_approx_* tests
  "$GSCAN" gen -o wz -s 25 -n 400K -r 5 -k 20 --min-length 18 --max-length 30 --planted 0.9 \
    --mutations 3 --degenerate 0.3 --lowercase 0.2 --n-runs 40 --line-width 70
  guides wz.fa 100 7 >zguides.txt
  [ "$(wc -l <zguides.txt)" = 100 ] || result "zone: 100 guides cut from the text" 1
  zone_cases zone-guides "0 1 2 3 4 5 6" "3" "16M 1000 61" wz.fa zguides.txt
  zone_cases zone-guides-x3 "2 6" "1 5" "16M 61" wz.fa zguides.txt
  # guides and primers of other zones, some with their own K and exact_3p
  # (columns 3 and 4, '-' for the run's): groups of one key and of a hundred
  awk -F'\t' -v OFS='\t' '{ k = NR % 4 == 0 ? "-" : NR % 7; x = NR % 3 == 0 ? "-" : NR % 6
    print $1, $2, k, x }' wz.patterns >zmixed.txt
  awk -F'\t' -v OFS='\t' '{ print } NR % 3 == 0 { print "x" $1, $2, NR % 7, "-" }
    NR % 5 == 0 { print "y" $1, $2, "-", 2 }' zguides.txt >>zmixed.txt
  zone_cases zone-mixed "0 3 6" "3" "16M 61" wz.fa zmixed.txt
  # 1000 guides: more keys a zone than a block has threads
  guides wz.fa 1000 8 >zguides1000.txt
  zone_cases zone-guides1000 "4 6" "3" "16M" wz.fa zguides1000.txt
  if [ -n "$genome" ]; then # guides cut from the real genome above
    zcat "$genome" >zgenome.fa
    guides zgenome.fa 100 9 >zgguides.txt
    zone_cases "zone-genome=$(basename "$genome")" "4 6" "3" "16M 5000" zgenome.fa zgguides.txt
  fi
fi

# --verify checks the GPU against the CPU bv in the same run; auto picks the GPU
for mode in mismatches edits; do
  [[ verify =~ $only ]] || break
  st=0
  "$GSCAN" scan -q -d "$DEV" --verify --max-$mode 3 --best-per-site -p w2.patterns -o v.h5 w2.fa || st=1
  result "--verify --max-$mode 3 --best-per-site" $st
  st=0
  "$GSCAN" scan -q -d cpu -e bv --max-$mode 2 -p w1.patterns -o ref.h5 w1.fa &&
    "$GSCAN" scan -q -d auto --max-$mode 2 -p w1.patterns -o out.h5 w1.fa &&
    h5diff -q ref.h5 out.h5 /counts /counts >/dev/null || st=1
  result "-d auto --max-$mode 2 counts" $st
done
# engines without approximate matching are refused on the GPU as on the CPU
st=0
"$GSCAN" scan -q -d "$DEV" -e ac --max-edits 1 -p w1.patterns -o e.h5 w1.fa 2>/dev/null
[ $? = 1 ] || st=1
result "-e ac --max-edits: usage error" $st

echo "approx.sh: $((runs - fails)) passed, $fails failed"
[ $fails = 0 ]
