// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/pathchildrencache.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

namespace {
// "Added a=1", "Updated a=2", "Removed a=2" ("Removed a" when the cache did not know it),
// "Initialized a=1,b=1".
QStringList described(const QSignalSpy &spy)
{
    QStringList list;
    for (const QList<QVariant> &arguments : spy) {
        const auto event = arguments.at(0).value<PathChildrenCacheEvent>();
        const QString name = QString::fromUtf8(event.childName);
        const QString value = event.data ? QStringLiteral("=") + QString::fromUtf8(event.data->value) : QString();
        switch (event.type) {
        case PathChildrenCacheEvent::Type::ChildAdded: list.append("Added " + name + value); break;
        case PathChildrenCacheEvent::Type::ChildUpdated: list.append("Updated " + name + value); break;
        case PathChildrenCacheEvent::Type::ChildRemoved: list.append("Removed " + name + value); break;
        case PathChildrenCacheEvent::Type::Initialized: {
            QStringList children;
            for (const ChildData &child : event.initialData)
                children.append(QString::fromUtf8(child.name + '=' + child.kv.value));
            list.append("Initialized " + children.join(','));
            break;
        }
        }
    }
    return list;
}

QStringList namesOf(const QList<ChildData> &children)
{
    QStringList names;
    for (const ChildData &child : children)
        names.append(QString::fromUtf8(child.name + '=' + child.kv.value));
    return names;
}
} // namespace

class tst_PathChildrenCache : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    qint64 put(const QByteArray &key, const QByteArray &value)
    {
        const auto future = m_client->put(key, value);
        return awaitFuture(future) && future.result().status ? future.result().header.revision : -1;
    }

    qint64 remove(const QByteArray &key)
    {
        const auto future = m_client->remove(key);
        return awaitFuture(future) && future.result().status ? future.result().header.revision : -1;
    }

    static Status await(const QFuture<Status> &future)
    {
        if (!awaitFuture(future))
            return Status(StatusCode::DeadlineExceeded, QStringLiteral("did not finish in time"));
        return future.result();
    }

    static RecipeOptions quick()
    {
        RecipeOptions options;
        RetryPolicy::ExponentialBackoff backoff;
        backoff.initialDelay = 100ms;
        backoff.maxDelay = 1s;
        options.resilience.watch = WatchResilience{RetryPolicy::exponentialBackoff(backoff), true};
        return options;
    }

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<ConnectionState>();
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void normalModeSeesOnlyWhatIsTouched()
    {
        QVERIFY(put("/pcc/n/existing", "0") > 0);
        PathChildrenCache cache(m_client.get(), "/pcc/n");
        QCOMPARE(cache.prefix(), QByteArray("/pcc/n/"));
        QCOMPARE(cache.context(), QString("PathChildrenCache[/pcc/n]"));
        QSignalSpy events(&cache, &PathChildrenCache::cacheEvent);
        QCOMPARE(await(cache.start()), Status());
        QVERIFY(cache.currentData().isEmpty());

        put("/pcc/n/a", "1");
        put("/pcc/n/a", "2");
        put("/pcc/n/existing", "1");
        put("/pcc/n/deep/child", "1");
        put("/pcc/n2/sibling", "1");  // shares the characters, not the prefix
        put("/pcc/n", "parent");      // the path itself is no child
        remove("/pcc/n/a");
        QTRY_COMPARE_WITH_TIMEOUT(events.size(), 5, scaledMs(5000));
        QCOMPARE(described(events), (QStringList{"Added a=1", "Updated a=2", "Added existing=1", "Added deep/child=1",
                                                 "Removed a=2"}));
        QCOMPARE(namesOf(cache.currentData()), (QStringList{"deep/child=1", "existing=1"}));
        QCOMPARE(cache.currentData("deep/child")->kv.key, QByteArray("/pcc/n/deep/child"));
        QVERIFY(!cache.currentData("/pcc/n/existing").has_value());  // names are relative
        QCOMPARE(cache.currentDataAsMap(), (QMap<QByteArray, QByteArray>{{"deep/child", "1"}, {"existing", "1"}}));
    }

    void buildInitialCache()
    {
        put("/pcc/b/x", "1");
        put("/pcc/b/y", "1");
        PathChildrenCache cache(m_client.get(), "/pcc/b/");
        QSignalSpy events(&cache, &PathChildrenCache::cacheEvent);
        QCOMPARE(cache.waitOnStartComplete(10ms).code(), StatusCode::NotStarted);
        cache.start(PathChildrenCache::StartMode::BuildInitialCache);
        QCOMPARE(cache.waitOnStartComplete(), Status());
        QCOMPARE(namesOf(cache.currentData()), (QStringList{"x=1", "y=1"}));
        put("/pcc/b/y", "2");
        remove("/pcc/b/x");
        QTRY_COMPARE_WITH_TIMEOUT(described(events), (QStringList{"Updated y=2", "Removed x=1"}), scaledMs(5000));
        QCOMPARE(await(cache.start()).code(), StatusCode::AlreadyStarted);
    }

    void postInitializedEventComesFirst()
    {
        put("/pcc/i/a", "1");
        put("/pcc/i/b", "1");
        PathChildrenCache cache(m_client.get(), "/pcc/i");
        QSignalSpy events(&cache, &PathChildrenCache::cacheEvent);
        QCOMPARE(await(cache.start(PathChildrenCache::StartMode::PostInitializedEvent)), Status());
        put("/pcc/i/c", "1");
        QTRY_COMPARE_WITH_TIMEOUT(described(events), (QStringList{"Initialized a=1,b=1", "Added c=1"}), scaledMs(5000));
        QVERIFY(events.at(0).at(0).value<PathChildrenCacheEvent>().childName.isEmpty());
    }

    void clearAndRebuild()
    {
        put("/pcc/r/a", "1");
        put("/pcc/r/b", "1");
        PathChildrenCache cache(m_client.get(), "/pcc/r");
        QSignalSpy events(&cache, &PathChildrenCache::cacheEvent);
        QCOMPARE(await(cache.start(PathChildrenCache::StartMode::BuildInitialCache)), Status());
        cache.clear();
        QVERIFY(cache.currentData().isEmpty());
        QCOMPARE(events.size(), 0);  // local only
        put("/pcc/r/a", "2");
        QTRY_COMPARE_WITH_TIMEOUT(described(events), QStringList{"Added a=2"}, scaledMs(5000));

        // rebuild() reports what the cache did not know.
        QCOMPARE(await(cache.rebuild()), Status());
        QCOMPARE(described(events), (QStringList{"Added a=2", "Added b=1"}));
        QCOMPARE(namesOf(cache.currentData()), (QStringList{"a=2", "b=1"}));
        QCOMPARE(await(cache.rebuild()), Status());
        QCOMPARE(events.size(), 2);  // nothing differs now
    }

    void resyncsAfterACompaction()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        ClientOptions throughProxy = ClientOptions::fromEndpoints({proxy.url()});
        throughProxy.keepAliveTime = 5s;
        throughProxy.keepAliveTimeout = 2s;
        Client cutOff(throughProxy);
        put("/pcc/c/keep", "1");
        put("/pcc/c/change", "1");
        put("/pcc/c/drop", "1");
        PathChildrenCache cache(&cutOff, "/pcc/c", quick());
        QSignalSpy events(&cache, &PathChildrenCache::cacheEvent);
        QSignalSpy recoveries(&cache, &PathChildrenCache::watchRecovery);
        QCOMPARE(await(cache.start(PathChildrenCache::StartMode::BuildInitialCache)), Status());

        proxy.setMode(FaultProxy::Mode::Blackhole);
        QTRY_COMPARE_WITH_TIMEOUT(cache.connectionState(), ConnectionState::Suspended, scaledMs(30000));
        put("/pcc/c/change", "2");
        put("/pcc/c/change", "3");
        remove("/pcc/c/drop");
        put("/pcc/c/new", "1");
        put("/pcc/c/brief", "1");
        const qint64 compactAt = remove("/pcc/c/brief");  // born and gone inside the gap: never seen
        const auto compacted = m_client->compact(compactAt, true);
        QVERIFY(awaitFuture(compacted));
        QCOMPARE(compacted.result().status, Status());

        proxy.setMode(FaultProxy::Mode::Pass);
        QTRY_COMPARE_WITH_TIMEOUT(recoveries.size(), 2, scaledMs(20000));
        const auto resynced = recoveries.at(1).at(0).value<WatchRecoveryEvent>();
        QCOMPARE(resynced.kind, WatchRecoveryKind::Resynced);
        QCOMPARE(resynced.compactRevision, compactAt);
        QCOMPARE(resynced.anchorRevision, compactAt + 1);
        QCOMPARE(described(events), (QStringList{"Removed drop=1", "Updated change=3", "Added new=1"}));
        QCOMPARE(namesOf(cache.currentData()), (QStringList{"change=3", "keep=1", "new=1"}));
        QCOMPARE(cache.connectionState(), ConnectionState::Reconnected);

        put("/pcc/c/keep", "2");
        QTRY_COMPARE_WITH_TIMEOUT(events.size(), 4, scaledMs(5000));
        QCOMPARE(described(events).last(), QString("Updated keep=2"));
    }

    void closeStopsEverything()
    {
        PathChildrenCache cache(m_client.get(), "/pcc/close");
        cache.close();  // before start(): a no-op
        QVERIFY(!cache.isClosed());
        QSignalSpy events(&cache, &PathChildrenCache::cacheEvent);
        QCOMPARE(await(cache.start()), Status());
        // Shares the client's watch stream, so it hears every change no later than cache would.
        PathChildrenCache witness(m_client.get(), "/pcc/close");
        QSignalSpy witnessed(&witness, &PathChildrenCache::cacheEvent);
        QCOMPARE(await(witness.start()), Status());
        put("/pcc/close/a", "1");
        QTRY_COMPARE_WITH_TIMEOUT(events.size(), 1, scaledMs(5000));
        cache.close();
        QVERIFY(cache.isClosed());
        put("/pcc/close/b", "1");
        QTRY_COMPARE_WITH_TIMEOUT(witnessed.size(), 2, scaledMs(5000));
        QCOMPARE(events.size(), 1);
        QCOMPARE(await(cache.rebuild()).code(), StatusCode::Closed);

        PathChildrenCache empty(m_client.get(), QByteArray());
        QCOMPARE(await(empty.start()).code(), StatusCode::InvalidArgument);
    }
};

QTEST_GUILESS_MAIN(tst_PathChildrenCache)
#include "tst_pathchildrencache.moc"
