// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QLoggingCategory>

namespace QEtcd::Testing {
Q_DECLARE_LOGGING_CATEGORY(lcTesting)
} // namespace QEtcd::Testing
