#!/usr/bin/env bash
# run_table.sh - table-driven CLI tests: one case a line in a .tsv file,
#   name <TAB> expected exit status <TAB> expected text (grep -F on stdout+stderr,
#   '-' for none) <TAB> command (bash, run in a fresh temporary directory)
# Commands see $GSCAN (the binary), $FIX (tests/cli/fixtures), $DATA
# (data/cache) and $ROOT. A case that fails must leave no result file behind:
# after a non-zero exit no out.h5, gscan.h5 (the default) or *.tmp.* may exist
# anywhere in its directory (cases that fail write to those names).
set -uo pipefail
table=$1
GSCAN=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FIX=$ROOT/tests/cli/fixtures
DATA=$ROOT/data/cache
export GSCAN ROOT FIX DATA
pass=0 fail=0
while IFS=$'\t' read -r name want_rc want_text cmd; do
  case "$name" in ''|'#'*) continue ;; esac
  dir=$(mktemp -d)
  out=$(cd "$dir" && timeout 120 bash -c "$cmd" 2>&1 </dev/null) # mpiexec would read the table
  rc=$?
  ok=1
  [ "$rc" = "$want_rc" ] || { ok=0; echo "FAIL $name: exit $rc, expected $want_rc"; }
  if [ "$want_text" != "-" ] && ! grep -qF -- "$want_text" <<<"$out"; then
    ok=0; echo "FAIL $name: output lacks '$want_text'"
  fi
  left=$(cd "$dir" && find . -name out.h5 -o -name gscan.h5 -o -name '*.tmp.*')
  if [ "$rc" != 0 ] && [ -n "$left" ]; then
    ok=0; echo "FAIL $name: a failed run left a result file: $left"
  fi
  if [ $ok = 1 ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "  command: $cmd"; echo "  output: ${out:0:2000}"
  fi
  rm -rf "$dir"
done < "$table"
echo "$(basename "$table"): $pass passed, $fail failed"
[ $fail = 0 ]
