# fuzz.cmake - libFuzzer over every reader (tests/fuzz/run.sh builds one
# clang binary with ASan + UBSan and fuzzes each target 10 s from its seed
# corpus; exit 77 without clang's libFuzzer). Label fuzz. Not repeated in the
# sanitizer build: the fuzz binary carries its own sanitizers.
if(NOT GS_SANITIZE)
  foreach(t fasta patterns fai gzi config h5 gzip)
    add_test(NAME fuzz_${t}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/run.sh ${CMAKE_BINARY_DIR}/fuzz ${t} 10)
    set_tests_properties(fuzz_${t} PROPERTIES LABELS fuzz SKIP_RETURN_CODE 77 TIMEOUT 600)
  endforeach()
endif()
