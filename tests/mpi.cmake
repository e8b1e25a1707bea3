gs_unit_test(test_plan LIBS gs_mpi)
