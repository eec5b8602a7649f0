// SPDX-License-Identifier: Apache-2.0
#include "lossgate_p.h"

#include <QtCore/QSemaphore>
#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <atomic>
#include <memory>

using namespace QEtcd::Internal;

class tst_LossGate : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tellsWhileOpenAndNeverAfterClose()
    {
        LossGate gate;
        int told = 0;
        gate.run([&] { ++told; });
        QCOMPARE(told, 1);
        gate.close();
        gate.run([&] { ++told; });
        QCOMPARE(told, 1);
    }

    // The owner's close() returns only once a tell in progress on another thread is over: after
    // it, the owner may go.
    void closeWaitsOutATellInProgress()
    {
        LossGate gate;
        QSemaphore inside;
        QSemaphore mayFinish;
        std::atomic<bool> finished{false};
        std::unique_ptr<QThread> teller(QThread::create([&] {
            gate.run([&] {
                inside.release();
                QVERIFY(mayFinish.tryAcquire(1, 30000));
                finished = true;
            });
        }));
        teller->start();
        QVERIFY(inside.tryAcquire(1, 30000));
        std::atomic<bool> closed{false};
        std::unique_ptr<QThread> owner(QThread::create([&] {
            gate.close();
            closed = true;
        }));
        owner->start();
        // The owner must still be waiting: the tell has not finished.
        QVERIFY(!owner->wait(200));
        QVERIFY(!closed);
        mayFinish.release();
        QVERIFY(owner->wait(30000));
        QVERIFY(finished);
        QVERIFY(teller->wait(30000));
    }

    // A listener may close (and destroy) what told it, from inside the tell.
    void aTellMayCloseItsOwnGate()
    {
        LossGate gate;
        bool stillOpenAfterClose = true;
        gate.run([&] {
            gate.close();
            stillOpenAfterClose = gate.isOpen();
        });
        QVERIFY(!stillOpenAfterClose);
        QVERIFY(!gate.isOpen());
    }
};

QTEST_GUILESS_MAIN(tst_LossGate)
#include "tst_lossgate.moc"
