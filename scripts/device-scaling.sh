#!/usr/bin/env bash
# device-scaling.sh - a GPU scaling study on one multi-GPU machine, for the
# example report in docs/scaling.md.
#
# Run on the GPU machine from the project root, with .devdeps/ and .devdata/
# (genomes.seq.xz: the hs37chrXtrunc + genome_1 sequence) carried along:
#   scripts/device-scaling.sh            # writes $OUT/{strong,weak}/scan_N1_R<R>_G<G>.h5
# Strong: one 2^30-residue plain FASTA (with its .fai) at 1 .. #GPUs ranks.
# Weak: that FASTA listed R times at R ranks. One rank per GPU, 1000 8-mers
# drawn from the text, forward strand, counts. Then, on any machine:
#   /usr/bin/python3 scripts/gscan-report --out-dir report $OUT
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${OUT:-$root/out/scaling}
mkdir -p "$out/strong" "$out/weak"
source .devdeps/env.sh
ngpu=$(nvidia-smi -L | wc -l)
nvidia-smi -L | tee "$out/gpus.txt"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release $GS_DEVICE_CMAKE_ARGS >/dev/null
cmake --build build-gpu -j"$(nproc)" --target gscan >/dev/null
g=build-gpu/gscan
w=/tmp/gs-scaling
mkdir -p $w
if [ ! -s $w/genome.fa.fai ]; then
  python3 - "$w" <<'PY'
import lzma, random, sys
w = sys.argv[1]
seq = lzma.open(".devdata/genomes.seq.xz").read().upper()
n = 1 << 30
text = (seq * (n // len(seq) + 1))[:n]
with open(f"{w}/genome.fa", "wb") as f:
    f.write(b">genome2p30\n")
    for i in range(0, n, 60):
        f.write(text[i:i + 60] + b"\n")
rng = random.Random(42)
kmers = set()
while len(kmers) < 1000:
    i = rng.randrange(n - 8)
    k = text[i:i + 8]
    if set(k) <= set(b"ACGT"):
        kmers.add(k)
with open(f"{w}/kmers.txt", "wb") as f:
    for i, k in enumerate(sorted(kmers)):
        f.write(b"k%d\t%s\n" % (i + 1, k))
PY
  $g index $w/genome.fa
fi
opts=(-q -d gpu --strand forward --report counts -p $w/kmers.txt)
for r in $(seq 1 "$ngpu"); do
  files=()
  for _ in $(seq 1 "$r"); do files+=($w/genome.fa); done
  for rep in 1 2; do # the first run of each size warms the page cache and the GPUs
    mpiexec -n "$r" $g scan "${opts[@]}" -o "$out/strong/scan_N1_R${r}_G${r}.h5" $w/genome.fa
    mpiexec -n "$r" $g scan "${opts[@]}" -o "$out/weak/scan_N1_R${r}_G${r}.h5" "${files[@]}"
  done
done
for f in "$out"/*/*.h5; do
  printf '%s total %s\n' "$f" "$(h5dump -d /timing/total "$f" | grep -A1 DATA | tail -1)"
done
