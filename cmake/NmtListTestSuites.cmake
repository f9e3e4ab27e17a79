# Run as `cmake -Dprogram=... -Doutput=... -Dlabels=a,b [-Dtimeout=N] [-Dcosts=Suite=N,...]
# -Dworking_directory=... -P` after a test program links (NmtTestSuites.cmake): writes OUTPUT, the
# ctest entries of its suites.
execute_process(COMMAND "${program}" --gtest_list_tests
                OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status TIMEOUT 60)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${program} --gtest_list_tests failed (${status}):\n${listing}${errors}")
endif()

# The listing: "Suite." (value-parameterised: "Instance/Suite.", typed: "Suite/0.  # TypeParam = ...")
# then one indented line per test.
string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(suites "")
set(suite "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([A-Za-z_][A-Za-z0-9_/]*)\\.( .*)?$")
    set(suite "${CMAKE_MATCH_1}")
    list(APPEND suites "${suite}")
    set(count_${suite} 0)
  elseif(suite AND line MATCHES "^  ([A-Za-z0-9_/]+)")
    if(NOT CMAKE_MATCH_1 MATCHES "^DISABLED_")
      math(EXPR count_${suite} "${count_${suite}} + 1")
    endif()
  endif()
endforeach()
if(NOT suites)
  message(FATAL_ERROR "${program} --gtest_list_tests listed no suite:\n${listing}")
endif()

# A suite's COST is its test count unless `costs` names it.
string(REPLACE "," ";" costs "${costs}")
foreach(entry IN LISTS costs)
  if(NOT entry MATCHES "^([A-Za-z_][A-Za-z0-9_/]*)=([0-9]+)$")
    message(FATAL_ERROR "NMT_SUITE_COSTS: '${entry}' is not SUITE=COST")
  endif()
  if(NOT DEFINED count_${CMAKE_MATCH_1})
    message(FATAL_ERROR "NMT_SUITE_COSTS names ${CMAKE_MATCH_1}, which ${program} does not have")
  endif()
  set(cost_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
endforeach()
foreach(suite IN LISTS suites)
  if(NOT DEFINED cost_${suite})
    set(cost_${suite} ${count_${suite}})
  endif()
endforeach()

string(REPLACE "," ";" labels "${labels}")
set(timeout_property "")
if(timeout)
  set(timeout_property "TIMEOUT ${timeout} ")
endif()
set(script "# Generated from `${program} --gtest_list_tests` (cmake/NmtListTestSuites.cmake).\n")
foreach(suite IN LISTS suites)
  string(APPEND script
    "add_test([==[${suite}]==] [==[${program}]==] [==[--gtest_filter=${suite}.*]==])\n"
    "set_tests_properties([==[${suite}]==] PROPERTIES LABELS [==[${labels}]==] ${timeout_property}"
    "COST ${cost_${suite}} WORKING_DIRECTORY [==[${working_directory}]==] "
    "SKIP_REGULAR_EXPRESSION [==[\\[  SKIPPED \\] ${count_${suite}} tests?, listed below]==])\n")
endforeach()
file(WRITE "${output}.new" "${script}")
file(RENAME "${output}.new" "${output}")
