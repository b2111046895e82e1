# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
#
# Runs a command and checks its exit status and output for regular expressions.
# cmake -DARGS=prog|arg|... -DEXPECTED_STATUS=N [-DEXPECTED_REGEX=re] [-DEXPECTED_STDERR_REGEX=re]
#       [-DREJECTED_REGEX=re] [-DEXPECTED_NUMBER=KEY=VALUE [-DEXPECTED_RELATIVE=X]]
#       -P RunCommand.cmake
#   EXPECTED_REGEX         must match stdout followed by stderr
#   EXPECTED_STDERR_REGEX  must match stderr alone
#   REJECTED_REGEX         must match neither stdout nor stderr
#   EXPECTED_NUMBER        stdout's first KEY=number must lie within X * |VALUE| of VALUE
#                          (default X: 0). The printed digits of a double need not be those of
#                          the reference's text (17 digits against the shortest round trip), so a
#                          regex cannot say this; awk compares the two numbers in double.
string(REPLACE "|" ";" _command "${ARGS}")
execute_process(COMMAND ${_command}
  RESULT_VARIABLE _status OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
message("command: ${_command}\nstatus: ${_status}\nstdout:\n${_out}\nstderr:\n${_err}")
if(NOT "${_status}" STREQUAL "${EXPECTED_STATUS}")
  message(FATAL_ERROR "exit status ${_status}, expected ${EXPECTED_STATUS}")
endif()
if(NOT "${EXPECTED_REGEX}" STREQUAL "")
  if(NOT "${_out}${_err}" MATCHES "${EXPECTED_REGEX}")
    message(FATAL_ERROR "the output does not match '${EXPECTED_REGEX}'")
  endif()
endif()
if(NOT "${EXPECTED_STDERR_REGEX}" STREQUAL "")
  if(NOT "${_err}" MATCHES "${EXPECTED_STDERR_REGEX}")
    message(FATAL_ERROR "stderr does not match '${EXPECTED_STDERR_REGEX}'")
  endif()
endif()
if(NOT "${REJECTED_REGEX}" STREQUAL "")
  if("${_out}" MATCHES "${REJECTED_REGEX}" OR "${_err}" MATCHES "${REJECTED_REGEX}")
    message(FATAL_ERROR "the output matches '${REJECTED_REGEX}', which it must not")
  endif()
endif()
if(NOT "${EXPECTED_NUMBER}" STREQUAL "")
  if(NOT "${EXPECTED_NUMBER}" MATCHES "^([A-Za-z_]+)=(.+)$")
    message(FATAL_ERROR "EXPECTED_NUMBER '${EXPECTED_NUMBER}' is not KEY=VALUE")
  endif()
  set(_key "${CMAKE_MATCH_1}")
  set(_want "${CMAKE_MATCH_2}")
  if(NOT "${_out}" MATCHES "(^|[ \n])${_key}=([-+0-9.eE]+)")
    message(FATAL_ERROR "stdout has no ${_key}=<number>")
  endif()
  set(_got "${CMAKE_MATCH_2}")
  if("${EXPECTED_RELATIVE}" STREQUAL "")
    set(EXPECTED_RELATIVE 0)
  endif()
  execute_process(COMMAND awk -v got=${_got} -v want=${_want} -v relative=${EXPECTED_RELATIVE}
    "BEGIN { d = got - want; w = want; if (d < 0) d = -d; if (w < 0) w = -w; exit !(d <= relative * w) }"
    RESULT_VARIABLE _far)
  if(NOT "${_far}" STREQUAL "0")
    message(FATAL_ERROR "${_key}=${_got} differs from ${_want} by more than ${EXPECTED_RELATIVE} relative")
  endif()
  message("${_key}=${_got} is within ${EXPECTED_RELATIVE} relative of ${_want}")
endif()
