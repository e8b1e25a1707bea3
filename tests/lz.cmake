# The LZ77 hybrid index: index scans against plain scans, errors.
add_test(NAME lz_compare COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/lz/compare.sh $<TARGET_FILE:gscan>
         ${PROJECT_SOURCE_DIR}/data/cache/root/usr/share/doc/ragout/examples)
set_tests_properties(lz_compare PROPERTIES ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}" TIMEOUT 1800)
# The same comparisons with the index scans on the GPU (label gpu; exit 77
# without a device).
add_test(NAME lz_compare_gpu COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/lz/compare.sh $<TARGET_FILE:gscan>
         ${PROJECT_SOURCE_DIR}/data/cache/root/usr/share/doc/ragout/examples)
set_tests_properties(lz_compare_gpu PROPERTIES ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE};GS_LZ_DEVICE=gpu"
                     LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 1800)
# The pieces a scan of shorter patterns reads, and the kernel source over
# them, against windows computed from the phrases and the corpus text.
gs_unit_test(test_lz_trim LIBS gs_lz)
