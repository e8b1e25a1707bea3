# shellcheck shell=bash
# same_h5.sh - sourced by the MPI and input tests: one comparison of two
# result files, so that every test means the same thing by "the same file".
#
# same A.h5 B.h5 LABEL [DATASET...]: /counts, /patterns, /records and /files
# (and the datasets given, e.g. /hits) equal by h5diff; counts a run in
# $runs, and a failure, named with the first dataset that differs, in $fails.
same() {
  local a=$1 b=$2 label=$3 d
  shift 3
  runs=$((runs + 1))
  for d in /counts /patterns /records /files "$@"; do
    [ -n "$d" ] || continue
    if ! h5diff -q "$a" "$b" "$d" "$d" >/dev/null 2>&1; then
      echo "FAIL $label: $d differs"; fails=$((fails + 1)); return
    fi
  done
}
