# SPDX-License-Identifier: Apache-2.0
# cmake -DBUILD_DIR=... -DEXAMPLES_DIR=... -DWORK_DIR=... -DLIBDIR=... -DGENERATOR=...
#       -DCXX_COMPILER=... [-DLAUNCHER=...] -P buildexamples.cmake
#
# Installs qetcd's runtime and development components from BUILD_DIR into WORK_DIR/prefix, then
# configures EXAMPLES_DIR against that prefix alone, as a user's project would (find_package
# for most, pkg-config for one), and builds every example with warnings as errors. Run by CTest
# as the fixture package_examples; any failed step fails it.
foreach(variable BUILD_DIR EXAMPLES_DIR WORK_DIR LIBDIR GENERATOR CXX_COMPILER)
  if(NOT ${variable})
    message(FATAL_ERROR "buildexamples.cmake needs -D${variable}=...")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")

foreach(component IN ITEMS runtime development)
  message(STATUS "Installing the ${component} component into ${prefix}")
  execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}" --component ${component}
                  OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
endforeach()

# The version file accepts any request of the installed major version up to the installed
# version itself, and nothing of another major version.
set(version_file "${prefix}/${LIBDIR}/cmake/QEtcd/QEtcdConfigVersion.cmake")
include("${version_file}")
set(installed "${PACKAGE_VERSION}")
string(REGEX MATCH "^[0-9]+" major "${installed}")
math(EXPR next_major "${major} + 1")
foreach(request IN ITEMS "${major}" "${installed}" "${next_major}")
  set(PACKAGE_FIND_VERSION "${request}")
  set(PACKAGE_FIND_VERSION_MAJOR "${major}")
  if(request STREQUAL next_major)
    set(PACKAGE_FIND_VERSION_MAJOR "${next_major}")
  endif()
  unset(PACKAGE_VERSION_COMPATIBLE)
  include("${version_file}")
  if(request STREQUAL next_major AND PACKAGE_VERSION_COMPATIBLE)
    message(FATAL_ERROR "QEtcd ${installed} claims to satisfy a request for ${request}")
  elseif(NOT request STREQUAL next_major AND NOT PACKAGE_VERSION_COMPATIBLE)
    message(FATAL_ERROR "QEtcd ${installed} refuses a request for ${request}")
  endif()
endforeach()

# The components are Qt's names: all three are found, and an unknown one fails a REQUIRED
# find_package naming it (a configure of a few lines each, no build).
function(configure_finding components expect_success expected_message)
  set(project_dir "${WORK_DIR}/find-${expect_success}")
  file(WRITE "${project_dir}/CMakeLists.txt"
    "cmake_minimum_required(VERSION 3.16)\n"
    "project(find-qetcd LANGUAGES CXX)\n"
    "find_package(QEtcd REQUIRED COMPONENTS ${components})\n"
    "foreach(target QEtcd::QEtcd QEtcd::Testing)\n"
    "  if(NOT TARGET \${target})\n"
    "    message(FATAL_ERROR \"no \${target}\")\n"
    "  endif()\n"
    "endforeach()\n")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${project_dir}" -B "${project_dir}/build" -G "${GENERATOR}"
                          "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_PREFIX_PATH=${prefix}"
                          -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  string(REGEX REPLACE "[ \n]+" " " flat_output "${output}")
  if(expect_success AND NOT result EQUAL 0)
    message(FATAL_ERROR "find_package(QEtcd COMPONENTS ${components}) failed:\n${output}")
  elseif(NOT expect_success AND result EQUAL 0)
    message(FATAL_ERROR "find_package(QEtcd COMPONENTS ${components}) succeeded")
  elseif(NOT flat_output MATCHES "${expected_message}")
    message(FATAL_ERROR "find_package(QEtcd COMPONENTS ${components}) did not say \"${expected_message}\":\n${output}")
  endif()
endfunction()
message(STATUS "Finding QEtcd's components")
configure_finding("Core Quick Testing" TRUE "")
configure_finding("Core Widgets" FALSE "QEtcd has no component Widgets \\(it has Core, Quick and Testing\\)")

set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
set(launcher)
if(LAUNCHER)
  set(launcher "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
endif()
message(STATUS "Configuring ${EXAMPLES_DIR} against ${prefix}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${EXAMPLES_DIR}" -B "${build}" -G "${GENERATOR}"
                        "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" ${launcher}
                        "-DCMAKE_CXX_FLAGS=-Wall -Wextra -Werror"
                        "-DCMAKE_PREFIX_PATH=${prefix}"
                        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
# The package found must be the scratch install's, not one left elsewhere on the machine.
file(STRINGS "${build}/CMakeCache.txt" found REGEX "^QEtcd_DIR:")
if(NOT found STREQUAL "QEtcd_DIR:PATH=${prefix}/${LIBDIR}/cmake/QEtcd")
  message(FATAL_ERROR "the examples found another QEtcd package: ${found}")
endif()

message(STATUS "Building the examples")
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${build}" --parallel 2 COMMAND_ERROR_IS_FATAL ANY)
