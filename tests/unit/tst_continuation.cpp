// SPDX-License-Identifier: Apache-2.0
#include <QEtcd/status.h>
#include <QEtcd/testtimeouts.h>

#include "continuation_p.h"

#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <atomic>
#include <thread>
#include <vector>

using namespace QEtcd;
using namespace QEtcd::Internal;
using namespace QEtcd::Testing;

// thenOn() and after(): Qt 6.4's then(context, ...) asserts (Debug) or silently drops the
// continuation (release) when its context dies before the future finishes, and any then() may
// run its continuation twice (and crash) when attached while another thread finishes the future.
class tst_Continuation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void runsOnTheContextsThreadWhileItLives()
    {
        QThread thread;
        thread.start();
        QObject context;
        context.moveToThread(&thread);
        QPromise<int> source;
        source.start();
        std::atomic<QThread *> ranOn{nullptr};
        const QFuture<Status> result = thenOn(
            source.future(), &context,
            [&](int value) {
                ranOn = QThread::currentThread();
                return Status(StatusCode::Ok, QString::number(value));
            },
            [](int) { return Status(StatusCode::Cancelled, QStringLiteral("orphaned")); });
        source.addResult(7);
        source.finish();
        QTRY_VERIFY_WITH_TIMEOUT(result.isFinished(), scaledMs(5000));
        QCOMPARE(result.result().message(), QStringLiteral("7"));
        QCOMPARE(ranOn.load(), &thread);
        thread.quit();
        thread.wait();
    }

    void aContextGoneFirstHandsTheResultToOrphaned()
    {
        auto context = std::make_unique<QObject>();
        QPromise<int> source;
        source.start();
        int orphanedWith = 0;
        bool ran = false;
        const QFuture<Status> result = thenOn(
            source.future(), context.get(),
            [&](int) {
                ran = true;
                return Status();
            },
            [&](int value) {
                orphanedWith = value;
                return Status(StatusCode::Cancelled, QStringLiteral("orphaned"));
            });
        context.reset();
        source.addResult(42);
        source.finish();
        QTRY_VERIFY_WITH_TIMEOUT(result.isFinished(), scaledMs(5000));
        QCOMPARE(result.result().code(), StatusCode::Cancelled);
        QCOMPARE(orphanedWith, 42);
        QVERIFY(!ran);
    }

    void aContextThatDiesWithTheCallQueuedHandsTheResultToOrphaned()
    {
        auto context = std::make_unique<QObject>();
        QPromise<int> source;
        source.start();
        std::atomic<int> orphanedWith = 0;
        bool ran = false;
        const QFuture<void> result = thenOn(
            source.future(), context.get(), [&](int) { ran = true; }, [&](int value) { orphanedWith = value; });
        // Watched after thenOn's watch, so heard of after it: once this has run, the delivery is
        // queued to context, which cannot run it while this thread stays out of its event loop.
        std::atomic<bool> queued = false;
        after(source.future(), [&](int) {
            queued = true;
            return 0;
        });
        source.addResult(5);
        source.finish();
        QVERIFY(spinUntil([&] { return queued.load(); }));
        QCOMPARE(orphanedWith.load(), 0);
        context.reset();
        QVERIFY(result.isFinished());
        QCOMPARE(orphanedWith.load(), 5);
        QCoreApplication::processEvents();
        QVERIFY(!ran);
    }

    // Qt 6.4 crashed here within a few thousand rounds: then() attached the moment the future
    // finished on another thread ran its continuation twice.
    void aContinuationAttachedAsTheFutureFinishesRunsOnce()
    {
        // 20,000 rounds take 2–3 s on a quiet machine; a loaded one stops sooner.
        constexpr int MostRounds = 20000;
        const QDeadlineTimer enough(15000);
        std::atomic<int> chained = 0;
        std::atomic<int> delivered = 0;
        QObject context;
        int rounds = 0;
        for (; rounds < MostRounds && (rounds < 2000 || !enough.hasExpired()); ++rounds) {
            const int round = rounds;
            auto promise = std::make_shared<QPromise<int>>();
            promise->start();
            const QFuture<int> future = promise->future();
            // A fresh thread each round, as in the crash: its first steps are slow (a cold
            // stack), which holds the finish open long enough for the attach to land inside it.
            std::thread finisher([promise] {
                promise->addResult(1);
                promise->finish();
            });
            if (round % 2 == 0) {
                QVERIFY(spinUntil([&] { return future.isFinished(); }));
                after(future, [&](int) { return ++chained; });
            } else {
                thenOn(future, &context, [&](int) { ++delivered; });
            }
            finisher.join();
        }
        QTRY_COMPARE_WITH_TIMEOUT(chained.load() + delivered.load(), rounds, scaledMs(30000));
        QCOMPARE(chained.load(), (rounds + 1) / 2);
        qInfo("%d rounds", rounds);
    }

    void aFunctionThatReturnsAFutureChains()
    {
        QObject context;
        QPromise<int> source;
        source.start();
        auto inner = std::make_shared<QPromise<QString>>();
        inner->start();
        bool called = false;
        const QFuture<QString> result = thenOn(
            source.future(), &context,
            [inner, &called](int) {
                called = true;
                return inner->future();
            },
            [](int) { return QtFuture::makeReadyFuture(QStringLiteral("orphaned")); });
        source.addResult(1);
        source.finish();
        QTRY_VERIFY_WITH_TIMEOUT(called, scaledMs(5000));
        QVERIFY(!result.isFinished());  // waits for the inner future, not for the function
        inner->addResult(QStringLiteral("inner"));
        inner->finish();
        QTRY_VERIFY_WITH_TIMEOUT(result.isFinished(), scaledMs(5000));
        QCOMPARE(result.result(), QStringLiteral("inner"));

        const QFuture<int> mapped = after(QtFuture::makeReadyFuture(20), [](int value) {
            return QtFuture::makeReadyFuture(value + 1);
        });
        QTRY_VERIFY_WITH_TIMEOUT(mapped.isFinished(), scaledMs(5000));
        QCOMPARE(mapped.result(), 21);
    }

    void aCancelledFutureCancelsWhatFollows()
    {
        QObject context;
        auto source = std::make_unique<QPromise<int>>();
        source->start();
        bool ran = false;
        const QFuture<int> viaThenOn = thenOn(
            source->future(), &context,
            [&](int) {
                ran = true;
                return 1;
            },
            [](int) { return 2; });
        const QFuture<int> viaAfter = after(source->future(), [&](int) {
            ran = true;
            return 3;
        });
        source.reset();  // never finished: cancelled
        QTRY_VERIFY_WITH_TIMEOUT(viaThenOn.isFinished() && viaAfter.isFinished(), scaledMs(5000));
        QVERIFY(viaThenOn.isCanceled());
        QVERIFY(viaAfter.isCanceled());
        QVERIFY(!ran);
    }

    // Answers posted from other threads while their context is being destroyed on its own: a
    // QPointer read on the posting thread said the context lived while its destructor ran, and
    // the post read freed memory (a mutex checker participant died so, in postEvent). Each is
    // run before the context dies or dropped, never run after, and nothing crashes.
    void answersRacingTheirContextsDestructionAreRunBeforeOrDropped()
    {
        QThread owner;
        owner.start();
        std::atomic<int> ran = 0;
        int ranAfterDeath = 0;  // owner's thread only
        constexpr int rounds = 300;
        constexpr int answersPerRound = 200;
        for (int round = 0; round < rounds; ++round) {
            auto *context = new QObject;
            auto dead = std::make_shared<std::atomic<bool>>(false);
            QObject::connect(context, &QObject::destroyed, [dead] { *dead = true; });
            context->moveToThread(&owner);
            std::vector<std::function<void(const int &)>> answers;
            for (int i = 0; i < answersPerRound; ++i) {
                answers.push_back(answerOn<int>(context, [&ran, &ranAfterDeath, dead](int) {
                    ++ran;
                    ranAfterDeath += *dead ? 1 : 0;
                }));
            }
            std::atomic<bool> go = false;
            std::thread poster([&] {
                while (!go) {
                }
                for (int i = 0; i < answersPerRound; ++i)
                    answers[size_t(i)](i);
            });
            go = true;
            QMetaObject::invokeMethod(context, [context] { delete context; }, Qt::QueuedConnection);
            poster.join();
            QTRY_VERIFY_WITH_TIMEOUT(dead->load(), scaledMs(5000));
        }
        // Whatever was still queued to the last context is gone with it: a round trip through
        // the owner's queue lets it run if it could.
        std::atomic<bool> drained = false;
        QObject flush;
        flush.moveToThread(&owner);
        QMetaObject::invokeMethod(&flush, [&drained] { drained = true; }, Qt::QueuedConnection);
        QTRY_VERIFY_WITH_TIMEOUT(drained.load(), scaledMs(5000));
        QCOMPARE(ranAfterDeath, 0);
        QVERIFY(ran.load() <= rounds * answersPerRound);
        owner.quit();
        owner.wait();
    }

private:
    // Spins without running this thread's event loop, so as to act the moment condition holds;
    // false when it took implausibly long.
    template <class Condition>
    static bool spinUntil(Condition condition)
    {
        const QDeadlineTimer deadline(scaledMs(10000));
        for (quint64 spins = 1; !condition(); ++spins) {
            if (spins % 4096 == 0) {
                if (deadline.hasExpired())
                    return false;
                QThread::yieldCurrentThread();  // on a busy machine, let the finisher have the core
            }
        }
        return true;
    }
};

QTEST_GUILESS_MAIN(tst_Continuation)
#include "tst_continuation.moc"
