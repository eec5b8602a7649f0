// SPDX-License-Identifier: Apache-2.0
#include <QEtcd/qetcdversion.h>

namespace QEtcd {

const char *libraryVersion() noexcept
{
    return QETCD_VERSION_STR;
}

} // namespace QEtcd
