#pragma once

// The key pieces of etcd-recipes' queue layouts, kept byte for byte for interop.

#include <QtCore/QByteArray>
#include <QtCore/QDateTime>
#include <QtCore/QRandomGenerator>

namespace QEtcd::Internal {

// Zero-padded so that key order is time order.
inline QByteArray millis19(qint64 millis)
{
    return QByteArray::number(millis).rightJustified(19, '0');
}

inline QByteArray random3()
{
    static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    QByteArray token;
    for (int i = 0; i < 3; ++i)
        token += alphabet[QRandomGenerator::global()->bounded(int(sizeof(alphabet) - 1))];
    return token;
}

// "<millis19>-<rand3>", or "<millis19>-<index5>-<rand3>" for the index-th item of a batch.
inline QByteArray itemName(qint64 millis, int index = -1)
{
    QByteArray name = millis19(millis) + '-';
    if (index >= 0)
        name += QByteArray::number(index).rightJustified(5, '0') + '-';
    return name + random3();
}

} // namespace QEtcd::Internal
