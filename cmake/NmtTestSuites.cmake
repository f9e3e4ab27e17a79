# nmt_discover_test_suites(TARGET LABELS label... [TIMEOUT seconds]): one ctest entry per GoogleTest
# suite of a test program (`PROGRAM --gtest_filter=Suite.*`), where gtest_discover_tests makes one per
# test. Each entry is a process, and a process that loads LibTorch spends about 0.65 CPU-seconds
# registering its operators before the first test runs: with 580 entries that was a third of the
# suite's time (docs/benchmarks.md, "CI time"). A suite's tests share a fixture and run together in
# a plain run of the program anyway.
#
# Like gtest_discover_tests, the suites are listed after every link (`--gtest_list_tests`, a
# POST_BUILD step) into a file that ctest includes, so a new suite needs no CMake change. An entry
# whose tests all skipped (GTEST_SKIP: no GPU, no python3-torch) is reported as skipped: gtest's
# summary then counts as many skipped tests as the suite has, so a failure is never taken for a
# skip. A suite with some tests skipped passes, and its output names them. COST is the suite's
# test count, so that without recorded timings (a fresh clone) ctest starts the large suites first,
# or what the target's NMT_SUITE_COSTS property says for a suite of few long tests
# (set_property(TARGET test_model PROPERTY NMT_SUITE_COSTS "ScriptedCheckpoint=60" ...)).

set(_nmt_list_suites_script "${CMAKE_CURRENT_LIST_DIR}/NmtListTestSuites.cmake")

function(nmt_discover_test_suites target)
  # No TIMEOUT: none is set (a property would override `ctest --timeout`, which check-cuda.sh uses).
  cmake_parse_arguments(arg "" "TIMEOUT" "LABELS" ${ARGN})
  set(tests_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
  string(REPLACE ";" "," labels "${arg_LABELS}")  # a list would split the -D argument
  add_custom_command(TARGET ${target} POST_BUILD
    BYPRODUCTS "${tests_file}"
    COMMAND "${CMAKE_COMMAND}" "-Dprogram=$<TARGET_FILE:${target}>" "-Doutput=${tests_file}" "-Dlabels=${labels}"
            "-Dtimeout=${arg_TIMEOUT}" "-Dworking_directory=${CMAKE_CURRENT_BINARY_DIR}"
            "-Dcosts=$<JOIN:$<TARGET_PROPERTY:${target},NMT_SUITE_COSTS>,,>"
            -P "${_nmt_list_suites_script}"
    COMMENT "Listing the test suites of ${target}"
    VERBATIM)
  # ctest reads this at start: the suites once the program is built, else one entry that fails
  # saying so (ctest run before the build).
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites_include.cmake")
  file(WRITE "${include_file}"
       "if(EXISTS \"${tests_file}\")\n"
       "  include(\"${tests_file}\")\n"
       "else()\n"
       "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
