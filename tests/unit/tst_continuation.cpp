#include <QEtcd/status.h>
#include <QEtcd/testtimeouts.h>

#include "continuation_p.h"

#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <atomic>

using namespace QEtcd;
using namespace QEtcd::Internal;
using namespace QEtcd::Testing;

// thenOn(): Qt 6.4's then(context, ...) asserts (Debug) or silently drops the continuation
// (release) when its context dies before the future finishes.
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
        QVERIFY(result.isFinished());
        QCOMPARE(result.result().code(), StatusCode::Cancelled);
        QCOMPARE(orphanedWith, 42);
        QVERIFY(!ran);
    }

    void aContextThatDiesWithTheCallQueuedHandsTheResultToOrphaned()
    {
        auto context = std::make_unique<QObject>();
        QPromise<int> source;
        source.start();
        int orphanedWith = 0;
        bool ran = false;
        const QFuture<void> result = thenOn(
            source.future(), context.get(), [&](int) { ran = true; }, [&](int value) { orphanedWith = value; });
        source.addResult(5);
        source.finish();  // queued to context, not run yet: this thread has not returned to its loop
        QCOMPARE(orphanedWith, 0);
        context.reset();
        QVERIFY(result.isFinished());
        QCOMPARE(orphanedWith, 5);
        QCoreApplication::processEvents();
        QVERIFY(!ran);
    }
};

QTEST_GUILESS_MAIN(tst_Continuation)
#include "tst_continuation.moc"
