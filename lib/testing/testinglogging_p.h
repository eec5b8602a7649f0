#pragma once

#include <QtCore/QLoggingCategory>

namespace QEtcd::Testing {
Q_DECLARE_LOGGING_CATEGORY(lcTesting)
} // namespace QEtcd::Testing
