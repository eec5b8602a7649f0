#pragma once

#include <QEtcd/testtimeouts.h>

#include <QtCore/QEventLoop>
#include <QtCore/QFuture>
#include <QtCore/QFutureWatcher>
#include <QtCore/QTimer>

#include <chrono>

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

} // namespace QEtcd::Testing

// Fails the test when the future does not finish in time, else assigns its result.
#define QETCD_AWAIT(future, into)                                                                \
    do {                                                                                           \
        const auto qetcdFuture = (future);                                                         \
        QVERIFY2(QEtcd::Testing::awaitFuture(qetcdFuture), "operation did not finish in time");   \
        into = qetcdFuture.result();                                                               \
    } while (false)
