// SPDX-License-Identifier: Apache-2.0
// SnapshotSave against real etcd: the file it saves is one etcdctl reads, its size and SHA-256
// are those reported, an existing file is kept unless overwriting was asked for, and a save that
// is cancelled, destroyed or refused leaves neither the file nor its part file behind.
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/snapshotsave.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QCryptographicHash>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_SnapshotSave : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<EtcdCluster> m_cluster;
    std::unique_ptr<Client> m_client;
    QTemporaryDir m_dir;
    static constexpr int keys = 300;

    QString path(const QString &name) const { return m_dir.filePath(name); }

    static QByteArray sha256Of(const QString &file)
    {
        QFile f(file);
        if (!f.open(QIODevice::ReadOnly))
            return {};
        QCryptographicHash hash(QCryptographicHash::Sha256);
        hash.addData(&f);
        return hash.result();
    }

    // Runs one save to its end; the result, and every progress report.
    SnapshotResult save(const QString &file, bool overwrite, QList<qint64> *progress = nullptr)
    {
        SnapshotSave saving(m_client.get());
        QSignalSpy finished(&saving, &SnapshotSave::finished);
        QSignalSpy progressed(&saving, &SnapshotSave::progressed);
        if (!saving.start(file, overwrite) || !finished.wait(scaledMs(30000))) {
            SnapshotResult none;
            none.status = Status(StatusCode::DeadlineExceeded, QStringLiteral("the save did not end"));
            return none;
        }
        if (progress) {
            for (const QList<QVariant> &report : std::as_const(progressed))
                progress->append(report.at(0).toLongLong());
        }
        return finished.first().at(0).value<SnapshotResult>();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_cluster = std::make_unique<EtcdCluster>();
        QVERIFY2(m_cluster->start(), qPrintable(m_cluster->errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster->clientUrls()));
        const QByteArray value(8 * 1024, 'v');
        for (int i = 0; i < keys; ++i)
            QVERIFY(awaitFuture(m_client->put("/snap/" + QByteArray::number(i), value)));
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_cluster.reset();
    }

    void savedFileIsOneEtcdctlReads()
    {
        const QString file = path("saved.db");
        QList<qint64> progress;
        const SnapshotResult saved = save(file, false, &progress);
        QCOMPARE(saved.status, Status());
        QCOMPARE(saved.fileName, file);
        QVERIFY(!QFile::exists(file + ".part"));
        QCOMPARE(saved.size, QFileInfo(file).size());
        QVERIFY2(saved.size > keys * 8 * 1024, qPrintable(QString::number(saved.size)));
        QCOMPARE(saved.sha256.size(), 32);
        QCOMPARE(saved.sha256, sha256Of(file));
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.last(), saved.size);
        QVERIFY(std::is_sorted(progress.cbegin(), progress.cend()));

        int exitCode = -1;
        QByteArray error;
        const QByteArray status = m_cluster->etcdctl({"snapshot", "status", file, "-w", "json"}, &exitCode, &error);
        QVERIFY2(exitCode == 0, error.constData());
        const QJsonObject read = QJsonDocument::fromJson(status).object();
        QVERIFY2(read.value("totalKey").toInt() >= keys, status.constData());
        // The database, without the SHA-256 etcd appends to it.
        QCOMPARE(read.value("totalSize").toInteger(), saved.size - 32);
    }

    void anExistingFileIsKeptUnlessOverwriting()
    {
        const QString file = path("existing.db");
        QFile existing(file);
        QVERIFY(existing.open(QIODevice::WriteOnly));
        existing.write("keep me");
        existing.close();

        const SnapshotResult refused = save(file, false);
        QCOMPARE(refused.status.code(), StatusCode::AlreadyExists);
        QVERIFY2(refused.status.message().contains(file), qPrintable(refused.status.message()));
        QVERIFY(refused.sha256.isEmpty());
        QCOMPARE(sha256Of(file), QCryptographicHash::hash("keep me", QCryptographicHash::Sha256));
        QVERIFY(!QFile::exists(file + ".part"));

        const SnapshotResult replaced = save(file, true);
        QCOMPARE(replaced.status, Status());
        QCOMPARE(sha256Of(file), replaced.sha256);
    }

    // Cancelled before a byte arrived: the writer hears the cancel before any message.
    void cancelLeavesNothing()
    {
        const QString file = path("cancelled.db");
        SnapshotSave saving(m_client.get());
        QSignalSpy finished(&saving, &SnapshotSave::finished);
        QSignalSpy running(&saving, &SnapshotSave::runningChanged);
        QVERIFY(saving.start(file));
        QVERIFY(saving.isRunning());
        saving.cancel();
        QVERIFY(finished.wait(scaledMs(30000)));
        const SnapshotResult result = finished.first().at(0).value<SnapshotResult>();
        QCOMPARE(result.status.code(), StatusCode::Cancelled);
        QVERIFY(!saving.isRunning());
        QCOMPARE(running.size(), 2);
        QVERIFY(!QFile::exists(file));
        QVERIFY(!QFile::exists(file + ".part"));
        QVERIFY(!saving.start(path("again.db")));  // one save per object
    }

    void destroyedMidwayLeavesNothing()
    {
        const QString file = path("destroyed.db");
        {
            SnapshotSave saving(m_client.get());
            QVERIFY(saving.start(file));
        }
        QVERIFY(!QFile::exists(file));
        QVERIFY(!QFile::exists(file + ".part"));
    }

    void anEndpointNotTheClientsIsRefused()
    {
        const QString file = path("nowhere.db");
        SnapshotSave saving(m_client.get());
        QSignalSpy finished(&saving, &SnapshotSave::finished);
        QVERIFY(saving.start(file, false, QStringLiteral("http://127.0.0.1:1")));
        QVERIFY(finished.wait(scaledMs(30000)));
        const Status status = finished.first().at(0).value<SnapshotResult>().status;
        QCOMPARE(status.code(), StatusCode::InvalidArgument);
        QVERIFY2(status.message().contains("is not one of this client's endpoints"), qPrintable(status.message()));
        QVERIFY(!QFile::exists(file + ".part"));
    }
};

QTEST_GUILESS_MAIN(tst_SnapshotSave)
#include "tst_snapshotsave.moc"
