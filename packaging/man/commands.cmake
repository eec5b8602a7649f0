# SPDX-License-Identifier: Apache-2.0
# cmake -DQETCD=<the qetcd program> -DOUTPUT=<file> -P commands.cmake
#
# Writes a help2man include file with one section, COMMANDS IN DETAIL: for every command that
# `qetcd --help` lists, what `qetcd COMMAND --help` says, up to its global options (the page
# has those once, from `qetcd --help`). qetcd(1) is so one page with every command.
foreach(variable QETCD OUTPUT)
  if(NOT ${variable})
    message(FATAL_ERROR "commands.cmake needs -D${variable}=...")
  endif()
endforeach()

execute_process(COMMAND "${QETCD}" --help OUTPUT_VARIABLE overview COMMAND_ERROR_IS_FATAL ANY)
string(REGEX MATCH "\nCommands:\n(([^\n]+\n)+)" listing "${overview}")
if(NOT listing)
  message(FATAL_ERROR "commands.cmake: no Commands: section in qetcd --help")
endif()
string(REGEX MATCHALL "\n  [a-z-]+" commands "\n${CMAKE_MATCH_1}")
list(TRANSFORM commands REPLACE "^\n  " "")

set(page "[COMMANDS IN DETAIL]\n")
foreach(command IN LISTS commands)
  execute_process(COMMAND "${QETCD}" ${command} --help OUTPUT_VARIABLE help COMMAND_ERROR_IS_FATAL ANY)
  string(FIND "${help}" "\nGlobal options:\n" global)
  if(global GREATER -1)
    string(SUBSTRING "${help}" 0 ${global} help)
  endif()
  string(STRIP "${help}" help)
  # As roff reads it: backslashes and minus signs literal, no line taken for a request.
  string(REPLACE "\\" "\\e" help "${help}")
  string(REPLACE "-" "\\-" help "${help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
  string(APPEND page ".SS \"qetcd ${command}\"\n.nf\n${help}\n.fi\n")
endforeach()
file(WRITE "${OUTPUT}" "${page}")
