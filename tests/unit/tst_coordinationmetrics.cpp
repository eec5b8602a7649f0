// SPDX-License-Identifier: Apache-2.0
// The metrics of coordination objects, without a server: the changes a monitor would signal are
// signalled by the test, and what render() writes is read back as Prometheus would read it.
#include <QEtcd/coordinationmetrics.h>
#include <QEtcd/coordinationmonitor.h>
#include <QEtcd/leasemetrics.h>

#include "leasemetrics_p.h"

#include <QtCore/QRegularExpression>
#include <QtTest/QtTest>

using namespace QEtcd;
using Kind = CoordinationObject::Kind;
using Type = CoordinationObjectChange::Type;
using Happened = CoordinationEvent::Type;

namespace {
CoordinationEntry entry(const QByteArray &key, const QString &name, qint64 lease, qint64 sinceMs = -1)
{
    CoordinationEntry result;
    result.key = key;
    result.name = name;
    result.lease = lease;
    result.sinceMs = sinceMs;
    return result;
}

CoordinationObject object(Kind kind, const QByteArray &path)
{
    CoordinationObject result;
    result.kind = kind;
    result.path = path;
    return result;
}

CoordinationObjectChange change(Type type, const CoordinationObject &object)
{
    CoordinationObjectChange result;
    result.type = type;
    result.object = object;
    return result;
}

CoordinationEvent happening(CoordinationEvent::Type type, Kind kind, const QByteArray &path,
                            const CoordinationEntry &who, const CoordinationEntry &previous = {})
{
    CoordinationEvent result;
    result.type = type;
    result.kind = kind;
    result.path = path;
    result.entry = who;
    result.previous = previous;
    return result;
}

// The samples of a rendering, "family{labels}" -> value, after checking that every line is a
// comment or a sample of the family the last # TYPE declared (a histogram's: its _bucket, _sum
// and _count), and that no family comes twice.
QMap<QString, QString> samples(const QByteArray &text, QStringList *families = nullptr)
{
    static const QRegularExpression sampleLine(QStringLiteral(R"(^([a-z_]+)(\{.*\})? (\S+)$)"));
    QMap<QString, QString> result;
    QStringList declared;
    QString helped;
    bool histogram = false;  // the family the last # TYPE declared is one
    const QList<QByteArray> lines = text.split('\n');
    [&] { QVERIFY2(text.endsWith('\n'), text.constData()); }();
    for (const QByteArray &bytes : lines) {
        const QString line = QString::fromUtf8(bytes);
        if (line.isEmpty())
            continue;
        if (line.startsWith(QLatin1String("# HELP "))) {
            helped = line.section(QLatin1Char(' '), 2, 2);
            [&] { QVERIFY2(line.section(QLatin1Char(' '), 3).size() > 10, qPrintable(line)); }();
            continue;
        }
        if (line.startsWith(QLatin1String("# TYPE "))) {
            const QString family = line.section(QLatin1Char(' '), 2, 2);
            const QString type = line.section(QLatin1Char(' '), 3);
            [&] {
                QCOMPARE(family, helped);
                QVERIFY2(!declared.contains(family), qPrintable(family));
                QVERIFY2(type == QLatin1String("gauge") || type == QLatin1String("counter")
                             || type == QLatin1String("histogram"),
                         qPrintable(line));
                QCOMPARE(family.endsWith(QLatin1String("_total")), type == QLatin1String("counter"));
            }();
            declared.append(family);
            histogram = type == QLatin1String("histogram");
            continue;
        }
        const QRegularExpressionMatch match = sampleLine.match(line);
        [&] {
            QVERIFY2(match.hasMatch(), qPrintable(line));
            QVERIFY2(!declared.isEmpty(), qPrintable(line));
            const QString &family = declared.last();
            const QString sampled = match.captured(1);
            QVERIFY2(sampled == family
                         || (histogram && sampled.startsWith(family)
                             && QStringList{"_bucket", "_sum", "_count"}.contains(sampled.mid(family.size()))),
                     qPrintable(line));
        }();
        result.insert(match.captured(1) + match.captured(2), match.captured(3));
    }
    if (families)
        *families = declared;
    return result;
}
} // namespace

class tst_CoordinationMetrics : public QObject
{
    Q_OBJECT

private:
    // A monitor that never starts: the test speaks for it.
    CoordinationMonitor m_monitor{nullptr, "/"};

    // As the monitor tells a burst: the objects as they are now, then what happened.
    void signal(const QList<CoordinationObjectChange> &changes, const QList<CoordinationEvent> &events = {})
    {
        Q_EMIT m_monitor.objectsChanged(changes);
        if (!events.isEmpty())
            Q_EMIT m_monitor.eventsHappened(events);
    }

private Q_SLOTS:
    void labelValuesAreEscaped()
    {
        QCOMPARE(CoordinationMetrics::escapeLabelValue(QStringLiteral("a\\b\"c\nd")), QByteArray("a\\\\b\\\"c\\nd"));
        QCOMPARE(CoordinationMetrics::escapeLabelValue(QStringLiteral("/locks/été")), QStringLiteral("/locks/été").toUtf8());

        CoordinationMetrics metrics;
        metrics.follow(&m_monitor);
        signal({change(Type::Added, object(Kind::Lock, "/odd\"lock\\\n"))});
        const QMap<QString, QString> rendered = samples(metrics.render(0));
        QCOMPARE(rendered.value(QStringLiteral("qetcd_lock_waiters{name=\"/odd\\\"lock\\\\\\n\"}")), QStringLiteral("0"));
    }

    void everyFamilyIsDeclaredOnceWithHelp()
    {
        CoordinationMetrics metrics;
        QStringList families;
        samples(metrics.render(1000), &families);
        const QStringList expected{
            "qetcd_objects", "qetcd_lock_held_seconds", "qetcd_lock_waiters", "qetcd_lock_handoffs_total",
            "qetcd_election_has_leader", "qetcd_election_candidates", "qetcd_election_leader_changes_total",
            "qetcd_semaphore_permits_in_use", "qetcd_semaphore_capacity", "qetcd_semaphore_waiters",
            "qetcd_barrier_set", "qetcd_counted_barrier_arrived", "qetcd_queue_depth",
            "qetcd_queue_oldest_item_age_seconds", "qetcd_service_instances", "qetcd_counter_value",
            "qetcd_lease_expirations_total", "qetcd_lease_suspensions_total", "qetcd_lease_losses_total",
            "qetcd_lease_heals_total", "qetcd_lease_heal_attempts_failed_total", "qetcd_lease_heal_seconds",
            "qetcd_exporter_connected",
            "qetcd_exporter_last_refresh_timestamp_seconds", "qetcd_exporter_watch_resyncs_total",
            "qetcd_exporter_series_dropped"};
        QCOMPARE(families, expected);
    }

    void gaugesFollowTheObjects()
    {
        CoordinationMetrics metrics;
        metrics.follow(&m_monitor);
        CoordinationObject semaphore = object(Kind::Semaphore, "/sem");
        semaphore.holders = {entry("/sem/1", "a", 1)};
        semaphore.waiters = {entry("/sem/2", "b", 2)};
        semaphore.permits = 3;
        CoordinationObject queue = object(Kind::Queue, "/q");
        queue.depth = 3;
        queue.oldestMs = 4000;
        CoordinationObject service = object(Kind::Service, "/svc/names/web");
        service.members = {entry("/svc/names/web/1", "i1", 3), entry("/svc/names/web/2", "i2", 4)};
        CoordinationObject counted = object(Kind::CountedBarrier, "/cb");
        counted.members = {entry("/cb/a", "a", 5)};
        CoordinationObject counter = object(Kind::Counter, "/n");
        counter.value = -7;
        CoordinationObject election = object(Kind::Election, "/e");
        CoordinationObject barrier = object(Kind::Barrier, "/b");
        signal({change(Type::Added, semaphore), change(Type::Added, queue), change(Type::Added, service),
                change(Type::Added, counted), change(Type::Added, counter), change(Type::Added, election),
                change(Type::Added, barrier)});

        const QMap<QString, QString> rendered = samples(metrics.render(10500));
        QCOMPARE(rendered.value(R"(qetcd_semaphore_permits_in_use{name="/sem"})"), QStringLiteral("1"));
        QCOMPARE(rendered.value(R"(qetcd_semaphore_capacity{name="/sem"})"), QStringLiteral("3"));
        QCOMPARE(rendered.value(R"(qetcd_semaphore_waiters{name="/sem"})"), QStringLiteral("1"));
        QCOMPARE(rendered.value(R"(qetcd_queue_depth{name="/q"})"), QStringLiteral("3"));
        QCOMPARE(rendered.value(R"(qetcd_queue_oldest_item_age_seconds{name="/q"})"), QStringLiteral("6.500"));
        QCOMPARE(rendered.value(R"(qetcd_service_instances{service="/svc/names/web"})"), QStringLiteral("2"));
        QCOMPARE(rendered.value(R"(qetcd_counted_barrier_arrived{name="/cb"})"), QStringLiteral("1"));
        QCOMPARE(rendered.value(R"(qetcd_counter_value{name="/n"})"), QStringLiteral("-7"));
        QCOMPARE(rendered.value(R"(qetcd_election_has_leader{name="/e"})"), QStringLiteral("0"));
        QCOMPARE(rendered.value(R"(qetcd_barrier_set{name="/b"})"), QStringLiteral("1"));
        QCOMPARE(rendered.value(R"(qetcd_objects{kind="queue"})"), QStringLiteral("1"));

        queue.depth = 0;
        queue.oldestMs = -1;
        signal({change(Type::Changed, queue), change(Type::Removed, barrier)});
        const QMap<QString, QString> after = samples(metrics.render(10500));
        QCOMPARE(after.value(R"(qetcd_queue_depth{name="/q"})"), QStringLiteral("0"));
        QVERIFY(!after.contains(R"(qetcd_queue_oldest_item_age_seconds{name="/q"})"));
        QVERIFY(!after.contains(R"(qetcd_barrier_set{name="/b"})"));
    }

    void handoffsCountFromTheFirstList()
    {
        CoordinationMetrics metrics;
        metrics.follow(&m_monitor);
        CoordinationObject lock = object(Kind::Lock, "/l");
        lock.holders = {entry("/l/1", "first", 1, 1000)};
        lock.waiters = {entry("/l/2", "second", 2), entry("/l/3", "third", 3)};
        signal({change(Type::Added, lock)});  // the first list: what was there already

        QMap<QString, QString> rendered = samples(metrics.render(5000));
        QCOMPARE(rendered.value(R"(qetcd_lock_waiters{name="/l"})"), QStringLiteral("2"));
        QCOMPARE(rendered.value(R"(qetcd_lock_handoffs_total{name="/l"})"), QStringLiteral("0"));
        // Already held at the start: since its holder queued, as its identity says.
        QCOMPARE(rendered.value(R"(qetcd_lock_held_seconds{name="/l",holder="first"})"), QStringLiteral("4.000"));

        const CoordinationEntry first = lock.holders.first();
        lock.holders = {lock.waiters.takeFirst()};
        const qint64 handedOnAt = QDateTime::currentMSecsSinceEpoch();
        signal({change(Type::Changed, lock)},
               {happening(Happened::HandedOn, Kind::Lock, "/l", lock.holders.first(), first)});
        rendered = samples(metrics.render(handedOnAt + 60000));
        QCOMPARE(rendered.value(R"(qetcd_lock_waiters{name="/l"})"), QStringLiteral("1"));
        QCOMPARE(rendered.value(R"(qetcd_lock_handoffs_total{name="/l"})"), QStringLiteral("1"));
        QVERIFY(!rendered.contains(R"(qetcd_lock_held_seconds{name="/l",holder="first"})"));
        const double held = rendered.value(R"(qetcd_lock_held_seconds{name="/l",holder="second"})").toDouble();
        QVERIFY2(held > 59.0 && held <= 60.0, qPrintable(QString::number(held)));
        // The first holder's lease held nothing else.
        QCOMPARE(rendered.value("qetcd_lease_expirations_total"), QStringLiteral("1"));

        // Released with nobody waiting: the lock goes, its count stays.
        signal({change(Type::Removed, lock)},
               {happening(Happened::Released, Kind::Lock, "/l", lock.holders.first()),
                happening(Happened::WaiterLeft, Kind::Lock, "/l", lock.waiters.first())});
        rendered = samples(metrics.render(handedOnAt));
        QVERIFY(!rendered.contains(R"(qetcd_lock_waiters{name="/l"})"));
        QCOMPARE(rendered.value(R"(qetcd_lock_handoffs_total{name="/l"})"), QStringLiteral("1"));
        QCOMPARE(rendered.value("qetcd_lease_expirations_total"), QStringLiteral("3"));
    }

    // A burst folded into one change of the lock (first -> fourth) held two hand-offs, and a
    // release with a later acquisition that is none: counted as the events tell, each once.
    void handoffsCountAsTheEventsTell()
    {
        CoordinationMetrics metrics;
        metrics.follow(&m_monitor);
        const CoordinationEntry first = entry("/l/1", "first", 1);
        const CoordinationEntry second = entry("/l/2", "second", 2);
        const CoordinationEntry third = entry("/l/3", "third", 3);
        const CoordinationEntry fourth = entry("/l/4", "fourth", 4);
        CoordinationObject lock = object(Kind::Lock, "/l");
        lock.holders = {first};
        lock.waiters = {second, third};
        signal({change(Type::Added, lock)});

        CoordinationObjectChange changed = change(Type::Changed, lock);
        changed.previous = lock;
        changed.object.holders = {fourth};
        changed.object.waiters = {};
        signal({changed}, {happening(Happened::HandedOn, Kind::Lock, "/l", second, first),
                           happening(Happened::HandedOn, Kind::Lock, "/l", third, second),
                           happening(Happened::Released, Kind::Lock, "/l", third),
                           happening(Happened::Acquired, Kind::Lock, "/l", fourth)});
        const QMap<QString, QString> rendered = samples(metrics.render(0));
        QCOMPARE(rendered.value(R"(qetcd_lock_handoffs_total{name="/l"})"), QStringLiteral("2"));
        QCOMPARE(rendered.value("qetcd_lease_expirations_total"), QStringLiteral("3"));
        QVERIFY(rendered.contains(R"(qetcd_lock_held_seconds{name="/l",holder="fourth"})"));
    }

    void holderLabelsCanBeLeftOut()
    {
        CoordinationMetrics metrics;
        metrics.setHolderLabels(false);
        metrics.follow(&m_monitor);
        CoordinationObject lock = object(Kind::Lock, "/l");
        lock.holders = {entry("/l/1", "first", 1)};
        signal({change(Type::Added, lock)});
        const QMap<QString, QString> rendered = samples(metrics.render(QDateTime::currentMSecsSinceEpoch()));
        QVERIFY(rendered.contains(R"(qetcd_lock_held_seconds{name="/l"})"));
        QVERIFY(!metrics.render(0).contains("holder="));
    }

    void leaderChangesCountNewLeaders()
    {
        CoordinationMetrics metrics;
        metrics.follow(&m_monitor);
        CoordinationObject election = object(Kind::Election, "/e");
        election.holders = {entry("/e/1", "a", 1)};
        election.waiters = {entry("/e/2", "b", 2)};
        signal({change(Type::Added, election)});
        QCOMPARE(samples(metrics.render(0)).value(R"(qetcd_election_leader_changes_total{name="/e"})"), QStringLiteral("0"));

        const CoordinationEntry first = election.holders.first();
        election.holders = {election.waiters.takeFirst()};
        signal({change(Type::Changed, election)},
               {happening(Happened::Elected, Kind::Election, "/e", election.holders.first(), first)});
        const CoordinationEntry second = election.holders.takeFirst();
        signal({change(Type::Changed, election)}, {happening(Happened::LeaderEnded, Kind::Election, "/e", second)});
        QMap<QString, QString> rendered = samples(metrics.render(0));
        QCOMPARE(rendered.value(R"(qetcd_election_leader_changes_total{name="/e"})"), QStringLiteral("1"));
        QCOMPARE(rendered.value(R"(qetcd_election_has_leader{name="/e"})"), QStringLiteral("0"));

        election.holders = {entry("/e/3", "c", 3)};
        signal({change(Type::Changed, election)},
               {happening(Happened::Elected, Kind::Election, "/e", election.holders.first())});
        rendered = samples(metrics.render(0));
        QCOMPARE(rendered.value(R"(qetcd_election_leader_changes_total{name="/e"})"), QStringLiteral("2"));
        QCOMPARE(rendered.value(R"(qetcd_election_has_leader{name="/e"})"), QStringLiteral("1"));
        QCOMPARE(rendered.value(R"(qetcd_election_candidates{name="/e"})"), QStringLiteral("0"));
    }

    void seriesPastTheCapAreCountedNotWritten()
    {
        CoordinationMetrics metrics;
        metrics.setMaxSeries(5);
        metrics.follow(&m_monitor);
        QList<CoordinationObjectChange> changes;
        for (int i = 0; i < 10; ++i)
            changes.append(change(Type::Added, object(Kind::Queue, "/q" + QByteArray::number(i))));
        for (CoordinationObjectChange &each : changes)
            each.object.depth = 1;
        signal(changes);

        const QMap<QString, QString> rendered = samples(metrics.render(0));
        // qetcd_objects{kind="queue"}, then four queues' depths, then nothing about objects.
        QCOMPARE(rendered.value(R"(qetcd_objects{kind="queue"})"), QStringLiteral("10"));
        QCOMPARE(rendered.keys().filter("qetcd_queue_depth").size(), 4);
        QCOMPARE(rendered.value("qetcd_exporter_series_dropped"), QStringLiteral("6"));
        QCOMPARE(metrics.droppedSeries(), 6);
        QVERIFY(rendered.contains("qetcd_exporter_connected"));
        QVERIFY(rendered.contains("qetcd_lease_expirations_total"));
    }

    // The process's own lease counts, by the recipe that owns the leases, with the heal times
    // as a Prometheus histogram whose buckets include those before them.
    void leaseCountsOfTheProcess()
    {
        const int mutex = Internal::leaseMetricsKind(QStringLiteral("TestMutex"));
        const int registry = Internal::leaseMetricsKind(QStringLiteral("TestRegistry"));
        QCOMPARE(Internal::leaseMetricsKind(QStringLiteral("TestMutex")), mutex);
        QSignalSpy changed(LeaseMetrics::instance(), &LeaseMetrics::changed);
        Internal::countLease(mutex, Internal::LeaseCount::Suspension);
        Internal::countLease(mutex, Internal::LeaseCount::Suspension);
        Internal::countLease(mutex, Internal::LeaseCount::Loss);
        Internal::countLease(registry, Internal::LeaseCount::Suspension);
        Internal::countLease(registry, Internal::LeaseCount::Loss);
        Internal::countLease(registry, Internal::LeaseCount::HealAttemptFailed);
        Internal::countHeal(registry, std::chrono::milliseconds(700));
        Internal::countHeal(registry, std::chrono::milliseconds(4000));
        Internal::countHeal(registry, std::chrono::milliseconds(900000));  // past the last bound
        QCOMPARE(changed.size(), 9);

        const QList<LeaseKindMetrics> snapshot = LeaseMetrics::instance()->snapshot();
        const auto kind = [&snapshot](const QString &name) {
            const auto found = std::find_if(snapshot.begin(), snapshot.end(),
                                            [&name](const LeaseKindMetrics &each) { return each.kind == name; });
            return found == snapshot.end() ? LeaseKindMetrics() : *found;
        };
        QCOMPARE(kind("TestMutex").suspensions, 2u);
        QCOMPARE(kind("TestMutex").losses, 1u);
        QCOMPARE(kind("TestMutex").heals, 0u);
        QCOMPARE(kind("TestRegistry").heals, 3u);
        QCOMPARE(kind("TestRegistry").healAttemptsFailed, 1u);

        const QMap<QString, QString> rendered = samples(CoordinationMetrics().render(0));
        QCOMPARE(rendered.value(R"(qetcd_lease_suspensions_total{kind="TestMutex"})"), QStringLiteral("2"));
        QCOMPARE(rendered.value(R"(qetcd_lease_losses_total{kind="TestMutex"})"), QStringLiteral("1"));
        QCOMPARE(rendered.value(R"(qetcd_lease_heals_total{kind="TestMutex"})"), QStringLiteral("0"));
        QCOMPARE(rendered.value(R"(qetcd_lease_suspensions_total{kind="TestRegistry"})"), QStringLiteral("1"));
        QCOMPARE(rendered.value(R"(qetcd_lease_heals_total{kind="TestRegistry"})"), QStringLiteral("3"));
        QCOMPARE(rendered.value(R"(qetcd_lease_heal_attempts_failed_total{kind="TestRegistry"})"), QStringLiteral("1"));
        const auto bucket = [&rendered](const char *le) {
            return rendered.value(QStringLiteral(R"(qetcd_lease_heal_seconds_bucket{kind="TestRegistry",le="%1"})")
                                      .arg(QLatin1String(le)));
        };
        QCOMPARE(bucket("0.5"), QStringLiteral("0"));
        QCOMPARE(bucket("1"), QStringLiteral("1"));
        QCOMPARE(bucket("5"), QStringLiteral("2"));
        QCOMPARE(bucket("300"), QStringLiteral("2"));
        QCOMPARE(bucket("+Inf"), QStringLiteral("3"));
        QCOMPARE(rendered.value(R"(qetcd_lease_heal_seconds_sum{kind="TestRegistry"})"), QStringLiteral("904.700"));
        QCOMPARE(rendered.value(R"(qetcd_lease_heal_seconds_count{kind="TestRegistry"})"), QStringLiteral("3"));
        // Every bucket of every kind, ascending, each at least the one before.
        const QList<double> bounds = LeaseMetrics::healBucketBounds();
        QVERIFY(std::is_sorted(bounds.begin(), bounds.end()));
        for (const LeaseKindMetrics &each : snapshot) {
            QCOMPARE(each.healBuckets.size(), bounds.size());
            QVERIFY(std::is_sorted(each.healBuckets.begin(), each.healBuckets.end()));
        }
    }

    void healthIsWhatWasTold()
    {
        CoordinationMetrics metrics;
        QMap<QString, QString> rendered = samples(metrics.render(0));
        QCOMPARE(rendered.value("qetcd_exporter_connected"), QStringLiteral("0"));
        QVERIFY(!rendered.contains("qetcd_exporter_last_refresh_timestamp_seconds"));
        metrics.setConnected(true, 1700000000250);
        metrics.setConnected(false, 1700000009000);
        rendered = samples(metrics.render(0));
        QCOMPARE(rendered.value("qetcd_exporter_connected"), QStringLiteral("0"));
        QCOMPARE(rendered.value("qetcd_exporter_last_refresh_timestamp_seconds"), QStringLiteral("1700000000.250"));
        QCOMPARE(rendered.value("qetcd_exporter_watch_resyncs_total"), QStringLiteral("0"));
        metrics.follow(&m_monitor);
        Q_EMIT m_monitor.watchRecovered(WatchRecoveryKind::Resubscribed);
        Q_EMIT m_monitor.watchRecovered(WatchRecoveryKind::Resynced);
        QCOMPARE(samples(metrics.render(0)).value("qetcd_exporter_watch_resyncs_total"), QStringLiteral("1"));
    }

    // The alert rules and the dashboard shipped in packaging/ query only families the exporter
    // serves: a renamed family would leave them silently empty.
    void packagedQueriesUseServedFamilies_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("alert rules") << QStringLiteral("packaging/prometheus/qetcd-rules.yml");
        QTest::newRow("alert rules' tests") << QStringLiteral("packaging/prometheus/qetcd-rules.test.yml");
        QTest::newRow("dashboard") << QStringLiteral("packaging/grafana/qetcd.json");
    }

    void packagedQueriesUseServedFamilies()
    {
        QFETCH(QString, file);
        QStringList served;
        samples(CoordinationMetrics().render(0), &served);
        QFile packaged(qEnvironmentVariable("QETCD_SOURCE_DIR") + QLatin1Char('/') + file);
        QVERIFY2(packaged.open(QIODevice::ReadOnly), qPrintable(packaged.fileName()));
        static const QRegularExpression family(QStringLiteral(R"(\bqetcd_[a-z_]+)"));
        QSet<QString> queried;
        for (const QRegularExpressionMatch &match : family.globalMatch(QString::fromUtf8(packaged.readAll())))
            queried.insert(match.captured());
        QVERIFY(queried.size() >= 4);
        for (const QString &name : std::as_const(queried))
            QVERIFY2(served.contains(name), qPrintable(name + QLatin1String(" is not served")));
    }
};

QTEST_GUILESS_MAIN(tst_CoordinationMetrics)
#include "tst_coordinationmetrics.moc"
