// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/client.h>
#include <QEtcd/enums.h>
#include <QEtcd/status.h>

#include <QtQml/qqml.h>

namespace QEtcd {

/// Registers Status with QML as the value type `status`: status.code, status.codeName,
/// status.message, status.isOk, status.toString().
struct StatusForeign
{
    Q_GADGET
    QML_FOREIGN(QEtcd::Status)
    QML_VALUE_TYPE(status)
};

/// Registers Client with QML, not creatable: a Client reaches QML only to be handed on, from
/// EtcdClient.client to a model's client.
struct ClientForeign
{
    Q_GADGET
    QML_FOREIGN(QEtcd::Client)
    QML_ANONYMOUS
};

/// `Etcd` in QML: the library's shared enums, spelled with their enum's name:
/// Etcd.ConnectionState.Lost, Etcd.LeaseEventKind.Expired, Etcd.StatusCode.ReadOnly (scoped
/// only; see enums.h).
namespace EtcdEnums {
Q_NAMESPACE
Q_CLASSINFO("RegisterEnumClassesUnscoped", "false")
QML_NAMESPACE_EXTENDED(QEtcd)
QML_NAMED_ELEMENT(Etcd)
} // namespace EtcdEnums

} // namespace QEtcd
