#!/usr/bin/env bash
# crafted.sh - gscan info and export on damaged result files (tests/h5/craft.py
# writes them from a real one with h5py): each must end with exit 2 and one
# "gscan: error: ..." naming the file, never a crash, a hang or a sanitizer
# report (run it in the ASan build too); so must the fuzzer's finds kept in
# tests/h5/regress/. Skips (77) without h5py.
set -uo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
FIX=$here/../cli/fixtures
py=/usr/bin/python3
[ -x $py ] || py=python3
$py -c 'import h5py' 2>/dev/null || { echo "h5py not found: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$GSCAN" scan -q --report hits --tally record -p "$FIX/small.patterns" -o base.h5 "$FIX/small.fa" || exit 1
$py "$here/craft.py" base.h5 . || exit 1
# inputs the fuzzer (tests/fuzz, target h5) found crashing HDF5 or gscan
for r in "$here"/regress/*.result; do cp "$r" "bad_all_fuzz_$(basename "$r" .result).h5"; done
fails=0 runs=0
for f in bad_*.h5; do
  case $f in
    bad_info_*) cmds=("info $f") ;;
    bad_hits_*) cmds=("export $f" "export --format bed $f") ;;
    bad_tally_*) cmds=("export --matrix record $f" "export --long $f" "export --coverage $f") ;;
    *) cmds=("info $f" "export $f" "export --counts $f") ;;
  esac
  for cmd in "${cmds[@]}"; do
    runs=$((runs + 1))
    out=$(timeout 60 "$GSCAN" $cmd 2>&1 >/dev/null)
    rc=$?
    if [ $rc != 2 ] || ! grep -q "^gscan: error: .*($f)\$" <<<"$out" \
       || [ "$(grep -c . <<<"$out")" != 1 ]; then
      echo "FAIL gscan $cmd: exit $rc"; echo "$out" | head -5; fails=$((fails + 1))
    fi
  done
done
echo "crafted.sh: $runs runs, $fails failed"
[ $fails = 0 ]
