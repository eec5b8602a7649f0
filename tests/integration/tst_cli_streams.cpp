// SPDX-License-Identifier: Apache-2.0
// The long-running qetcd commands (watch, lease keep, lease keep-alive) against a real etcd member: the binary is
// run as an operator would run it, its JSON lines are read as they arrive, and it is stopped with
// real signals.
#include "../common/authsetup.h"
#include "../common/awaitfuture.h"
#include "../common/qetcdprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtTest/QtTest>

#include <csignal>
#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

namespace {

// A failure is reported as exactly one line on stderr.
bool isOneLine(const QByteArray &err)
{
    return err.endsWith('\n') && err.count('\n') == 1 && err.startsWith("qetcd");
}
} // namespace

class tst_CliStreams : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    std::unique_ptr<Qetcd> qetcd(const QStringList &arguments)
    {
        return std::make_unique<Qetcd>(m_cluster.clientUrl(0), arguments);
    }

    KeyValue read(const QByteArray &key)
    {
        const QFuture<RangeResult> future = m_client->get(key);
        if (!awaitFuture(future) || !future.result().status) {
            qWarning() << "get" << key << "failed";
            return {};
        }
        return future.result().kvs.value(0);
    }

    qint64 put(const QByteArray &key, const QByteArray &value)
    {
        const QFuture<PutResult> future = m_client->put(key, value);
        return awaitFuture(future) && future.result().status ? future.result().header.revision : -1;
    }

    qint64 remove(const QByteArray &key)
    {
        const QFuture<DeleteResult> future = m_client->remove(key);
        return awaitFuture(future) && future.result().status ? future.result().header.revision : -1;
    }

    // Every line starts with "event" and "mono_ms", and mono_ms never goes back.
    static bool followsTheConvention(Qetcd &run)
    {
        qint64 previous = 0;
        for (const QByteArray &line : run.rawLines()) {
            if (!line.startsWith("{\"event\":\"") || !line.contains(",\"mono_ms\":")) {
                qWarning() << "line breaks the convention:" << line;
                return false;
            }
            const qint64 mono = QJsonDocument::fromJson(line).object().value(QLatin1String("mono_ms")).toInteger();
            if (mono <= 0 || mono < previous) {
                qWarning() << "mono_ms went back:" << line;
                return false;
            }
            previous = mono;
        }
        return true;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void cleanupTestCase()
    {
        m_client.reset();
    }

    void watchPrefixPrintsPutsAndDeletes()
    {
        auto run = qetcd({"watch", "/cs/w/", "--prefix"});
        QTRY_VERIFY_WITH_TIMEOUT(run->has("established"), scaledMs(15000));
        const QJsonObject established = run->event("established");
        QCOMPARE(text(established, "key"), QStringLiteral("/cs/w/"));
        QCOMPARE(established.value("prefix").toBool(), true);
        QVERIFY(integer(established, "start_revision") > 0);

        const qint64 first = put("/cs/w/a", "1");
        const qint64 second = put("/cs/w/b", "h\xc3\xa9");
        QVERIFY(put("/cs/other", "outside") > 0);
        const qint64 binary = put("/cs/w/bin", QByteArray("\xff\xfe", 2));
        const qint64 updated = put("/cs/w/a", "2");
        const qint64 deleted = remove("/cs/w/a");
        QVERIFY(first > 0 && second > 0 && binary > 0 && updated > 0 && deleted > 0);
        QVERIFY(integer(established, "start_revision") <= first);

        QTRY_VERIFY_WITH_TIMEOUT(run->has("delete"), scaledMs(15000));
        QCOMPARE(run->names(), (QStringList{"established", "put", "put", "put", "put", "delete"}));
        const QList<QJsonObject> events = run->events();
        QCOMPARE(text(events[1], "key"), QStringLiteral("/cs/w/a"));
        QCOMPARE(text(events[1], "value"), QStringLiteral("1"));
        QCOMPARE(integer(events[1], "mod_revision"), first);
        QCOMPARE(integer(events[1], "create_revision"), first);
        QCOMPARE(integer(events[1], "version"), 1);
        QVERIFY(!events[1].contains("lease"));
        QCOMPARE(text(events[2], "key"), QStringLiteral("/cs/w/b"));
        QCOMPARE(text(events[2], "value"), QString::fromUtf8("h\xc3\xa9"));
        QCOMPARE(integer(events[2], "mod_revision"), second);
        QCOMPARE(text(events[3], "key"), QStringLiteral("/cs/w/bin"));
        QVERIFY(!events[3].contains("value"));
        QCOMPARE(text(events[3], "value_base64"), QStringLiteral("//4="));
        QCOMPARE(text(events[4], "value"), QStringLiteral("2"));
        QCOMPARE(integer(events[4], "version"), 2);
        QCOMPARE(integer(events[4], "create_revision"), first);
        QCOMPARE(integer(events[4], "mod_revision"), updated);
        QCOMPARE(text(events[5], "key"), QStringLiteral("/cs/w/a"));
        QCOMPARE(integer(events[5], "mod_revision"), deleted);
        QVERIFY(!events[5].contains("value"));

        // SIGTERM: the watch closes and the process exits 0 with a last "closed" line.
        run->terminate();
        QCOMPARE(run->waitForExit(), 0);
        QCOMPARE(run->names().last(), QStringLiteral("closed"));
        const QJsonObject closed = run->event("closed");
        QCOMPARE(text(closed, "reason"), QStringLiteral("SIGTERM"));
        QCOMPARE(integer(closed, "resume_revision"), deleted + 1);
        QVERIFY2(followsTheConvention(*run), run->transcript().constData());
        QVERIFY2(run->standardError().isEmpty(), run->standardError().constData());
    }

    // watch -- COMMAND: a run that fails ends the watch (exit 1, naming the change); at SIGTERM
    // the run under way is ended and the changes still waiting are counted, not run.
    void watchCommandRunsOneChangeAtATime()
    {
        auto failing = qetcd({"watch", "/cs/wc/fail", "--", "sh", "-c", "exit 3"});
        QTRY_VERIFY_WITH_TIMEOUT(failing->has("established"), scaledMs(15000));
        const qint64 changed = put("/cs/wc/fail", "x");
        QCOMPARE(failing->waitForExit(), 1);
        QVERIFY2(failing->standardError().contains(
                     QStringLiteral("command \"sh\" exited with 3 on the change at revision %1").arg(changed).toUtf8()),
                 failing->standardError().constData());
        const QJsonObject failed = failing->event("closed");
        QCOMPARE(text(failed, "reason"), QStringLiteral("failed"));
        // The failed change is where a new watch resumes, to run it again.
        QCOMPARE(integer(failed, "changes_not_run"), 1);
        QCOMPARE(integer(failed, "resume_revision"), changed);

        auto slow = qetcd({"watch", "/cs/wc/slow", "--", "sleep", "30"});
        QTRY_VERIFY_WITH_TIMEOUT(slow->has("established"), scaledMs(15000));
        const qint64 first = put("/cs/wc/slow", "1");
        for (const char *value : {"2", "3"})
            QVERIFY(put("/cs/wc/slow", value) > 0);
        QTRY_COMPARE_WITH_TIMEOUT(slow->names().count("put"), 3, scaledMs(15000));
        slow->terminate();
        QCOMPARE(slow->waitForExit(), 0);
        // The run cut short and the two waiting; a new watch resumes from the first.
        QCOMPARE(integer(slow->event("closed"), "changes_not_run"), 3);
        QCOMPARE(integer(slow->event("closed"), "resume_revision"), first);
        QVERIFY2(followsTheConvention(*slow), slow->transcript().constData());

        for (const auto &[arguments, told] :
             {std::pair{QStringList{"watch", "/k", "a", "b"}, QByteArray("put -- before a command")},
              std::pair{QStringList{"watch", "/k", "--"}, QByteArray("no command after --")}}) {
            auto refused = qetcd(arguments);
            QCOMPARE(refused->waitForExit(), 128);
            QVERIFY2(refused->standardError().contains(told), refused->standardError().constData());
        }
    }

    // --progress-notify prints etcd's progress notifications, here every second.
    void watchPrintsProgressNotifications()
    {
        EtcdCluster::Options often;
        often.extraArgs = {QStringLiteral("--experimental-watch-progress-notify-interval=1s")};
        EtcdCluster cluster(often);
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        auto run = std::make_unique<Qetcd>(cluster.clientUrl(0), QStringList{"watch", "/p", "--progress-notify"});
        QTRY_VERIFY_WITH_TIMEOUT(run->has("progress"), scaledMs(15000));
        QVERIFY(integer(run->event("progress"), "revision") > 0);
        auto quiet = std::make_unique<Qetcd>(cluster.clientUrl(0), QStringList{"watch", "/p", "--hold", "3s"});
        QCOMPARE(quiet->waitForExit(), 0);
        QVERIFY(!quiet->has("progress"));
    }

    void watchRevReplaysHistory()
    {
        const qint64 first = put("/cs/h/k", "v1");
        const qint64 second = put("/cs/h/k", "v2");
        const qint64 deleted = remove("/cs/h/k");
        QVERIFY(first > 0 && second > 0 && deleted > 0);

        auto run = qetcd({"watch", "/cs/h/k", "--rev", QString::number(first), "--prev-kv"});
        QTRY_COMPARE_WITH_TIMEOUT(run->count("put") + run->count("delete"), 3, scaledMs(15000));
        QCOMPARE(run->names(), (QStringList{"established", "put", "put", "delete"}));
        QCOMPARE(integer(run->event("established"), "start_revision"), first);
        const QList<QJsonObject> events = run->events();
        QCOMPARE(text(events[1], "value"), QStringLiteral("v1"));
        QCOMPARE(integer(events[1], "mod_revision"), first);
        QCOMPARE(text(events[2], "value"), QStringLiteral("v2"));
        QCOMPARE(integer(events[2], "mod_revision"), second);
        QCOMPARE(text(events[2].value("prev_kv").toObject(), "value"), QStringLiteral("v1"));
        QCOMPARE(integer(events[3], "mod_revision"), deleted);
        QCOMPARE(text(events[3].value("prev_kv").toObject(), "value"), QStringLiteral("v2"));

        // Live changes follow the replay.
        const qint64 live = put("/cs/h/k", "v3");
        QTRY_COMPARE_WITH_TIMEOUT(run->count("put"), 3, scaledMs(15000));
        QCOMPARE(integer(run->event("put", 2), "mod_revision"), live);

        run->signal(SIGINT);
        QCOMPARE(run->waitForExit(), 0);
        QCOMPARE(text(run->event("closed"), "reason"), QStringLiteral("SIGINT"));
        QCOMPARE(integer(run->event("closed"), "resume_revision"), live + 1);
    }

    // etcdctl's ETCDCTL_WATCH_KEY and ETCDCTL_WATCH_RANGE_END stand for KEY and RANGE_END. With
    // KEY given as well, or a range end without a key, the watch is refused before it starts.
    void watchTakesItsRangeFromEtcdctlsVariables()
    {
        const QList<std::pair<QString, QString>> range{{"ETCDCTL_WATCH_KEY", "/cs/env/a"},
                                                        {"ETCDCTL_WATCH_RANGE_END", "/cs/env/c"}};
        Qetcd run(m_cluster.clientUrl(0), {"watch"}, range);
        QTRY_VERIFY_WITH_TIMEOUT(run.has("established"), scaledMs(15000));
        QCOMPARE(text(run.event("established"), "key"), QStringLiteral("/cs/env/a"));
        QCOMPARE(text(run.event("established"), "range_end"), QStringLiteral("/cs/env/c"));
        QVERIFY(put("/cs/env/b", "inside") > 0);
        QVERIFY(put("/cs/env/c", "the end, outside") > 0);
        QVERIFY(put("/cs/env/a", "inside too") > 0);
        QTRY_COMPARE_WITH_TIMEOUT(run.count("put"), 2, scaledMs(15000));
        QCOMPARE(text(run.event("put", 0), "key"), QStringLiteral("/cs/env/b"));
        QCOMPARE(text(run.event("put", 1), "key"), QStringLiteral("/cs/env/a"));
        run.signal(SIGINT);
        QCOMPARE(run.waitForExit(), 0);

        Qetcd both(m_cluster.clientUrl(0), {"watch", "/cs/env/a"}, range);
        QCOMPARE(both.waitForExit(), 128);
        QVERIFY2(isOneLine(both.standardError()) && both.standardError().contains("ETCDCTL_WATCH_KEY is set"),
                 both.standardError().constData());
        Qetcd endOnly(m_cluster.clientUrl(0), {"watch"}, {{"ETCDCTL_WATCH_RANGE_END", "/cs/env/c"}});
        QCOMPARE(endOnly.waitForExit(), 128);
        QVERIFY2(endOnly.standardError().contains("ETCDCTL_WATCH_KEY is empty"), endOnly.standardError().constData());
    }

    void watchHoldExitsByItself()
    {
        QElapsedTimer timer;
        timer.start();
        auto run = qetcd({"watch", "/cs/hold", "--hold", "1s"});
        QVERIFY(run->waitForStarted());
        QCOMPARE(run->waitForExit(), 0);
        QVERIFY2(timer.elapsed() >= 1000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(run->names(), (QStringList{"established", "closed"}));
        QCOMPARE(text(run->event("closed"), "reason"), QStringLiteral("hold"));
        const qint64 held = integer(run->event("closed"), "mono_ms") - integer(run->event("established"), "mono_ms");
        QVERIFY2(held >= 1000, qPrintable(QString::number(held)));
        QVERIFY(run->standardError().isEmpty());
    }

    // The watch's connection is reset under it: it reports the outage and its recovery, and
    // delivers the change made during the outage after it, once.
    void watchReportsRecoveryAcrossAReset()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Qetcd run(proxy.url(), {"watch", "/cs/recovery"});
        QTRY_VERIFY2_WITH_TIMEOUT(run.has("established"), run.transcript().constData(), scaledMs(15000));

        proxy.setMode(FaultProxy::Mode::Reset);
        QTRY_VERIFY2_WITH_TIMEOUT(run.has("watchRecovery"), run.transcript().constData(), scaledMs(15000));
        QCOMPARE(text(run.event("watchRecovery"), "kind"), QStringLiteral("Suspended"));
        const qint64 during = put("/cs/recovery", "during");
        QVERIFY(during > 0);
        proxy.setMode(FaultProxy::Mode::Pass);
        QTRY_VERIFY2_WITH_TIMEOUT(run.has("put"), run.transcript().constData(), scaledMs(20000));
        // Suspended (once per failed attempt while the proxy resets), then one Resubscribed,
        // then the change.
        const QList<QJsonObject> events = run.events();
        QStringList after;
        qsizetype resubscribed = -1;
        for (qsizetype i = 0; i < events.size(); ++i) {
            const QString name = text(events[i], "event");
            if (name == "watchRecovery" && resubscribed < 0) {
                if (text(events[i], "kind") == "Resubscribed")
                    resubscribed = i;
                else
                    QCOMPARE(text(events[i], "kind"), QStringLiteral("Suspended"));
            } else if (resubscribed >= 0 && name != "connectionState") {
                after.append(name);
            }
        }
        QVERIFY2(resubscribed > 0, run.transcript().constData());
        QVERIFY(integer(events[resubscribed], "resume_revision") <= during);
        QCOMPARE(after, QStringList{"put"});
        QCOMPARE(integer(run.event("put"), "mod_revision"), during);

        run.terminate();
        QCOMPARE(run.waitForExit(), 0);
        QCOMPARE(run.count("put"), 1);
        QCOMPARE(text(run.event("closed"), "reason"), QStringLiteral("SIGTERM"));
    }

    void watchUnreachableEndpointFails()
    {
        Qetcd run(QStringLiteral("http://127.0.0.1:1"), {"--command-timeout", "1s", "watch", "k"});
        QCOMPARE(run.waitForExit(), 2);
        QVERIFY2(run.standardOutput().isEmpty(), run.transcript().constData());
        const QByteArray err = run.standardError();
        QVERIFY2(isOneLine(err) && err.contains("--command-timeout"), err.constData());
    }

    void leaseKeepHoldsTheKeyAndRevokesOnSigint()
    {
        auto run = qetcd({"lease", "keep", "/cs/lk/a", "hello", "--ttl", "5"});
        QTRY_VERIFY_WITH_TIMEOUT(run->has("established"), scaledMs(15000));
        const QJsonObject established = run->event("established");
        QCOMPARE(text(established, "key"), QStringLiteral("/cs/lk/a"));
        QCOMPARE(text(established, "value"), QStringLiteral("hello"));
        QCOMPARE(integer(established, "ttl"), 5);
        const QString leaseHex = text(established, "lease_id");
        QCOMPARE(leaseHex.size(), 16);
        bool ok = false;
        const qint64 leaseId = leaseHex.toLongLong(&ok, 16);
        QVERIFY(ok && leaseId > 0);

        const KeyValue kv = read("/cs/lk/a");
        QCOMPARE(kv.value, QByteArray("hello"));
        QCOMPARE(kv.lease, leaseId);

        run->signal(SIGINT);
        QCOMPARE(run->waitForExit(), 0);
        // Gone at once, not after the TTL.
        QVERIFY(read("/cs/lk/a").key.isEmpty());
        const QFuture<LeaseTimeToLiveResult> ttl = m_client->leaseTimeToLive(leaseId);
        QVERIFY(awaitFuture(ttl));
        QVERIFY2(!ttl.result().status || ttl.result().ttl == -1, qPrintable(ttl.result().status.toString()));

        QCOMPARE(run->names(), (QStringList{"established", "closed"}));
        const QJsonObject closed = run->event("closed");
        QCOMPARE(text(closed, "reason"), QStringLiteral("SIGINT"));
        QCOMPARE(text(closed, "lease_id"), leaseHex);
        QCOMPARE(closed.value("revoked").toBool(), true);
        QVERIFY2(followsTheConvention(*run), run->transcript().constData());
        QVERIFY2(run->standardError().isEmpty(), run->standardError().constData());
    }

    // etcdctl's lease keep-alive on a lease granted elsewhere: renewed at once and every third of
    // its TTL, each renewal a line, until the lease is revoked out of band (etcdctl's last line,
    // exit 0); another one stopped by SIGTERM (exit 0) without touching its lease.
    void leaseKeepAliveRenewsUntilTheLeaseEnds()
    {
        const QFuture<LeaseGrantResult> granted = m_client->leaseGrant(3);
        QVERIFY(awaitFuture(granted) && granted.result().status);
        const qint64 leaseId = granted.result().id;
        const QString hex = QString::number(leaseId, 16).rightJustified(16, QLatin1Char('0'));
        auto run = std::make_unique<Qetcd>(m_cluster.clientUrl(0), QStringList{"lease", "keep-alive", hex},
                                           QList<std::pair<QString, QString>>{}, Printed::JsonAndPlainLines);
        const QByteArray renewal = "lease " + hex.toUtf8() + " keepalived with TTL(3)";
        // Three renewals take at least two seconds: past most of the 3 s the lease had at first.
        QTRY_VERIFY_WITH_TIMEOUT(run->rawLines().count(renewal) >= 3, scaledMs(15000));
        const QFuture<LeaseTimeToLiveResult> alive = m_client->leaseTimeToLive(leaseId);
        QVERIFY(awaitFuture(alive) && alive.result().ttl > 0);
        const QFuture<Result> revoked = m_client->leaseRevoke(leaseId);
        QVERIFY(awaitFuture(revoked) && revoked.result().status);
        QCOMPARE(run->waitForExit(scaledMs(15000)), 0);
        QCOMPARE(run->rawLines().constLast(), "lease " + hex.toUtf8() + " expired or revoked.");
        QVERIFY2(run->rawLines().count(renewal) == run->rawLines().size() - 1, run->transcript().constData());

        const QFuture<LeaseGrantResult> another = m_client->leaseGrant(30);
        QVERIFY(awaitFuture(another) && another.result().status);
        const QString anotherHex = QString::number(another.result().id, 16);
        auto stopped = std::make_unique<Qetcd>(m_cluster.clientUrl(0), QStringList{"lease", "keep-alive", anotherHex, "--json"});
        QTRY_VERIFY_WITH_TIMEOUT(stopped->rawLines().size() >= 1, scaledMs(15000));
        QCOMPARE(QJsonDocument::fromJson(stopped->rawLines().constFirst()).object().value("ttl").toInteger(), 30);
        stopped->terminate();
        QCOMPARE(stopped->waitForExit(), 0);
        const QFuture<LeaseTimeToLiveResult> kept = m_client->leaseTimeToLive(another.result().id);
        QVERIFY(awaitFuture(kept) && kept.result().ttl > 0);
    }

    void leaseKeepAliveIsRefusedUnderReadOnly()
    {
        const QFuture<LeaseGrantResult> granted = m_client->leaseGrant(30);
        QVERIFY(awaitFuture(granted) && granted.result().status);
        auto run = qetcd({"--read-only", "lease", "keep-alive", QString::number(granted.result().id, 16), "--once"});
        QCOMPARE(run->waitForExit(), 1);
        QVERIFY2(isOneLine(run->standardError()) && run->standardError().contains("read-only"), run->standardError().constData());
    }

    // make-mirror copies a prefix to another cluster as it was (more keys than one transaction
    // takes), under another prefix there, then applies each change after it; nothing outside
    // the prefix goes.
    void makeMirrorCopiesThenFollows()
    {
        EtcdCluster other;
        QVERIFY2(other.start(), qPrintable(other.errorString()));
        Client there(ClientOptions::fromEndpoints(other.clientUrls()));
        const auto read = [&there](const QByteArray &key, KeyRange range = KeyRange::single()) {
            RangeOptions options;
            options.range = range;
            const QFuture<RangeResult> future = there.get(key, options);
            return awaitFuture(future) && future.result().status ? future.result().kvs : QList<KeyValue>{{"unread", {}}};
        };
        for (int i = 0; i < 130; ++i)
            QVERIFY(put("/cs/mm/k" + QByteArray::number(i), "v" + QByteArray::number(i)) > 0);
        QVERIFY(put("/cs/outside", "x") > 0);
        auto run = qetcd({"make-mirror", other.clientUrl(0), "--prefix", "/cs/mm/", "--dest-prefix", "/copy/"});
        QTRY_VERIFY_WITH_TIMEOUT(run->has("synced"), scaledMs(15000));
        QCOMPARE(integer(run->event("synced"), "keys"), 130);
        QCOMPARE(read("/copy/", KeyRange::prefix()).size(), 130);
        QCOMPARE(read("/copy/k7").value(0).value, QByteArray("v7"));
        QVERIFY(read("/cs/", KeyRange::prefix()).isEmpty());

        QVERIFY(put("/cs/mm/new", "n") > 0);
        QVERIFY(remove("/cs/mm/k0") > 0);
        QTRY_COMPARE_WITH_TIMEOUT(read("/copy/new").value(0).value, QByteArray("n"), scaledMs(15000));
        QTRY_VERIFY_WITH_TIMEOUT(read("/copy/k0").isEmpty(), scaledMs(15000));
        run->signal(SIGTERM);
        QCOMPARE(run->waitForExit(), 0);
        const QJsonObject closed = run->event("closed");
        QCOMPARE(text(closed, "reason"), QStringLiteral("SIGTERM"));
        QCOMPARE(integer(closed, "keys"), 132);
        QVERIFY2(followsTheConvention(*run), run->transcript().constData());
    }

    // A destination with auth on: make-mirror writes as --dest-user, which may write only there;
    // a wrong password ends it before anything is written, and no password is ever printed.
    void makeMirrorWritesAsTheDestinationsUser()
    {
        EtcdCluster other;
        QVERIFY2(other.start(), qPrintable(other.errorString()));
        const QString authFailed = enableAuth(other, "mirror", "mirrorpw", "/copy/");
        QVERIFY2(authFailed.isEmpty(), qPrintable(authFailed));
        ClientOptions asRoot = ClientOptions::fromEndpoints(other.clientUrls());
        asRoot.user = QStringLiteral("root");
        asRoot.password = QStringLiteral("rootpw");
        Client there(asRoot);
        const auto copies = [&there] {
            RangeOptions options;
            options.range = KeyRange::prefix();
            const QFuture<RangeResult> future = there.get("/copy/", options);
            return awaitFuture(future) && future.result().status ? future.result().kvs : QList<KeyValue>{{"unread", {}}};
        };
        QVERIFY(put("/cs/ma/a", "1") > 0);
        QVERIFY(put("/cs/ma/b", "2") > 0);

        auto wrong = qetcd({"make-mirror", other.clientUrl(0), "--prefix", "/cs/ma/", "--dest-prefix", "/copy/",
                            "--dest-user", "mirror:not-it"});
        QCOMPARE(wrong->waitForExit(), 3);
        QVERIFY2(wrong->standardError().contains("authentication failed"), wrong->transcript().constData());
        QVERIFY(!wrong->transcript().contains("not-it"));
        QVERIFY(copies().isEmpty());

        auto run = qetcd({"make-mirror", other.clientUrl(0), "--prefix", "/cs/ma/", "--dest-prefix", "/copy/",
                          "--dest-user", "mirror", "--dest-password", "mirrorpw"});
        QTRY_VERIFY_WITH_TIMEOUT(run->has("synced"), scaledMs(15000));
        QCOMPARE(copies().size(), 2);
        QVERIFY(put("/cs/ma/c", "3") > 0);
        QTRY_COMPARE_WITH_TIMEOUT(copies().size(), 3, scaledMs(15000));
        run->signal(SIGTERM);
        QCOMPARE(run->waitForExit(), 0);
        QVERIFY(!run->transcript().contains("mirrorpw"));
        QVERIFY2(followsTheConvention(*run), run->transcript().constData());
    }

    void makeMirrorRefusesWhatItCannotDo()
    {
        // It writes to the destination: refused under --read-only before connecting anywhere.
        auto refused = qetcd({"--read-only", "make-mirror", "127.0.0.1:9"});
        QCOMPARE(refused->waitForExit(), 1);
        QVERIFY2(isOneLine(refused->standardError()) && refused->standardError().contains("read-only"),
                 refused->standardError().constData());
        // Onto its own cluster under its own prefix, it would copy its copies forever.
        auto loop = qetcd({"make-mirror", m_cluster.clientUrl(0), "--prefix", "/cs/loop/", "--dest-prefix", "/cs/loop/copy/"});
        QCOMPARE(loop->waitForExit(), 128);
        QVERIFY2(loop->standardError().contains("copy its own writes forever"), loop->standardError().constData());
        auto both = qetcd({"make-mirror", "127.0.0.1:9", "--dest-prefix", "/a/", "--no-dest-prefix"});
        QCOMPARE(both->waitForExit(), 128);
        QVERIFY2(both->standardError().contains("one of --dest-prefix and --no-dest-prefix"), both->standardError().constData());
        // DESTINATION's credentials are read as the global ones are, before anything is sent.
        for (const auto &[given, told] :
             {std::pair{QStringList{"--dest-password", "pw"}, QByteArray("a password is given without a user")},
              std::pair{QStringList{"--dest-user", "u:pw", "--dest-password", "pw"}, QByteArray("give the password once")},
              std::pair{QStringList{"--dest-user", "u"}, QByteArray("needs a password")}}) {
            auto credentials = qetcd(QStringList{"make-mirror", "127.0.0.1:9"} + given);
            QCOMPARE(credentials->waitForExit(), 128);
            QVERIFY2(isOneLine(credentials->standardError()) && credentials->standardError().contains(told),
                     credentials->standardError().constData());
        }
        auto exposed = qetcd({"make-mirror", "http://192.0.2.1:2379", "--dest-user", "u", "--dest-password", "pw"});
        QCOMPARE(exposed->waitForExit(), 128);
        QVERIFY2(exposed->standardError().contains("would travel unencrypted to http://192.0.2.1:2379"),
                 exposed->standardError().constData());
    }

    void leaseKeepOnAnExistingKeyFails()
    {
        QVERIFY(put("/cs/lk/taken", "theirs") > 0);
        auto run = qetcd({"lease", "keep", "/cs/lk/taken", "mine", "--ttl", "5"});
        QCOMPARE(run->waitForExit(), 1);
        const QByteArray err = run->standardError();
        QVERIFY2(isOneLine(err) && err.contains("/cs/lk/taken") && err.contains("belongs to"), err.constData());
        QVERIFY2(run->names().isEmpty(), run->transcript().constData());
        const KeyValue kv = read("/cs/lk/taken");
        QCOMPARE(kv.value, QByteArray("theirs"));
        QCOMPARE(kv.lease, 0);
    }

    void leaseKeepHealsAfterAnOutOfBandRevoke()
    {
        auto run = qetcd({"lease", "keep", "/cs/lk/heal", "again", "--ttl", "5"});
        QTRY_VERIFY_WITH_TIMEOUT(run->has("established"), scaledMs(15000));
        const QString first = text(run->event("established"), "lease_id");

        int exitCode = -1;
        QByteArray err;
        m_cluster.etcdctl({"lease", "revoke", first}, &exitCode, &err);
        QVERIFY2(exitCode == 0, err.constData());

        // Renewals run every TTL/3; the next one finds the lease gone.
        QTRY_VERIFY_WITH_TIMEOUT(run->has("connectionState", 1), scaledMs(20000));
        QStringList sequence;
        for (const QJsonObject &event : run->events()) {
            if (text(event, "event") == QLatin1String("leaseEvent"))
                sequence.append(QStringLiteral("lease:") + text(event, "kind"));
            else if (text(event, "event") == QLatin1String("connectionState"))
                sequence.append(QStringLiteral("state:%1<-%2").arg(text(event, "state"), text(event, "previous")));
        }
        QCOMPARE(sequence, (QStringList{"lease:Expired", "state:Lost<-Connected", "lease:Restored",
                                        "state:Reconnected<-Lost"}));
        const QJsonObject expired = run->event("leaseEvent", 0);
        QCOMPARE(text(expired, "lease_id"), first);
        const QJsonObject restored = run->event("leaseEvent", 1);
        QCOMPARE(text(restored, "lease_id"), first);
        const QString second = text(restored, "new_lease_id");
        QVERIFY(!second.isEmpty() && second != first);

        const KeyValue kv = read("/cs/lk/heal");
        QCOMPARE(kv.value, QByteArray("again"));
        QCOMPARE(kv.lease, second.toLongLong(nullptr, 16));

        run->terminate();
        QCOMPARE(run->waitForExit(), 0);
        QVERIFY(read("/cs/lk/heal").key.isEmpty());
        const QJsonObject closed = run->event("closed");
        QCOMPARE(text(closed, "reason"), QStringLiteral("SIGTERM"));
        QCOMPARE(text(closed, "lease_id"), second);
        QCOMPARE(closed.value("revoked").toBool(), true);
        QVERIFY2(followsTheConvention(*run), run->transcript().constData());
    }

    void leaseKeepHoldExitsByItself()
    {
        auto run = qetcd({"lease", "keep", "/cs/lk/hold", "v", "--ttl", "1m", "--hold", "500ms"});
        QCOMPARE(run->waitForExit(), 0);
        QCOMPARE(run->names(), (QStringList{"established", "closed"}));
        QCOMPARE(integer(run->event("established"), "ttl"), 60);
        QCOMPARE(text(run->event("closed"), "reason"), QStringLiteral("hold"));
        QVERIFY(read("/cs/lk/hold").key.isEmpty());
    }

    void help_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QStringList>("mentions");
        const QStringList global{"--endpoints", "--command-timeout", "--cacert", "--key"};
        QTest::newRow("overview") << QStringList{"--help"} << QStringList{"watch", "lease"};
        QTest::newRow("watch") << QStringList{"watch", "--help"}
                               << QStringList{"--prefix", "--rev", "--prev-kv", "--hold", "KEY", "RANGE_END",
                                              "established", "put", "delete", "watchRecovery", "closed", "mono_ms"}
                + global;
        QTest::newRow("lease") << QStringList{"lease", "--help"}
                               << QStringList{"keep", "--ttl", "--hold", "ACTION", "KEY", "VALUE", "established",
                                              "leaseEvent", "connectionState", "closed", "lease_id",
                                              "new_lease_id", "removedByOther"}
                + global;
        QTest::newRow("lease keep") << QStringList{"lease", "keep", "-h"} << QStringList{"keep", "--ttl"};
    }

    void help()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QStringList, mentions);
        Qetcd run(m_cluster.clientUrl(0), arguments);
        QCOMPARE(run.waitForExit(), 0);
        QVERIFY(run.standardError().isEmpty());
        const QByteArray out = run.standardOutput();
        for (const QString &mention : mentions)
            QVERIFY2(out.contains(mention.toUtf8()), qPrintable(mention + " missing in:\n" + out));
    }

    void usageErrorsExit128_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QByteArray>("mentions");
        QTest::newRow("unknown action") << QStringList{"lease", "grab", "k", "v"} << QByteArray("grab");
        QTest::newRow("lease without key") << QStringList{"lease", "keep"} << QByteArray("keep takes KEY and VALUE");
        QTest::newRow("bad ttl") << QStringList{"lease", "keep", "k", "v", "--ttl", "0"} << QByteArray("--ttl");
        QTest::newRow("bad hold") << QStringList{"watch", "k", "--hold", "5x"} << QByteArray("--hold");
        QTest::newRow("bad rev") << QStringList{"watch", "k", "--rev", "-3"} << QByteArray("--rev");
        QTest::newRow("prefix and range end") << QStringList{"watch", "a", "b", "--prefix"} << QByteArray("--prefix");
        QTest::newRow("watch without key") << QStringList{"watch"} << QByteArray("KEY");
    }

    void usageErrorsExit128()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QByteArray, mentions);
        Qetcd run(m_cluster.clientUrl(0), arguments);
        QCOMPARE(run.waitForExit(), 128);
        const QByteArray err = run.standardError();
        QVERIFY2(isOneLine(err) && err.contains(mentions), err.constData());
        QVERIFY(run.standardOutput().isEmpty());
    }
};

QTEST_GUILESS_MAIN(tst_CliStreams)
#include "tst_cli_streams.moc"
