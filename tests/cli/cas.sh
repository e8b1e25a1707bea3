#!/usr/bin/env bash
# cas.sh GSCAN - -O cas (Cas-OFFinder's off-target rows) against a brute
# force on a real genome (lambda phage): guides of 20 nt taken from it (and
# mutated) with an NGG PAM, 0 to 3 mismatches anywhere, both strands; every
# row (pattern sequence, record, 0-based start, target on the guide's strand
# with mismatches lowercase, strand, mismatches) from gscan scan -O cas at 1
# and 2 ranks and from gscan export -O cas equals the brute force's.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MPIEXEC=${MPIEXEC:-mpiexec}
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! "$root/scripts/fetch-examples.sh" bowtie2-examples >/dev/null 2>&1; then
  echo "cas.sh: SKIPPED: cannot unpack the example genomes (apt-get download failed)"; exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
zcat "$root/data/cache/lambda_virus.fa.gz" > lambda.fa
"$GSCAN" index lambda.fa
fails=0
for k in 0 1 3; do
  python3 - "$k" <<'EOF2'
import random, sys
k = int(sys.argv[1])
name, seq = None, []
for line in open('lambda.fa'):
    if line.startswith('>'):
        name = line[1:].split()[0]
    else:
        seq.append(line.strip())
s = ''.join(seq)
rnd = random.Random(7)
comp = str.maketrans('ACGTacgt', 'TGCAtgca')
guides = []
for i in range(4):
    while True:  # a site with its PAM: GG after the protospacer (CC before it on -)
        a = rnd.randint(0, len(s) - 30)
        w = s[a:a + 23].upper()
        if (i < 3 and w.endswith('GG')) or (i == 3 and w.startswith('CC')):
            break
    if i == 3:  # a guide of the reverse strand
        w = w.translate(comp)[::-1]
    g = list(w[:20])
    for _ in range(i % 3):
        j = rnd.randint(0, 19)
        g[j] = rnd.choice('ACGT'.replace(g[j], ''))
    guides.append(''.join(g) + 'NGG')
with open('g.pat', 'w') as f:
    for i, g in enumerate(guides):
        f.write('g%d\t%s\n' % (i, g))
def ok(p, t):
    return p == 'N' or p == t.upper()
rows = []
for g in guides:
    m = len(g)
    for i in range(len(s) - m + 1):
        w = s[i:i + m]
        for strand, t in (('+', w), ('-', w.translate(comp)[::-1])):
            mm = sum(not ok(p, c) for p, c in zip(g, t))
            if mm <= k:
                shown = ''.join(c.upper() if ok(p, c) else c.lower() for p, c in zip(g, t))
                rows.append('%s\t%s\t%d\t%s\t%s\t%d' % (g, name, i, shown, strand, mm))
with open('want.txt', 'w') as f:
    f.write(''.join(r + '\n' for r in sorted(rows)))
EOF2
  [ -s want.txt ] || { echo "FAIL k=$k: the brute force found nothing"; fails=$((fails + 1)); }
  M=(--max-mismatches $k)
  [ $k = 0 ] && M=()
  "$GSCAN" scan -q "${M[@]}" -p g.pat -O cas -o out.txt lambda.fa
  sort out.txt | cmp -s - want.txt || { echo "FAIL k=$k scan -O cas"; diff <(sort out.txt) want.txt | head -5; fails=$((fails + 1)); }
  gzip -c lambda.fa | "$MPIEXEC" -n 2 "$GSCAN" scan -q "${M[@]}" -p g.pat --block-size 5000 -O cas -o - - | sort |
    cmp -s - want.txt || { echo "FAIL k=$k 2 ranks stdin -O cas"; fails=$((fails + 1)); }
  "$GSCAN" scan -q "${M[@]}" -p g.pat --report hits -o r.h5 lambda.fa
  "$GSCAN" export r.h5 -O cas | sort | cmp -s - want.txt || { echo "FAIL k=$k export -O cas"; fails=$((fails + 1)); }
done
echo "cas.sh: $fails failures"
[ $fails = 0 ]
