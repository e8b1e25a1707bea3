# workflows.cmake - the example workflows under workflows/, run as a user would.
# workflow_tally: workflows/tally with snakemake --cores 2 (skipped, 77, without
# snakemake or the example genomes); its Slurm run is slurm_workflow_tally.
if(TARGET gscan)
  add_test(NAME workflow_tally
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/workflows/tally.sh $<TARGET_FILE:gscan> local)
  set_tests_properties(workflow_tally PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
                       LABELS workflow)
endif()
