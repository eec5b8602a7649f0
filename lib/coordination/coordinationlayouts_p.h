// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>

#include <QtCore/QRegularExpression>

namespace QEtcd::Internal {

// A DeclaredLayout's glob as an anchored pattern: Qt's wildcards, and ** across segments.
QETCD_INTERNAL_EXPORT QRegularExpression globExpression(const QString &glob);

} // namespace QEtcd::Internal
