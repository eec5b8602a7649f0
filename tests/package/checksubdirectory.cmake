# SPDX-License-Identifier: Apache-2.0
# cmake -DQETCD_SOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -P checksubdirectory.cmake
#
# Configures subdirectory/, a project that adds qetcd with add_subdirectory() (its own checks
# run then), and verifies that qetcd added no install rule. Configuring only: building the
# library again would cost minutes for nothing the main build does not already show.
foreach(variable QETCD_SOURCE_DIR WORK_DIR GENERATOR)
  if(NOT ${variable})
    message(FATAL_ERROR "checksubdirectory.cmake needs -D${variable}=...")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/subdirectory" -B "${WORK_DIR}"
                        -G "${GENERATOR}" "-DQETCD_SOURCE_DIR=${QETCD_SOURCE_DIR}"
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)

# One install script per directory of qetcd's that add_subdirectory() reached, each named here.
foreach(directory "" lib lib/proto lib/testing lib/models)
  set(script "${WORK_DIR}/qetcd/${directory}/cmake_install.cmake")
  if(NOT EXISTS "${script}")
    message(FATAL_ERROR "no install script at ${script}: list qetcd's directories here again")
  endif()
  file(STRINGS "${script}" rules REGEX "file\\(INSTALL")
  if(rules)
    message(FATAL_ERROR "qetcd installs files below another project (${script}):\n${rules}")
  endif()
endforeach()
