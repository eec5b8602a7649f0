// The recipe commands of qetcd (barrier, double-barrier, service, counter) against a real etcd
// member: the binary runs as an operator would run it, its JSON lines are read as they arrive,
// and long-running ones are stopped with real signals.
#include "../common/qetcdprocess.h"

#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd::Testing;

namespace {

QString text(const QJsonObject &object, const char *field)
{
    return object.value(QLatin1String(field)).toString();
}
} // namespace

class tst_CliRecipes : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;

    std::unique_ptr<Qetcd> qetcd(const QStringList &arguments)
    {
        return std::make_unique<Qetcd>(m_cluster.clientUrl(0), arguments);
    }
    // Runs a short command to its end: its exit code, stdout in *out.
    int runToEnd(const QStringList &arguments, QByteArray *out = nullptr, QByteArray *err = nullptr)
    {
        Qetcd run(m_cluster.clientUrl(0), arguments);
        const int code = run.waitForExit();
        if (out)
            *out = run.standardOutput();
        if (err)
            *err = run.standardError();
        return code;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString())); }

    void barrierWaitersLiftWhenTheHolderStops()
    {
        auto hold = qetcd({"barrier", "hold", "/cr/b1", "--ttl", "5"});
        QTRY_VERIFY_WITH_TIMEOUT(hold->has("barrierSet") || !hold->isRunning(), scaledMs(15000));
        QVERIFY2(hold->has("barrierSet"), hold->transcript());

        auto first = qetcd({"barrier", "wait", "/cr/b1"});
        auto second = qetcd({"barrier", "wait", "/cr/b1"});
        QTRY_VERIFY_WITH_TIMEOUT(first->has("waiting") && second->has("waiting"), scaledMs(15000));
        QCOMPARE(first->event("waiting").value("barrier_set").toBool(), true);
        QCOMPARE(second->event("waiting").value("barrier_set").toBool(), true);
        QVERIFY(first->isRunning() && second->isRunning());

        hold->terminate();
        QCOMPARE(hold->waitForExit(), 0);
        QCOMPARE(hold->names(), (QStringList{"barrierSet", "closed"}));
        QCOMPARE(text(hold->event("closed"), "reason"), QStringLiteral("SIGTERM"));
        QCOMPARE(hold->event("closed").value("removed").toBool(), true);

        for (Qetcd *waiter : {first.get(), second.get()}) {
            QCOMPARE(waiter->waitForExit(), 0);
            QCOMPARE(waiter->names(), (QStringList{"waiting", "barrierLifted"}));
            QCOMPARE(text(waiter->event("barrierLifted"), "reason"), QStringLiteral("removed"));
            QCOMPARE(text(waiter->event("barrierLifted"), "path"), QStringLiteral("/cr/b1"));
        }
    }

    void barrierWaitTimesOutOnAHeldBarrier()
    {
        auto hold = qetcd({"barrier", "hold", "/cr/b2"});
        QTRY_VERIFY_WITH_TIMEOUT(hold->has("barrierSet") || !hold->isRunning(), scaledMs(15000));
        QVERIFY2(hold->has("barrierSet"), hold->transcript());

        Qetcd wait(m_cluster.clientUrl(0), {"barrier", "wait", "/cr/b2", "--timeout", "1s"});
        QCOMPARE(wait.waitForExit(), 1);
        QCOMPARE(wait.names(), (QStringList{"waiting", "timedOut"}));
        QVERIFY2(wait.standardError().startsWith("qetcd: "), wait.transcript());
        QCOMPARE(wait.standardError().count('\n'), 1);

        hold->terminate();
        QCOMPARE(hold->waitForExit(), 0);
    }

    void barrierWaitEndsOnSigterm()
    {
        auto wait = qetcd({"barrier", "wait", "/cr/b3"});
        QTRY_VERIFY_WITH_TIMEOUT(wait->has("waiting") || !wait->isRunning(), scaledMs(15000));
        QCOMPARE(wait->event("waiting").value("barrier_set").toBool(), false);
        wait->terminate();
        QCOMPARE(wait->waitForExit(), 1);
        QCOMPARE(wait->names(), (QStringList{"waiting", "closed"}));
        QCOMPARE(text(wait->event("closed"), "reason"), QStringLiteral("SIGTERM"));
        QCOMPARE(wait->standardError(), QByteArray("qetcd: interrupted by SIGTERM\n"));
    }

    void barrierWaitPassesAnUnsetBarrierWithNoWaitMissing()
    {
        QElapsedTimer timer;
        timer.start();
        QByteArray out;
        QCOMPARE(runToEnd({"barrier", "wait", "/cr/never-set", "--no-wait-missing"}, &out), 0);
        QVERIFY(timer.elapsed() < scaledMs(5000));
        const QList<QByteArray> lines = out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QCOMPARE(QJsonDocument::fromJson(lines[1]).object().value("reason").toString(), QStringLiteral("not_set"));
    }

    void barrierCountReleasesAllMembers()
    {
        std::vector<std::unique_ptr<Qetcd>> members;
        for (int i = 0; i < 3; ++i)
            members.push_back(qetcd({"barrier", "count", "/cr/c1", "--members", "3", "--timeout", "30s"}));
        for (const auto &member : members) {
            QCOMPARE(member->waitForExit(), 0);
            QCOMPARE(member->names(), (QStringList{"waiting", "released"}));
            QCOMPARE(member->event("released").value("members").toInteger(), 3);
        }
    }

    void barrierCountTimesOutShortOfMembers()
    {
        Qetcd lone(m_cluster.clientUrl(0), {"barrier", "count", "/cr/c2", "--members", "2", "--timeout", "1s"});
        QCOMPARE(lone.waitForExit(), 1);
        QCOMPARE(lone.names(), (QStringList{"waiting", "timedOut"}));
    }

    void doubleBarrierRunsBothPhases()
    {
        auto a = qetcd({"double-barrier", "/cr/d1", "--members", "2", "--work", "200ms", "--timeout", "30s"});
        auto b = qetcd({"double-barrier", "/cr/d1", "--members", "2", "--timeout", "30s"});
        for (Qetcd *member : {a.get(), b.get()}) {
            QCOMPARE(member->waitForExit(), 0);
            QCOMPARE(member->names(), (QStringList{"entering", "entered", "leaving", "left"}));
        }
        // b left no earlier than a, which worked 200 ms after both entered.
        QVERIFY(b->event("left").value("mono_ms").toInteger() >= a->event("entered").value("mono_ms").toInteger() + 200);
    }

    void serviceRegisterShowsInList()
    {
        auto watch = qetcd({"service", "list", "web", "--watch", "--service-path", "/cr/svc"});
        QTRY_VERIFY_WITH_TIMEOUT(watch->has("established") || !watch->isRunning(), scaledMs(15000));
        QVERIFY2(watch->has("established"), watch->transcript());
        QCOMPARE(watch->event("established").value("count").toInt(), 0);

        auto reg = qetcd({"service", "register", "web", "--address", "10.0.0.7", "--port", "8080", "--service-path",
                          "/cr/svc"});
        QTRY_VERIFY_WITH_TIMEOUT(reg->has("registered") || !reg->isRunning(), scaledMs(15000));
        QVERIFY2(reg->has("registered"), reg->transcript());
        const QString id = text(reg->event("registered"), "id");
        QCOMPARE(id.size(), 7);
        QCOMPARE(text(reg->event("registered"), "key"), QStringLiteral("/cr/svc/names/web/") + id);

        QByteArray out;
        QCOMPARE(runToEnd({"service", "list", "web", "--service-path", "/cr/svc"}, &out), 0);
        const QList<QByteArray> lines = out.trimmed().split('\n');
        QCOMPARE(lines.size(), 1);
        const QJsonObject listed = QJsonDocument::fromJson(lines[0]).object();
        QCOMPARE(text(listed, "id"), id);
        QCOMPARE(text(listed, "name"), QStringLiteral("web"));
        QCOMPARE(text(listed, "address"), QStringLiteral("10.0.0.7"));
        QCOMPARE(listed.value("port").toInt(), 8080);
        QCOMPARE(runToEnd({"service", "list", "--service-path", "/cr/svc"}, &out), 0);
        QCOMPARE(out, QByteArray("{\"name\":\"web\"}\n"));

        QTRY_VERIFY_WITH_TIMEOUT(watch->has("instanceAdded"), scaledMs(15000));
        QCOMPARE(text(watch->event("instanceAdded"), "id"), id);

        reg->terminate();
        QCOMPARE(reg->waitForExit(), 0);
        QCOMPARE(reg->names(), (QStringList{"registered", "closed"}));
        QCOMPARE(reg->event("closed").value("unregistered").toBool(), true);
        QTRY_VERIFY_WITH_TIMEOUT(watch->has("instanceRemoved"), scaledMs(15000));
        QCOMPARE(text(watch->event("instanceRemoved"), "key"), QStringLiteral("web/") + id);
        QCOMPARE(runToEnd({"service", "list", "web", "--service-path", "/cr/svc"}, &out), 0);
        QCOMPARE(out, QByteArray());

        watch->terminate();
        QCOMPARE(watch->waitForExit(), 0);
        QCOMPARE(watch->names(), (QStringList{"established", "instanceAdded", "instanceRemoved", "closed"}));
    }

    void counterAddsAndReads()
    {
        QByteArray out;
        QCOMPARE(runToEnd({"counter", "/cr/n", "add", "5"}, &out), 0);
        QCOMPARE(out, QByteArray("5\n"));
        QCOMPARE(runToEnd({"counter", "/cr/n", "add", "5"}, &out), 0);
        QCOMPARE(out, QByteArray("10\n"));
        QCOMPARE(runToEnd({"counter", "/cr/n", "get"}, &out), 0);
        QCOMPARE(out, QByteArray("10\n"));
        QCOMPARE(runToEnd({"--json", "counter", "/cr/n"}, &out), 0);
        QCOMPARE(out, QByteArray("{\"path\":\"/cr/n\",\"value\":10}\n"));
    }

    void usageErrorsExit2_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("barrier unknown action") << QStringList{"barrier", "jump", "/x"};
        QTest::newRow("barrier no name") << QStringList{"barrier", "wait"};
        QTest::newRow("barrier count without members") << QStringList{"barrier", "count", "/x"};
        QTest::newRow("barrier bad timeout") << QStringList{"barrier", "wait", "/x", "--timeout", "soon"};
        QTest::newRow("barrier option of another action") << QStringList{"barrier", "wait", "/x", "--ttl", "5"};
        QTest::newRow("barrier bad ttl") << QStringList{"barrier", "hold", "/x", "--ttl", "0"};
        QTest::newRow("double-barrier bad members") << QStringList{"double-barrier", "/x", "--members", "0"};
        QTest::newRow("service register without port") << QStringList{"service", "register", "web", "--address", "a"};
        QTest::newRow("service bad port") << QStringList{"service", "register", "web", "--address", "a", "--port", "x"};
        QTest::newRow("service list --watch without name") << QStringList{"service", "list", "--watch"};
        QTest::newRow("counter unknown action") << QStringList{"counter", "/n", "sub", "1"};
        QTest::newRow("counter add without number") << QStringList{"counter", "/n", "add"};
    }

    void usageErrorsExit2()
    {
        QFETCH(QStringList, arguments);
        QByteArray out;
        QByteArray err;
        QCOMPARE(runToEnd(arguments, &out, &err), 2);
        QCOMPARE(out, QByteArray());
        QVERIFY2(err.startsWith("qetcd ") && err.count('\n') == 1, err.constData());
    }
};

QTEST_MAIN(tst_CliRecipes)
#include "tst_cli_recipes.moc"
