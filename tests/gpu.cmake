# GPU stage: every CUDA engine against the CPU brute-force engine (label gpu;
# exits 77 without a device). bench_gpu (bench/gpu/) times the kernels on the
# GPU machine through scripts/device.sh; it is built here so that it lives
# next to the code it measures.
gs_unit_test(test_gpu LIBS gs_gpu gs_seq LABELS gpu)
set_tests_properties(test_gpu PROPERTIES TIMEOUT 900)

add_executable(bench_gpu ${PROJECT_SOURCE_DIR}/bench/gpu/bench_gpu.c)
target_link_libraries(bench_gpu PRIVATE gs_gpu gs_match)

# The whole GPU path of gscan scan, end to end, against the CPU brute force.
add_test(NAME gpu_pipeline COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gpu/pipeline.sh $<TARGET_FILE:gscan>)
set_tests_properties(gpu_pipeline PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900
                     ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}")

# Hits beyond --max-memory on the GPU path: spilled as batches come back,
# the same /hits and text as the CPU at 1 and 2 ranks.
add_test(NAME gpu_spill COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gpu/spill.sh $<TARGET_FILE:gscan>)
set_tests_properties(gpu_spill PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600
                     ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}")

# Approximate matching on the GPU (engine bv) against the CPU, end to end:
# every mode x strand x K 0..4 x --best-per-site, tiny blocks, long keys, a
# real genome, the seed filter against the full scan (match.seed.filter=-1);
# prints PASS/FAIL per case. approx.sh's workloads in three tests that run
# side by side (ctest -j): each workload in exactly one of them, or in
# gpu_exact3p / gpu_zone below.
foreach(part "short;^(tiny-keys|short-keys|one-record|verify)$"
             "long;^(long-keys|few-keys.*)$"
             "filter;^(filter-.*|genome=.*)$")
  list(GET part 0 name)
  list(GET part 1 only)
  add_test(NAME gpu_approx_${name} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gpu/approx.sh
           $<TARGET_FILE:gscan> ${PROJECT_SOURCE_DIR}/data/cache)
  set_tests_properties(gpu_approx_${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                       TIMEOUT 3600 ENVIRONMENT "GS_APPROX_ONLY=${only}")
endforeach()

# --exact-3p alone (approx.sh's exact3p-* workloads): mode x strand x K x
# exact-3p x --best-per-site, the seed filter on and off, guides, long keys.
add_test(NAME gpu_exact3p COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gpu/approx.sh
         $<TARGET_FILE:gscan> ${PROJECT_SOURCE_DIR}/data/cache)
set_tests_properties(gpu_exact3p PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 3600
                     ENVIRONMENT GS_APPROX_ONLY=exact3p)

# The zone-first scan (bv_zone.cuh) alone (approx.sh's zone-* workloads):
# guides with NGG and primers of other zones, K 0..6, both strands, own K /
# exact_3p columns, small blocks, match.zone.scan 0, 1 and -1, against bf.
add_test(NAME gpu_zone COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gpu/approx.sh
         $<TARGET_FILE:gscan> ${PROJECT_SOURCE_DIR}/data/cache)
set_tests_properties(gpu_zone PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 3600
                     ENVIRONMENT GS_APPROX_ONLY=zone)

# --max-bulges on the GPU (tests/cli/bulges.sh): the planted guides against
# the brute force, the real genome's rows against the CPU's at 1 and 2 ranks,
# blocks of 64, keys over 64 residues.
add_test(NAME gpu_bulges COMMAND bash ${PROJECT_SOURCE_DIR}/tests/cli/bulges.sh $<TARGET_FILE:gscan> gpu)
set_tests_properties(gpu_bulges PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900
                     ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}")

# bench_bv (bench/gpu/): the seeds' edit-distance workload on the bv kernels.
if(GS_HAVE_CUDA)
  add_executable(bench_bv ${PROJECT_SOURCE_DIR}/bench/gpu/bench_bv.cu)
  target_link_libraries(bench_bv PRIVATE gs_gpu gs_match)
endif()

# --tally on the GPU against the CPU reference tally (tests/cli/tally.sh).
add_test(NAME gpu_tally COMMAND bash ${PROJECT_SOURCE_DIR}/tests/cli/tally.sh $<TARGET_FILE:gscan> gpu)
set_tests_properties(gpu_tally PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900
                     ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}")

# --seq on the GPU: the matched text the host captures from each batch's
# text (tests/cli/seqcap.sh against the plain file's .fai rows and a brute force).
add_test(NAME gpu_seqcap COMMAND bash ${PROJECT_SOURCE_DIR}/tests/cli/seqcap.sh $<TARGET_FILE:gscan> gpu)
set_tests_properties(gpu_seqcap PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900
                     ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}")

# Indexed FASTA parsed on the GPU from the files' own bytes (src/gpu/raw.cu)
# against the CPU's parser: every line layout, blocks down to 37 residues,
# readers, strands, --circular, 2 ranks; stale indexes fail as on the CPU.
add_test(NAME gpu_raw COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gpu/raw.sh $<TARGET_FILE:gscan>)
set_tests_properties(gpu_raw PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900
                     ENVIRONMENT "MPIEXEC=${MPIEXEC_EXECUTABLE}")
# plain FASTA and FASTQ read in parts on several threads, scanned on the
# GPU, against one stream on the CPU (tests/input/parts.sh)
add_test(NAME gpu_parts COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/input/parts.sh $<TARGET_FILE:gscan>)
set_tests_properties(gpu_parts PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600
                     ENVIRONMENT "GS_PARTS_DEVICE=gpu")
# whole files read side by side, scanned on the GPU (tests/input/files.sh)
add_test(NAME gpu_files COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/input/files.sh $<TARGET_FILE:gscan>)
set_tests_properties(gpu_files PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600
                     ENVIRONMENT "GS_FILES_DEVICE=gpu")
