# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
#
# Runs a command and checks its exit status and output for regular expressions.
# cmake -DARGS=prog|arg|... -DEXPECTED_STATUS=N [-DEXPECTED_REGEX=re] [-DEXPECTED_STDERR_REGEX=re]
#       [-DREJECTED_REGEX=re] -P RunCommand.cmake
#   EXPECTED_REGEX         must match stdout followed by stderr
#   EXPECTED_STDERR_REGEX  must match stderr alone
#   REJECTED_REGEX         must match neither stdout nor stderr
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
