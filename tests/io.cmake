# io stage: pattern files, the corpus reader (plain, gzip, multi-member, BGZF)
# and the .fai index, each against fixtures under tests/data/io/ and an
# independent in-test computation.
gs_unit_test(test_patterns LIBS gs_seq)
gs_unit_test(test_fasta LIBS gs_seq)
# FASTQ (io/seq/fastq.c) through the same reader: traps in qualities, CRLF,
# gzip, malformed records named by file:line
gs_unit_test(test_fastq LIBS gs_seq)
# the parts reader's loose road (texts as they lie, for the device to drop
# line ends) against its streaming road
gs_unit_test(test_dna2 LIBS gs_core)
gs_unit_test(test_parts_raw LIBS gs_seq)
gs_unit_test(test_fai LIBS gs_seq)
gs_unit_test(test_bgzf LIBS gs_stream)
# gzip on threads: the piece decoder and the ordering of pieces against zlib
gs_unit_test(test_inflate_parallel LIBS gs_stream)
