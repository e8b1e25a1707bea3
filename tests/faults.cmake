# faults a cluster delivers (issue 23): full disks, file-size limits, signals, long names.
gs_unit_test(test_tmp_name LIBS gs_stream)
add_test(NAME faults_outputs COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults/outputs.sh $<TARGET_FILE:gscan>)
set_tests_properties(faults_outputs PROPERTIES ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}"
                     SKIP_RETURN_CODE 77 TIMEOUT 600)
