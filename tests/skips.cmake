# Lists every "skipped: REASON" line the tests printed in the last ctest run, with the test's name
# (ctest itself shows only "(Skipped)", and nothing for a test that skipped a part and passed).
# Run by ctest after the tests (CTEST_CUSTOM_POST_TEST, written by tests/CMakeLists.txt).
#   cmake -DLOG_DIR=BUILD/Testing/Temporary -P tests/skips.cmake
# The run's log: ctest renames it LastTest.log after this step; LastTest.log is the run before's.
set(log "${LOG_DIR}/LastTest.log.tmp")
if(NOT EXISTS "${log}")
  message("Skipped tests: this run's log (${log}) is not there: run ctest -V to see their reasons")
  return()
endif()
file(STRINGS "${log}" lines REGEX "^[0-9]+/[0-9]+ Test: |^skipped: ")
set(test "")
set(out "")
foreach(line IN LISTS lines)
  if(line MATCHES "^[0-9]+/[0-9]+ Test: (.*)$")
    set(test "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^skipped: (.*)$")
    string(APPEND out "  ${test}: ${CMAKE_MATCH_1}\n")
  endif()
endforeach()
if(out)
  message("Skipped, with the reasons the tests gave:\n${out}")
endif()
