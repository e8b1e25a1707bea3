#!/usr/bin/env bash
# gscan-scaling.sh - submit a strong and/or weak scaling study of gscan, then its report.
#
# Usage: jobs/slurm/gscan-scaling.sh [options] [--corpus FILE]... -- GSCAN-SCAN-ARGS...
#
# One job (jobs/slurm/gscan-scan.sbatch) per rank count and mode, and one last
# job, dependent on all of them (afterany: a failed point still gets a report
# of the others), that runs scripts/gscan-report over the outputs.
#
#   strong  the same corpus at every rank count.
#   weak    the corpus grows with the ranks: at R ranks it is the --corpus
#           files listed R times on gscan's command line. gscan treats every
#           listed file as its own file (records never join), so R copies hold
#           exactly R times the residues and hits of one, without writing a
#           single byte of new data. Give plain FASTA with a .fai (gscan index)
#           so every rank reads its own range; a gzip corpus is decompressed
#           once per copy by rank 0 and then measures rank 0, not the scan.
#
# Options:
#   --mode strong|weak|both   (default both)
#   --ranks "1 2 4 8"         total rank counts (default "1 2 4 8")
#   --ranks-per-node K        ranks per node, one per GPU (default 4)
#   --gpus-per-node G         GPUs requested per node (default: K; 0 for a CPU
#                             partition, where ranks run --device cpu)
#   --cpus-per-task C         CPU cores per rank (default: Slurm's default)
#   --corpus FILE             a corpus file (repeatable; default: the config's corpus)
#   --out-dir DIR             where outputs go (default scaling-<date>): DIR/strong,
#                             DIR/weak, DIR/logs, DIR/report
#   --name STEM               output stem (default scan): DIR/strong/STEM_N*_R*_G*.h5
#   --partition P, --time T, --account A    passed to sbatch
#   --no-exclusive            share nodes (default: --exclusive, for clean timings)
#   --sbatch-args "..."       more sbatch arguments for every scan job
#   --dry-run                 print the sbatch commands, submit nothing
# Environment: GS_PYTHON (python3 with h5py and matplotlib for the report,
# default /usr/bin/python3), and everything gscan-scan.sbatch reads (GS_GSCAN,
# GS_MODULES, GS_LAUNCHER, ...): sbatch passes the environment to the jobs.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
job="$here/gscan-scan.sbatch"
report="$root/scripts/gscan-report"

say() { printf 'gscan-scaling: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; }

mode=both ranks_list="1 2 4 8" rpn=4 gpn="" cpt="" outdir="" stem=scan
exclusive=1 dry=0
sb_common=() corpus=() scan_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --mode)            mode=$2; shift 2 ;;
    --ranks)           ranks_list=$2; shift 2 ;;
    --ranks-per-node)  rpn=$2; shift 2 ;;
    --gpus-per-node)   gpn=$2; shift 2 ;;
    --cpus-per-task)   cpt=$2; shift 2 ;;
    --corpus)          corpus+=("$2"); shift 2 ;;
    --out-dir)         outdir=$2; shift 2 ;;
    --name)            stem=$2; shift 2 ;;
    --partition)       sb_common+=(--partition="$2"); shift 2 ;;
    --time)            sb_common+=(--time="$2"); shift 2 ;;
    --account)         sb_common+=(--account="$2"); shift 2 ;;
    --no-exclusive)    exclusive=0; shift ;;
    --sbatch-args)     read -r -a more <<<"$2"; sb_common+=("${more[@]}"); shift 2 ;;
    --dry-run)         dry=1; shift ;;
    -h|--help)         usage; exit 0 ;;
    --)                shift; scan_args=("$@"); break ;;
    *)                 die "unknown option '$1' (gscan's own arguments go after --)" ;;
  esac
done
case $mode in strong) modes=(strong) ;; weak) modes=(weak) ;; both) modes=(strong weak) ;;
  *) die "--mode must be strong, weak or both, not '$mode'" ;; esac
[ "$rpn" -ge 1 ] 2>/dev/null || die "--ranks-per-node must be a positive number"
[ -n "$gpn" ] || gpn=$rpn
[ "$gpn" -ge 0 ] 2>/dev/null || die "--gpus-per-node must be a number"
read -r -a ranks <<<"$ranks_list"
[ ${#ranks[@]} -gt 0 ] || die "--ranks is empty"
for r in "${ranks[@]}"; do [ "$r" -ge 1 ] 2>/dev/null || die "bad rank count '$r' in --ranks"; done
[ -n "$outdir" ] || outdir="scaling-$(date +%Y%m%d-%H%M%S)"
[ "$exclusive" = 0 ] || sb_common+=(--exclusive)

# The corpus: --corpus, else the `corpus` key of a --config among gscan's arguments.
if [ ${#corpus[@]} -eq 0 ]; then
  for ((i = 0; i < ${#scan_args[@]}; i++)); do
    if [ "${scan_args[i]}" = --config ] && [ $((i + 1)) -lt ${#scan_args[@]} ]; then
      cfg=${scan_args[i + 1]}
      [ -r "$cfg" ] || die "cannot read config file '$cfg'"
      line=$(sed -n -e 's/#.*//' -e 's/^[[:space:]]*corpus[[:space:]]*=[[:space:]]*//p' "$cfg" | tail -n 1)
      read -r -a corpus <<<"$line"
    fi
  done
fi
[ ${#corpus[@]} -gt 0 ] || die "no corpus: give --corpus FILE (or a config with a corpus key)"
for f in "${corpus[@]}"; do [ "$dry" = 1 ] || [ -r "$f" ] || die "cannot read corpus file '$f'"; done

id=1000
submit() { # sbatch ARGS... -> the job id in $id
  if [ "$dry" = 1 ]; then
    printf 'sbatch' >&2; printf ' %q' "$@" >&2; printf '\n' >&2
    id=$((id + 1))
  else
    id=$(sbatch --parsable "$@") || die "sbatch failed: sbatch $*"
    id=${id%%;*}
  fi
}

[ "$dry" = 1 ] || mkdir -p "$outdir/logs"
ids=()
for m in "${modes[@]}"; do
  for r in "${ranks[@]}"; do
    nodes=$(((r + rpn - 1) / rpn))
    tpn=$((r < rpn ? r : rpn))
    sb=(--nodes="$nodes" --ntasks="$r" --ntasks-per-node="$tpn"
        --job-name="gscan-$m-R$r" --output="$outdir/logs/gscan-$m-R$r-%j.log")
    if [ "$gpn" -gt 0 ]; then sb+=(--gpus-per-node="$((tpn < gpn ? tpn : gpn))"); fi
    [ -z "$cpt" ] || sb+=(--cpus-per-task="$cpt")
    files=()
    if [ "$m" = weak ]; then
      for ((c = 0; c < r; c++)); do files+=("${corpus[@]}"); done
    else
      files=("${corpus[@]}")
    fi
    submit "${sb_common[@]}" "${sb[@]}" "$job" "${scan_args[@]}" \
           -o "$outdir/$m/$stem.h5" -- "${files[@]}"
    ids+=("$id")
    say "$m R=$r on $nodes node(s): job $id"
  done
done

dep=$(IFS=:; echo "${ids[*]}")
printf -v rep '%q ' "${GS_PYTHON:-/usr/bin/python3}" "$report" --out-dir "$outdir/report" "$outdir"
sb_report=()
for a in "${sb_common[@]}"; do [ "$a" = --exclusive ] || sb_report+=("$a"); done
submit "${sb_report[@]}" --nodes=1 --ntasks=1 --job-name=gscan-report \
       --dependency="afterany:$dep" --kill-on-invalid-dep=no \
       --output="$outdir/logs/gscan-report-%j.log" --wrap="$rep"
say "report: job $id (after $dep) -> $outdir/report/"
echo "$outdir"
