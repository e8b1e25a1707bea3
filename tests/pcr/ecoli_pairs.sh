# shellcheck shell=bash
# ecoli_pairs.sh - sourced by the tests that hold gscan pcr against a peer
# on E. coli K-12 MG1655 (data/cache): one set-up, one primer list.
#
# pcr_setup TOOL HINT: exit 77 without TOOL (HINT says where it comes from)
# or the genome; else a temporary folder (removed at exit) as the working
# directory, holding ec.fa and pairs.tsv: name, A, B, smallest and largest
# product of real, non-degenerate primers (16S 27F/1492R, 515F/806R,
# 341F/534R, 968F/1401R, uidA) and last a pair of 12-mers that gives all
# four kinds. Sets fails=0.
pcr_setup() {
  local tool=$1 hint=$2 name genome
  name=$(basename "$0")
  genome=$(cd "$(dirname "$0")/../.." && pwd)/data/cache/ecoli_mg1655.fa.gz
  command -v "$tool" >/dev/null || { echo "$name: no $tool$hint, skipped"; exit 77; }
  [ -f "$genome" ] || { echo "$name: no $genome, skipped"; exit 77; }
  pcr_dir=$(mktemp -d)
  trap 'rm -rf "$pcr_dir"' EXIT
  cd "$pcr_dir" || exit 1
  fails=0
  gzip -dc "$genome" > ec.fa
  cat > pairs.tsv <<'PAIRS'
27F-1492R	AGAGTTTGATCCTGGCTCAG	GGTTACCTTGTTACGACTT	1000	2000
515F-806R	GTGCCAGCAGCCGCGGTAA	GGACTACCAGGGTATCTAAT	100	500
341F-534R	CCTACGGGAGGCAGCAG	ATTACCGCGGCTGCTGG	100	400
968F-1401R	AACGCGAAGAACCTTAC	CGGTGTGTACAAGACCC	300	600
uidA	AAAACGGCAAGAAAAAGCAG	ACGCGTGGTTACAGTCTTGCG	50	3000
short	TGGCGCTGGCGA	CAGCGCCAGCAT	20	1500
PAIRS
}
