// SPDX-License-Identifier: Apache-2.0
// The programs of examples/, run as their users would run them: the fixture package_examples
// (buildexamples.cmake) installed qetcd into a scratch prefix and built them there against it
// alone; here each one runs against a real etcd member and its output and its writes in etcd
// are checked. Missing etcd, or examples that were not built, fail the test.

#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedbarrier.h>
#include <QEtcd/distributedmutex.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QFileInfo>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

namespace {

QString examplePath(const QString &name)
{
    return QStringLiteral(QETCD_EXAMPLES_BUILD_DIR "/%1/%1").arg(name);
}

// One example program, its standard output and error read as one.
class Example
{
public:
    Example(const QString &name, const QStringList &arguments, const QProcessEnvironment &environment)
    {
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.setProcessEnvironment(environment);
        m_process.start(examplePath(name), arguments);
    }
    ~Example()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished();
        }
    }
    Q_DISABLE_COPY_MOVE(Example)

    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
    QString output()
    {
        m_output += QString::fromLocal8Bit(m_process.readAll());
        return m_output;
    }
    // The exit code, or -1 when it crashed, did not start or did not exit in time.
    int waitForExit(int timeoutMs = scaledMs(30000))
    {
        if (m_process.state() != QProcess::NotRunning && !m_process.waitForFinished(timeoutMs))
            return -1;
        output();
        if (m_process.error() == QProcess::FailedToStart)
            return -1;
        return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
    }

private:
    QProcess m_process;
    QString m_output;
};

// The first number after pattern's text in output, or -1.
qint64 numberAfter(const QString &output, const QString &pattern)
{
    const QRegularExpressionMatch match = QRegularExpression(pattern + QStringLiteral("\"?(\\d+)")).match(output);
    return match.hasMatch() ? match.captured(1).toLongLong() : -1;
}

} // namespace

class tst_Examples : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;
    QProcessEnvironment m_environment;

    QString endpoint() const { return m_cluster.clientUrl(0); }

    QByteArray value(const QByteArray &key)
    {
        RangeResult result;
        [&] { QETCD_AWAIT(m_client->get(key), result); }();
        return result.status && !result.kvs.isEmpty() ? result.kvs.first().value : QByteArray();
    }

    // -1 when the read failed.
    qsizetype keysUnder(const QByteArray &prefix)
    {
        const QFuture<RangeResult> read = m_client->get(prefix, {KeyRange::prefix()});
        if (!awaitFuture(read) || !read.result().status)
            return -1;
        return read.result().kvs.size();
    }

private Q_SLOTS:
    void initTestCase()
    {
        for (const QString &name : {QStringLiteral("mutex-worker"), QStringLiteral("leader-service"),
                                    QStringLiteral("barrier-job"), QStringLiteral("lock-holder")}) {
            QVERIFY2(QFileInfo(examplePath(name)).isExecutable(),
                     qPrintable(examplePath(name) + QStringLiteral(" was not built: the fixture package_examples "
                                                                   "builds it (ctest runs it first)")));
        }
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));

        // Nothing but the scratch prefix and the programs' own run paths tells them where qetcd is.
        m_environment = QProcessEnvironment::systemEnvironment();
        for (const char *variable : {"LD_LIBRARY_PATH", "QML_IMPORT_PATH", "QML2_IMPORT_PATH", "QT_PLUGIN_PATH"})
            m_environment.remove(QString::fromLatin1(variable));
    }

    // Two workers contend for the lock: each holds it in turn, and the report ends up written
    // under the later hold's fencing token, the higher one.
    void mutexWorkersTakeTurns()
    {
        Example first(QStringLiteral("mutex-worker"), {endpoint()}, m_environment);
        Example second(QStringLiteral("mutex-worker"), {endpoint()}, m_environment);
        QVERIFY2(first.waitForExit() == 0, qPrintable(first.output()));
        QVERIFY2(second.waitForExit() == 0, qPrintable(second.output()));

        const qint64 firstToken = numberAfter(first.output(), QStringLiteral("with fencing token "));
        const qint64 secondToken = numberAfter(second.output(), QStringLiteral("with fencing token "));
        QVERIFY2(firstToken > 0 && secondToken > 0 && firstToken != secondToken,
                 qPrintable(first.output() + QLatin1Char('\n') + second.output()));
        QVERIFY(first.output().contains(QLatin1String("report written")));
        for (const QByteArray line : {"1", "2", "3"})
            QCOMPARE(value("/examples/report/" + line), QByteArray::number(qMax(firstToken, secondToken)));
    }

    // Two instances of the service: each leads one term, one after the other, and the leader
    // published last is the one with the higher fencing token.
    void leaderServicesLeadInTurn()
    {
        Example alpha(QStringLiteral("leader-service"), {endpoint(), QStringLiteral("alpha")}, m_environment);
        Example beta(QStringLiteral("leader-service"), {endpoint(), QStringLiteral("beta")}, m_environment);
        QVERIFY2(alpha.waitForExit() == 0, qPrintable(alpha.output()));
        QVERIFY2(beta.waitForExit() == 0, qPrintable(beta.output()));

        const qint64 alphaToken = numberAfter(alpha.output(), QStringLiteral("\"alpha\" leads with fencing token "));
        const qint64 betaToken = numberAfter(beta.output(), QStringLiteral("\"beta\" leads with fencing token "));
        QVERIFY2(alphaToken > 0 && betaToken > 0 && alphaToken != betaToken,
                 qPrintable(alpha.output() + QLatin1Char('\n') + beta.output()));
        QCOMPARE(value("/examples/scheduler/leader"), QByteArray(alphaToken > betaToken ? "alpha" : "beta"));
        // No candidacy is left behind: each is revoked on the way out (best effort: the exit may
        // cut the revoke short) and at the latest goes when its lease expires.
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/examples/elections/scheduler/"), 0, scaledMs(10000));
    }

    // The job (built through pkg-config) waits while the gate is up, and runs once it is lifted.
    void barrierJobWaitsForTheGate()
    {
        DistributedBarrier gate(m_client.get(), "/examples/barriers/nightly");
        QVERIFY(gate.setBarrier());

        Example job(QStringLiteral("barrier-job"), {endpoint(), QStringLiteral("nightly")}, m_environment);
        QTRY_VERIFY_WITH_TIMEOUT(job.output().contains(QLatin1String("waiting at")), scaledMs(15000));
        // Time to read the gate and park on it (nothing tells when it has); it must not pass
        // meanwhile.
        QTest::qWait(scaledMs(2000));
        QVERIFY2(job.isRunning(), qPrintable(job.output()));
        QCOMPARE(value("/examples/jobs/nightly"), QByteArray());

        QVERIFY(gate.removeBarrier());
        QVERIFY2(job.waitForExit() == 0, qPrintable(job.output()));
        QVERIFY2(job.output().contains(QLatin1String("gate lifted:")) && job.output().contains(QLatin1String("Removed")),
                 qPrintable(job.output()));
        QCOMPARE(value("/examples/jobs/nightly"), QByteArray("done"));
    }

    // The QML window, offscreen, names the lock's holder (this test, by its client id and pid)
    // and, asked to, quits once it has.
    void qmlAppShowsTheHolder()
    {
        LockOptions options;
        options.clientId = QStringLiteral("examples-holder");
        options.ttlSeconds = 10;
        DistributedMutex mutex(m_client.get(), "/examples/locks/report", options);
        QCOMPARE(mutex.lock(), Status());

        QProcessEnvironment environment = m_environment;
        environment.insert(QStringLiteral("QML_IMPORT_PATH"), QStringLiteral(QETCD_EXAMPLES_QML_IMPORT_PATH));
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        environment.insert(QStringLiteral("QT_QUICK_BACKEND"), QStringLiteral("software"));
        Example app(QStringLiteral("lock-holder"), {endpoint(), QStringLiteral("--quit-when-shown")}, environment);
        QVERIFY2(app.waitForExit() == 0, qPrintable(app.output()));
        const QString shown = QStringLiteral("/examples/locks/report held by examples-holder (pid %1 on ")
                                  .arg(QCoreApplication::applicationPid());
        QVERIFY2(app.output().contains(shown), qPrintable(app.output()));

        QVERIFY(mutex.unlock());
    }
};

QTEST_GUILESS_MAIN(tst_Examples)
#include "tst_examples.moc"
