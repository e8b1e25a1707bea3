# h5.cmake - tests of the result file (src/io/results): one process, and the
# same executable under mpiexec with 3 ranks, whose file must equal the
# single-process one.
gs_unit_test(test_h5out LIBS gs_results)
gs_unit_test(test_align LIBS gs_results)
# gscan info's summary is laid out in src/cli (info.c); the test reads it
target_sources(test_h5out PRIVATE ${PROJECT_SOURCE_DIR}/src/cli/info.c)

add_test(NAME test_h5out_mpi
         COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3 ${MPIEXEC_PREFLAGS}
                 $<TARGET_FILE:test_h5out> ${MPIEXEC_POSTFLAGS})
set_tests_properties(test_h5out_mpi PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                     ENVIRONMENT "GS_TEST_DATA=${CMAKE_CURRENT_SOURCE_DIR}/data")
set_tests_properties(test_h5out PROPERTIES TIMEOUT 300)

# MPICH and HDF5 keep allocations until exit that LeakSanitizer reports as
# leaks; everything else ASan and UBSan check stays on.
if(GS_SANITIZE)
  set_property(TEST test_h5out test_h5out_mpi APPEND PROPERTY ENVIRONMENT
               "ASAN_OPTIONS=detect_leaks=0")
endif()

# Damaged and crafted result files (tests/h5/craft.py, h5py): gscan info and
# export end with exit 2 naming the file, never a crash (ASan build too).
add_test(NAME h5_crafted COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/h5/crafted.sh $<TARGET_FILE:gscan>)
set_tests_properties(h5_crafted PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
