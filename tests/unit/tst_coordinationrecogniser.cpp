// SPDX-License-Identifier: Apache-2.0
// The recogniser on hand-made records: etcd-recipes' layouts (whose Kotlin tool is not run
// here; the key and value formats are its documented ones) and the corner cases that decide
// between layouts. Fixtures written by the real tools are in tst_coordinationfixtures.
#include <QEtcd/coordinationrecogniser.h>

#include "coordinationindex_p.h"

#include <QtCore/QJsonArray>
#include <QtCore/QRandomGenerator>
#include <QtCore/QtEndian>
#include <QtTest/QtTest>

using namespace QEtcd;
using Kind = CoordinationObject::Kind;

namespace {
// Records get increasing create revisions in the order they are listed.
class Keys
{
public:
    Keys &put(const QByteArray &key, const QByteArray &value = {}, qint64 lease = 0)
    {
        KeyValue kv;
        kv.key = key;
        kv.value = value;
        kv.lease = lease;
        kv.createRevision = kv.modRevision = ++m_revision;
        kv.version = 1;
        m_kvs.append(kv);
        return *this;
    }
    // etcd's own layout: the key is <path>/<lease in hex>.
    Keys &queue(const QByteArray &path, qint64 lease, const QByteArray &value = {})
    {
        return put(path + '/' + QByteArray::number(lease, 16), value, lease);
    }
    QList<CoordinationObject> recognise() const
    {
        // The order records come in must not matter.
        QList<KeyValue> shuffled(m_kvs.crbegin(), m_kvs.crend());
        return CoordinationRecogniser::recognise(shuffled);
    }

private:
    QList<KeyValue> m_kvs;
    qint64 m_revision = 100;
};

QByteArray int32(qint32 value)
{
    QByteArray bytes(4, '\0');
    qToBigEndian(value, bytes.data());
    return bytes;
}

QByteArray int64(qint64 value)
{
    QByteArray bytes(8, '\0');
    qToBigEndian(value, bytes.data());
    return bytes;
}

// Applies an index's changes to a list sorted by path and kind, as CoordinationModel does.
void applyChanges(QList<CoordinationObject> *objects, const QList<CoordinationObjectChange> &changes)
{
    const auto before = [](const CoordinationObject &a, const CoordinationObject &b) {
        return std::pair(a.path, a.kind) < std::pair(b.path, b.kind);
    };
    for (const CoordinationObjectChange &change : changes) {
        const bool changed = change.type == CoordinationObjectChange::Type::Changed;
        const CoordinationObject &was = changed ? change.previous : change.object;
        if (change.type == CoordinationObjectChange::Type::Added) {
            objects->insert(std::lower_bound(objects->begin(), objects->end(), change.object, before), change.object);
            continue;
        }
        const auto at = std::find(objects->begin(), objects->end(), was);
        QVERIFY2(at != objects->end(), "a change names an object that was not there");
        if (changed)
            *at = change.object;
        else
            objects->erase(at);
    }
}

QStringList namesOf(const QList<CoordinationEntry> &entries)
{
    QStringList names;
    for (const CoordinationEntry &entry : entries)
        names.append(entry.displayName());
    return names;
}
} // namespace

class tst_CoordinationRecogniser : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void etcdRecipesMutexIsALock()
    {
        // etcd's v3lock service writes empty values under the mutex path.
        const auto objects = Keys().queue("/m", 0x1a).queue("/m", 0x2b).queue("/m", 0x3c).recognise();
        QCOMPARE(objects.size(), 1);
        QCOMPARE(objects[0].kind, Kind::Lock);
        QCOMPARE(namesOf(objects[0].holders), QStringList{"lease 000000000000001a"});
        QCOMPARE(namesOf(objects[0].waiters), (QStringList{"lease 000000000000002b", "lease 000000000000003c"}));
    }

    void qetcdIdentityNamesTheHolder()
    {
        const QByteArray holder = R"({"clientId":"build-7","host":"host-a","pid":4121,"requestedAt":1700000000000,"role":"lock"})";
        const auto objects = Keys().queue("/l", 0x10, holder).queue("/l", 0x11).recognise();
        QCOMPARE(objects.size(), 1);
        QCOMPARE(objects[0].kind, Kind::Lock);
        const CoordinationEntry &held = objects[0].holders.first();
        QCOMPARE(held.name, QStringLiteral("build-7"));
        QCOMPARE(held.host, QStringLiteral("host-a"));
        QCOMPARE(held.pid, 4121);
        QCOMPARE(held.sinceMs, 1700000000000);
        QCOMPARE(held.toJson(1700000005000).value("age_ms").toInteger(), 5000);
        QCOMPARE(held.createRevision, 101);
    }

    // A qetcd candidate that proclaims nothing writes its identity with role "candidate".
    void qetcdCandidateIdentityIsAnElection()
    {
        const QByteArray candidate = R"({"clientId":"node-a","host":"h","pid":1,"requestedAt":1,"role":"candidate"})";
        const auto objects = Keys().queue("/e", 0x10, candidate).queue("/e", 0x11, "node-b").recognise();
        QCOMPARE(objects.size(), 1);
        QCOMPARE(objects[0].kind, Kind::Election);
        QCOMPARE(namesOf(objects[0].holders), QStringList{"node-a"});
    }

    // etcdctl prints lease IDs zero-padded to 16 digits; a key named from that output is named
    // after its lease as much as Go's unpadded %x (qml_tst_outage wrote one, and saw no lock
    // whenever etcd's member ID gave the lease a leading zero: about one run in eight).
    void leaseNamePaddedAsEtcdctlPrintsItIsALock()
    {
        const auto objects = Keys().put("/p/000000000000001a", {}, 0x1a).put("/p/2b", {}, 0x2b).recognise();
        QCOMPARE(objects.size(), 1);
        QCOMPARE(objects[0].kind, Kind::Lock);
        QCOMPARE(namesOf(objects[0].holders), QStringList{"lease 000000000000001a"});
        QCOMPARE(namesOf(objects[0].waiters), QStringList{"lease 000000000000002b"});
        // Seventeen digits name no 64-bit lease.
        QVERIFY(Keys().put("/q/0000000000000001a", {}, 0x1a).recognise().isEmpty());
    }

    void keyNotNamedAfterItsLeaseIsNoLock()
    {
        const auto objects = Keys().put("/x/1a", {}, 0x1b).put("/x/ff", {}, 0).recognise();
        QVERIFY(objects.isEmpty());
    }

    // Leases as etcd grants them: node etcd3 names a candidate's key after its lease in decimal.
    void nodeEtcd3ElectionByDecimalLease()
    {
        const qint64 leader = 7587899368979014149, candidate = 7587899368979014159;
        const auto objects = Keys()
                                 .put("election/e1/" + QByteArray::number(leader), "leaderA", leader)
                                 .put("election/e1/" + QByteArray::number(candidate), "candB", candidate)
                                 .put("app/election/e2/" + QByteArray::number(candidate + 1), "ns", candidate + 1)
                                 // A decimal name that is not its key's lease is no candidate.
                                 .put("election/e3/12345", "x", candidate + 2)
                                 .recognise();
        QCOMPARE(objects.size(), 2);
        QCOMPARE(objects[0].path, QByteArray("app/election/e2"));
        const CoordinationObject &election = objects[1];
        QCOMPARE(election.kind, Kind::Election);
        QCOMPARE(election.path, QByteArray("election/e1"));
        QCOMPARE(election.rule, QStringLiteral("node etcd3 election"));
        QCOMPARE(election.holders.size(), 1);
        QCOMPARE(election.holders[0].lease, leader);
        QCOMPARE(election.waiters.size(), 1);
        QCOMPARE(election.waiters[0].valueText(), QStringLiteral("candB"));
        const QJsonObject json = election.toJson(0);
        QCOMPARE(json.value("rule").toString(), QStringLiteral("node etcd3 election"));
        QCOMPARE(json.value("proclamation").toString(), QStringLiteral("leaderA"));
        QCOMPARE(json.value("leader").toObject().value("lease_id").toString(), QStringLiteral("694da2460f67a205"));
    }

    void python3Etcd3LockShowsItsUuidInHex()
    {
        const QByteArray uuid = QByteArray::fromHex("d056cd98f0a211f1bddb02fc00000001");
        const auto objects = Keys().put("/locks/pyl", uuid, 0x694da2460f67a20c).recognise();
        QCOMPARE(objects.size(), 1);
        const CoordinationObject &lock = objects[0];
        QCOMPARE(lock.kind, Kind::Lock);
        QCOMPARE(lock.path, QByteArray("/locks/pyl"));
        QCOMPARE(lock.rule, QStringLiteral("python3-etcd3 lock"));
        QCOMPARE(lock.holders.size(), 1);
        QCOMPARE(lock.holders[0].lease, 0x694da2460f67a20c);
        QVERIFY(lock.holders[0].valueIsBinary());
        QCOMPARE(lock.holders[0].valueText(), QStringLiteral("d056cd98f0a211f1bddb02fc00000001"));
        const QJsonObject holder = lock.toJson(0).value("holders").toArray().at(0).toObject();
        QCOMPARE(holder.value("value_hex").toString(), QStringLiteral("d056cd98f0a211f1bddb02fc00000001"));
        QVERIFY(!holder.contains("value"));
        QCOMPARE(lock.toJson(0).value("rule").toString(), QStringLiteral("python3-etcd3 lock"));
    }

    // A leased key could be anything: a lock only under a locks/ segment, which says so.
    void leasedKeyIsALockOnlyUnderALocksSegment()
    {
        const auto objects = Keys()
                                 .put("/nd/lk", {}, 0x10)            // node etcd3's Lock at a key of its choice
                                 .put("/app/locks/lk", {}, 0x11)     // the same, where the path says lock
                                 .put("/app/locks/free", {}, 0)      // no lease: nobody holds it
                                 .put("/locks/short", "v1", 0x12)    // not python3-etcd3's 16-byte UUID
                                 .put("/app/locks/a/b", {}, 0x13)    // below a lock's key: not the lock
                                 .recognise();
        QCOMPARE(objects.size(), 2);
        QCOMPARE(objects[0].path, QByteArray("/app/locks/lk"));
        QCOMPARE(objects[0].kind, Kind::Lock);
        QCOMPARE(objects[0].rule, QStringLiteral("leased key under locks/ (node etcd3 lock)"));
        QCOMPARE(objects[0].holders.size(), 1);
        QCOMPARE(objects[0].holders[0].lease, 0x11);
        // An empty value is no value (it was once written as an empty JSON object).
        QVERIFY(!objects[0].toJson(0).value("holders").toArray().at(0).toObject().contains("value"));
        QCOMPARE(objects[1].path, QByteArray("/locks/short"));
        QCOMPARE(objects[1].rule, QStringLiteral("leased key under locks/ (node etcd3 lock)"));
        QCOMPARE(objects[1].toJson(0).value("holders").toArray().at(0).toObject().value("value").toString(),
                 QStringLiteral("v1"));
        // etcd's own layout under /locks/ stays etcd's, decided by its layout alone.
        const auto native = Keys().queue("/locks", 0x1a).recognise();
        QCOMPARE(native.size(), 1);
        QCOMPARE(native[0].path, QByteArray("/locks"));
        QVERIFY(native[0].rule.isEmpty());
        QVERIFY(!native[0].toJson(0).contains("rule"));
    }

    void etcdRecipesLeaderSelector()
    {
        const auto objects = Keys()
                                 .put("/sel/participants/a", "a", 1)
                                 .put("/sel/participants/b", "b", 2)
                                 .put("/sel/LEADER", "b:Xy12345", 3)
                                 .put("/sel/participants/c", "c", 4)
                                 .recognise();
        QCOMPARE(objects.size(), 1);
        QCOMPARE(objects[0].kind, Kind::Election);
        QCOMPARE(namesOf(objects[0].holders), QStringList{"b"});
        QCOMPARE(namesOf(objects[0].waiters), (QStringList{"a", "c"}));
    }

    void readWriteLockAdmitsReadersUntilAWriter()
    {
        const auto objects = Keys()
                                 .put("/rw/read-r1:aaaaaaa", "r1", 1)
                                 .put("/rw/read-r2:bbbbbbb", "r2", 2)
                                 .put("/rw/write-w1:ccccccc", "w1", 3)
                                 .put("/rw/read-r3:ddddddd", "r3", 4)
                                 .recognise();
        QCOMPARE(objects.size(), 1);
        QCOMPARE(objects[0].kind, Kind::ReadWriteLock);
        QCOMPARE(namesOf(objects[0].holders), (QStringList{"r1", "r2"}));
        QCOMPARE(namesOf(objects[0].waiters), (QStringList{"w1", "r3"}));
    }

    void writerFirstHoldsAlone()
    {
        const auto objects =
            Keys().put("/rw/write-w:aaaaaaa", "w", 1).put("/rw/read-r:bbbbbbb", "r", 2).recognise();
        QCOMPARE(namesOf(objects[0].holders), QStringList{"w"});
        QCOMPARE(namesOf(objects[0].waiters), QStringList{"r"});
    }

    void semaphoreCountsPermits()
    {
        const auto objects = Keys()
                                 .put("/s/permits", int32(2))
                                 .put("/s/holders/a:aaaaaaa", "a", 1)
                                 .put("/s/holders/b:bbbbbbb", "b", 2)
                                 .put("/s/holders/c:ccccccc", "c", 3)
                                 .recognise();
        QCOMPARE(objects.size(), 1);
        QCOMPARE(objects[0].kind, Kind::Semaphore);
        QCOMPARE(objects[0].permits, 2);
        QCOMPARE(namesOf(objects[0].holders), (QStringList{"a", "b"}));
        QCOMPARE(namesOf(objects[0].waiters), QStringList{"c"});
        QCOMPARE(objects[0].toJson(0).value("used").toInt(), 2);
    }

    void countedAndDoubleBarriers()
    {
        const auto objects = Keys()
                                 .put("/cb/ready", "m1:aaaaaaa")
                                 .put("/cb/waiting/m1:aaaaaaa", "m1:aaaaaaa", 1)
                                 .put("/cb/waiting/m2:bbbbbbb", "m2:bbbbbbb", 2)
                                 .put("/db/enter/ready", "x:aaaaaaa")
                                 .put("/db/enter/waiting/x:aaaaaaa", "x:aaaaaaa", 3)
                                 .put("/db/leave/waiting/y:bbbbbbb", "y:bbbbbbb", 4)
                                 .recognise();
        QCOMPARE(objects.size(), 2);
        QCOMPARE(objects[0].kind, Kind::CountedBarrier);
        QVERIFY(objects[0].set);
        QCOMPARE(namesOf(objects[0].members), (QStringList{"m1", "m2"}));
        QCOMPARE(objects[1].kind, Kind::DoubleBarrier);
        QCOMPARE(objects[1].path, QByteArray("/db"));
        QCOMPARE(namesOf(objects[1].members), QStringList{"x"});
        QCOMPARE(namesOf(objects[1].leaving), QStringList{"y"});
        QCOMPARE(objects[1].keys.size(), 3);
    }

    void barrierIsALeasedToken()
    {
        const auto objects = Keys().put("/gate", "DistributedBarrier:ab12cd3:Zz9Yy8x", 7).recognise();
        QCOMPARE(objects.size(), 1);
        QCOMPARE(objects[0].kind, Kind::Barrier);
        QVERIFY(objects[0].set);
        QCOMPARE(namesOf(objects[0].holders), QStringList{"DistributedBarrier:ab12cd3"});
        QCOMPARE(objects[0].holders.first().lease, 7);
    }

    void workQueueClaimsAndOrphans()
    {
        const auto objects = Keys()
                                 .put("/wq/items/0000001700000000000-abc", "x")
                                 .put("/wq/items/0000001700000001000-def", "y")
                                 .put("/wq/delayed/0000001800000000000-ghi", "z")
                                 .put("/wq/claimed/i1", "v")
                                 .put("/wq/claims/i1", "consumer-1", 9)
                                 .put("/wq/attempts/i1", int32(1))
                                 .put("/wq/claimed/i2", "w")
                                 .put("/wq/dlq/i3", "dead")
                                 .recognise();
        QCOMPARE(objects.size(), 1);
        const CoordinationObject &queue = objects[0];
        QCOMPARE(queue.kind, Kind::WorkQueue);
        QCOMPARE(queue.depth, 2);
        QCOMPARE(queue.oldestMs, 1700000000000);
        QCOMPARE(queue.delayed, 1);
        QCOMPARE(queue.inFlight, 2);
        QCOMPARE(queue.orphans, 1);
        QCOMPARE(queue.deadLetters, 1);
        QCOMPARE(namesOf(queue.holders), QStringList{"consumer-1"});
    }

    void queuesAndCounters()
    {
        const auto objects = Keys()
                                 .put("/q/0000001700000000000-abc", "1")
                                 .put("/q/0000001700000000000-00001-abc", "2")
                                 .put("/pq/00003/0000000000000000", "p")
                                 .put("__/pq/00003", {})  // the priority sentinel, outside the queue
                                 .put("/n", int64(-5))
                                 .put("/text8", "abcdefgh")  // eight bytes of text: not a counter
                                 .recognise();
        QCOMPARE(objects.size(), 3);
        QCOMPARE(objects[0].kind, Kind::Counter);
        QCOMPARE(objects[0].value, -5);
        QCOMPARE(objects[1].kind, Kind::PriorityQueue);
        QCOMPARE(objects[1].depthByPriority, (QMap<int, qint64>{{3, 1}}));
        QCOMPARE(objects[2].kind, Kind::Queue);
        QCOMPARE(objects[2].depth, 2);
    }

    void serviceInstancesByName()
    {
        const QByteArray instance = R"({"name":"web","address":"10.0.0.7","port":8080,"id":"abc1234"})";
        const auto objects = Keys()
                                 .put("/svc/names/web/abc1234", instance, 5)
                                 .put("/svc/names/web/not-json", "x", 5)
                                 .recognise();
        QCOMPARE(objects.size(), 1);
        QCOMPARE(objects[0].kind, Kind::Service);
        QCOMPARE(objects[0].path, QByteArray("/svc/names/web"));
        QCOMPARE(namesOf(objects[0].members), QStringList{"abc1234"});
        QCOMPARE(objects[0].toJson(0).value("instances").toArray().first().toObject().value("value").toObject()
                     .value("port").toInt(),
                 8080);
    }

    // Patroni's documented layout under its default namespace, /service/<scope>/: the leader key
    // names a member, each member describes itself in JSON, the rest belongs to the cluster.
    void patroniClusterLeaderAndMembers()
    {
        const QByteArray primary = R"({"conn_url":"postgres://10.0.0.1:5432/postgres","api_url":"http://10.0.0.1:8008/patroni","state":"running","role":"primary","version":"3.0.2","timeline":1})";
        const QByteArray replica = R"({"conn_url":"postgres://10.0.0.2:5432/postgres","state":"streaming","role":"replica"})";
        const auto objects = Keys()
                                 .put("/service/pg/config", R"({"ttl":30,"loop_wait":10})")
                                 .put("/service/pg/initialize", "7180215863218329633")
                                 .put("/service/pg/members/pg-0", primary, 0x51)
                                 .put("/service/pg/members/pg-1", replica, 0x52)
                                 .put("/service/pg/members/pg-2", "not JSON", 0x53)
                                 .put("/service/pg/leader", "pg-0", 0x51)
                                 .put("/service/pg/optime/leader", "67108960")
                                 .put("/service/pg/status", R"({"optime":67108960})")
                                 .put("/service/pg/sync", R"({"leader":"pg-0","sync_standby":null})")
                                 .put("/service/pg/history", "[]")
                                 .put("/service/pg/failover", "{}")
                                 .put("/service/pg/unknown", "x")  // not Patroni's: not the cluster's
                                 .recognise();
        QCOMPARE(objects.size(), 1);
        const CoordinationObject &cluster = objects[0];
        QCOMPARE(cluster.kind, Kind::PostgresCluster);
        QCOMPARE(cluster.kindName(), QStringLiteral("postgresCluster"));
        QCOMPARE(cluster.path, QByteArray("/service/pg"));
        QCOMPARE(cluster.rule, QStringLiteral("Patroni"));
        QCOMPARE(cluster.keys.size(), 11);
        QCOMPARE(namesOf(cluster.holders), QStringList{"pg-0"});
        QCOMPARE(cluster.holders[0].key, QByteArray("/service/pg/leader"));
        QCOMPARE(cluster.holders[0].lease, qint64(0x51));
        QCOMPARE(namesOf(cluster.members), (QStringList{"pg-0", "pg-1", "pg-2"}));
        QCOMPARE(cluster.members[0].role, QStringLiteral("primary"));
        QCOMPARE(cluster.members[0].state, QStringLiteral("running"));
        QCOMPARE(cluster.members[1].role, QStringLiteral("replica"));
        QCOMPARE(cluster.members[1].state, QStringLiteral("streaming"));
        QVERIFY(cluster.members[2].role.isEmpty() && cluster.members[2].state.isEmpty());
        QVERIFY(cluster.waiters.isEmpty());

        const QJsonObject json = cluster.toJson(0);
        QCOMPARE(json.value("kind").toString(), QStringLiteral("postgresCluster"));
        QCOMPARE(json.value("rule").toString(), QStringLiteral("Patroni"));
        QCOMPARE(json.value("leader").toObject().value("name").toString(), QStringLiteral("pg-0"));
        QCOMPARE(json.value("leader").toObject().value("lease_id").toString(), QStringLiteral("0000000000000051"));
        const QJsonArray members = json.value("members").toArray();
        QCOMPARE(members.size(), 3);
        QCOMPARE(members[1].toObject().value("role").toString(), QStringLiteral("replica"));
        QCOMPARE(members[1].toObject().value("state").toString(), QStringLiteral("streaming"));
        QCOMPARE(members[0].toObject().value("value").toObject().value("conn_url").toString(),
                 QStringLiteral("postgres://10.0.0.1:5432/postgres"));
    }

    // Without its leader key the cluster is still there, leaderless; outside a service/ segment
    // the same names are nobody's.
    void patroniClusterWithoutLeaderAndOutsideItsNamespace()
    {
        const auto objects = Keys()
                                 .put("/service/pg/config", "{}")
                                 .put("/service/pg/members/pg-1", R"({"role":"replica","state":"running"})", 0x52)
                                 .put("/other/pg/leader", "pg-0", 0x51)
                                 .put("/other/pg/members/pg-1", "{}", 0x52)
                                 .recognise();
        QCOMPARE(objects.size(), 1);
        QCOMPARE(objects[0].kind, Kind::PostgresCluster);
        QVERIFY(objects[0].holders.isEmpty());
        QCOMPARE(namesOf(objects[0].members), QStringList{"pg-1"});
        QVERIFY(objects[0].toJson(0).value("leader").isNull());
    }

    // The index, fed one change at a time, agrees with a recognition from scratch after every
    // step: keys join, change layout (a value or lease that fits another one) and leave.
    void incrementalIndexAgreesWithARecognitionFromScratch()
    {
        const QByteArray instance = R"({"name":"web","id":"i1"})";
        struct Candidate
        {
            QByteArray key;
            QList<std::pair<QByteArray, qint64>> values;  // value, lease
        };
        const QList<Candidate> pool{
            {"/m/1a", {{{}, 0x1a}, {"x", 0}}},
            {"/m/2b", {{{}, 0x2b}, {R"({"clientId":"c","role":"candidate"})", 0x2b}}},
            {"/s/permits", {{int32(2), 0}, {"bad", 0}}},
            {"/s/holders/a:aaaaaaa", {{"a", 1}}},
            {"/s/holders/b:bbbbbbb", {{"b", 2}}},
            {"/s/holders/c:ccccccc", {{"c", 3}}},
            {"/cb/ready", {{"m1:aaaaaaa", 0}}},
            {"/cb/waiting/m1:aaaaaaa", {{"m1:aaaaaaa", 1}}},
            {"/db/enter/ready", {{"x:aaaaaaa", 0}}},
            {"/db/enter/waiting/x:aaaaaaa", {{"x:aaaaaaa", 3}}},
            {"/db/leave/waiting/y:bbbbbbb", {{"y:bbbbbbb", 4}}},
            {"/sel/LEADER", {{"b:Xy12345", 3}}},
            {"/sel/participants/b", {{"b", 2}}},
            {"/rw/read-r1:aaaaaaa", {{"r1", 1}}},
            {"/rw/write-w1:ccccccc", {{"w1", 3}}},
            {"/gate", {{"DistributedBarrier:ab12cd3:Zz9Yy8x", 7}, {int64(4), 0}, {"plain", 0}}},
            {"/n", {{int64(-5), 0}, {"abcdefgh", 0}}},
            {"/wq/items/0000001700000000000-abc", {{"x", 0}}},
            {"/wq/claimed/i1", {{"v", 0}}},
            {"/wq/claims/i1", {{"consumer-1", 9}}},
            {"/q/0000001700000000000-abc", {{"1", 0}}},
            {"/pq/00003/0000000000000000", {{"p", 0}}},
            {"/svc/names/web/i1", {{instance, 5}, {"x", 5}}},
            {"election/e/7587899368979014149", {{"leaderA", 7587899368979014149}, {"x", 0}}},
            {"election/e/7587899368979014159", {{"candB", 7587899368979014159}}},
            {"/locks/p", {{QByteArray(16, '\x01'), 5}, {"short", 5}, {"x", 0}}},
            {"/service/pg/leader", {{"pg-0", 5}, {"pg-1", 6}}},
            {"/service/pg/members/pg-0", {{R"({"role":"primary","state":"running"})", 5}, {"x", 5}}},
        };
        QRandomGenerator random(20261201);
        Internal::CoordinationIndex index;
        QMap<QByteArray, KeyValue> store;
        QList<CoordinationObject> followed;  // kept by the changes alone, as a model keeps its rows
        qint64 revision = 100;
        for (int step = 0; step < 2000; ++step) {
            const Candidate &candidate = pool.at(random.bounded(int(pool.size())));
            if (store.contains(candidate.key) && random.bounded(3) == 0) {
                store.remove(candidate.key);
                index.remove(candidate.key);
            } else {
                const auto &[value, lease] = candidate.values.at(random.bounded(int(candidate.values.size())));
                KeyValue kv = store.value(candidate.key);
                kv.key = candidate.key;
                kv.value = value;
                kv.lease = lease;
                kv.modRevision = ++revision;
                if (kv.createRevision == 0)
                    kv.createRevision = kv.modRevision;
                store.insert(kv.key, kv);
                index.put(kv);
            }
            if (random.bounded(4) == 0 || step == 1999) {  // several changes may share a refresh
                applyChanges(&followed, index.refresh());
                const QList<CoordinationObject> expected = CoordinationRecogniser::recognise(store.values());
                QCOMPARE(index.objects(), expected);
                QCOMPARE(followed, expected);
            }
        }
        QVERIFY(!index.objects().isEmpty());
    }

    // A FIFO and a priority queue are counted a key at a time: after any mix of puts, takes and
    // rewrites, each says what its keys say (depth, oldest put time, depth by priority, the keys
    // sorted), and an emptied queue is gone.
    void queuesFollowedKeyByKey()
    {
        QRandomGenerator random(20261205);
        Internal::CoordinationIndex index;
        QMap<QByteArray, qint64> fifo;  // key -> put time
        QMap<QByteArray, int> priority;  // key -> priority
        qint64 revision = 1;
        const auto put = [&](const QByteArray &key) {
            KeyValue kv;
            kv.key = key;
            kv.value = "item";
            kv.createRevision = kv.modRevision = ++revision;
            index.put(kv);
        };
        for (int step = 0; step < 3000; ++step) {
            const bool inFifo = random.bounded(2) == 0;
            const int which = random.bounded(60);
            const qint64 putTime = 1700000000000LL + which * 7;
            const QByteArray fifoKey = "/work/q/" + QByteArray::number(putTime).rightJustified(19, '0') + "-a" + QByteArray::number(which % 10) + "z";
            const int level = which % 4;
            const QByteArray priorityKey = "/work/pq/" + QByteArray::number(level).rightJustified(5, '0') + '/'
                                         + QByteArray::number(which).rightJustified(16, '0');
            const QByteArray key = inFifo ? fifoKey : priorityKey;
            const bool present = inFifo ? fifo.contains(key) : priority.contains(key);
            if (present && random.bounded(3) > 0) {
                index.remove(key);
                inFifo ? void(fifo.remove(key)) : void(priority.remove(key));
            } else {
                put(key);  // new, or the same key written again
                inFifo ? void(fifo.insert(key, putTime)) : void(priority.insert(key, level));
            }
            if (random.bounded(5) > 0)
                continue;
            index.refresh();
            const QList<CoordinationObject> objects = index.objects();
            const auto found = [&objects](Kind kind) {
                const auto at = std::find_if(objects.begin(), objects.end(), [kind](const CoordinationObject &o) { return o.kind == kind; });
                return at == objects.end() ? std::optional<CoordinationObject>() : std::optional<CoordinationObject>(*at);
            };
            const std::optional<CoordinationObject> queue = found(Kind::Queue);
            QCOMPARE(queue.has_value(), !fifo.isEmpty());
            if (queue) {
                QCOMPARE(queue->path, QByteArray("/work/q"));
                QCOMPARE(queue->depth, fifo.size());
                QCOMPARE(queue->keys, fifo.keys());
                QCOMPARE(queue->oldestMs, *std::min_element(fifo.begin(), fifo.end()));
            }
            const std::optional<CoordinationObject> byPriority = found(Kind::PriorityQueue);
            QCOMPARE(byPriority.has_value(), !priority.isEmpty());
            if (byPriority) {
                QMap<int, qint64> depths;
                for (const int each : priority)
                    ++depths[each];
                QCOMPARE(byPriority->depth, priority.size());
                QCOMPARE(byPriority->keys, priority.keys());
                QCOMPARE(byPriority->depthByPriority, depths);
            }
        }
    }
};

QTEST_GUILESS_MAIN(tst_CoordinationRecogniser)
#include "tst_coordinationrecogniser.moc"
