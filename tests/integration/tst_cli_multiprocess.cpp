// SPDX-License-Identifier: Apache-2.0
// Many qetcd processes on one counter or queue at once, against a real etcd member: what each
// process prints must add up to what etcd holds, with nothing counted or delivered twice.
#include "../common/awaitfuture.h"
#include "../common/qetcdprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedqueue.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QDateTime>
#include <QtCore/QSet>
#include <QtTest/QtTest>

#include <memory>
#include <vector>

using namespace QEtcd;
using namespace QEtcd::Testing;

namespace {
constexpr int processes = 5;
constexpr int perProcess = 200;

// "p<producer>-<sequence>", zero-padded so that the parts read back as numbers.
QString itemValue(int producer, int sequence)
{
    return QStringLiteral("p%1-%2").arg(producer).arg(sequence, 3, 10, QLatin1Char('0'));
}

} // namespace

class tst_CliMultiprocess : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;

    std::vector<std::unique_ptr<Qetcd>> startAll(const QStringList &arguments)
    {
        std::vector<std::unique_ptr<Qetcd>> all;
        for (int i = 0; i < processes; ++i)
            all.push_back(std::make_unique<Qetcd>(m_cluster.clientUrl(0), arguments));
        return all;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString())); }

    void concurrentAddersCountEveryIncrementOnce()
    {
        const auto adders = startAll({"--json", "counter", "/mp/n", "add", "1", "--repeat", QString::number(perProcess)});
        QSet<qint64> seen;
        for (const auto &adder : adders) {
            QCOMPARE(adder->waitForExit(scaledMs(60000)), 0);
            const QList<QJsonObject> lines = adder->events();
            QCOMPARE(lines.size(), perProcess);
            qint64 previous = 0;
            for (const QJsonObject &line : lines) {
                const qint64 value = line.value("value").toInteger();
                // Each process adds one after the other, so its own values only grow.
                QVERIFY2(value > previous, adder->transcript());
                previous = value;
                QVERIFY2(!seen.contains(value), qPrintable(QStringLiteral("%1 printed twice").arg(value)));
                seen.insert(value);
            }
        }
        QCOMPARE(seen.size(), processes * perProcess);
        QCOMPARE(*std::min_element(seen.cbegin(), seen.cend()), 1);
        QCOMPARE(*std::max_element(seen.cbegin(), seen.cend()), processes * perProcess);

        Qetcd get(m_cluster.clientUrl(0), {"counter", "/mp/n", "get"});
        QCOMPARE(get.waitForExit(), 0);
        QCOMPARE(get.standardOutput(), QByteArray::number(processes * perProcess) + '\n');
    }

    void concurrentTakersGetEveryItemOnceInProducerOrder()
    {
        const auto takers = startAll({"queue", "take", "/mp/q", "--count", QString::number(perProcess), "--timeout", "5m"});
        for (const auto &taker : takers) {
            QTRY_VERIFY_WITH_TIMEOUT(taker->has("waiting") || !taker->isRunning(), scaledMs(15000));
            QVERIFY2(taker->has("waiting"), taker->transcript());
        }

        // Producers in this process, each on a client of its own. A producer puts its next
        // item once its previous one is committed, so its commit order is its sequence order.
        std::vector<std::unique_ptr<Client>> clients;
        std::vector<std::unique_ptr<DistributedQueue>> producers;
        for (int i = 0; i < processes; ++i) {
            clients.push_back(std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls())));
            producers.push_back(std::make_unique<DistributedQueue>(clients.back().get(), "/mp/q"));
        }
        // Five puts at once land in the same millisecond, where item names (the millisecond and
        // 3 random characters) can collide: every item must still arrive.
        for (int sequence = 0; sequence < perProcess; ++sequence) {
            QList<QFuture<Status>> round;
            for (int producer = 0; producer < processes; ++producer)
                round.append(producers[producer]->enqueue(itemValue(producer, sequence).toUtf8()));
            for (const QFuture<Status> &put : round) {
                Status status;
                QETCD_AWAIT(put, status);
                QCOMPARE(status, Status());
            }
        }

        QSet<QString> expected;
        for (int producer = 0; producer < processes; ++producer) {
            for (int sequence = 0; sequence < perProcess; ++sequence)
                expected.insert(itemValue(producer, sequence));
        }
        QSet<QString> delivered;
        QSet<QString> keys;
        for (const auto &taker : takers) {
            const int code = taker->waitForExit(scaledMs(120000));
            if (code != 0) {
                qint64 left = -1;
                QETCD_AWAIT(producers.front()->size(), left);
                QFAIL(qPrintable(QStringLiteral("a taker ended with %1 after %2 items; %3 left in the queue; stderr: %4")
                                     .arg(code)
                                     .arg(taker->count("taken"))
                                     .arg(left)
                                     .arg(QString::fromUtf8(taker->standardError().right(2000)))));
            }
            QCOMPARE(taker->count("taken"), perProcess);
            QList<int> lastSequence(processes, -1);
            for (int nth = 0; nth < perProcess; ++nth) {
                const QJsonObject taken = taker->event("taken", nth);
                const QString value = taken.value("value").toString();
                QVERIFY2(expected.contains(value), qPrintable(value + QStringLiteral(" was never put")));
                QVERIFY2(!delivered.contains(value), qPrintable(value + QStringLiteral(" delivered twice")));
                delivered.insert(value);
                keys.insert(taken.value("key").toString());
                // A taker never sees a producer's item after a later one of the same producer.
                const int producer = value.mid(1, value.indexOf(QLatin1Char('-')) - 1).toInt();
                const int sequence = value.mid(value.indexOf(QLatin1Char('-')) + 1).toInt();
                QVERIFY2(sequence > lastSequence[producer], qPrintable(value + QStringLiteral(" out of order")));
                lastSequence[producer] = sequence;
            }
        }
        QCOMPARE(delivered, expected);
        QCOMPARE(keys.size(), processes * perProcess);
        qint64 left = -1;
        QETCD_AWAIT(producers.front()->size(), left);
        QCOMPARE(left, 0);
    }
};

QTEST_MAIN(tst_CliMultiprocess)
#include "tst_cli_multiprocess.moc"
