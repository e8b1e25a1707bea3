#!/usr/bin/env bash
# test_config.sh - gscan scan --config: an unknown key is an error that names
# the file and line; every preset in configs/ is accepted by the real parser.
#
# Usage: tests/slurm/test_config.sh GSCAN   (exit 77 when GSCAN is not built)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
gscan=${1:-}
{ [ -n "$gscan" ] && [ -x "$gscan" ]; } || { echo "SKIP: no gscan binary at '$gscan'"; exit 77; }
tmp=$(mktemp -d /tmp/gs-config.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failed=0
fail() { echo "FAIL: $*"; failed=1; }

printf '>r1\nACGTACGTGGATCCAAAA\n' >c.fa
printf 'GGATCC\nACGT\n' >p.txt

# An unknown key on line 3: exit 1 or 2 (usage or input), "gscan: error:",
# the key and bad.conf:3 in the message, and no result file.
printf '# a config with a typo\npatterns = p.txt\nstrands = both\n' >bad.conf
"$gscan" scan --config bad.conf -o bad.h5 c.fa >out.txt 2>err.txt
rc=$?
{ [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; } || fail "unknown key: exit $rc, not 1 or 2"
grep -q '^gscan: error: .*strands.*bad\.conf:3' err.txt ||
  fail "unknown key: message does not name the key and bad.conf:3: $(cat err.txt)"
[ ! -e bad.h5 ] || fail "unknown key: a result file was written"

# A good config: its settings take effect (forward strand only -> 1 column).
printf 'patterns = p.txt\nstrand = forward   # comment\nreport = hits\nquiet = true\n' >good.conf
"$gscan" scan --config good.conf --device cpu -o good.h5 c.fa 2>err.txt || fail "good config: $(cat err.txt)"
h5ls good.h5/counts 2>/dev/null | grep -q '{2, 1}' || fail "good config: /counts is not [2][1] (strand = forward ignored)"

# The presets: every key must be one gscan knows, and the output they name
# must be writable from a fresh directory. Their pattern files and corpora
# are big or not here, so the command line overrides those (not -o).
for conf in "$root"/configs/*.conf; do
  out=$(sed -n 's/^out *= *\([^ #]*\).*/\1/p' "$conf")
  "$gscan" scan --config "$conf" -p p.txt --device cpu c.fa 2>err.txt ||
    fail "$(basename "$conf") rejected: $(cat err.txt)"
  [ -z "$out" ] || [ -s "$out" ] || fail "$(basename "$conf"): no $out written"
  rm -f "$out"
done
[ "$failed" -eq 0 ] || exit 1
echo "ok: config errors are located, presets parse"
