// SPDX-License-Identifier: Apache-2.0
#include "testinglogging_p.h"

namespace QEtcd::Testing {
// Own definition rather than the core library's: QEtcdTesting must not link QEtcd.
Q_LOGGING_CATEGORY(lcTesting, "qetcd.testing", QtInfoMsg)
} // namespace QEtcd::Testing
