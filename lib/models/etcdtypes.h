#pragma once

#include <QEtcd/enums.h>
#include <QEtcd/status.h>

#include <QtQml/qqml.h>

namespace QEtcd {

// Status reaches QML as a value: status.code, status.codeName, status.message, status.isOk,
// status.toString().
struct StatusForeign
{
    Q_GADGET
    QML_FOREIGN(QEtcd::Status)
    QML_VALUE_TYPE(status)
};

// The library's shared enums, spelled with their enum's name: Etcd.ConnectionState.Lost,
// Etcd.LeaseEventKind.Expired, Etcd.StatusCode.ReadOnly. "Suspended" names a value of three
// of them, so the short form Etcd.Suspended is ambiguous.
namespace EtcdEnums {
Q_NAMESPACE
QML_NAMESPACE_EXTENDED(QEtcd)
QML_NAMED_ELEMENT(Etcd)
} // namespace EtcdEnums

} // namespace QEtcd
