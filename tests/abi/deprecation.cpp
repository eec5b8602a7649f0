// SPDX-License-Identifier: Apache-2.0
// Compiled, never linked, by checkdeprecation.cmake with the deprecation macros of
// <QEtcd/qetcdversion.h> configured in different ways: two declarations as a header deprecates
// them, one in 0.1 and one in 0.2, and code that uses them.
#include <QEtcd/qetcdversion.h>

#if QETCD_DEPRECATED_SINCE(0, 1)
QETCD_DEPRECATED_X("use answerSince01() instead") int deprecatedIn01();
#endif
#if QETCD_DEPRECATED_SINCE(0, 2)
QETCD_DEPRECATED_X("use answerSince02() instead") int deprecatedIn02();
#endif

#ifdef EXPECT_01_REMOVED
// Conflicts with the declaration above, and fails to compile, unless that one was removed.
void deprecatedIn01() {}
#else
int callsDeprecatedIn01() { return deprecatedIn01(); }
#endif
int callsDeprecatedIn02() { return deprecatedIn02(); }
