// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/qglobal.h>

// QEtcdQuick, the QML module's backing library, is built with hidden visibility.
// QETCD_QUICK_EXPORT marks the types its QML plugin, the console and the tests use. None of
// its headers is installed: outside this project it is reached through `import QEtcd` only.

#if defined(QETCD_BUILDING_QUICK)
#  define QETCD_QUICK_EXPORT Q_DECL_EXPORT
#else
#  define QETCD_QUICK_EXPORT Q_DECL_IMPORT
#endif
