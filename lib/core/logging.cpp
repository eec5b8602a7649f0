// SPDX-License-Identifier: Apache-2.0
#include "logging_p.h"

namespace QEtcd {
// Debug output is opt-in (QT_LOGGING_RULES="qetcd.*.debug=true"); warnings stay on.
Q_LOGGING_CATEGORY(lcCore, "qetcd.core", QtInfoMsg)
Q_LOGGING_CATEGORY(lcTransport, "qetcd.transport", QtInfoMsg)
// gRPC core's own diagnostics; every failure that matters also reaches the caller as a Status.
Q_LOGGING_CATEGORY(lcGrpc, "qetcd.grpc", QtWarningMsg)
Q_LOGGING_CATEGORY(lcLease, "qetcd.lease", QtInfoMsg)
Q_LOGGING_CATEGORY(lcWatch, "qetcd.watch", QtInfoMsg)
Q_LOGGING_CATEGORY(lcTesting, "qetcd.testing", QtInfoMsg)
} // namespace QEtcd
