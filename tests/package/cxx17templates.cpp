// SPDX-License-Identifier: Apache-2.0
// The public headers' templates, instantiated as C++17 with every public codec: a template's
// body is checked only when it is instantiated, and users instantiate them in their own code.

#include <QEtcd/codecs.h>
#include <QEtcd/nodecache.h>
#include <QEtcd/serviceinstance.h>
#include <QEtcd/transientkeyvalue.h>

template class QEtcd::TypedTransientKeyValue<QEtcd::StringCodec>;
template class QEtcd::TypedTransientKeyValue<QEtcd::JsonCodec>;
template class QEtcd::TypedTransientKeyValue<QEtcd::BytesCodec>;
template class QEtcd::TypedTransientKeyValue<QEtcd::ServiceInstanceCodec>;
template class QEtcd::TypedNodeCache<QEtcd::StringCodec>;
template class QEtcd::TypedNodeCache<QEtcd::JsonCodec>;
template class QEtcd::TypedNodeCache<QEtcd::BytesCodec>;
template class QEtcd::TypedNodeCache<QEtcd::ServiceInstanceCodec>;
template std::optional<QString> QEtcd::ServiceInstance::payload<QEtcd::StringCodec>() const;
template std::optional<QJsonDocument> QEtcd::ServiceInstance::payload<QEtcd::JsonCodec>() const;
template void QEtcd::ServiceInstance::setPayload<QEtcd::StringCodec>(const QString &);
template void QEtcd::ServiceInstance::setPayload<QEtcd::JsonCodec>(const QJsonDocument &);
