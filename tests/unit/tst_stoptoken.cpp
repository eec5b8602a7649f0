// SPDX-License-Identifier: Apache-2.0
#include <QEtcd/stoptoken.h>

#include <QtCore/QSemaphore>
#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <atomic>
#include <memory>
#include <optional>

using namespace QEtcd;

class tst_StopToken : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void runsEachCallbackOnceOnTheFirstRequest()
    {
        StopSource source;
        int first = 0;
        int second = 0;
        const StopCallback a(source.token(), [&] { ++first; });
        const StopCallback b(source.token(), [&] { ++second; });
        QVERIFY(!source.token().stopRequested());
        QVERIFY(source.requestStop());
        QVERIFY(!source.requestStop());
        QVERIFY(source.token().stopRequested());
        QCOMPARE(first, 1);
        QCOMPARE(second, 1);
    }

    void aCallbackRegisteredAfterTheStopRunsAtOnce()
    {
        StopSource source;
        source.requestStop();
        bool ran = false;
        const StopCallback late(source.token(), [&] { ran = true; });
        QVERIFY(ran);
    }

    void aCallbackDestroyedBeforeTheStopNeverRuns()
    {
        StopSource source;
        bool ran = false;
        std::optional<StopCallback> callback;
        callback.emplace(source.token(), [&] { ran = true; });
        callback.reset();
        source.requestStop();
        QVERIFY(!ran);
        const StopCallback never(StopToken(), [&] { ran = true; });
        QVERIFY(!ran);
    }

    // The waits (Waiting, the hold queue's departure waiters) post to their owner from the
    // callback: the owner may go as soon as its StopCallback is destroyed, so the destructor must
    // not return while the callback still runs on the stopping thread.
    void destroyingWaitsForTheCallbackRunningOnAnotherThread()
    {
        StopSource source;
        QSemaphore inside;
        QSemaphore mayFinish;
        std::atomic<bool> finished{false};
        auto callback = std::make_unique<StopCallback>(source.token(), [&] {
            inside.release();
            QVERIFY(mayFinish.tryAcquire(1, 30000));
            finished = true;
        });
        std::unique_ptr<QThread> stopper(QThread::create([&] { source.requestStop(); }));
        stopper->start();
        QVERIFY(inside.tryAcquire(1, 30000));
        std::atomic<bool> destroyed{false};
        std::unique_ptr<QThread> owner(QThread::create([&] {
            callback.reset();
            destroyed = true;
        }));
        owner->start();
        QVERIFY(!owner->wait(200));  // still waiting: the callback has not returned
        QVERIFY(!destroyed);
        mayFinish.release();
        QVERIFY(owner->wait(30000));
        QVERIFY(finished);
        QVERIFY(stopper->wait(30000));
    }

    // A callback that ends its own wait (and with it its StopCallback) must not wait for itself.
    void aCallbackMayDestroyItsOwnRegistration()
    {
        StopSource source;
        std::unique_ptr<StopCallback> self;
        std::unique_ptr<StopCallback> other;
        int ran = 0;
        self = std::make_unique<StopCallback>(source.token(), [&] {
            ++ran;
            self.reset();
            other.reset();
        });
        other = std::make_unique<StopCallback>(source.token(), [&] { ++ran; });
        std::unique_ptr<QThread> stopper(QThread::create([&] { source.requestStop(); }));
        stopper->start();
        QVERIFY(stopper->wait(30000));
        QVERIFY(!self);
        QCOMPARE(ran, 1);  // the other was unregistered before its turn
    }
};

QTEST_GUILESS_MAIN(tst_StopToken)
#include "tst_stoptoken.moc"
