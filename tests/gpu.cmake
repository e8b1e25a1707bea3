# GPU stage: every CUDA engine against the CPU brute-force engine (label gpu;
# exits 77 without a device). bench_gpu (bench/gpu/) times the kernels on the
# GPU machine through scripts/device.sh; it is built here so that it lives
# next to the code it measures.
gs_unit_test(test_gpu LIBS gs_gpu gs_io LABELS gpu)
set_tests_properties(test_gpu PROPERTIES TIMEOUT 900)

add_executable(bench_gpu ${PROJECT_SOURCE_DIR}/bench/gpu/bench_gpu.c)
target_link_libraries(bench_gpu PRIVATE gs_gpu gs_match)

# The whole GPU path of gscan scan, end to end, against the CPU brute force.
add_test(NAME gpu_pipeline COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gpu/pipeline.sh $<TARGET_FILE:gscan>)
set_tests_properties(gpu_pipeline PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900)
