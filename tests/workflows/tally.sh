#!/usr/bin/env bash
# tally.sh - the example Snakemake workflow (workflows/tally) against one gscan run.
#
# Usage: tests/workflows/tally.sh GSCAN local|slurm
#
# Eleven real genomes (five H. pylori and five S. aureus references of
# ragout-examples, the lambda phage of bowtie2-examples; scripts/fetch-examples.sh)
# are scattered in groups of 4 (3 gscan jobs) and gathered. The workflow's
# matrix and presence matrix must equal, byte for byte, `gscan export
# --matrix file [--presence]` of one `gscan scan --tally file` over the whole
# directory; then the same with a sample sheet (three samples of several files,
# listed out of name order, groups of 2) against one `--tally sample` run. A
# second snakemake run must find nothing to do.
#   local: snakemake --cores 2
#   slurm: snakemake --slurm on a Slurm cluster of one (tests/slurm/cluster.sh);
#          every scan must have run as a Slurm job
# Exit 77 (skipped) when snakemake, the genomes or (slurm) the cluster are
# missing.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${2:-local}
failed=0
fail() { echo "FAIL: $*"; failed=1; }
skip() { echo "SKIP: $*"; exit 77; }
command -v snakemake >/dev/null || skip "snakemake not found (Debian: apt-get install snakemake)"
[ -x "${1:-}" ] || skip "no gscan binary at '${1:-}' (build the gscan target)"
gscan=$(readlink -f "$1")
"$root/scripts/fetch-examples.sh" bowtie2-examples ragout-examples >/dev/null 2>&1 ||
  skip "cannot unpack the example genomes (scripts/fetch-examples.sh)"
ex=$root/data/cache/root/usr/share/doc
[ -r "$ex/ragout/examples/H.Pylori/references/G27.fasta.gz" ] || skip "no ragout-examples genomes"

case $mode in
  local) work=$(mktemp -d /tmp/gs-workflow.XXXXXX) || exit 1
         trap 'rm -rf "$work"' EXIT
         run_snakemake() { snakemake --cores 2 "$@"; } ;;
  slurm) # shellcheck source=tests/slurm/cluster.sh
         . "$root/tests/slurm/cluster.sh"
         trap gs_cluster_stop EXIT
         gs_cluster_start || exit 77
         work=$gs_cluster_dir/jobs
         # the executor asks sacct for the account by $USER
         export USER=${USER:-$(id -un)}
         # snakemake 7 polls Slurm every 33 s unless told a rate of at most
         # one a second: a second suits a cluster of one
         run_snakemake() { snakemake --slurm --jobs 3 --max-status-checks-per-second 1 "$@"; } ;;
  *) echo "usage: $0 GSCAN local|slurm" >&2; exit 1 ;;
esac

cd "$work" || exit 1
mkdir genomes
for f in "$ex"/ragout/examples/H.Pylori/references/*.fasta.gz; do
  ln -s "$f" "genomes/hpylori_$(basename "$f")"
done
for f in "$ex"/ragout/examples/S.Aureus/references/*.fasta.gz; do
  ln -s "$f" "genomes/saureus_$(basename "$f")"
done
# a space in a name: the rules quote their paths
ln -s "$ex/bowtie2/examples/reference/lambda_virus.fa.gz" "genomes/lambda phage.fa.gz"
n=$(find genomes -name '*.gz' | wc -l)
[ "$n" -eq 11 ] || fail "expected 11 genomes, found $n"

# Sites that some genomes have and others lack (NotI is rare in AT-rich
# S. aureus; the 12-mers are near-random), so presence has zeros and ones.
printf '%s\t%s\n' EcoRI GAATTC BamHI GGATCC NotI GCGGCCGC SfiI GGCCNNNNNGGCC \
  m12a ACGTACGTACGT m12b GATTACAGATTA m10 TTGACAGCTA >patterns.txt
{ printf '# file\tsample\n'
  for f in genomes/saureus_*; do printf '%s\tS.aureus\n' "$(basename "$f")"; done
  printf 'lambda phage.fa.gz\tphage\n'
  for f in genomes/hpylori_*; do printf '%s\tH.pylori\n' "$(basename "$f")"; done
} >samples.tsv

write_config() { # FILE OUT GROUP_SIZE SAMPLES
  cat >"$1" <<EOF
genomes: genomes
samples: "$4"
patterns: patterns.txt
group_size: $3
scan_options: ""
gscan: $gscan
out: $2
threads: 1
mem_mb: 1000
runtime: 10
device: auto
gpus: 0
slurm_partition: ""
EOF
}

# NAME UNIT CONFIG OUT GROUPS [SCAN-OPTION...]: run the workflow twice, compare
# its matrices with one gscan run's export.
check_workflow() {
  local name=$1 unit=$2 config=$3 out=$4 groups=$5 what n
  shift 5
  run_snakemake -s "$root/workflows/tally/Snakefile" -d "$work" --configfile "$config" \
    >"$name.log" 2>&1 || { fail "$name: snakemake failed"; tail -n 40 "$name.log"; return; }
  "$gscan" scan -q -p patterns.txt --tally "$unit" "$@" -o "$name.ref.h5" genomes ||
    { fail "$name: the reference gscan run"; return; }
  if ! "$gscan" export "$name.ref.h5" --matrix "$unit" -o "$name.ref.matrix.tsv" ||
     ! "$gscan" export "$name.ref.h5" --matrix "$unit" --presence -o "$name.ref.presence.tsv"; then
    fail "$name: export of the reference"; return
  fi
  for what in matrix presence; do
    cmp -s "$out/$what.tsv" "$name.ref.$what.tsv" ||
      { fail "$name: $out/$what.tsv differs from one gscan run's"
        diff "$out/$what.tsv" "$name.ref.$what.tsv" | head -n 20; }
  done
  n=$(find "$out/groups" -name '*.h5' | wc -l)
  [ "$n" -eq "$groups" ] || fail "$name: expected $groups group files, found $n"
  if ! grep -q '	0' "$out/presence.tsv" || ! grep -q '	1' "$out/presence.tsv"; then
    fail "$name: the presence matrix is not a mix of 0 and 1"
  fi
  run_snakemake -s "$root/workflows/tally/Snakefile" -d "$work" --configfile "$config" \
    >"$name.again.log" 2>&1 || fail "$name: the second snakemake run failed"
  grep -q 'Nothing to be done' "$name.again.log" ||
    { fail "$name: the second snakemake run did something"; cat "$name.again.log"; }
  echo "ok: $name ($mode): $(($(wc -l <"$out/matrix.tsv") - 1)) units, $groups groups"
}

write_config files.yaml results-files 4 ""
check_workflow files file files.yaml results-files 3
write_config samples.yaml results-samples 2 samples.tsv
check_workflow samples sample samples.yaml results-samples 2 --samples samples.tsv

if [ "$mode" = slurm ]; then
  # five scans in all: each must have been a Slurm job with its own log
  n=$(find .snakemake/slurm_logs/rule_scan -name '*.log' 2>/dev/null | wc -l)
  [ "$n" -eq 5 ] || fail "expected 5 Slurm scan jobs, found $n logs"
fi
[ "$failed" -eq 0 ] && echo "PASS: workflows/tally ($mode)"
exit "$failed"
