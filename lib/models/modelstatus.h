#pragma once

#include "qetcdquickexport.h"

#include <QtCore/QObject>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

// What a model's `status` property says, for a view's placeholders: nothing asked yet, loading,
// ready (possibly empty), or failed (errorString says why).
namespace ModelStatus {
Q_NAMESPACE_EXPORT(QETCD_QUICK_EXPORT)
QML_ELEMENT
enum Status { Null, Loading, Ready, Error };
Q_ENUM_NS(Status)
} // namespace ModelStatus

} // namespace QEtcd
