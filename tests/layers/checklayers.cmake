# SPDX-License-Identifier: Apache-2.0
# Fails, naming every offender, when a file in one of lib/'s layers includes a header that lives
# in a layer above its own. The layers, lowest first, are those of the architecture: recipes use
# lease and transport, never the reverse, and so on down to core.
#
#   cmake -DLIB_DIR=<the lib folder> -DFILES=<files relative to it, comma-separated> -P checklayers.cmake
#
# The files are the libraries' own source lists (tests/layers/CMakeLists.txt), so what is built
# is what is checked.
cmake_minimum_required(VERSION 3.25)

set(_layers core transport lease recipes coordination models)
if(NOT IS_DIRECTORY "${LIB_DIR}")
  message(FATAL_ERROR "checklayers.cmake: -DLIB_DIR must name the lib folder (got \"${LIB_DIR}\")")
endif()
string(REPLACE "," ";" FILES "${FILES}")
if(NOT FILES)
  message(FATAL_ERROR "checklayers.cmake: -DFILES names no file to check")
endif()


list(LENGTH _layers _count)
math(EXPR _last "${_count} - 1")

# Each file's layer is the first folder of its path.
foreach(_index RANGE ${_last})
  set(_files_${_index} "")
endforeach()

# Where each header lives; includes name headers by file name alone ("client_p.h" or
# <QEtcd/client.h>), since every layer's folders are on the include path.
foreach(_file IN LISTS FILES)
  string(REGEX MATCH "^[^/]+" _layer "${_file}")
  list(FIND _layers "${_layer}" _index)
  if(_index LESS 0)
    message(FATAL_ERROR "checklayers.cmake: ${_file} is in none of the layers (${_layers})")
  endif()
  list(APPEND _files_${_index} "${_file}")
  if(_file MATCHES "\\.h$")
    get_filename_component(_name "${_file}" NAME)
    set("_layer_of_${_name}" ${_index})
  endif()
endforeach()

set(_offences "")
set(_checked 0)
foreach(_index RANGE ${_last})
  list(GET _layers ${_index} _layer)
  foreach(_file IN LISTS _files_${_index})
    math(EXPR _checked "${_checked} + 1")
    file(STRINGS "${LIB_DIR}/${_file}" _includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
    foreach(_line IN LISTS _includes)
      if(NOT _line MATCHES "include[ \t]*[<\"]([^>\"]+)[>\"]")
        continue()
      endif()
      get_filename_component(_name "${CMAKE_MATCH_1}" NAME)
      set(_target "${_layer_of_${_name}}")  # empty: not one of lib's headers (Qt, std, stubs)
      if(NOT _target STREQUAL "" AND _target GREATER _index)
        list(GET _layers ${_target} _above)
        list(APPEND _offences "  ${_file} includes ${_above}/${_name}")
      endif()
    endforeach()
  endforeach()
endforeach()

list(JOIN _layers " < " _order)
if(_offences)
  list(JOIN _offences "\n" _report)
  message(FATAL_ERROR "Includes that point up the layers (${_order}):\n${_report}")
endif()
message(STATUS "${_checked} files in ${_order}: every include points down or sideways")
