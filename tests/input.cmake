# input stage: an unindexed plain FASTA file indexed in memory on several
# threads, against one thread and the streaming reader (unit test), and the
# whole command on it against the .fai and streamed paths (input_unindexed).
gs_unit_test(test_fai_parallel LIBS gs_seq)
add_test(NAME input_unindexed COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/input/unindexed.sh $<TARGET_FILE:gscan>)
set_tests_properties(input_unindexed PROPERTIES ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}" TIMEOUT 1500)
# FASTQ (plain, gzip, BGZF, stdin, FIFO; 1-3 ranks) against seqkit locate
# on real reads and on traps in the qualities
add_test(NAME input_fastq COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/input/fastq.sh $<TARGET_FILE:gscan>)
set_tests_properties(input_fastq PROPERTIES ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}"
                     SKIP_RETURN_CODE 77)
# plain FASTA and FASTQ read in parts on several threads against one
# stream: hits, records, tallies, warnings and errors, parts of 37 B to 64 KiB
add_test(NAME input_parts COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/input/parts.sh $<TARGET_FILE:gscan>)
# a corpus of gzip, BGZF, raw and plain files read side by side, a whole
# file a reader, against one stream: counts, records, warnings, errors
add_test(NAME input_files COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/input/files.sh $<TARGET_FILE:gscan>)
