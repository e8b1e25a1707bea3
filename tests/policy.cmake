gs_unit_test(test_policy LIBS gs_mpi)
