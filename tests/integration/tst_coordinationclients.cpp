// SPDX-License-Identifier: Apache-2.0
// The recogniser against what the clients people run in production write, driven as real
// processes against a real etcd: node's etcd3 (npm, pinned by tests/clients/node's lockfile and
// installed into the build tree) and Debian's python3-etcd3. The drivers in tests/clients take a
// lock or campaign, print a JSON line when they hold or lead, and give up on SIGTERM.
// A missing client fails the test: it is part of what `scripts/setup` installs.
#include "../common/awaitfuture.h"
#include "../common/qetcdprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/coordinationrecogniser.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QStandardPaths>
#include <QtCore/QUrl>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;
using Kind = CoordinationObject::Kind;

namespace {
constexpr auto pinnedNodeEtcd3 = "1.1.2";
// Debian's, not a pyenv's or a virtualenv's, whose python would not see the Debian package.
constexpr auto debianPython = "/usr/bin/python3";

qint64 leaseOf(const QJsonObject &event)
{
    return event.value(QLatin1String("lease")).toString().toLongLong();
}

QString leaseHex(qint64 lease)
{
    return QString::number(quint64(lease), 16).rightJustified(16, QLatin1Char('0'));
}
} // namespace

class tst_CoordinationClients : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    // Why node's etcd3 cannot run here, or empty.
    static QString nodeClientMissing()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty())
            return QStringLiteral("node is not installed (scripts/setup installs nodejs and npm)");
        QFile manifest(QStringLiteral(QETCD_NODE_MODULES "/etcd3/package.json"));
        if (!manifest.open(QIODevice::ReadOnly))
            return QStringLiteral("node's etcd3 is not installed at " QETCD_NODE_MODULES
                                  " (the build runs npm ci for tests/clients/node; is npm installed?)");
        const QString version = QJsonDocument::fromJson(manifest.readAll()).object().value("version").toString();
        if (version != QLatin1String(pinnedNodeEtcd3))
            return QStringLiteral("node's etcd3 is %1, not the pinned %2").arg(version, QLatin1String(pinnedNodeEtcd3));
        return {};
    }
    static QString pythonClientMissing()
    {
        ToolProcess probe(QString::fromLatin1(debianPython), {"-c", "import etcd3"}, {}, Printed::JsonAndPlainLines);
        if (probe.waitForExit() != 0)
            return QStringLiteral("%1 cannot import etcd3 (scripts/setup installs python3-etcd3): %2")
                .arg(QLatin1String(debianPython), QString::fromUtf8(probe.standardError()));
        return {};
    }

    std::unique_ptr<ToolProcess> node(const QStringList &arguments)
    {
        const QString endpoint = QUrl(m_cluster.clientUrl(0)).authority();
        return std::make_unique<ToolProcess>(QStringLiteral("node"),
                                             QStringList{QStringLiteral(QETCD_CLIENTS_DIR "/node/hold.js"), endpoint}
                                                 + arguments,
                                             QList<std::pair<QString, QString>>{{"NODE_PATH", QETCD_NODE_MODULES}});
    }
    std::unique_ptr<ToolProcess> python(const QString &lockName)
    {
        const QUrl url(m_cluster.clientUrl(0));
        return std::make_unique<ToolProcess>(QString::fromLatin1(debianPython),
                                             QStringList{QStringLiteral(QETCD_CLIENTS_DIR "/python/hold.py"), url.host(),
                                                         QString::number(url.port()), lockName});
    }
    std::unique_ptr<Qetcd> inspect(const QString &prefix)
    {
        return std::make_unique<Qetcd>(m_cluster.clientUrl(0), QStringList{"inspect", prefix, "--json"});
    }

    QList<CoordinationObject> recognise(const QByteArray &prefix)
    {
        return CoordinationRecogniser::recognise(keysWithPrefix(m_client.get(), prefix));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void cleanupTestCase() { m_client.reset(); }

    // A leased key with an empty value at a key the caller picks: a lock only under locks/.
    void nodeEtcd3Lock()
    {
        const QString missing = nodeClientMissing();
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
        auto holder = node({"lock", "/nc/locks/job"});
        QTRY_VERIFY2_WITH_TIMEOUT(holder->has("holding"), holder->transcript().constData(), scaledMs(15000));
        const qint64 lease = leaseOf(holder->event("holding"));
        QVERIFY(lease != 0);
        // The same client's lock where the path says nothing: a leased key, no lock.
        auto elsewhere = node({"lock", "/nc/plain/lk"});
        QTRY_VERIFY2_WITH_TIMEOUT(elsewhere->has("holding"), elsewhere->transcript().constData(), scaledMs(15000));
        // etcd3's Lock does not wait: a second one fails at once, and writes nothing.
        auto second = node({"lock", "/nc/locks/job"});
        QCOMPARE(second->waitForExit(), 1);
        QVERIFY2(second->standardError().contains("Failed to acquire a lock on /nc/locks/job"),
                 second->standardError().constData());

        const QList<CoordinationObject> objects = recognise("/nc/");
        QCOMPARE(objects.size(), 1);
        const CoordinationObject &lock = objects.first();
        QCOMPARE(lock.kind, Kind::Lock);
        QCOMPARE(lock.path, QByteArray("/nc/locks/job"));
        QCOMPARE(lock.rule, QStringLiteral("leased key under locks/ (node etcd3 lock)"));
        QCOMPARE(lock.holders.size(), 1);
        QCOMPARE(lock.holders.first().lease, lease);
        QCOMPARE(lock.holders.first().value, QByteArray());
        QVERIFY(lock.waiters.isEmpty());

        auto listed = inspect(QStringLiteral("/nc/"));
        QCOMPARE(listed->waitForExit(), 0);
        const QList<QJsonObject> lines = listed->events();
        QCOMPARE(lines.size(), 1);
        QCOMPARE(lines[0].value("kind").toString(), QStringLiteral("lock"));
        QCOMPARE(lines[0].value("name").toString(), QStringLiteral("/nc/locks/job"));
        QCOMPARE(lines[0].value("rule").toString(), QStringLiteral("leased key under locks/ (node etcd3 lock)"));
        const QJsonObject held = lines[0].value("holders").toArray().at(0).toObject();
        QCOMPARE(held.value("key").toString(), QStringLiteral("/nc/locks/job"));
        QCOMPARE(held.value("lease_id").toString(), leaseHex(lease));
        QVERIFY(!held.contains("value"));  // etcd3 writes an empty value

        // Released: the lease is revoked, and the lock goes.
        holder->terminate();
        QCOMPARE(holder->waitForExit(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(recognise("/nc/locks/").isEmpty(), scaledMs(15000));
        elsewhere->terminate();
        QCOMPARE(elsewhere->waitForExit(), 0);
    }

    // election/<name>/<lease id in decimal>, the proclamation as the value.
    void nodeEtcd3ElectionWithTwoCandidates()
    {
        const QString missing = nodeClientMissing();
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
        auto leader = node({"elect", "qetcd-test", "leaderA"});
        QTRY_VERIFY2_WITH_TIMEOUT(leader->has("leading"), leader->transcript().constData(), scaledMs(15000));
        auto candidate = node({"elect", "qetcd-test", "candB"});
        QTRY_VERIFY2_WITH_TIMEOUT(candidate->has("campaigning"), candidate->transcript().constData(), scaledMs(15000));
        const QString leaderKey = leader->event("leading").value("key").toString();
        const QString candidateKey = candidate->event("campaigning").value("key").toString();
        QVERIFY2(leaderKey.startsWith(QLatin1String("election/qetcd-test/")), qPrintable(leaderKey));

        const QList<CoordinationObject> objects = recognise("election/qetcd-test/");
        QCOMPARE(objects.size(), 1);
        const CoordinationObject &election = objects.first();
        QCOMPARE(election.kind, Kind::Election);
        QCOMPARE(election.path, QByteArray("election/qetcd-test"));
        QCOMPARE(election.rule, QStringLiteral("node etcd3 election"));
        QCOMPARE(election.holders.size(), 1);
        QCOMPARE(QString::fromUtf8(election.holders.first().key), leaderKey);
        QCOMPARE(election.holders.first().value, QByteArray("leaderA"));
        // The key is named after its lease, in decimal.
        QCOMPARE(leaderKey.section(QLatin1Char('/'), -1), QString::number(election.holders.first().lease));
        QCOMPARE(election.waiters.size(), 1);
        QCOMPARE(QString::fromUtf8(election.waiters.first().key), candidateKey);
        QCOMPARE(election.waiters.first().value, QByteArray("candB"));

        auto listed = inspect(QStringLiteral("election/qetcd-test/"));
        QCOMPARE(listed->waitForExit(), 0);
        const QList<QJsonObject> lines = listed->events();
        QCOMPARE(lines.size(), 1);
        QCOMPARE(lines[0].value("kind").toString(), QStringLiteral("election"));
        QCOMPARE(lines[0].value("name").toString(), QStringLiteral("election/qetcd-test"));
        QCOMPARE(lines[0].value("rule").toString(), QStringLiteral("node etcd3 election"));
        QCOMPARE(lines[0].value("proclamation").toString(), QStringLiteral("leaderA"));
        QCOMPARE(lines[0].value("leader").toObject().value("key").toString(), leaderKey);
        const QJsonArray candidates = lines[0].value("candidates").toArray();
        QCOMPARE(candidates.size(), 1);
        QCOMPARE(candidates[0].toObject().value("value").toString(), QStringLiteral("candB"));

        // The leader resigns: the candidate leads, and the card follows.
        leader->terminate();
        QCOMPARE(leader->waitForExit(), 0);
        QTRY_VERIFY2_WITH_TIMEOUT(candidate->has("leading"), candidate->transcript().constData(), scaledMs(15000));
        QList<CoordinationObject> after;
        QTRY_VERIFY_WITH_TIMEOUT((after = recognise("election/qetcd-test/")).size() == 1
                                     && after.first().holders.size() == 1
                                     && after.first().holders.first().value == "candB",
                                 scaledMs(15000));
        QVERIFY(after.first().waiters.isEmpty());
        candidate->terminate();
        QCOMPARE(candidate->waitForExit(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(recognise("election/qetcd-test/").isEmpty(), scaledMs(15000));
    }

    // /locks/<name>, uuid1()'s 16 bytes as the value, on a lease; a waiter writes nothing.
    void python3Etcd3LockAndAWaiter()
    {
        const QString missing = pythonClientMissing();
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
        auto holder = python(QStringLiteral("qetcd-test"));
        QTRY_VERIFY2_WITH_TIMEOUT(holder->has("holding"), holder->transcript().constData(), scaledMs(20000));
        const QJsonObject held = holder->event("holding");
        auto waiter = python(QStringLiteral("qetcd-test"));
        QTRY_VERIFY2_WITH_TIMEOUT(waiter->has("waiting"), waiter->transcript().constData(), scaledMs(20000));

        const QList<CoordinationObject> objects = recognise("/locks/qetcd-test");
        QCOMPARE(objects.size(), 1);
        const CoordinationObject &lock = objects.first();
        QCOMPARE(lock.kind, Kind::Lock);
        QCOMPARE(lock.path, QByteArray("/locks/qetcd-test"));
        QCOMPARE(lock.rule, QStringLiteral("python3-etcd3 lock"));
        QCOMPARE(lock.holders.size(), 1);
        QCOMPARE(lock.holders.first().lease, leaseOf(held));
        QCOMPARE(lock.holders.first().valueText(), held.value("uuid").toString());
        QVERIFY(lock.waiters.isEmpty());

        auto listed = inspect(QStringLiteral("/locks/qetcd-test"));
        QCOMPARE(listed->waitForExit(), 0);
        const QList<QJsonObject> lines = listed->events();
        QCOMPARE(lines.size(), 1);
        QCOMPARE(lines[0].value("kind").toString(), QStringLiteral("lock"));
        QCOMPARE(lines[0].value("rule").toString(), QStringLiteral("python3-etcd3 lock"));
        const QJsonObject holderJson = lines[0].value("holders").toArray().at(0).toObject();
        QCOMPARE(holderJson.value("value_hex").toString(), held.value("uuid").toString());
        QCOMPARE(holderJson.value("lease_id").toString(), leaseHex(leaseOf(held)));

        // Released: the waiter takes the lock, and the next holder shows.
        holder->terminate();
        QCOMPARE(holder->waitForExit(), 0);
        QTRY_VERIFY2_WITH_TIMEOUT(waiter->has("holding"), waiter->transcript().constData(), scaledMs(20000));
        const QJsonObject next = waiter->event("holding");
        QVERIFY(next.value("uuid").toString() != held.value("uuid").toString());
        const QList<CoordinationObject> after = recognise("/locks/qetcd-test");
        QCOMPARE(after.size(), 1);
        QCOMPARE(after.first().holders.size(), 1);
        QCOMPARE(after.first().holders.first().lease, leaseOf(next));
        QCOMPARE(after.first().holders.first().valueText(), next.value("uuid").toString());
        waiter->terminate();
        QCOMPARE(waiter->waitForExit(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(recognise("/locks/qetcd-test").isEmpty(), scaledMs(15000));
    }
};

QTEST_GUILESS_MAIN(tst_CoordinationClients)
#include "tst_coordinationclients.moc"
