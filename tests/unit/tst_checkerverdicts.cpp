// SPDX-License-Identifier: Apache-2.0
// The fault checkers' verdicts on histories written by hand: overCapacity() on believed holds
// that overlap, touch or stay within the capacity, and the fencing oracle on etcd histories
// with a write inside its hold, after its entry went, under an entry that was not the oldest,
// under an older incarnation of its entry, committed twice, and a deleted fenced key; with two
// permits, a write by the third entry. A checker
// whose verdict cannot fail proves nothing; these pin what each verdict says. The counted
// barrier's: a release before its round's last arrival began (by the members' lines), and a
// round that tripped a member short (by etcd's history), beside the stale keys it counts.
#include "../fault/barrierverdict.h"
#include "../fault/fencingoracle.h"
#include "../fault/participantprocess.h"
#include "../fault/workqueueverdict.h"

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;

namespace {
const QByteArray prefix = QByteArrayLiteral("/lock/");
const QByteArray fenced = QByteArrayLiteral("/fenced");

WatchEvent created(const QByteArray &key, qint64 revision)
{
    WatchEvent event;
    event.type = WatchEvent::Type::Put;
    event.kv.key = key;
    event.kv.createRevision = revision;
    event.kv.modRevision = revision;
    return event;
}

WatchEvent deleted(const QByteArray &key, qint64 revision)
{
    WatchEvent event;
    event.type = WatchEvent::Type::Delete;
    event.kv.key = key;
    event.kv.modRevision = revision;
    return event;
}

WatchEvent rewritten(const QByteArray &key, qint64 createRevision, qint64 revision)
{
    WatchEvent event = created(key, revision);
    event.kv.createRevision = createRevision;
    return event;
}

const QByteArray barrier = QByteArrayLiteral("/b");
const QByteArray ready = barrier + "/ready";
const QByteArray waiting = barrier + "/waiting/";

WatchEvent written(const QString &writer, qint64 sequence, const QByteArray &entry, qint64 token, qint64 revision)
{
    WatchEvent event = created(fenced, revision);
    event.kv.createRevision = 1;
    event.kv.value = fencedWriteValue(writer, sequence, token, entry);
    return event;
}
} // namespace

// Work queue histories, written as the recipe's transactions land: each step one revision.
namespace workqueue {
const QByteArray path = QByteArrayLiteral("/wq");

WatchEvent change(WatchEvent::Type type, const char *place, const QByteArray &id, qint64 revision,
                  const QByteArray &value = {})
{
    WatchEvent event;
    event.type = type;
    event.kv.key = path + '/' + place + '/' + id;
    event.kv.value = value;
    event.kv.modRevision = revision;
    return event;
}

QByteArray count(int attempts)
{
    QByteArray bytes(4, Qt::Uninitialized);
    qToBigEndian<qint32>(attempts, bytes.data());
    return bytes;
}

constexpr auto Put = WatchEvent::Type::Put;
constexpr auto Delete = WatchEvent::Type::Delete;

QList<WatchEvent> enqueued(const QByteArray &id, const QByteArray &value, qint64 revision)
{
    return {change(Put, "items", id, revision, value)};
}

QList<WatchEvent> claimed(const QByteArray &id, const QByteArray &owner, int attempt, qint64 revision)
{
    return {change(Delete, "items", id, revision), change(Put, "claimed", id, revision, "v"),
            change(Put, "claims", id, revision, owner), change(Put, "attempts", id, revision, count(attempt))};
}

QList<WatchEvent> acknowledged(const QByteArray &id, qint64 revision)
{
    return {change(Delete, "claims", id, revision), change(Delete, "claimed", id, revision),
            change(Delete, "attempts", id, revision)};
}

QList<WatchEvent> leaseLost(const QByteArray &id, qint64 revision)
{
    return {change(Delete, "claims", id, revision)};
}

QList<WatchEvent> swept(const QByteArray &id, qint64 revision, const char *to = "items")
{
    return {change(Delete, "claimed", id, revision), change(Put, to, id, revision, "v")};
}

QList<WatchEvent> givenBack(const QByteArray &id, qint64 revision)
{
    return {change(Put, "items", id, revision, "v"), change(Delete, "claims", id, revision),
            change(Delete, "claimed", id, revision), change(Delete, "attempts", id, revision)};
}

WorkDelivery delivery(const QByteArray &owner, int attempt, qint64 claimRevision, WorkDelivery::Ack ack)
{
    return {QString::fromUtf8(owner), owner, "a", "v", attempt, claimRevision, ack};
}
} // namespace workqueue

class tst_CheckerVerdicts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void overCapacity_data()
    {
        QTest::addColumn<QList<BelievedHold>>("holds");
        QTest::addColumn<int>("capacity");
        QTest::addColumn<int>("peak");
        QTest::addColumn<bool>("violated");
        QTest::newRow("one after the other") << QList<BelievedHold>{{"a", 0, 10}, {"b", 11, 20}} << 1 << 1 << false;
        QTest::newRow("overlapping") << QList<BelievedHold>{{"a", 0, 10}, {"b", 5, 20}} << 1 << 2 << true;
        QTest::newRow("touching counts") << QList<BelievedHold>{{"a", 0, 10}, {"b", 10, 20}} << 1 << 2 << true;
        QTest::newRow("two permits shared") << QList<BelievedHold>{{"a", 0, 10}, {"b", 5, 20}, {"c", 11, 30}} << 2 << 2
                                            << false;
        QTest::newRow("three on two permits") << QList<BelievedHold>{{"a", 0, 10}, {"b", 5, 20}, {"c", 8, 30}} << 2 << 3
                                              << true;
    }

    void overCapacity()
    {
        QFETCH(QList<BelievedHold>, holds);
        QFETCH(int, capacity);
        QFETCH(int, peak);
        QFETCH(bool, violated);
        int seen = 0;
        const QString verdict = QEtcd::Testing::overCapacity(holds, capacity, &seen);
        QCOMPARE(!verdict.isEmpty(), violated);
        if (violated) {
            QVERIFY2(verdict.contains(QLatin1String("believed they held")), qPrintable(verdict));
            QCOMPARE(seen, peak);  // a sweep stops at the first excess
        } else {
            QCOMPARE(seen, peak);
        }
    }

    void workQueueVerdict_data()
    {
        using namespace workqueue;
        using Ack = WorkDelivery::Ack;
        QTest::addColumn<QList<WatchEvent>>("history");
        QTest::addColumn<QList<WorkDelivery>>("deliveries");
        QTest::addColumn<QList<QByteArray>>("values");  // what the producer was told went in
        QTest::addColumn<QString>("verdict");            // the start of it; empty: sound

        const QList<WatchEvent> lostThenRedelivered =
            enqueued("a", "v", 1) + claimed("a", "c0", 1, 2) + leaseLost("a", 3) + swept("a", 4) + claimed("a", "c1", 2, 5);
        QTest::newRow("lost, redelivered, acknowledged")
            << lostThenRedelivered + acknowledged("a", 6)
            << QList<WorkDelivery>{delivery("c0", 1, 2, Ack::Lost), delivery("c1", 2, 5, Ack::Done)}
            << QList<QByteArray>{"v"} << QString();
        QTest::newRow("dead-lettered")
            << enqueued("a", "v", 1) + claimed("a", "c0", 1, 2) + leaseLost("a", 3) + swept("a", 4, "dlq")
            << QList<WorkDelivery>{delivery("c0", 1, 2, Ack::Unknown)} << QList<QByteArray>{"v"} << QString();
        QTest::newRow("given back, then the same attempt")
            << enqueued("a", "v", 1) + claimed("a", "c0", 1, 2) + givenBack("a", 3) + claimed("a", "c0", 1, 4)
                   + acknowledged("a", 5)
            << QList<WorkDelivery>{delivery("c0", 1, 4, Ack::Done)} << QList<QByteArray>{"v"} << QString();
        QTest::newRow("never acknowledged")
            << enqueued("a", "v", 1) + claimed("a", "c0", 1, 2) << QList<WorkDelivery>{} << QList<QByteArray>{"v"}
            << "item a (v) neither acknowledged nor dead-lettered";
        QTest::newRow("enqueued twice")
            << enqueued("a", "v", 1) + enqueued("b", "v", 2) + claimed("a", "c0", 1, 3) + acknowledged("a", 4)
                   + claimed("b", "c0", 1, 5) + acknowledged("b", 6)
            << QList<WorkDelivery>{} << QList<QByteArray>{"v"} << "value v was enqueued once and became 2 items";
        QTest::newRow("delivered again after its ack")
            << enqueued("a", "v", 1) + claimed("a", "c0", 1, 2) + acknowledged("a", 3) + enqueued("a", "v", 4)
                   + claimed("a", "c1", 2, 5) + acknowledged("a", 6)
            << QList<WorkDelivery>{} << QList<QByteArray>{"v"}
            << "item a delivered again at revision 5 after it was acknowledged";
        QTest::newRow("claimed while the claim stood")
            << enqueued("a", "v", 1) + claimed("a", "c0", 1, 2) + claimed("a", "c1", 2, 3) + acknowledged("a", 4)
            << QList<WorkDelivery>{} << QList<QByteArray>{"v"}
            << "item a claimed at revision 3 while its claim of revision 2 still stood";
        QTest::newRow("an attempt skipped")
            << enqueued("a", "v", 1) + claimed("a", "c0", 1, 2) + leaseLost("a", 3) + swept("a", 4)
                   + claimed("a", "c1", 3, 5) + acknowledged("a", 6)
            << QList<WorkDelivery>{} << QList<QByteArray>{"v"} << "item a delivered at revision 5 as attempt 3, not 2";
        // A consumer acknowledges with a plain transaction after its claim was lost and the item
        // delivered again: it takes the redelivery's claim with it.
        QTest::newRow("acknowledged a lost claim")
            << lostThenRedelivered + acknowledged("a", 6)
            << QList<WorkDelivery>{delivery("c0", 1, 2, Ack::Done), delivery("c1", 2, 5, Ack::Lost)}
            << QList<QByteArray>{"v"}
            << "c0 acknowledged item a under its claim of revision 2, but that claim was lost (at revision 3)";
        QTest::newRow("in-flight copy deleted without a claim")
            << enqueued("a", "v", 1) + claimed("a", "c0", 1, 2) + leaseLost("a", 3)
                   + QList<WatchEvent>{change(Delete, "claimed", "a", 4), change(Delete, "attempts", "a", 4)}
            << QList<WorkDelivery>{} << QList<QByteArray>{"v"}
            << "item a's in-flight copy deleted at revision 4 while no claim stood";
        QTest::newRow("told lost, but acknowledged")
            << enqueued("a", "v", 1) + claimed("a", "c0", 1, 2) + acknowledged("a", 3)
            << QList<WorkDelivery>{delivery("c0", 1, 2, Ack::Lost)} << QList<QByteArray>{"v"}
            << "c0 was told its claim of revision 2 on item a was lost, but it was acknowledged at revision 3";
        QTest::newRow("received what etcd never gave")
            << enqueued("a", "v", 1) + claimed("a", "c0", 1, 2) + acknowledged("a", 3)
            << QList<WorkDelivery>{delivery("c1", 1, 2, Ack::Done)} << QList<QByteArray>{"v"}
            << "c1 received item a (attempt 1, claim of revision 2) that etcd never gave it";
    }

    void workQueueVerdict()
    {
        QFETCH(QList<WatchEvent>, history);
        QFETCH(QList<WorkDelivery>, deliveries);
        QFETCH(QList<QByteArray>, values);
        QFETCH(QString, verdict);
        WorkQueueFigures figures;
        const QString found = workQueueViolation(workqueue::path, values, history, deliveries, &figures);
        if (verdict.isEmpty())
            QCOMPARE(found, QString());
        else
            QVERIFY2(found.startsWith(verdict), qPrintable(found));
    }

    void workQueueFigures()
    {
        using namespace workqueue;
        WorkQueueFigures figures;
        const QList<WatchEvent> history = enqueued("a", "v", 1) + claimed("a", "c0", 1, 2) + givenBack("a", 3)
            + claimed("a", "c0", 1, 4) + leaseLost("a", 5) + swept("a", 6) + claimed("a", "c1", 2, 7)
            + acknowledged("a", 8) + enqueued("b", "w", 9) + claimed("b", "c1", 1, 10) + leaseLost("b", 11)
            + swept("b", 12, "dlq");
        QCOMPARE(workQueueViolation(path, {"v", "w"}, history, {}, &figures), QString());
        QCOMPARE(figures.items, 2);
        QCOMPARE(figures.acknowledged, 1);
        QCOMPARE(figures.deadLettered, 1);
        QCOMPARE(figures.claims, 4);
        QCOMPARE(figures.claimsLost, 2);
        QCOMPARE(figures.redeliveries, 1);  // the claim after a given-back one is no redelivery
        QCOMPARE(figures.givenBack, 1);
    }

    void fencingOracle_data()
    {
        QTest::addColumn<QList<WatchEvent>>("history");
        QTest::addColumn<QString>("verdict");  // the start of it; empty: sound
        QTest::addColumn<int>("committed");
        QTest::newRow("inside the hold") << QList<WatchEvent>{created("/lock/a", 2), written("a", 1, "/lock/a", 2, 3),
                                                                created("/lock/b", 4), written("a", 2, "/lock/a", 2, 5),
                                                                deleted("/lock/a", 6), written("b", 1, "/lock/b", 4, 7)}
                                         << QString() << 3;
        QTest::newRow("after its entry went") << QList<WatchEvent>{created("/lock/a", 2), deleted("/lock/a", 3),
                                                                     written("a", 1, "/lock/a", 2, 4)}
                                              << "fence broken: write a/1 (token 2) committed at revision 4 while its "
                                                 "entry /lock/a was gone"
                                              << 0;
        QTest::newRow("while another entry was older")
            << QList<WatchEvent>{created("/lock/a", 2), created("/lock/b", 3), written("b", 1, "/lock/b", 3, 4)}
            << "fence broken: write b/1 (token 3) committed at revision 4 while its entry /lock/b had create revision 3; "
               "the oldest entry had create revision 2"
            << 0;
        QTest::newRow("under an older incarnation")
            << QList<WatchEvent>{created("/lock/a", 2), deleted("/lock/a", 3), created("/lock/a", 4),
                                 written("a", 1, "/lock/a", 2, 5)}
            << "fence broken: write a/1 (token 2)" << 0;
        QTest::newRow("committed twice") << QList<WatchEvent>{created("/lock/a", 2), written("a", 1, "/lock/a", 2, 3),
                                                                written("a", 1, "/lock/a", 2, 4)}
                                         << "write a/1 committed twice" << 1;
        QTest::newRow("fenced key deleted") << QList<WatchEvent>{created("/lock/a", 2), deleted(fenced, 3)}
                                            << "the fenced key was deleted" << 0;
    }

    void fencingOracle()
    {
        QFETCH(QList<WatchEvent>, history);
        QFETCH(QString, verdict);
        QFETCH(int, committed);
        FencingOracle oracle(prefix, fenced);
        const QString found = oracle.takeAll(history);
        if (verdict.isEmpty())
            QCOMPARE(found, QString());
        else
            QVERIFY2(found.startsWith(verdict), qPrintable(found));
        QCOMPARE(oracle.committed().size(), committed);
        // The first violation stays the verdict, whatever comes after it.
        QCOMPARE(oracle.take(created("/lock/z", 1000)), found);
    }

    // A semaphore's: any of the two oldest entries may write, the third may not.
    void fencingOracleWithTwoPermits()
    {
        const QList<WatchEvent> sound{created("/lock/a", 2), created("/lock/b", 3), created("/lock/c", 4),
                                      written("b", 1, "/lock/b", 3, 5), written("a", 1, "/lock/a", 2, 6),
                                      deleted("/lock/a", 7), written("c", 1, "/lock/c", 4, 8)};
        FencingOracle twoPermits(prefix, fenced, 2);
        QCOMPARE(twoPermits.takeAll(sound), QString());
        QCOMPARE(twoPermits.committed().size(), 3);

        const QList<WatchEvent> third{created("/lock/a", 2), created("/lock/b", 3), created("/lock/c", 4),
                                      written("c", 1, "/lock/c", 4, 5)};
        const QString found = FencingOracle(prefix, fenced, 2).takeAll(third);
        QVERIFY2(found.startsWith("fence broken: write c/1 (token 4) committed at revision 5 while its entry /lock/c "
                                  "had create revision 4; the oldest entry had create revision 2, and 2 entries were "
                                  "older (2 hold)"),
                 qPrintable(found));
    }

    void releasedEarly_data()
    {
        QTest::addColumn<QList<BarrierArrival>>("arrivals");
        QTest::addColumn<QString>("verdict");  // empty: sound
        // member, waiting ms, round, released ms
        QTest::newRow("released after every arrival began")
            << QList<BarrierArrival>{{"a", 10, 5, 40}, {"b", 20, 5, 41}, {"c", 30, 5, 30}, {"a", 41, 9, -1}}
            << QString();
        QTest::newRow("released before the last arrival began")
            << QList<BarrierArrival>{{"a", 10, 5, 12}, {"b", 20, 5, 41}, {"c", 30, 5, 41}}
            << "released early: a was released from round 5 at 12 ms, 18 ms before c began its arrival in that round";
        QTest::newRow("the earliest of two early releases")
            << QList<BarrierArrival>{{"a", 10, 5, 25}, {"b", 11, 5, 15}, {"c", 30, 5, 41}}
            << "released early: b was released from round 5 at 15 ms";
        QTest::newRow("rounds judged apart")
            << QList<BarrierArrival>{{"a", 10, 5, 20}, {"b", 11, 5, 20}, {"a", 21, 8, 50}, {"b", 45, 8, 50}}
            << QString();
        QTest::newRow("never arrived: no round to judge")
            << QList<BarrierArrival>{{"a", 10, 0, 12}, {"b", 30, 5, 40}} << QString();
    }

    void releasedEarly()
    {
        QFETCH(QList<BarrierArrival>, arrivals);
        QFETCH(QString, verdict);
        const QString found = QEtcd::Testing::releasedEarly(arrivals);
        if (verdict.isEmpty())
            QCOMPARE(found, QString());
        else
            QVERIFY2(found.startsWith(verdict), qPrintable(found));
    }

    void barrierArrivalsFromLines()
    {
        const auto line = [](const char *event, qint64 monoMs, qint64 round = 0) {
            QJsonObject object{{"event", event}, {"mono_ms", monoMs}};
            if (round)
                object.insert("round", round);
            return object;
        };
        const QList<BarrierArrival> arrivals = barrierArrivals(
            "a", {line("waiting", 10), line("connectionState", 11), line("arrived", 12, 5), line("released", 20),
                  line("waiting", 21), line("timedOut", 90)});
        QCOMPARE(arrivals.size(), 2);
        QCOMPARE(arrivals[0].waitingMs, qint64(10));
        QCOMPARE(arrivals[0].round, qint64(5));
        QCOMPARE(arrivals[0].releasedMs, qint64(20));
        QCOMPARE(arrivals[1].waitingMs, qint64(21));
        QCOMPARE(arrivals[1].round, qint64(0));
        QCOMPARE(arrivals[1].releasedMs, qint64(-1));
    }

    void barrierRounds_data()
    {
        QTest::addColumn<QList<WatchEvent>>("history");
        QTest::addColumn<QString>("verdict");  // the start of it; empty: sound
        QTest::addColumn<int>("tripped");
        QTest::addColumn<int>("staleRounds");
        QTest::newRow("three arrive, trip, leave")
            << QList<WatchEvent>{created(ready, 2), created(waiting + "a", 3), created(waiting + "b", 4),
                                 created(waiting + "c", 5), deleted(ready, 6), deleted(waiting + "a", 7),
                                 deleted(waiting + "b", 8), deleted(waiting + "c", 9)}
            << QString() << 1 << 0;
        QTest::newRow("a stale key beside a full round")
            << QList<WatchEvent>{created(ready, 2), created(waiting + "a", 3), created(waiting + "b", 4),
                                 created(waiting + "c", 5), deleted(ready, 6), deleted(waiting + "a", 7),
                                 deleted(waiting + "b", 8), created(ready, 9), created(waiting + "a2", 10),
                                 deleted(waiting + "c", 11), created(waiting + "b2", 12), created(waiting + "c2", 13),
                                 deleted(ready, 14)}
            << QString() << 2 << 1;
        QTest::newRow("tripped a member short, counting a stale key")
            << QList<WatchEvent>{created(ready, 2), created(waiting + "a", 3), created(waiting + "b", 4),
                                 created(waiting + "c", 5), deleted(ready, 6), deleted(waiting + "a", 7),
                                 deleted(waiting + "b", 8), created(ready, 9), created(waiting + "a2", 10),
                                 created(waiting + "b2", 11), deleted(ready, 12)}
            << "round 9 tripped (ready deleted at revision 12) with 2 of 3 members' keys written in it" << 2 << 1;
        QTest::newRow("a key rewritten is no second arrival")
            << QList<WatchEvent>{created(ready, 2), created(waiting + "a", 3), rewritten(waiting + "a", 3, 4),
                                 created(waiting + "b", 5), deleted(ready, 6)}
            << "round 2 tripped (ready deleted at revision 6) with 2 of 3" << 1 << 0;
    }

    void barrierRounds()
    {
        QFETCH(QList<WatchEvent>, history);
        QFETCH(QString, verdict);
        QFETCH(int, tripped);
        QFETCH(int, staleRounds);
        BarrierRounds rounds(barrier, 3);
        const QString found = rounds.takeAll(history);
        if (verdict.isEmpty())
            QCOMPARE(found, QString());
        else
            QVERIFY2(found.startsWith(verdict), qPrintable(found));
        QCOMPARE(rounds.tripped(), tripped);
        QCOMPARE(rounds.roundsWithStaleKeys(), staleRounds);
    }
};

QTEST_GUILESS_MAIN(tst_CheckerVerdicts)
#include "tst_checkerverdicts.moc"
