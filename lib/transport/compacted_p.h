// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "status.h"

namespace QEtcd::Internal {

// etcd's "mvcc: required revision has been compacted": the revision asked for is gone, which
// says nothing of up to where (OutOfRange also stands for a future revision).
inline bool isCompacted(const Status &status)
{
    return status.code() == StatusCode::OutOfRange && status.message().contains(QLatin1String("compacted"));
}

} // namespace QEtcd::Internal
