# Faults a cluster delivers (issue 23): inputs that change underneath or are malformed, full disks, limits.
# a file cut under its map: the guard, and the parallel gzip reader that maps its file
gs_unit_test(test_mapguard LIBS gs_stream)
# inputs that change underneath or are malformed, on 1, 2 and 3 ranks
add_test(NAME faults_inputs COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults/inputs.sh $<TARGET_FILE:gscan>)
set_tests_properties(faults_inputs PROPERTIES ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}" TIMEOUT 600)
