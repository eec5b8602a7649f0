// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/client.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QDebug>
#include <QtCore/QEventLoop>
#include <QtCore/QFuture>
#include <QtCore/QFutureWatcher>
#include <QtCore/QPromise>
#include <QtCore/QTimer>

#include <chrono>
#include <memory>
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

// The tests' and benchmarks' continuations, none of them through QFuture::then(): attached while
// another thread finishes the future (the library's threads finish every future it returns),
// Qt 6.4's then() can run a continuation twice, and the process dies (lib/core/continuation_p.h).
// A QFutureWatcher hears of the finish exactly once.

// function(result) runs on context's thread, queued, once future has finished ("On" as in the
// library's thenOn; its whenFinished runs on the futures thread instead). Call it on context's
// thread; nothing runs once context is gone.
template <class T, class Function>
void whenFinishedOn(const QFuture<T> &future, QObject *context, Function function)
{
    auto *watcher = new QFutureWatcher<T>(context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, context, [watcher, function]() mutable {
        watcher->deleteLater();
        function(watcher->result());
    });
    watcher->setFuture(future);
}

// A future of function(result), settled on the calling thread once future has finished: await
// it (awaitFuture, QETCD_AWAIT) rather than block in result(), which would keep the thread from
// ever settling it.
template <class T, class Function>
auto mapped(const QFuture<T> &future, Function function) -> QFuture<std::invoke_result_t<Function, const T &>>
{
    auto promise = std::make_shared<QPromise<std::invoke_result_t<Function, const T &>>>();
    promise->start();
    auto *watcher = new QFutureWatcher<T>;
    QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, [watcher, promise, function]() mutable {
        watcher->deleteLater();
        promise->addResult(function(watcher->result()));
        promise->finish();
    });
    watcher->setFuture(future);
    return promise->future();
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
