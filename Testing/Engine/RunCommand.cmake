# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
#
# Runs a command and checks its exit status and output (stdout + stderr) for a regular expression.
# cmake -DARGS=prog|arg|... -DEXPECTED_STATUS=N -DEXPECTED_REGEX=re -P RunCommand.cmake
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
