# CLI table tests (tests/cli/*.tsv), run against the built gscan.
file(GLOB GS_CLI_TABLES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cli/*.tsv)
foreach(t ${GS_CLI_TABLES})
  get_filename_component(name ${t} NAME_WE)
  add_test(NAME cli_${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/run_table.sh ${t} $<TARGET_FILE:gscan>)
endforeach()
add_test(NAME cli_engines COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/engines.sh $<TARGET_FILE:gscan>)
add_test(NAME cli_realdata COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/realdata.sh $<TARGET_FILE:gscan>)
set_tests_properties(cli_realdata PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME symbols_prefix COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/symbols.sh ${CMAKE_BINARY_DIR})
add_test(NAME cli_tally COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/tally.sh $<TARGET_FILE:gscan>)
set_tests_properties(cli_tally PROPERTIES ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}")
# --seq and --aligned on every input (gzip, BGZF, stdin, FIFO, FASTQ, --index,
# --circular) and 1-3 ranks against the plain file's .fai rows and a brute force
add_test(NAME cli_seqcap COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/seqcap.sh $<TARGET_FILE:gscan>)
set_tests_properties(cli_seqcap PROPERTIES ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}")
# -O cas (Cas-OFFinder's rows) against a brute force on lambda phage, NGG guides
add_test(NAME cli_cas COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/cas.sh $<TARGET_FILE:gscan>)
set_tests_properties(cli_cas PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}")
# --max-mismatches with --max-bulges: planted guides against a brute force of
# the definition, a real genome against --verify, what each row says
add_test(NAME cli_bulges COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/bulges.sh $<TARGET_FILE:gscan> cpu)
set_tests_properties(cli_bulges PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}")
