# faults.cmake - what a cluster does to a job: full disks, file-size limits,
# signals, long names, file systems without locks, inputs that change
# underneath or are malformed.
gs_unit_test(test_h5props LIBS gs_results)
# the faults one process meets (a file cut under its map, a file lost, no
# file descriptor left, no locks), each off until its variables are set
add_library(gs_inject MODULE ${CMAKE_CURRENT_SOURCE_DIR}/faults/inject.c)
target_link_libraries(gs_inject PRIVATE ${CMAKE_DL_LIBS})
add_executable(h5_aligned ${CMAKE_CURRENT_SOURCE_DIR}/faults/h5_aligned.c)
target_include_directories(h5_aligned PRIVATE ${HDF5_C_INCLUDE_DIRS})
target_compile_definitions(h5_aligned PRIVATE ${HDF5_C_DEFINITIONS})
target_link_libraries(h5_aligned PRIVATE ${HDF5_C_LIBRARIES} MPI::MPI_C)
add_test(NAME faults_cluster
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults/cluster.sh $<TARGET_FILE:gscan>
                 $<TARGET_FILE:gs_inject> $<TARGET_FILE:h5_aligned>)
set_tests_properties(faults_cluster PROPERTIES TIMEOUT 300 ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}")
if(GS_SANITIZE)
  set_property(TEST test_h5props faults_cluster APPEND PROPERTY ENVIRONMENT
               "ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0")
endif()
gs_unit_test(test_tmp_name LIBS gs_stream)
add_test(NAME faults_outputs COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults/outputs.sh $<TARGET_FILE:gscan>)
set_tests_properties(faults_outputs PROPERTIES ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}"
                     SKIP_RETURN_CODE 77 TIMEOUT 600)
# a file cut under its map: the guard, and the parallel gzip reader that maps its file
gs_unit_test(test_mapguard LIBS gs_stream)
# inputs that change underneath or are malformed, on 1, 2 and 3 ranks
add_test(NAME faults_inputs COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults/inputs.sh $<TARGET_FILE:gscan>
                                    $<TARGET_FILE:gs_inject>)
set_tests_properties(faults_inputs PROPERTIES ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}" TIMEOUT 600)
# hits beyond --max-memory: spilled, merged, the same file at 1-3 ranks; a
# full disk while spilling; a run under ulimit -v
add_test(NAME faults_spill COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults/spill.sh $<TARGET_FILE:gscan>)
set_tests_properties(faults_spill PROPERTIES ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}" TIMEOUT 300)
# hits thinned, counted or tallied after the scan (approximate, --tally) spill too
add_test(NAME faults_spill_approx COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults/spill.sh $<TARGET_FILE:gscan> approx)
set_tests_properties(faults_spill_approx PROPERTIES ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}" TIMEOUT 300)
# shell runs of the Release build: under the sanitizers ulimit -v and an
# LD_PRELOAD stand-in cannot work, and the unit tests above run there
set_property(TEST faults_cluster faults_outputs faults_inputs faults_spill faults_spill_approx APPEND PROPERTY LABELS faults)
