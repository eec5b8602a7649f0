// SPDX-License-Identifier: Apache-2.0
// RevisionClock against a real etcd member: it finds the cluster's file by the cluster's ID,
// samples the revision into it, says between which two times a write's revision came, reads
// the samples an earlier run kept, and names a file it cannot read rather than pass over it.
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include "revisionclock.h"

#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_RevisionClock : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_data;
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

private Q_SLOTS:
    void initTestCase()
    {
        // The clock's files go to the user's data folder: this run's own.
        qputenv("XDG_DATA_HOME", m_data.path().toLocal8Bit());
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void cleanupTestCase() { m_client.reset(); }

    void samplesAndSaysWhen()
    {
        RevisionClock clock;
        QSignalSpy samples(&clock, &RevisionClock::samplesChanged);
        clock.setClient(m_client.get());
        QTRY_VERIFY_WITH_TIMEOUT(!clock.path().isEmpty(), scaledMs(10000));
        QVERIFY2(clock.path().startsWith(m_data.path() + QLatin1String("/qetcd/revisions/")), qPrintable(clock.path()));
        QVERIFY(clock.path().endsWith(QLatin1String(".map")));
        QTRY_VERIFY_WITH_TIMEOUT(clock.sampleCount() >= 1, scaledMs(10000));

        const qint64 before = QDateTime::currentMSecsSinceEpoch();
        PutResult put;
        QETCD_AWAIT(m_client->put("/clock/k", "v"), put);
        QVERIFY(put.status);
        const qint64 revision = put.header.revision;
        // The next sample has reached it: it came between the one before and that one.
        QTRY_VERIFY_WITH_TIMEOUT(clock.bounds(revision).value("byMs").toLongLong() > 0, scaledMs(10000));
        const QVariantMap bounds = clock.bounds(revision);
        QVERIFY(bounds.value("afterMs").toLongLong() > 0);
        QVERIFY(bounds.value("afterMs").toLongLong() <= bounds.value("byMs").toLongLong());
        QVERIFY(bounds.value("byMs").toLongLong() >= before);
        QVERIFY2(clock.when(revision).startsWith(QLatin1String("between ")), qPrintable(clock.when(revision)));
        QCOMPARE(clock.when(revision + 1000), QStringLiteral("after %1").arg(QDateTime::fromMSecsSinceEpoch(
                     clock.bounds(revision + 1000).value("afterMs").toLongLong()).toString(QStringLiteral("HH:mm:ss"))));
        QVERIFY(clock.errorString().isEmpty());
        QVERIFY(QFile::exists(clock.path()));
        const QString path = clock.path();

        // A second run on the cluster reads what the first kept before its own first sample.
        clock.setActive(false);
        RevisionClock again;
        again.setClient(m_client.get());
        QTRY_COMPARE_WITH_TIMEOUT(again.path(), path, scaledMs(10000));
        QVERIFY(again.sampleCount() >= 2);
        QVERIFY(!again.when(revision).isEmpty());
    }

    void aFileItCannotReadIsNamed()
    {
        RevisionClock probe;
        probe.setClient(m_client.get());
        QTRY_VERIFY_WITH_TIMEOUT(!probe.path().isEmpty(), scaledMs(10000));
        probe.setActive(false);
        const QString path = probe.path();
        QFile broken(path);
        QVERIFY(broken.open(QIODevice::Append));
        broken.write("yesterday at noon\n");
        broken.close();

        RevisionClock clock;
        clock.setClient(m_client.get());
        QTRY_VERIFY_WITH_TIMEOUT(!clock.errorString().isEmpty(), scaledMs(10000));
        QVERIFY2(clock.errorString().contains(path), qPrintable(clock.errorString()));
        QVERIFY2(clock.errorString().contains(QLatin1String("line ")), qPrintable(clock.errorString()));
    }
};

QTEST_GUILESS_MAIN(tst_RevisionClock)
#include "tst_revisionclock.moc"
