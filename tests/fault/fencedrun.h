// SPDX-License-Identifier: Apache-2.0
#pragma once

// One run of a checker whose participants hold something (a lock, a permit, a term of
// leadership) and, while they believe they do, write one key blindly through the fence: etcd,
// its history of everything under /checker/ (in etcd's order) and the participants, each behind
// a fault proxy of its own. The mutex, semaphore and election checkers share it (and the
// barrier checker awaitHistoryUpTo()).

#include "../common/awaitfuture.h"
#include "fencingoracle.h"
#include "participantprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>

#include <QtTest/QtTest>

#include <functional>

namespace QEtcd::Testing {

inline const QByteArray fencedKey = QByteArrayLiteral("/checker/fenced");

// Once everyone has stopped: writes marker (a key under history's prefix) and waits until
// history has reached it, so that it holds everything there ever was to judge.
inline void awaitHistoryUpTo(Client *observer, const EtcdHistory &history, const QByteArray &marker)
{
    const auto marked = observer->put(marker, "end");
    QVERIFY(awaitFuture(marked));
    QCOMPARE(marked.result().status, Status());
    QTRY_VERIFY_WITH_TIMEOUT(!history.events.isEmpty() && history.events.last().kv.key == marker, scaledMs(20000));
}

struct FencedRun
{
    // participantCount participants, at most capacity of which may hold at once; their entries
    // (a holder's key, a waiter's) live under entriesPrefix.
    FencedRun(int participantCount, const QByteArray &entriesPrefix, int capacity)
        : participants(participantCount), entriesPrefix(entriesPrefix), capacity(capacity)
    {
    }

    EtcdCluster cluster;
    std::unique_ptr<Client> observer;
    EtcdHistory history;
    std::vector<ParticipantProcess> participants;
    const QByteArray entriesPrefix;
    const int capacity;

    // Starts etcd, then participant i as `program ... --fenced <fencedKey> arguments()` named
    // <namePrefix>i, sabotaged (--sabotage sabotage) when i < sabotaged.
    void start(const QString &program, const QString &namePrefix, const std::function<QStringList()> &arguments,
               const QString &sabotage = {}, int sabotaged = 0)
    {
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        observer = std::make_unique<Client>(ClientOptions::fromEndpoints(cluster.clientUrls()));
        const auto watching = history.start(observer.get(), "/checker/");
        QVERIFY(awaitFuture(watching));
        QCOMPARE(watching.result(), Status());
        for (int i = 0; i < int(participants.size()); ++i) {
            QStringList all = QStringList{"--fenced", QString::fromUtf8(fencedKey)} + arguments();
            if (i < sabotaged)
                all << "--sabotage" << sabotage;
            QVERIFY(participants[i].start(program, namePrefix + QString::number(i), cluster.clientPort(0), all));
        }
    }

    QList<BelievedHold> believedHolds() const
    {
        QList<BelievedHold> holds;
        for (const ParticipantProcess &p : participants)
            holds += p.believedHolds();
        return holds;
    }

    FencingOracle oracle() const { return FencingOracle(entriesPrefix, fencedKey, capacity); }

    // What the checker finds wrong in the run so far: more believed holds at once than may be,
    // or a write that etcd committed outside its writer's hold. Empty when nothing is.
    QString violation() const
    {
        int peak = 0;
        const QString overlap = overCapacity(believedHolds(), capacity, &peak);
        return overlap.isEmpty() ? oracle().takeAll(history.events) : overlap;
    }

    void awaitWholeHistory() { awaitHistoryUpTo(observer.get(), history, "/checker/end"); }
};

} // namespace QEtcd::Testing
