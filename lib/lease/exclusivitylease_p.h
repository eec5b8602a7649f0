// SPDX-License-Identifier: Apache-2.0
#pragma once

// A seam for this project's tests, never for applications: it lets a test act at the one point
// of a grant that no outside observation can hit, between its check for release() and the
// lease's registration with the keep-alive hub.

#include <QEtcd/qetcdexport.h>

#include <functional>

namespace QEtcd::Internal {

// Runs, on the dispatcher thread, inside every ExclusivityLease grant as it lands, with the
// landing serialised against release(). Process-wide; an empty hook removes it.
QETCD_INTERNAL_EXPORT void setGrantLandingHook(std::function<void()> hook);
void runGrantLandingHook();

} // namespace QEtcd::Internal
