#!/usr/bin/env bash
# compare.sh - a scan through the LZ77 hybrid index gives the same result
# file (records, counts, hits: h5diff) as a plain scan of the same
# collection: gen strain sets with SNPs and indels, real strain sets, both
# strands and forward, IUPAC, counts and hits, M from 1 to 64, 1-3 MPI
# ranks, tiny blocks (kernel pieces cut into segments); and an index that is
# corrupt or truncated, or a pattern longer than M, is exit 2 with a message.
# GS_TEST_QUICK=1 (the sanitizer run): fewer option sets and collections, no
# real strain sets. GS_LZ_DEVICE=gpu (ctest lz_compare_gpu): the index scans
# run on the GPU, the plain scans they are compared with on the CPU; exit 77
# where no GPU is visible.
set -uo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DATA=${2:-}
MPIEXEC=${MPIEXEC:-mpiexec}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fails=0 runs=0
quick=${GS_TEST_QUICK:-0}
dev=${GS_LZ_DEVICE:-cpu}
if [ "$dev" = gpu ]; then
  printf '>r\nACGT\n' >probe.fa
  printf 'ACG\n' >probe.txt
  if ! "$GSCAN" scan -q -d gpu -p probe.txt -o probe.h5 probe.fa 2>/dev/null; then
    echo "compare.sh: no GPU visible, skipped"
    exit 77
  fi
fi

same() { # name, plain.h5, lz.h5
  local o bad=0
  for o in /records /counts /hits; do
    if h5ls "$2/$o" >/dev/null 2>&1 || h5ls "$3/$o" >/dev/null 2>&1; then
      h5diff -q "$2" "$3" "$o" "$o" >/dev/null 2>&1 || bad=1
    fi
  done
  runs=$((runs + 1))
  if [ $bad = 1 ]; then
    echo "FAIL $1: index scan differs from the plain scan"
    h5diff -r "$2" "$3" /counts /counts 2>&1 | head -5
    fails=$((fails + 1))
  fi
}

# corpus, patterns, M, scan options...: plain scan vs index scan at 1 rank;
# $tune (--tune KEY=VALUE ...) goes to the index build and to both scans
check() {
  local corpus=$1 pats=$2 m=$3 name
  shift 3
  name="$(basename "$corpus") $(basename "$pats") M=$m ${tune:-} $*"
  # shellcheck disable=SC2086 # $tune: words
  "$GSCAN" index --lz ${tune:-} -m "$m" -o c.gsx $corpus || { echo "FAIL $name: index"; fails=$((fails + 1)); return; }
  # shellcheck disable=SC2086
  "$GSCAN" scan ${tune:-} -q -d cpu -p "$pats" -o plain.h5 "$@" $corpus || { echo "FAIL $name: plain"; fails=$((fails + 1)); return; }
  # shellcheck disable=SC2086
  "$GSCAN" scan ${tune:-} -q -d "$dev" -p "$pats" -o lz.h5 "$@" --index c.gsx || { echo "FAIL $name: index scan"; fails=$((fails + 1)); return; }
  same "$name" plain.h5 lz.h5
}

# A strain set: 1 base text in 3 records + 7 mutated copies, with N runs and
# lowercase; patterns planted, random, degenerate, palindromic, duplicated.
"$GSCAN" gen -o s -s 3 -n 60K -r 3 -k 400 --min-length 1 --max-length 24 --degenerate 0.2 \
  --palindromes 0.1 --duplicates 0.05 --n-runs 4 --lowercase 0.05 --variants 7 \
  --snp-rate 0.01 --indel-rate 0.002
# Hit checks leave out the 1- and 2-mers (they made 7.4 M of the 7.8 M hits
# of s.fa, and the time of this test with them); counts checks keep them,
# and M = 1 has its own small collection.
awk -F'\t' '/^#/ || length($2) >= 3' s.patterns > s3.patterns
awk -F'\t' '/^#/ || (length($2) >= 3 && length($2) <= 8)' s.patterns > s8.patterns
awk -F'\t' '/^#/ || length($2) == 1' s.patterns > s1.patterns
printf 'a\tA\nc\tC\nn\tN\nr\tR\n' >> s1.patterns
"$GSCAN" gen -o t -s 5 -n 4K -r 2 -k 10 --n-runs 2 --lowercase 0.05 --variants 3 \
  --snp-rate 0.01 --indel-rate 0.002
check s.fa s3.patterns 24 --report hits --strand both
check s.fa s.patterns 24 --report counts --strand forward
check t.fa s1.patterns 1 --report hits
check s.fa s3.patterns 24 --report hits --block-size 7 -t 2
# An index cut into tiny chunks (lz.chunk items a chunk): chunk edges
# inside phrases, pieces and the kernel, read on several threads.
tune="--tune lz.chunk=7" check s.fa s3.patterns 24 --report hits -t 3
tune="--tune lz.chunk=1" check t.fa s1.patterns 1 --report hits -t 2
# The kernel unpacked from its chunks by several readers: segments of 50
# residues cut across 13-residue chunks and the runs of N and lowercase.
tune="--tune lz.chunk=13" check s.fa s3.patterns 24 --report hits --readers 3 --block-size 50 -t 2
# Locate on many threads: a level's items in 16 threads' lists, hits cut
# into 128 position buckets (more threads than cores is fine: the results
# may not depend on who found what).
check s.fa s3.patterns 24 --report hits -t 16
# The build reads records after the reference a batch at a time
# (lz.batch residues; a record at least): batches of one record, on 3
# threads, make the very file one batch does.
runs=$((runs + 1))
"$GSCAN" index --lz -m 24 -t 1 -o one.gsx s.fa t.fa &&
  "$GSCAN" index --lz --tune lz.batch=1 -m 24 -t 3 -o many.gsx s.fa t.fa &&
  cmp -s one.gsx many.gsx || { echo "FAIL build in batches of one record"; fails=$((fails + 1)); }
tune="--tune lz.batch=1000" check s.fa s3.patterns 24 --report hits -t 2
# Raw bytes: the separator is a byte the reference (the first file) never
# uses; the second file uses it (NUL), and no match may run across it.
printf 'ACGTACGTTTGACCA' >r1.raw
printf 'ACGTAC\0GTTTGACCAACG\0\0TACGT' >r2.raw
printf 'p1\tACG\np2\tGTTTGACCA\np3\tC\\x00G\np4\t\\x00\\x00T\np5\t\\x00\np6\tA\n' >raw.patterns
if "$GSCAN" index --lz -m 9 --input-format raw -o raw.gsx r1.raw r2.raw &&
  "$GSCAN" scan -q -d cpu -p raw.patterns --alphabet bytes --input-format raw --report hits \
    -o plain.h5 r1.raw r2.raw &&
  "$GSCAN" scan -q -d "$dev" -p raw.patterns --alphabet bytes --report hits -o lz.h5 \
    --index raw.gsx; then
  same "raw bytes, the separator in a target" plain.h5 lz.h5
else
  echo "FAIL raw bytes, the separator in a target: a command failed"; fails=$((fails + 1))
fi
if [ "$quick" != 1 ]; then
  tune="--tune lz.chunk=1000" check s.fa s.patterns 64 --report counts -t 2
  check s.fa s3.patterns 24 --report hits --strand forward
  check s.fa s.patterns 24 --report counts --strand both
  check s.fa s3.patterns 64 --report hits
  check s.fa s8.patterns 8 --report hits
  check s.fa s1.patterns 1 --report counts
  check s.fa s3.patterns 24 --report hits --alphabet bytes
  check s.fa s3.patterns 24 --report hits -e rk -t 1
  # bytes patterns that use all 256 values leave no separator: one piece a
  # segment
  { for i in $(seq 0 255); do printf 'b%d\t\\x%02x\n' $i $i; done; cat s.patterns; } > all256.patterns
  check s.fa all256.patterns 24 --report counts --alphabet bytes --block-size 50
fi

# Many small collections: random M, many short (and some empty) records,
# patterns of 1..M residues, the reference being one or several records.
seeds="1 2 3 4 5 6 7 8"
[ "$quick" = 1 ] && seeds="2 5"
for seed in $seeds; do
  m=$((1 + seed * 7 % 13))
  "$GSCAN" gen -o r -s $seed -n 3K -r 30 -k 150 --min-length 1 --max-length $m --degenerate 0.2 \
    --palindromes 0.1 --n-runs 3 --variants $((seed % 4 + 2)) --snp-rate 0.02 --indel-rate 0.01
  check r.fa r.patterns $m --report hits
done

# Patterns shorter than M: the scan reads only the windows of their span
# around the phrase starts. Every distinct k-mer of a small strain set (many
# short records, N runs, lowercase) is a pattern, so some occurrence sits at
# each end of every window and at every record edge: a window one residue
# too short loses hits. Mixed lengths (the longest sets the span), span M -
# 1, span 1 (the literals alone), IUPAC, both strands, ranks, threads and
# readers.
"$GSCAN" gen -o w -s 4 -n 2K -r 6 -k 200 --min-length 8 --max-length 30 --degenerate 0.3 \
  --n-runs 2 --lowercase 0.05 --variants 3 --snp-rate 0.02 --indel-rate 0.01
kmers() { # fasta, out, k...: every distinct k-mer of ACGT (case folded) of the records
  python3 - "$@" <<'PY'
import sys
recs, cur = [], None
for line in open(sys.argv[1]):
    if line.startswith(">"):
        cur = []; recs.append(cur)
    else:
        cur.append(line.strip().upper())
seen = []
for k in map(int, sys.argv[3:]):
    got = set()
    for r in ("".join(c) for c in recs):
        for i in range(len(r) - k + 1):
            p = r[i:i + k]
            if p not in got and set(p) <= set("ACGT"):
                got.add(p); seen.append(p)
open(sys.argv[2], "w").write("".join(f"k{i}\t{p}\n" for i, p in enumerate(seen)))
PY
}
kmers w.fa w12.patterns 12 5
kmers w.fa w1.patterns 1
kmers w.fa w2.patterns 2 1
check w.fa w12.patterns 64 --report hits --strand both
check w.fa w12.patterns 13 --report hits --strand forward -t 2
check w.fa w12.patterns 12 --report hits
check w.fa w1.patterns 2 --report hits
check w.fa w2.patterns 3 --report hits --strand both
check w.fa w.patterns 64 --report hits --strand both
check w.fa w.patterns 31 --report counts --readers 3 --block-size 40 -t 2
if [ "$quick" != 1 ]; then
  check w.fa w12.patterns 64 --report counts --readers 3 --block-size 30 -t 2
  check w.fa w12.patterns 40 --report hits --readers 1 -t 1 --block-size 1K
  tune="--tune lz.chunk=9" check w.fa w12.patterns 64 --report hits --readers 3 -t 2
fi
"$GSCAN" index --lz -m 64 -o w.gsx w.fa
"$GSCAN" scan -q -d cpu -p w12.patterns -o plain.h5 --report hits w.fa
for n in 2 3; do
  "$MPIEXEC" -n $n "$GSCAN" scan -q -d "$dev" -t 2 --readers 2 -p w12.patterns -o lzw$n.h5 \
    --report hits --block-size 100 --index w.gsx
  same "trimmed, mpi n=$n" plain.h5 lzw$n.h5
done

# Empty records first, between and last: the reference is the first
# non-empty one.
printf '>e0\n>a\nACGTACGTTTGACCA\n>e1\n>b\nACGTACGTTTGACCA\nACGTAC\n>e2\n>c\nTTGACCAACGTNNACGTACG\n>e3\n' > e.fa
printf 'p1\tACGT\np2\tTTGA\np3\tA\np4\tCCAAC\np5\tNN\np6\tGTAC\n' > e.patterns
check e.fa e.patterns 6 --report hits
check e.fa e.patterns 5 --report counts --strand forward

# Patterns at every phrase boundary and at record edges: every 1..12-mer
# that starts at a record's first residues or ends at its last ones.
python3 - <<'PY'
recs, cur = [], None
for line in open("s.fa"):
    if line.startswith(">"):
        cur = []; recs.append(cur)
    else:
        cur.append(line.strip())
seen, out = set(), []
for r in ("".join(c).upper() for c in recs):
    for k in range(1, 13):
        for p in (r[:k], r[-k:], r[len(r) // 2:len(r) // 2 + k]):
            if p and "N" not in p and p not in seen:
                seen.add(p); out.append(p)
open("edges.patterns", "w").write("".join(f"e{i}\t{p}\n" for i, p in enumerate(out)))
PY
check s.fa edges.patterns 12 --report hits

# MPI: the index split across 1-3 ranks gives the same file.
"$GSCAN" index --lz -m 24 -o c.gsx s.fa
"$GSCAN" scan -q -d cpu -p s3.patterns -o plain.h5 --report hits s.fa
"$GSCAN" scan -q -d cpu -p s.patterns -o plain_counts.h5 --report counts s.fa
runs_mpi=("1 hits" "2 hits" "3 hits" "3 counts")
[ "$quick" = 1 ] && runs_mpi=("2 hits" "3 counts")
for run in "${runs_mpi[@]}"; do
  set -- $run
  [ $2 = hits ] && want=plain.h5 pats=s3.patterns || want=plain_counts.h5 pats=s.patterns
  "$MPIEXEC" -n $1 "$GSCAN" scan -q -d "$dev" -t 1 -p $pats -o lz$1.h5 --report $2 --block-size 1K --index c.gsx
  same "mpi n=$1 $2" $want lz$1.h5
done

# Real strain sets (Debian ragout-examples): 5 S. aureus, 5 H. pylori.
if [ "$quick" != 1 ] && [ -n "$DATA" ] && [ -d "$DATA/S.Aureus/references" ]; then
  "$GSCAN" gen -o p -s 9 -n 10K -k 300 --min-length 12 --max-length 30 --planted 0 --degenerate 0.1
  for set in S.Aureus H.Pylori; do
    for f in "$DATA/$set/references/"*.fasta.gz; do zcat "$f"; done > "$set.fa"
    # planted primers: 20-mers cut from the first strain
    python3 - "$set.fa" <<'PY'
import random, sys
seq = "".join(l.strip() for l in open(sys.argv[1]) if not l.startswith(">"))[:2000000].upper()
random.seed(7)
with open("real.patterns", "w") as f:
    for i in range(300):
        a = random.randrange(len(seq) - 30)
        f.write(f"r{i}\t{seq[a:a + 20 + i % 11]}\n")
PY
    cat p.patterns >> real.patterns
    check "$set.fa" real.patterns 32 --report hits
    check "$set.fa" real.patterns 32 --report counts --strand forward
  done
fi

# Errors: a pattern longer than M, a corrupt and a truncated index, a
# missing one: exit 2 with one message naming the file or pattern.
expect() { # name, want_rc, want_text, command...
  local name=$1 want_rc=$2 want_text=$3 rc out
  shift 3
  runs=$((runs + 1))
  out=$(timeout 60 "$@" 2>&1); rc=$?
  if [ "$rc" != "$want_rc" ] || ! grep -qF -- "$want_text" <<<"$out" || [ -e bad.h5 ]; then
    echo "FAIL $name: exit $rc (want $want_rc), output:"; echo "$out" | head -5
    fails=$((fails + 1))
  fi
}
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)))' >all256.raw
expect "a reference with all 256 byte values" 2 "none is left to separate records" \
  "$GSCAN" index --lz --input-format raw -o bad.gsx all256.raw r2.raw
rm -f bad.gsx
"$GSCAN" index --lz -m 8 -o m8.gsx s.fa
expect "pattern longer than M" 2 "at most 8" "$GSCAN" scan -q -p s.patterns -o bad.h5 --index m8.gsx
expect "pattern longer than M, 2 ranks" 2 "at most 8" "$MPIEXEC" -n 2 "$GSCAN" scan -q -p s.patterns -o bad.h5 --index m8.gsx
size=$(stat -c %s c.gsx)
for cut in 4 20 70 $((size / 2)) $((size - 1)); do
  head -c $cut c.gsx > cut.gsx
  expect "truncated at $cut" 2 "cut.gsx" "$GSCAN" scan -q -p s.patterns -o bad.h5 --index cut.gsx
done
for at in 9 30 $((size / 3)) $((size - 10)); do
  cp c.gsx bad.gsx
  printf '\x5a' | dd of=bad.gsx bs=1 seek=$at conv=notrunc status=none
  expect "corrupt byte at $at" 2 "bad.gsx" "$GSCAN" scan -q -p s.patterns -o bad.h5 --index bad.gsx
  expect "info corrupt byte at $at" 2 "bad.gsx" "$GSCAN" info bad.gsx
done
# The chunked layout: a flipped byte in the header, the chunk table, or any
# chunk (deflated phrases and pieces, stored kernel), and an index of the
# earlier format, which must be rebuilt.
"$GSCAN" index --lz --tune lz.chunk=50 -m 24 -o k.gsx s.fa
size=$(stat -c %s k.gsx)
for at in 12 75 100 300 $((size / 9)) $((size / 4)) $((size / 2)) $((size * 3 / 4)) $((size - 1)); do
  cp k.gsx bad.gsx
  printf '\x5a' | dd of=bad.gsx bs=1 seek=$at conv=notrunc status=none
  cmp -s k.gsx bad.gsx && printf '\xa5' | dd of=bad.gsx bs=1 seek=$at conv=notrunc status=none
  expect "chunked, corrupt byte at $at" 2 "corrupt or truncated index" "$GSCAN" scan -q -t 3 -p s.patterns -o bad.h5 --index bad.gsx
done
for cut in 80 $((size / 3)) $((size - 5)); do
  head -c $cut k.gsx > cut.gsx
  expect "chunked, truncated at $cut" 2 "cut.gsx" "$GSCAN" scan -q -t 3 -p s.patterns -o bad.h5 --index cut.gsx
done
# Tables that pass their CRC but lie (the CRC recomputed): an unknown
# section or method, chunks that overlap, leave a gap or miscount their
# bytes.
for lie in "0 0 9" "0 0 0" "0 4 7" "1 4 7" "1 8 1" "2 16 1" "1 24 1" "-1 16 1" "-1 24 1" "-1 32 1"; do
  python3 - k.gsx lie.gsx $lie <<'PY'
import struct, sys, zlib
d = bytearray(open(sys.argv[1], "rb").read())
entry, field, add = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
n = struct.unpack_from("<Q", d, 68)[0]
entry %= n
at = 88 + 44 * entry + field
size = 4 if field in (0, 4, 40) else 8
v = int.from_bytes(d[at:at + size], "little")
v = add if field in (0, 4) else (v + add) % (1 << (8 * size))
d[at:at + size] = v.to_bytes(size, "little")
struct.pack_into("<I", d, 88 + 44 * n, zlib.crc32(bytes(d[88:88 + 44 * n])))
open(sys.argv[2], "wb").write(d)
PY
  expect "chunk table that lies: $lie" 2 "corrupt or truncated index" "$GSCAN" scan -q -t 2 -p s.patterns -o bad.h5 --index lie.gsx
done
# A sources chunk that is well formed and checksummed but lies: one phrase
# named twice, a phrase past the last, a source past the collection ("none":
# the chunk re-encoded as it was, which must still scan).
for lie in none dup far past; do
  python3 - k.gsx lie.gsx $lie <<'PY'
import struct, sys, zlib
d = bytearray(open(sys.argv[1], "rb").read())
lie = sys.argv[3]
n = struct.unpack_from("<Q", d, 68)[0]
ents = [list(struct.unpack_from("<IIQQQQI", d, 88 + 44 * i)) for i in range(n)]
offs, at = [], 88 + 44 * n + 4
for e in ents:
    offs.append(at); at += e[5]
i = next(i for i, e in enumerate(ents) if e[0] == 5 and e[3] >= 2)  # a sources chunk
sec, method, first, count, raw_len, ln, crc = ents[i]
data = bytes(d[offs[i]:offs[i] + ln])
raw = zlib.decompress(data, -15) if method == 1 else data
def varints(b):
    out, v, sh = [], 0, 0
    for c in b:
        v |= (c & 0x7f) << sh; sh += 7
        if not c & 0x80:
            out.append(v); v, sh = 0, 0
    return out
def enc(vals):
    out = bytearray()
    for v in vals:
        while v >= 0x80:
            out.append(v & 0x7f | 0x80); v >>= 7
        out.append(v)
    return bytes(out)
v = varints(raw)  # (source delta, zigzag phrase delta) per copy
if lie == "dup":
    v[3] = 0                 # the second copy names the first one's phrase
elif lie == "far":
    v[1] += 2 * (1 << 40)    # the first copy names a phrase past the last
elif lie == "past":
    v[0] += 1 << 30          # the first source lies past the collection
raw = enc(v)
c = zlib.compressobj(6, zlib.DEFLATED, -15)
stored = c.compress(raw) + c.flush() if method == 1 else raw
ents[i][4], ents[i][5], ents[i][6] = len(raw), len(stored), zlib.crc32(raw)
table = b"".join(struct.pack("<IIQQQQI", *e) for e in ents)
out = d[:88] + table + struct.pack("<I", zlib.crc32(table))
for j, e in enumerate(ents):
    out += stored if j == i else d[offs[j]:offs[j] + e[5]]
open(sys.argv[2], "wb").write(out)
PY
  if [ $lie = none ]; then
    expect "sources re-encoded" 0 "" "$GSCAN" scan -q -t 2 -p s.patterns -o ok.h5 --index lie.gsx
  else
    expect "sources that lie: $lie" 2 "corrupt or truncated index: section sources" "$GSCAN" scan -q -t 2 -p s.patterns -o bad.h5 --index lie.gsx
  fi
done
# Indexes of earlier formats must be rebuilt.
for v in 1 2; do
  cp k.gsx old.gsx
  printf "\x0$v" | dd of=old.gsx bs=1 seek=8 conv=notrunc status=none
  expect "index of format version $v" 2 "rebuild it with gscan index --lz" "$GSCAN" scan -q -p s.patterns -o bad.h5 --index old.gsx
done
expect "missing index" 2 "nope.gsx" "$GSCAN" scan -q -p s.patterns -o bad.h5 --index nope.gsx
expect "index and corpus" 1 "--index" "$GSCAN" scan -q -p s.patterns -o bad.h5 --index c.gsx s.fa
expect "index without -o" 1 "--out" "$GSCAN" index --lz s.fa
expect "index with --max-mismatches" 1 "exact matching only" "$GSCAN" scan -q -p s.patterns -o bad.h5 --max-mismatches 1 --index c.gsx
expect "index with --max-edits" 1 "exact matching only" "$GSCAN" scan -q -p s.patterns -o bad.h5 --max-edits 1 --index c.gsx
cp c.gsx keep.gsx
expect "output over the index" 1 "input of this run" "$GSCAN" scan -q -O h5 -p s.patterns -o c.gsx --index c.gsx
cmp -s c.gsx keep.gsx || { echo "FAIL output over the index: the index changed"; fails=$((fails + 1)); }
cp s.fa keep.fa
expect "index over its corpus" 1 "input of this run" "$GSCAN" index --lz -o s.fa s.fa
cmp -s s.fa keep.fa || { echo "FAIL index over its corpus: the corpus changed"; fails=$((fails + 1)); }
# text output of an index scan, split across ranks: the same rows as the
# plain scan's (patterns of 10 or more residues: the short ones hit millions
# of times)
awk -F'\t' '/^#/ || length($2) >= 10' s.patterns > s10.patterns
"$GSCAN" index --lz -m 24 -o t.gsx s.fa
"$GSCAN" scan -q -d cpu -p s10.patterns -o plain.tsv s.fa
"$MPIEXEC" -n 2 "$GSCAN" scan -q -d "$dev" -t 1 -p s10.patterns -o lz.tsv --block-size 1K --index t.gsx
runs=$((runs + 1))
if [ "$(wc -l < plain.tsv)" -lt 100 ] || ! cmp -s plain.tsv lz.tsv; then
  echo "FAIL text output: index scan differs from the plain scan (or too few hits to tell)"
  fails=$((fails + 1))
fi
runs=$((runs + 1))
info=$("$GSCAN" info c.gsx)
grep -q "^phrases:" <<<"$info" || { echo "FAIL info"; fails=$((fails + 1)); }

echo "$runs checks, $fails failed"
[ $fails = 0 ]
