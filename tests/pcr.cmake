# In-silico PCR (gscan pcr): products against a brute force over sites
# (test_amplicon), end to end against a brute force over sequences at 1-3
# ranks, against ipcress and against seqkit amplicon (tests/pcr/).
gs_unit_test(test_amplicon LIBS gs_core)
add_test(NAME cli_pcr COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/pcr/pcr.sh $<TARGET_FILE:gscan>)
set_tests_properties(cli_pcr PROPERTIES ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}" TIMEOUT 300)
# The same products with every scan on the GPU (bv); exit 77 without one.
add_test(NAME gpu_pcr COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pcr/pcr.sh $<TARGET_FILE:gscan> gpu)
set_tests_properties(gpu_pcr PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900
                     ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}")
add_test(NAME pcr_ipcress COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/pcr/ipcress.sh $<TARGET_FILE:gscan>)
set_tests_properties(pcr_ipcress PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                     ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}")
# seqkit amplicon's one product per pair, record and strand is gscan's longest.
add_test(NAME pcr_seqkit COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/pcr/seqkit_amplicon.sh $<TARGET_FILE:gscan>)
set_tests_properties(pcr_seqkit PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
