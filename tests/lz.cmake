# The LZ77 hybrid index: index scans against plain scans, errors.
add_test(NAME lz_compare COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/lz/compare.sh $<TARGET_FILE:gscan>
         ${PROJECT_SOURCE_DIR}/data/cache/root/usr/share/doc/ragout/examples)
set_tests_properties(lz_compare PROPERTIES ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}" TIMEOUT 1800)
