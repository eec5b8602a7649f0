// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qetcdquickexport.h"

#include <QtCore/QObject>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

/// What a model's `status` property says, for a view's placeholders: nothing asked yet, loading,
/// ready (possibly empty), or failed (errorString says why).
namespace ModelStatus {
Q_NAMESPACE_EXPORT(QETCD_QUICK_EXPORT)
QML_ELEMENT
/// A model's status.
enum Status {
    Null,     ///< Nothing asked yet: no client, or no prefix.
    Loading,  ///< A read is on its way: the first, or the one after an error.
    Ready,    ///< The rows are in (possibly none).
    Error     ///< The read failed; errorString says why.
};
Q_ENUM_NS(Status)
} // namespace ModelStatus

} // namespace QEtcd
