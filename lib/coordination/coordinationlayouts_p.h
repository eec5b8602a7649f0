#pragma once

#include <QtCore/QRegularExpression>

namespace QEtcd::Internal {

// A DeclaredLayout's glob as an anchored pattern: Qt's wildcards, and ** across segments.
QRegularExpression globExpression(const QString &glob);

} // namespace QEtcd::Internal
