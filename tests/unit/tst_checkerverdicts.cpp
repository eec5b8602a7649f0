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
