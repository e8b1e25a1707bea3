# Match stage: keyset expansion and the CPU engines against an independent
# pattern-level matcher; bench_engines times the engines (docs/engines.md).
gs_unit_test(test_keyset LIBS gs_match)
gs_unit_test(test_hitsort LIBS gs_core)
gs_unit_test(test_seqcap LIBS gs_core)
gs_unit_test(test_spill LIBS gs_core)
gs_unit_test(test_tally LIBS gs_core)
gs_unit_test(test_copy LIBS gs_core)
gs_unit_test(test_engines LIBS gs_match)
set_tests_properties(test_engines PROPERTIES TIMEOUT 600)

if(TARGET gs_match)
  add_executable(bench_engines ${PROJECT_SOURCE_DIR}/bench/bench_engines.c)
  target_link_libraries(bench_engines PRIVATE gs_match)
endif()

# Approximate matching: bv and the DP reference (bf), block edges, K = 0 as
# exact, --best-per-site; a slice of E. coli when data/cache has it.
gs_unit_test(test_approx LIBS gs_match ZLIB::ZLIB)
set_property(TEST test_approx APPEND PROPERTY ENVIRONMENT
             "GS_TEST_CACHE=${PROJECT_SOURCE_DIR}/data/cache")

# The zone-first scan of mismatch keys with --exact-3p (match/zones.h):
# which keys and groups, the GPU kernel's arithmetic replayed against a
# brute force, and bv with match.zone.scan -1, 0, 1 against bf.
gs_unit_test(test_zones LIBS gs_match)

# The bit-vector steps shared by bv.c and the GPU kernels (bv_step.h), and
# the GPU kernels' schedules replayed on the CPU, against a plain DP.
gs_unit_test(test_bv_step LIBS gs_match)

# The CPU's planned seeds: the plan against every choice of seeds, and bv
# with it against bf where the equal pieces are too wide.
gs_unit_test(test_seed_plan LIBS gs_match)
