#!/usr/bin/env bash
# run.sh - build gscan's libFuzzer binary (clang, ASan + UBSan) and fuzz one
# reader for a bounded time, starting from its seed corpus.
#
#   tests/fuzz/run.sh OUTDIR TARGET [SECONDS]      (CTest: label fuzz, 10 s each)
#   GS_FUZZ_SECONDS=3600 tests/fuzz/run.sh /tmp/fz fasta   # a longer run
#
# TARGET: fasta, patterns, fai, gzi, config or h5 (tests/fuzz/README.md).
# The corpus grows in OUTDIR/corpus/TARGET (the seeds in tests/fuzz/corpus/
# are only read); a crash is written to OUTDIR/crash-TARGET-* and fails the
# run. Exit 77 (skipped) when no clang with -fsanitize=fuzzer is found.
set -uo pipefail
out=$1 target=$2 seconds=${GS_FUZZ_SECONDS:-${3:-10}}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cc=
for c in clang-14 clang; do
  command -v $c >/dev/null && { cc=$c; break; }
done
mkdir -p "$out/corpus/$target"
probe=$out/probe.c
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }' > "$probe"
if [ -z "$cc" ] || ! $cc -fsanitize=fuzzer "$probe" -o "$out/probe" 2>/dev/null; then
  echo "no clang with -fsanitize=fuzzer (Debian: clang-14 libclang-rt-14-dev): skipped"
  exit 77
fi
flags=$(pkg-config --cflags --libs hdf5-mpich mpich zlib libdeflate libisal 2>/dev/null) ||
  flags="-I/usr/include/hdf5/mpich -I/usr/include/x86_64-linux-gnu/mpich
         -L/usr/lib/x86_64-linux-gnu/hdf5/mpich -lhdf5 -lmpich -lz -ldeflate -lisal"
bin=$out/gscan-fuzz
# options.c lists the engines from the engine table (src/match)
srcs=("$root"/src/core/*.c "$root"/src/io/*/*.c "$root"/src/comm/*.c "$root"/src/match/*.c "$root/src/cli/options.c" "$root/src/cli/scan_usage.c" "$root/src/cli/inputs.c" "$root/src/cli/tune.c"
      "$root/src/cli/info.c"
      "$here/fuzz_main.c")
# one build for all targets; CTest may start several targets at once
(
  flock 9
  if [ ! -x "$bin" ] || [ -n "$(find "${srcs[@]}" "$root"/src/*/*.h "$root"/src/io/*/*.h -newer "$bin" | head -1)" ]; then
    echo "building $bin with $cc"
    $cc -g -O1 -std=c11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
      -DGS_VERSION='"fuzz"' -I"$root/src" "${srcs[@]}" $flags -lpthread -lm -o "$bin.new" &&
      mv "$bin.new" "$bin" || exit 1
  fi
) 9>"$out/build.lock" || { echo "fuzz build failed"; exit 1; }
bgzf=$out/seed.fa.gz
if [ "$target" = gzi ] && [ ! -s "$bgzf" ]; then # a real BGZF file to read through
  "$root"/tests/fuzz/mkbgzf.sh "$bgzf" || exit 1
fi
# HDF5 1.10 keeps internal objects of a file whose H5Fopen failed half-way
# (it says "infinite loop closing library" at exit): leaks are checked for
# every target but h5, which still checks every access and allocation.
leaks=1
[ "$target" = h5 ] && leaks=0
echo "fuzzing $target for $seconds s"
cd "$out"
GS_FUZZ=$target GS_FUZZ_BGZF=$bgzf ASAN_OPTIONS=detect_leaks=$leaks:allocator_may_return_null=1 \
  "$bin" -seed="${GS_FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=20 -error_exitcode=1 -timeout_exitcode=1 -rss_limit_mb=2048 -max_len=65536 \
  -artifact_prefix="$out/crash-$target-" -print_final_stats=1 \
  "$out/corpus/$target" "$here/corpus/$target" 2>&1 | tail -25
exit "${PIPESTATUS[0]}"
