# cmake -DEXE=prog -DEXPECT=code -DARGS=a;b;c [-DSTDERR_MATCH=regex]
#   [-DSTDOUT_MATCH=regex] -P expect_exit.cmake
cmake_minimum_required(VERSION 3.19)
execute_process(COMMAND ${EXE} ${ARGS} RESULT_VARIABLE rc
  OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL EXPECT)
  message(FATAL_ERROR "expected exit ${EXPECT}, got ${rc}\n${out}\n${err}")
endif()
if(DEFINED STDERR_MATCH AND NOT err MATCHES "${STDERR_MATCH}")
  message(FATAL_ERROR "stderr does not match '${STDERR_MATCH}':\n${err}")
endif()
if(DEFINED STDOUT_MATCH AND NOT out MATCHES "${STDOUT_MATCH}")
  message(FATAL_ERROR "stdout does not match '${STDOUT_MATCH}':\n${out}")
endif()
if(DEFINED RESULTS)
  # Batch mode: check results.json (needs CMake >= 3.19 for string(JSON)).
  file(READ ${RESULTS} json)
  string(JSON total GET "${json}" total)
  string(JSON ok GET "${json}" ok)
  string(JSON s0 GET "${json}" results 0 status)
  string(JSON s1 GET "${json}" results 1 status)
  string(JSON p1 GET "${json}" results 1 error path)
  if(NOT total EQUAL 2 OR NOT ok EQUAL 1 OR NOT s0 STREQUAL "ok"
     OR NOT s1 STREQUAL "error" OR NOT p1 STREQUAL "$.kernel")
    message(FATAL_ERROR "unexpected results.json:\n${json}")
  endif()
endif()
message(STATUS "exit ${rc} as expected: ${err}")
