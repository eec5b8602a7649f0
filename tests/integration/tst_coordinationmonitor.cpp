// SPDX-License-Identifier: Apache-2.0
// CoordinationMonitor telling what happens on the cluster as it happens, for processes other
// than the one watching: hand-overs and releases in Go's lock layout, a lease taking several
// objects' keys at once, and a service registration of another client healing after its lease
// was revoked. And its objectsChanged() telling each object once per signal, from how it was
// at the last one.
#include "../common/awaitfuture.h"
#include "../common/recipefixture.h"

#include <QEtcd/coordinationmonitor.h>
#include <QEtcd/serviceregistry.h>
#include <QEtcd/testtimeouts.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;
using Type = CoordinationEvent::Type;
using Cause = CoordinationEvent::Cause;
using Kind = CoordinationObject::Kind;

namespace {
QList<CoordinationEvent> eventsIn(const QSignalSpy &spy)
{
    QList<CoordinationEvent> events;
    for (const QList<QVariant> &arguments : spy)
        events += arguments.at(0).value<QList<CoordinationEvent>>();
    return events;
}

// "handedOn /p", "released(deleted) /p": comparable, in order.
QStringList described(const QList<CoordinationEvent> &events)
{
    QStringList lines;
    for (const CoordinationEvent &event : events) {
        const QString cause = event.cause == Cause::None ? QString() : QLatin1Char('(') + event.causeName() + QLatin1Char(')');
        lines.append(event.typeName() + cause + QLatin1Char(' ') + QString::fromUtf8(event.path));
    }
    return lines;
}

QByteArray hex(qint64 lease)
{
    return QByteArray::number(lease, 16);
}
} // namespace

class tst_CoordinationMonitor : public QObject, protected RecipeFixture
{
    Q_OBJECT

    qint64 grant()
    {
        const LeaseGrantResult granted = awaited(m_other->leaseGrant(60));
        return granted.status ? granted.id : 0;
    }

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<QList<CoordinationEvent>>();
        QVERIFY2(startEtcd(), qPrintable(m_cluster.errorString()));
    }

    // Another process's lock in etcdctl's layout passes on and ends: the monitor says how.
    void handOversAndEndingsOfOtherProcesses()
    {
        CoordinationMonitor monitor(m_client.get(), "/mon/a/");
        QSignalSpy events(&monitor, &CoordinationMonitor::eventsHappened);
        QCOMPARE(awaited(monitor.start()), Status());

        const qint64 first = grant();
        const qint64 second = grant();
        QVERIFY(first && second);
        PutOptions onFirst;
        onFirst.lease = first;
        PutOptions onSecond;
        onSecond.lease = second;
        const QByteArray held = "/mon/a/locks/db/" + hex(first);
        QVERIFY(awaited(m_other->put(held, {}, onFirst)).status);
        QVERIFY(awaited(m_other->put("/mon/a/locks/db/" + hex(second), {}, onSecond)).status);
        // The second session also stands in an election: its lease carries two keys here.
        QVERIFY(awaited(m_other->put("/mon/a/elect/e/" + hex(second), "second", onSecond)).status);
        QVERIFY(awaited(m_other->remove(held)).status);
        QVERIFY(awaited(m_other->leaseRevoke(second)).status);

        QTRY_COMPARE_WITH_TIMEOUT(eventsIn(events).size(), 6, scaledMs(10000));
        QStringList lines = described(eventsIn(events));
        // The revoke's two endings share a revision: their order is not etcd's to say.
        std::sort(lines.begin() + 4, lines.end());
        QCOMPARE(lines, (QStringList{"acquired /mon/a/locks/db", "waiterJoined /mon/a/locks/db", "elected /mon/a/elect/e",
                                     "handedOn /mon/a/locks/db", "leaderEnded(leaseEnded) /mon/a/elect/e",
                                     "released(leaseEnded) /mon/a/locks/db"}));
        const QList<CoordinationEvent> told = eventsIn(events);
        QCOMPARE(told[3].previous.lease, first);
        QCOMPARE(told[3].entry.lease, second);
        for (const CoordinationEvent &event : told) {
            QVERIFY2(event.revision > 0, qPrintable(event.toText()));
            QVERIFY2(event.timeMs > 0, qPrintable(event.toText()));
        }
        QVERIFY(told[0].revision < told[1].revision);
        QCOMPARE(told[4].revision, told[5].revision);  // one revoke, both keys
    }

    // A registration of another client whose lease an operator revoked: it went, and came back
    // under its own name on a new lease, which the monitor tells as a heal, with how long it took.
    void healOfAnotherClientsRegistration()
    {
        CoordinationMonitor monitor(m_client.get(), "/mon/heal");
        QSignalSpy events(&monitor, &CoordinationMonitor::eventsHappened);
        QCOMPARE(awaited(monitor.start()), Status());

        RecipeOptions options;
        options.ttlSeconds = 2;
        ServiceRegistry registry(m_other.get(), "/mon/heal", options);
        ServiceInstance instance(QStringLiteral("api"), QStringLiteral("{}"));
        QCOMPARE(awaited(registry.registerService(instance)), Status());
        const qint64 revoked = registry.leaseIdOf(instance);
        QTRY_VERIFY_WITH_TIMEOUT(!events.isEmpty(), scaledMs(10000));
        QCOMPARE(described(eventsIn(events)), QStringList{"instanceUp /mon/heal/names/api"});
        QVERIFY(awaited(m_client->leaseRevoke(revoked)).status);

        const auto healed = [&events]() -> std::optional<CoordinationEvent> {
            for (const CoordinationEvent &event : eventsIn(events)) {
                if (event.type == Type::Healed)
                    return event;
            }
            return std::nullopt;
        };
        QTRY_VERIFY_WITH_TIMEOUT(healed().has_value(), scaledMs(15000));
        const CoordinationEvent heal = *healed();
        QCOMPARE(heal.kind, Kind::Service);
        QCOMPARE(heal.previous.lease, revoked);
        QCOMPARE(heal.entry.lease, registry.leaseIdOf(instance));
        QVERIFY(heal.entry.lease != revoked);
        QVERIFY(heal.count >= 1);
        QVERIFY2(heal.goneMs >= 0 && heal.goneMs < scaledMs(15000), qPrintable(QString::number(heal.goneMs)));
        QVERIFY2(heal.toText().contains(QLatin1String(" s)")), qPrintable(heal.toText()));
        const QStringList lines = described(eventsIn(events));
        QVERIFY2(lines.indexOf(QStringLiteral("instanceDown(deleted) /mon/heal/names/api"))
                     < lines.indexOf(QStringLiteral("healed /mon/heal/names/api")),
                 qPrintable(lines.join(u'\n')));
    }

    // Between two signals an object that came and went is not told; one that changed twice is
    // told once, from how it was to how it is. Its events are all told.
    void eachObjectToldOncePerSignal()
    {
        const qint64 lease = grant();
        const qint64 other = grant();
        PutOptions onLease;
        onLease.lease = lease;
        PutOptions onOther;
        onOther.lease = other;
        QVERIFY(awaited(m_other->put("/mon/once/elect/e/" + hex(lease), "a", onLease)).status);

        CoordinationMonitor monitor(m_client.get(), "/mon/once/");
        monitor.setInterval(std::chrono::milliseconds(scaledMs(3000)));
        QSignalSpy changed(&monitor, &CoordinationMonitor::objectsChanged);
        QSignalSpy events(&monitor, &CoordinationMonitor::eventsHappened);
        QCOMPARE(awaited(monitor.start()), Status());
        QCOMPARE(changed.size(), 1);  // the first read
        changed.clear();

        QVERIFY(awaited(m_other->put("/mon/once/locks/brief/" + hex(other), {}, onOther)).status);
        QVERIFY(awaited(m_other->put("/mon/once/elect/e/" + hex(other), "b", onOther)).status);
        QVERIFY(awaited(m_other->remove("/mon/once/locks/brief/" + hex(other))).status);
        QVERIFY(awaited(m_other->put("/mon/once/elect/e/" + hex(lease), "a2", onLease)).status);

        QVERIFY(changed.wait(scaledMs(10000)));
        const auto told = changed.first().first().value<QList<CoordinationObjectChange>>();
        QCOMPARE(told.size(), 1);
        QCOMPARE(told.first().type, CoordinationObjectChange::Type::Changed);
        QCOMPARE(told.first().object.path, QByteArray("/mon/once/elect/e"));
        QCOMPARE(told.first().previous.waiters.size(), 0);
        QCOMPARE(told.first().object.waiters.size(), 1);
        QCOMPARE(told.first().object.holders.value(0).value, QByteArray("a2"));
        QCOMPARE(told.first().previous.holders.value(0).value, QByteArray("a"));
        QTRY_COMPARE_WITH_TIMEOUT(described(eventsIn(events)),
                                  (QStringList{"acquired /mon/once/locks/brief", "candidateJoined /mon/once/elect/e",
                                               "released(deleted) /mon/once/locks/brief"}),
                                  scaledMs(10000));
        QCOMPARE(monitor.objects().size(), 1);
    }
};

QTEST_GUILESS_MAIN(tst_CoordinationMonitor)
#include "tst_coordinationmonitor.moc"
