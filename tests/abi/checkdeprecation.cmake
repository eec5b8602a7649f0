# SPDX-License-Identifier: Apache-2.0
# cmake -DCXX_COMPILER=... -DINCLUDE_DIRS=<dir>|<dir>... -DSOURCE=deprecation.cpp
#       -P checkdeprecation.cmake
#
# Compiles SOURCE, which deprecates one declaration in 0.1 and one in 0.2 and uses both, the
# way a program including qetcd's headers would be compiled, and holds the deprecation macros
# of <QEtcd/qetcdversion.h> to what docs/abi.md says:
#   - by default both declarations are there and each use warns with its text;
#   - QETCD_DISABLE_DEPRECATED_UP_TO=0.1 removes the one deprecated in 0.1 (SOURCE declares a
#     conflicting one in its place) and keeps the one deprecated in 0.2, still warning;
#   - QETCD_NO_DEPRECATED_WARNINGS keeps both and silences the warnings.
foreach(variable CXX_COMPILER INCLUDE_DIRS SOURCE)
  if(NOT ${variable})
    message(FATAL_ERROR "checkdeprecation.cmake needs -D${variable}=...")
  endif()
endforeach()

string(REPLACE "|" ";" include_dirs "${INCLUDE_DIRS}")
list(TRANSFORM include_dirs PREPEND "-I")

# compile(NAME DEFINES... EXPECT text... REJECT text...): compiles with the given definitions,
# fails unless the compiler succeeds, says every EXPECT text and none of the REJECT texts.
function(compile name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "DEFINES;EXPECT;REJECT")
  list(TRANSFORM arg_DEFINES PREPEND "-D")
  execute_process(COMMAND "${CXX_COMPILER}" -std=c++17 -fPIC -fsyntax-only -Wdeprecated-declarations
                          ${include_dirs} ${arg_DEFINES} "${SOURCE}"
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${name}: the compiler failed:\n${output}")
  endif()
  foreach(text IN LISTS arg_EXPECT)
    string(FIND "${output}" "${text}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${name}: the compiler did not say \"${text}\":\n${output}")
    endif()
  endforeach()
  foreach(text IN LISTS arg_REJECT)
    string(FIND "${output}" "${text}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${name}: the compiler said \"${text}\":\n${output}")
    endif()
  endforeach()
  message(STATUS "${name}: as expected")
endfunction()

compile("by default"
  EXPECT "use answerSince01() instead" "use answerSince02() instead")
compile("QETCD_DISABLE_DEPRECATED_UP_TO=0.1"
  DEFINES "QETCD_DISABLE_DEPRECATED_UP_TO=0x000100" EXPECT_01_REMOVED
  EXPECT "use answerSince02() instead"
  REJECT "use answerSince01() instead")
compile("QETCD_NO_DEPRECATED_WARNINGS"
  DEFINES QETCD_NO_DEPRECATED_WARNINGS
  REJECT "Wdeprecated-declarations")
