# Faults a cluster delivers (issue 23): inputs that change underneath or are malformed, full disks, limits.
# a file cut under its map: the guard, and the parallel gzip reader that maps its file
gs_unit_test(test_mapguard LIBS gs_stream)
