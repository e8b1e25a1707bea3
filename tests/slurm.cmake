# slurm.cmake - tests of the cluster scripts: jobs/slurm, configs, data/fetch-corpora.sh,
# scripts/gscan-report. Label "slurm". Each exits 77 (skipped) when what it
# needs is missing: shellcheck; /usr/bin/python3 with h5py, numpy, matplotlib;
# Slurm and munge (slurm-wlm munge); a built gscan.
set(GS_SLURM_DIR ${CMAKE_CURRENT_SOURCE_DIR}/slurm)

add_test(NAME slurm_shellcheck COMMAND ${GS_SLURM_DIR}/test_shellcheck.sh)
add_test(NAME slurm_fetch_dryrun COMMAND ${GS_SLURM_DIR}/test_fetch_dryrun.sh)
add_test(NAME slurm_report
         COMMAND sh -c "[ -x /usr/bin/python3 ] || { echo 'SKIP: no /usr/bin/python3'; exit 77; }; exec /usr/bin/python3 \"$0\""
                 ${GS_SLURM_DIR}/test_report.py)
set(GS_SLURM_TESTS slurm_shellcheck slurm_fetch_dryrun slurm_report)

# These run the real binary: declared only where the gscan target exists, and
# skipped (77) until it is built.
if(TARGET gscan)
  add_test(NAME slurm_config COMMAND ${GS_SLURM_DIR}/test_config.sh $<TARGET_FILE:gscan>)
  # A Slurm cluster of one on this machine: daemons on private ports, so it
  # runs alone (RUN_SERIAL) and within a bound.
  add_test(NAME slurm_cluster COMMAND ${GS_SLURM_DIR}/test_slurm_job.sh $<TARGET_FILE:gscan>)
  set_tests_properties(slurm_cluster PROPERTIES TIMEOUT 600 RUN_SERIAL TRUE)
  list(APPEND GS_SLURM_TESTS slurm_config slurm_cluster)
endif()

set_tests_properties(${GS_SLURM_TESTS} PROPERTIES SKIP_RETURN_CODE 77 LABELS slurm)

# The example Snakemake workflow through snakemake --slurm (workflows/tally);
# its local run is workflow_tally (tests/workflows.cmake).
if(TARGET gscan)
  add_test(NAME slurm_workflow_tally
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/workflows/tally.sh $<TARGET_FILE:gscan> slurm)
  set_tests_properties(slurm_workflow_tally PROPERTIES TIMEOUT 600 RUN_SERIAL TRUE
                       SKIP_RETURN_CODE 77 LABELS slurm)
endif()
