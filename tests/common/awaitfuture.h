// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/client.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QDebug>
#include <QtCore/QEventLoop>
#include <QtCore/QFuture>
#include <QtCore/QFutureWatcher>
#include <QtCore/QTimer>

#include <chrono>
#include <type_traits>

namespace QEtcd::Testing {

// Waits for a future while the event loop keeps running, so queued signals still arrive.
// Returns false when the (scaled) timeout passed first.
template <class T>
bool awaitFuture(const QFuture<T> &future, std::chrono::milliseconds timeout = std::chrono::milliseconds(20000))
{
    if (future.isFinished())
        return true;
    QEventLoop loop;
    QFutureWatcher<T> watcher;
    QObject::connect(&watcher, &QFutureWatcher<T>::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(scaled(timeout), &loop, &QEventLoop::quit);
    watcher.setFuture(future);
    if (!future.isFinished())
        loop.exec();
    return future.isFinished();
}

// The future's result; when the (scaled) timeout passed first, one whose status says so.
template <class T>
T awaited(const QFuture<T> &future)
{
    if (awaitFuture(future))
        return future.result();
    const Status late(StatusCode::DeadlineExceeded, QStringLiteral("did not finish in time"));
    if constexpr (std::is_same_v<T, Status>) {
        return late;
    } else {
        T result{};
        result.status = late;
        return result;
    }
}

// How many keys start with prefix, as etcd says now; -1 when it did not say.
inline int keysUnder(Client *client, const QByteArray &prefix)
{
    RangeOptions options;
    options.range = KeyRange::prefix();
    options.countOnly = true;
    const QFuture<RangeResult> future = client->get(prefix, options);
    if (!awaitFuture(future) || !future.result().status)
        return -1;
    return int(future.result().count);
}

// The keys that start with prefix, as etcd has them now; none (and a warning) when it did not say.
inline QList<KeyValue> keysWithPrefix(Client *client, const QByteArray &prefix)
{
    RangeOptions options;
    options.range = KeyRange::prefix();
    const QFuture<RangeResult> future = client->get(prefix, options);
    if (!awaitFuture(future) || !future.result().status) {
        qWarning() << "read" << prefix << "failed";
        return {};
    }
    return future.result().kvs;
}

} // namespace QEtcd::Testing

// Fails the test when the future does not finish in time, else assigns its result.
#define QETCD_AWAIT(future, into)                                                                \
    do {                                                                                           \
        const auto qetcdFuture = (future);                                                         \
        QVERIFY2(QEtcd::Testing::awaitFuture(qetcdFuture), "operation did not finish in time");   \
        into = qetcdFuture.result();                                                               \
    } while (false)
