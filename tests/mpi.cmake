gs_unit_test(test_plan LIBS gs_mpi)
add_test(NAME mpi_ranks COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mpi/ranks.sh $<TARGET_FILE:gscan>)
add_test(NAME mpi_failures COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mpi/failures.sh $<TARGET_FILE:gscan>)
add_test(NAME mpi_est COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mpi/est.sh $<TARGET_FILE:gscan>)
# --circular against a brute force on the doubled records, every read mode and 1-3 ranks
add_test(NAME mpi_circular COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mpi/circular.sh $<TARGET_FILE:gscan>)
set_tests_properties(mpi_ranks mpi_failures mpi_est mpi_circular PROPERTIES
                     ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}" TIMEOUT 1500)
# failures.sh times how soon a job ends after a rank is killed: not beside
# another test's ranks on a 2-core machine
set_tests_properties(mpi_failures PROPERTIES RUN_SERIAL TRUE)
