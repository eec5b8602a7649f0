// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the discovery recipes share: etcd-recipes' key layout and the one way to read a
// service's instances.

#include "client.h"
#include "serviceinstance.h"

namespace QEtcd::Internal {

// etcd-recipes' appendToPath: a without one trailing '/', then '/', then b without one leading '/'.
QByteArray appendToPath(const QByteArray &a, const QByteArray &b);
// <servicePath>/names
QByteArray namesPathOf(const QByteArray &servicePath);
// <namesPath>/<service>/, the '/'-terminated prefix of one service's instances
QByteArray servicePrefix(const QByteArray &namesPath, const QString &serviceName);

// A name becomes one key segment: it must be non-empty and free of '/'.
Status checkServiceName(const QString &serviceName, const QString &context);

// Every instance under the service's prefix, sorted by id; values that are not instance
// JSON are left out.
QFuture<ServiceInstancesResult> readInstances(Client *client, const QByteArray &namesPath,
                                              const QString &serviceName, const QString &context);

} // namespace QEtcd::Internal
