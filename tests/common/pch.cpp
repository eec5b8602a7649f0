// SPDX-License-Identifier: Apache-2.0
// The target that compiles the tests' shared precompiled header (tests/CMakeLists.txt).
