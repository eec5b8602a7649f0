// SPDX-License-Identifier: Apache-2.0
#include "healgate_p.h"

#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd::Internal;

class tst_HealGate : public QObject
{
    Q_OBJECT

    static HealGate gateOf(int capacity) { return HealGate(capacity, [] {}); }

private Q_SLOTS:
    void healsTakeTurnsInArrivalOrder()
    {
        QObject context;
        HealGate gate = gateOf(2);
        QList<int> ran;
        for (int i = 0; i < 4; ++i)
            gate.enter(&context, [&ran, i] { ran.append(i); });
        QCOMPARE(ran, (QList{0, 1}));
        gate.leave();
        QCOMPARE(ran, (QList{0, 1, 2}));
        gate.leave();
        gate.leave();
        QCOMPARE(ran, (QList{0, 1, 2, 3}));
    }

    // A revoke after a heal must not slow a heal whose keys are still gone: it waits while any
    // heal waits or runs, though slots are free.
    void tidyingWaitsWhileAHealWaitsOrRuns()
    {
        QObject context;
        HealGate gate = gateOf(3);
        int tidied = 0;
        gate.enter(&context, [] {});
        gate.enterAfterHeals(&context, [&] { ++tidied; });
        QCOMPARE(tidied, 0);
        gate.leave();
        QCOMPARE(tidied, 1);
        // A heal arriving while tidying runs is let in at once, ahead of tidying still waiting.
        bool healed = false;
        gate.enterAfterHeals(&context, [&] { ++tidied; });
        QCOMPARE(tidied, 2);
        gate.enter(&context, [&] { healed = true; });
        QVERIFY(healed);
        gate.enterAfterHeals(&context, [&] { ++tidied; });
        QCOMPARE(tidied, 2);
        gate.leave();
        QCOMPARE(tidied, 3);
    }

    void tidyingTakesTurnsToo()
    {
        QObject context;
        HealGate gate = gateOf(2);
        int tidied = 0;
        for (int i = 0; i < 5; ++i)
            gate.enterAfterHeals(&context, [&] { ++tidied; });
        QCOMPARE(tidied, 2);
        gate.leaveTidying();
        QCOMPARE(tidied, 3);
    }

    void turnsOfContextsGoneAreSkipped()
    {
        QObject stays;
        auto goes = std::make_unique<QObject>();
        HealGate gate = gateOf(1);
        QList<QString> ran;
        gate.enter(&stays, [&] { ran.append(QStringLiteral("first")); });
        gate.enter(goes.get(), [&] { ran.append(QStringLiteral("gone")); });
        gate.enter(&stays, [&] { ran.append(QStringLiteral("last")); });
        goes.reset();
        gate.leave();
        QCOMPARE(ran, (QList<QString>{QStringLiteral("first"), QStringLiteral("last")}));
    }

    // Turns that give their slot back at once (heals closed while they waited) run one after
    // another, never one inside the other: a client may have thousands waiting.
    void turnsThatLeaveAtOnceDoNotNest()
    {
        QObject context;
        HealGate gate = gateOf(1);
        gate.enter(&context, [] {});
        int depth = 0;
        int deepest = 0;
        int ran = 0;
        constexpr int Waiting = 100000;
        for (int i = 0; i < Waiting; ++i) {
            gate.enter(&context, [&] {
                deepest = std::max(deepest, ++depth);
                ++ran;
                gate.leave();
                --depth;
            });
        }
        gate.leave();
        QCOMPARE(ran, Waiting);
        QCOMPARE(deepest, 1);
    }

    // The memory a burst of grants leaves behind goes back once the gate is idle again, tidying
    // done too; a trickle of turns, never more than a few at once, does not call for it.
    void aBurstIsToldOnceTheGateFallsIdle()
    {
        QObject context;
        int bursts = 0;
        HealGate gate(HealGate::BurstInFlight * 2, [&] { ++bursts; });
        for (int i = 0; i < 100; ++i) {
            gate.enter(&context, [] {});
            gate.leave();
        }
        QCOMPARE(bursts, 0);

        for (int i = 0; i < HealGate::BurstInFlight * 3; ++i)
            gate.enter(&context, [] {});
        gate.enterAfterHeals(&context, [] {});
        for (int i = 0; i < HealGate::BurstInFlight * 3; ++i)
            gate.leave();
        QCOMPARE(bursts, 0);  // the tidying runs still
        gate.leaveTidying();
        QCOMPARE(bursts, 1);

        gate.enter(&context, [] {});
        gate.leave();
        QCOMPARE(bursts, 1);
    }
};

QTEST_GUILESS_MAIN(tst_HealGate)
#include "tst_healgate.moc"
