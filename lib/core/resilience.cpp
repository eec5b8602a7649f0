// SPDX-License-Identifier: Apache-2.0
#include "resilience.h"

namespace QEtcd {

Status ResilienceConfig::validate() const
{
    if (!watch.retryPolicy.isValid())
        return watch.retryPolicy.validation().withContext(QStringLiteral("watch resilience"));
    if (!lease.retryPolicy.isValid())
        return lease.retryPolicy.validation().withContext(QStringLiteral("lease resilience"));
    if (!rpc.retryPolicy.isValid())
        return rpc.retryPolicy.validation().withContext(QStringLiteral("rpc resilience"));
    if (rpc.operationTimeout <= std::chrono::milliseconds::zero())
        return Status(StatusCode::InvalidArgument, QStringLiteral("rpc resilience: operationTimeout must be > 0"));
    if (lease.healOperationTimeout <= std::chrono::milliseconds::zero())
        return Status(StatusCode::InvalidArgument, QStringLiteral("lease resilience: healOperationTimeout must be > 0"));
    return {};
}

} // namespace QEtcd
