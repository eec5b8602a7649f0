// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedatomiclong.h>
#include <QEtcd/etcdcluster.h>

#include <QtTest/QtTest>

#include <limits>
#include <set>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

class tst_DistributedAtomicLong : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_observer;

    ClientOptions direct() const { return ClientOptions::fromEndpoints(m_cluster.clientUrls()); }

    QByteArray bytes(const QByteArray &key)
    {
        RangeResult got;
        [&] { QETCD_AWAIT(m_observer->get(key), got); }();
        return got.kvs.value(0).value;
    }

    static AtomicLongOptions startingAt(qint64 value)
    {
        AtomicLongOptions options;
        options.defaultValue = value;
        return options;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_observer = std::make_unique<Client>(direct());
    }

    void valuesAreEightBytesBigEndian()
    {
        DistributedAtomicLong counter(m_observer.get(), "/counters/layout");
        QCOMPARE(counter.context(), QString("DistributedAtomicLong[/counters/layout]"));
        AtomicLongResult result = counter.get();
        QVERIFY2(result.status.isOk(), qPrintable(result.status.toString()));
        QCOMPARE(result.value, 0);
        QCOMPARE(bytes("/counters/layout"), QByteArray(8, '\0'));

        result = counter.increment();
        QCOMPARE(result.value, 1);
        QCOMPARE(bytes("/counters/layout"), QByteArray::fromHex("0000000000000001"));
        result = counter.add(0x0102030405060708 - 1);
        QCOMPARE(result.value, 0x0102030405060708);
        QCOMPARE(bytes("/counters/layout"), QByteArray::fromHex("0102030405060708"));
        QCOMPARE(counter.add(-0x0102030405060708 - 2).value, -2);
        QCOMPARE(bytes("/counters/layout"), QByteArray::fromHex("fffffffffffffffe"));
        QCOMPARE(counter.decrement().value, -3);
        QCOMPARE(bytes("/counters/layout"), QByteArray::fromHex("fffffffffffffffd"));
        QVERIFY(counter.get().header.revision > 0);

        // A value written the reference's way is read back.
        PutResult put;
        QETCD_AWAIT(m_observer->put("/counters/layout", QByteArray::fromHex("00000000000003e8")), put);
        QCOMPARE(counter.get().value, 1000);
    }

    void compareAndSet()
    {
        DistributedAtomicLong counter(m_observer.get(), "/counters/cas", startingAt(5));
        AtomicLongResult result = counter.compareAndSet(5, 42);
        QVERIFY2(result.status.isOk(), qPrintable(result.status.toString()));
        QCOMPARE(result.value, 42);
        QCOMPARE(bytes("/counters/cas"), QByteArray::fromHex("000000000000002a"));
        result = counter.compareAndSet(5, 7);
        QCOMPARE(result.status.code(), StatusCode::Mismatch);
        QCOMPARE(result.value, 42);
        QCOMPARE(bytes("/counters/cas"), QByteArray::fromHex("000000000000002a"));
        QETCD_AWAIT(counter.compareAndSetAsync(42, -1), result);
        QVERIFY(result.status.isOk());
        QCOMPARE(counter.get().value, -1);
    }

    // A sequence number that wrapped around would repeat or turn negative, and nobody would know.
    void anAddPastSixtyFourBitsIsRefusedAndWritesNothing()
    {
        constexpr qint64 largest = std::numeric_limits<qint64>::max();
        constexpr qint64 smallest = std::numeric_limits<qint64>::min();
        DistributedAtomicLong counter(m_observer.get(), "/counters/edge", startingAt(largest - 1));
        QCOMPARE(counter.increment().value, largest);
        const auto modRevision = [this] {
            RangeResult got;
            [&] { QETCD_AWAIT(m_observer->get("/counters/edge"), got); }();
            return got.kvs.value(0).modRevision;
        };
        const qint64 written = modRevision();

        AtomicLongResult result = counter.increment();
        QCOMPARE(result.status.code(), StatusCode::OutOfRange);
        QCOMPARE(result.value, largest);
        QVERIFY2(result.status.message().contains("adding 1 to 9223372036854775807"),
                 qPrintable(result.status.toString()));
        QCOMPARE(counter.add(largest).status.code(), StatusCode::OutOfRange);
        QCOMPARE(modRevision(), written);
        QCOMPARE(bytes("/counters/edge"), QByteArray::fromHex("7fffffffffffffff"));

        QCOMPARE(counter.add(0).value, largest);
        QCOMPARE(counter.add(smallest).value, -1);
        QCOMPARE(counter.add(smallest + 1).value, smallest);
        QETCD_AWAIT(counter.decrementAsync(), result);
        QCOMPARE(result.status.code(), StatusCode::OutOfRange);
        QCOMPARE(result.value, smallest);
        QCOMPARE(bytes("/counters/edge"), QByteArray::fromHex("8000000000000000"));
    }

    void theFirstDefaultWins()
    {
        DistributedAtomicLong first(m_observer.get(), "/counters/default", startingAt(7));
        Client other(direct());
        DistributedAtomicLong second(&other, "/counters/default", startingAt(9));
        AtomicLongResult result;
        QETCD_AWAIT(first.getAsync(), result);
        QCOMPARE(result.value, 7);
        QETCD_AWAIT(second.incrementAsync(), result);
        QCOMPARE(result.value, 8);
        QETCD_AWAIT(first.decrementAsync(), result);
        QCOMPARE(result.value, 7);
        QETCD_AWAIT(first.addAsync(10), result);
        QCOMPARE(result.value, 17);
    }

    void fiveParticipantsIncrementConcurrently()
    {
        constexpr int participants = 5;
        constexpr int increments = 200;
        std::vector<std::unique_ptr<Client>> clients;
        std::vector<std::unique_ptr<DistributedAtomicLong>> counters;
        for (int i = 0; i < participants; ++i) {
            clients.push_back(std::make_unique<Client>(direct()));
            counters.push_back(std::make_unique<DistributedAtomicLong>(clients.back().get(), "/counters/race"));
        }
        std::vector<QList<qint64>> seen(participants);
        std::vector<Status> failures(participants);
        QList<QThread *> threads;
        QElapsedTimer clock;
        clock.start();
        for (int i = 0; i < participants; ++i) {
            threads.append(QThread::create([&, i] {
                for (int n = 0; n < increments; ++n) {
                    const AtomicLongResult result = counters[i]->increment();
                    if (!result.status) {
                        failures[i] = result.status;
                        return;
                    }
                    seen[i].append(result.value);
                }
            }));
            threads.last()->start();
        }
        for (QThread *thread : threads) {
            QVERIFY(thread->wait(scaledMs(120000)));
            delete thread;
        }
        qInfo() << participants << "x" << increments << "increments took" << clock.elapsed() << "ms";
        std::set<qint64> distinct;
        for (int i = 0; i < participants; ++i) {
            QVERIFY2(failures[i].isOk(), qPrintable(failures[i].toString()));
            QCOMPARE(seen[i].size(), increments);
            QVERIFY(std::is_sorted(seen[i].cbegin(), seen[i].cend()));
            distinct.insert(seen[i].cbegin(), seen[i].cend());
        }
        QCOMPARE(int(distinct.size()), participants * increments);
        QCOMPARE(*distinct.begin(), 1);
        QCOMPARE(*distinct.rbegin(), participants * increments);
        QCOMPARE(counters[0]->get().value, participants * increments);
        QCOMPARE(bytes("/counters/race"), QByteArray::fromHex("00000000000003e8"));
    }

    void deletedOrForeignValuesAreReported()
    {
        DistributedAtomicLong counter(m_observer.get(), "/counters/odd");
        QCOMPARE(counter.increment().value, 1);
        DeleteResult deleted;
        QETCD_AWAIT(m_observer->remove("/counters/odd"), deleted);
        QCOMPARE(counter.get().status.code(), StatusCode::NotFound);
        QCOMPARE(counter.increment().status.code(), StatusCode::NotFound);
        QVERIFY(bytes("/counters/odd").isEmpty());  // a deleted counter does not come back by itself

        PutResult put;
        QETCD_AWAIT(m_observer->put("/counters/odd", "12"), put);
        const AtomicLongResult result = counter.add(1);
        QCOMPARE(result.status.code(), StatusCode::FailedPrecondition);
        QVERIFY(result.status.message().contains("2 bytes"));
        QCOMPARE(bytes("/counters/odd"), QByteArray("12"));
    }

    void exhaustedRetriesLoseNothingAndCloseRefuses()
    {
        // Without retries, contenders give up on every lost compare-and-set; what they report
        // committed is exactly what the counter holds.
        AtomicLongOptions impatient;
        impatient.casRetry = RetryPolicy::never();
        constexpr int participants = 5;
        std::vector<std::unique_ptr<Client>> clients;
        std::vector<std::unique_ptr<DistributedAtomicLong>> counters;
        for (int i = 0; i < participants; ++i) {
            clients.push_back(std::make_unique<Client>(direct()));
            counters.push_back(
                std::make_unique<DistributedAtomicLong>(clients.back().get(), "/counters/impatient", impatient));
        }
        std::atomic<int> committed{0};
        std::atomic<int> exhausted{0};
        std::atomic<int> other{0};
        QList<QThread *> threads;
        for (int i = 0; i < participants; ++i) {
            threads.append(QThread::create([&, i] {
                for (int n = 0; n < 50; ++n) {
                    const StatusCode code = counters[i]->increment().status.code();
                    (code == StatusCode::Ok ? committed : code == StatusCode::RetriesExhausted ? exhausted : other)++;
                }
            }));
            threads.last()->start();
        }
        for (QThread *thread : threads) {
            QVERIFY(thread->wait(scaledMs(60000)));
            delete thread;
        }
        QCOMPARE(other.load(), 0);
        QVERIFY(exhausted.load() > 0);
        QCOMPARE(counters[0]->get().value, committed.load());

        counters[0]->close();
        QCOMPARE(counters[0]->get().status.code(), StatusCode::Closed);
        AtomicLongResult result;
        QETCD_AWAIT(counters[0]->incrementAsync(), result);
        QCOMPARE(result.status.code(), StatusCode::Closed);
    }
};

QTEST_GUILESS_MAIN(tst_DistributedAtomicLong)
#include "tst_distributedatomiclong.moc"
