# SPDX-License-Identifier: Apache-2.0
# Fails, naming every offender, when one of our source files does not say its licence: C++, QML,
# CMake, shell, Python, Go and JavaScript files carry "SPDX-License-Identifier: Apache-2.0" in
# their first lines (after a #! line), so a file copied out of the tree still says under which
# terms. The protos the stubs are generated from are not in the tree (lib/proto holds only the
# rules that find Debian's), and keep their own licences (debian/copyright).
#
#   cmake -DSOURCE_DIR=<a checkout or an unpacked tarball> -P checkspdx.cmake
#
# In a git checkout the files checked are those git tracks, so a build tree or an editor's backup
# inside the checkout is not taken for ours; a tarball has no .git, and the tree is walked instead,
# leaving out build trees in it.
cmake_minimum_required(VERSION 3.25)

if(NOT IS_DIRECTORY "${SOURCE_DIR}")
  message(FATAL_ERROR "checkspdx.cmake: -DSOURCE_DIR must name the source tree (got \"${SOURCE_DIR}\")")
endif()

set(_identifier "SPDX-License-Identifier: Apache-2.0")
# A worktree's .git is a file, a clone's a folder. Only this tree's own .git counts: git would
# otherwise answer for a repository that merely encloses the tree.
find_program(_git git)
set(_in_git FALSE)
if(EXISTS "${SOURCE_DIR}/.git" AND _git)
  set(_in_git TRUE)
  set(_list_files "${_git}" ls-files)
else()
  # find(1), not a CMake glob: the house rule keeps globs out of CMake, and this is a listing of
  # what is there, which is what find is for.
  set(_list_files find . -type f)
endif()
execute_process(COMMAND ${_list_files} WORKING_DIRECTORY "${SOURCE_DIR}"
                OUTPUT_VARIABLE _listing OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE _result ERROR_VARIABLE _error)
if(NOT _result EQUAL 0)
  message(FATAL_ERROR "checkspdx.cmake: listing the files of ${SOURCE_DIR} failed: ${_error}")
endif()
string(REPLACE "\n" ";" _files "${_listing}")
if(NOT _in_git)
  list(TRANSFORM _files REPLACE "^\\./" "")
  list(SORT _files)
  set(_caches ${_files})
  list(FILTER _caches INCLUDE REGEX "(^|/)CMakeCache\\.txt$")
  foreach(_cache IN LISTS _caches)
    get_filename_component(_build_tree "${_cache}" DIRECTORY)
    if(_build_tree STREQUAL "")
      message(FATAL_ERROR "checkspdx.cmake: ${SOURCE_DIR} is a build tree, not a source tree")
    endif()
    list(FILTER _files EXCLUDE REGEX "^${_build_tree}/")
  endforeach()
endif()

set(_checked 0)
set(_offenders "")
foreach(_file IN LISTS _files)
  if(_file STREQUAL "" OR NOT EXISTS "${SOURCE_DIR}/${_file}" OR IS_DIRECTORY "${SOURCE_DIR}/${_file}")
    continue()
  endif()
  file(STRINGS "${SOURCE_DIR}/${_file}" _head LIMIT_COUNT 3 LIMIT_INPUT 4096)
  set(_first_line "")
  if(_head)
    list(GET _head 0 _first_line)
  endif()
  # Scripts without a suffix (scripts/run, .ci/run) are known by their #! line; shell
  # completions are sourced, not run, and have none (zsh's starts with #compdef).
  if(_file MATCHES "\\.(cpp|h|qml|cmake|sh|py|go|js|fish)$|\\.(h|cmake)\\.in$|(^|/)CMakeLists\\.txt$|(^|/)(bash|zsh|fish)-completion/"
     OR _first_line MATCHES "^#!")
    math(EXPR _checked "${_checked} + 1")
    string(FIND "${_head}" "${_identifier}" _at)
    if(_at LESS 0)
      list(APPEND _offenders "${_file}")
    endif()
  endif()
endforeach()

if(_checked EQUAL 0)
  message(FATAL_ERROR "checkspdx.cmake: no source file found in ${SOURCE_DIR}")
endif()
if(_offenders)
  # One line each, unwrapped, as FATAL_ERROR would wrap them.
  foreach(_file IN LISTS _offenders)
    message(NOTICE "${_file} lacks \"${_identifier}\" in its first lines")
  endforeach()
  list(LENGTH _offenders _count)
  message(FATAL_ERROR "${_count} of ${_checked} source files do not say their licence")
endif()
message(STATUS "${_checked} source files say their licence")
