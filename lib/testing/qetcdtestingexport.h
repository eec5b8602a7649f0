// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/qglobal.h>

// QEtcdTesting is built with hidden visibility; QETCD_TESTING_EXPORT marks its public API.
// (Its own macro, not QEtcd's: the testing library does not depend on QEtcd.)

#if defined(QETCD_BUILDING_TESTING)
#  define QETCD_TESTING_EXPORT Q_DECL_EXPORT
#else
#  define QETCD_TESTING_EXPORT Q_DECL_IMPORT
#endif
