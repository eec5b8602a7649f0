// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"
#include "testhooks_p.h"

#include <QEtcd/client.h>
#include <QEtcd/clustermaintenance.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>

#include <QtCore/QElapsedTimer>

#include <atomic>
#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

class tst_Client : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    ClientOptions options() const { return ClientOptions::fromEndpoints(m_cluster.clientUrls()); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(options());
        QVERIFY(m_client->configurationStatus().isOk());
    }

    void putGetDelete()
    {
        PutResult put;
        QETCD_AWAIT(m_client->put("/kv/a", "1"), put);
        QVERIFY2(put.status.isOk(), qPrintable(put.status.toString()));
        QVERIFY(put.header.revision > 0);

        RangeResult got;
        QETCD_AWAIT(m_client->get("/kv/a"), got);
        QVERIFY(got.status.isOk());
        QCOMPARE(got.kvs.size(), 1);
        QCOMPARE(got.kvs[0].key, QByteArray("/kv/a"));
        QCOMPARE(got.kvs[0].value, QByteArray("1"));
        QCOMPARE(got.kvs[0].version, 1);
        QCOMPARE(got.kvs[0].createRevision, put.header.revision);

        PutOptions withPrev;
        withPrev.prevKv = true;
        QETCD_AWAIT(m_client->put("/kv/a", "2", withPrev), put);
        QVERIFY(put.prevKv.has_value());
        QCOMPARE(put.prevKv->value, QByteArray("1"));

        DeleteOptions deletePrev;
        deletePrev.prevKv = true;
        DeleteResult removed;
        QETCD_AWAIT(m_client->remove("/kv/a", deletePrev), removed);
        QVERIFY(removed.status.isOk());
        QCOMPARE(removed.deleted, 1);
        QCOMPARE(removed.prevKvs.size(), 1);
        QCOMPARE(removed.prevKvs[0].value, QByteArray("2"));

        QETCD_AWAIT(m_client->get("/kv/a"), got);
        QVERIFY(got.status.isOk());
        QVERIFY(got.kvs.isEmpty());
    }

    void rangeOptions()
    {
        for (const char *k : {"/r/c", "/r/a", "/r/b", "/r2/x"}) {
            PutResult put;
            QETCD_AWAIT(m_client->put(k, QByteArray(k).toUpper()), put);
            QVERIFY(put.status.isOk());
        }
        RangeOptions prefix;
        prefix.range = KeyRange::prefix();
        RangeResult got;
        QETCD_AWAIT(m_client->get("/r/", prefix), got);
        QCOMPARE(got.kvs.size(), 3);  // "/r/" never matches "/r2/x"
        QCOMPARE(got.kvs[0].key, QByteArray("/r/a"));

        RangeOptions sorted = prefix;
        sorted.sortTarget = SortTarget::Key;
        sorted.sortOrder = SortOrder::Descending;
        sorted.limit = 2;
        QETCD_AWAIT(m_client->get("/r/", sorted), got);
        QCOMPARE(got.kvs.size(), 2);
        QCOMPARE(got.kvs[0].key, QByteArray("/r/c"));
        QVERIFY(got.more);
        QCOMPARE(got.count, 3);

        RangeOptions keysOnly = prefix;
        keysOnly.keysOnly = true;
        QETCD_AWAIT(m_client->get("/r/", keysOnly), got);
        QCOMPARE(got.kvs.size(), 3);
        QVERIFY(got.kvs[0].value.isEmpty());

        RangeOptions countOnly = prefix;
        countOnly.countOnly = true;
        QETCD_AWAIT(m_client->get("/r/", countOnly), got);
        QVERIFY(got.kvs.isEmpty());
        QCOMPARE(got.count, 3);

        RangeOptions explicitRange;
        explicitRange.range = KeyRange::upTo("/r/c");
        QETCD_AWAIT(m_client->get("/r/a", explicitRange), got);
        QCOMPARE(got.kvs.size(), 2);

        RangeOptions serializable = prefix;
        serializable.serializable = true;
        QETCD_AWAIT(m_client->get("/r/", serializable), got);
        QCOMPARE(got.kvs.size(), 3);

        RangeOptions fromKey;
        fromKey.range = KeyRange::fromKey();
        fromKey.countOnly = true;
        QETCD_AWAIT(m_client->get("/r/b", fromKey), got);
        QVERIFY(got.count >= 3);  // /r/b, /r/c, /r2/x and anything after
    }

    void readAtRevision()
    {
        PutResult first, second;
        QETCD_AWAIT(m_client->put("/rev/k", "old"), first);
        QETCD_AWAIT(m_client->put("/rev/k", "new"), second);
        RangeOptions atFirst;
        atFirst.revision = first.header.revision;
        RangeResult got;
        QETCD_AWAIT(m_client->get("/rev/k", atFirst), got);
        QCOMPARE(got.kvs.value(0).value, QByteArray("old"));
    }

    void putIgnoreValueAndLease()
    {
        LeaseGrantResult lease;
        QETCD_AWAIT(m_client->leaseGrant(60), lease);
        QVERIFY(lease.status.isOk());
        PutOptions leased;
        leased.lease = lease.id;
        PutResult put;
        QETCD_AWAIT(m_client->put("/ign/k", "v1", leased), put);
        QVERIFY(put.status.isOk());

        PutOptions keepValue;
        keepValue.ignoreValue = true;
        keepValue.lease = lease.id;
        QETCD_AWAIT(m_client->put("/ign/k", {}, keepValue), put);
        QVERIFY2(put.status.isOk(), qPrintable(put.status.toString()));
        PutOptions keepLease;
        keepLease.ignoreLease = true;
        QETCD_AWAIT(m_client->put("/ign/k", "v2", keepLease), put);
        QVERIFY(put.status.isOk());
        RangeResult got;
        QETCD_AWAIT(m_client->get("/ign/k"), got);
        QCOMPARE(got.kvs.value(0).value, QByteArray("v2"));
        QCOMPARE(got.kvs.value(0).lease, lease.id);

        // ignoreValue on a key that does not exist is refused by etcd, and named.
        QETCD_AWAIT(m_client->put("/ign/missing", {}, keepValue), put);
        QVERIFY(!put.status.isOk());
        QVERIFY2(put.status.message().contains("/ign/missing"), qPrintable(put.status.message()));
        Result revoked;
        QETCD_AWAIT(m_client->leaseRevoke(lease.id), revoked);
        QVERIFY(revoked.status.isOk());
    }

    void txnComparesAndBranches()
    {
        PutResult put;
        QETCD_AWAIT(m_client->put("/txn/a", "x"), put);
        const qint64 created = put.header.revision;

        Txn txn;
        txn.compares = {Compare::value("/txn/a", CompareResult::Equal, "x"),
                        Compare::version("/txn/a", CompareResult::Equal, 1),
                        Compare::createRevision("/txn/a", CompareResult::Equal, created),
                        Compare::modRevision("/txn/a", CompareResult::Less, created + 1),
                        Compare::lease("/txn/a", CompareResult::Equal, 0),
                        Compare::absent("/txn/b")};
        Txn inner;
        inner.success = {TxnOp::range("/txn/a")};
        txn.success = {TxnOp::put("/txn/b", "y"), TxnOp::range("/txn/a"), TxnOp::nested(inner)};
        txn.failure = {TxnOp::put("/txn/failed", "1")};
        TxnResult result;
        QETCD_AWAIT(m_client->txn(txn), result);
        QVERIFY2(result.status.isOk(), qPrintable(result.status.toString()));
        QVERIFY(result.succeeded);
        QCOMPARE(result.responses.size(), 3);
        QCOMPARE(result.responses[1].kind, TxnOp::Kind::Range);
        QCOMPARE(result.responses[1].range.kvs.value(0).value, QByteArray("x"));
        QCOMPARE(result.responses[2].kind, TxnOp::Kind::Txn);
        QVERIFY(result.responses[2].txn);
        QCOMPARE(result.responses[2].txn->responses.value(0).range.kvs.value(0).key, QByteArray("/txn/a"));

        // Same compares again: /txn/b now exists, so the else branch runs.
        QETCD_AWAIT(m_client->txn(txn), result);
        QVERIFY(result.status.isOk());
        QVERIFY(!result.succeeded);
        RangeResult got;
        QETCD_AWAIT(m_client->get("/txn/failed"), got);
        QCOMPARE(got.kvs.size(), 1);

        Txn bad;
        bad.success = {TxnOp::put(QByteArray(), "v")};
        QETCD_AWAIT(m_client->txn(bad), result);
        QCOMPARE(result.status.code(), StatusCode::InvalidArgument);
        QVERIFY(result.status.message().contains("key is empty"));
    }

    void leases()
    {
        LeaseGrantResult lease;
        QETCD_AWAIT(m_client->leaseGrant(30), lease);
        QVERIFY(lease.status.isOk());
        QVERIFY(lease.id != 0);
        QCOMPARE(lease.ttl, 30);
        PutOptions leased;
        leased.lease = lease.id;
        PutResult put;
        QETCD_AWAIT(m_client->put("/lease/k1", "v", leased), put);
        QETCD_AWAIT(m_client->put("/lease/k2", "v", leased), put);

        LeaseTimeToLiveResult ttl;
        QETCD_AWAIT(m_client->leaseTimeToLive(lease.id, true), ttl);
        QVERIFY(ttl.status.isOk());
        QCOMPARE(ttl.grantedTtl, 30);
        QVERIFY(ttl.ttl > 0 && ttl.ttl <= 30);
        QCOMPARE(ttl.keys.size(), 2);
        QVERIFY(ttl.keys.contains("/lease/k1"));

        LeaseListResult list;
        QETCD_AWAIT(m_client->leaseList(), list);
        QVERIFY(list.ids.contains(lease.id));

        Result revoked;
        QETCD_AWAIT(m_client->leaseRevoke(lease.id), revoked);
        QVERIFY(revoked.status.isOk());
        RangeResult got;
        QETCD_AWAIT(m_client->get("/lease/k1"), got);
        QVERIFY(got.kvs.isEmpty());
        QETCD_AWAIT(m_client->leaseTimeToLive(lease.id), ttl);
        QCOMPARE(ttl.ttl, -1);
        QETCD_AWAIT(m_client->leaseRevoke(lease.id), revoked);
        QCOMPARE(revoked.status.code(), StatusCode::NotFound);
        QVERIFY(revoked.status.isLeaseNotFound());

        // A lease granted elsewhere, renewed once: its whole TTL again; gone, NotFound.
        LeaseGrantResult elsewhere;
        QETCD_AWAIT(m_client->leaseGrant(20), elsewhere);
        LeaseKeepAliveResult renewed;
        QETCD_AWAIT(m_client->leaseKeepAliveOnce(elsewhere.id), renewed);
        QVERIFY2(renewed.status.isOk(), qPrintable(renewed.status.toString()));
        QCOMPARE(renewed.id, elsewhere.id);
        QCOMPARE(renewed.ttl, 20);
        QVERIFY(renewed.header.revision > 0 && renewed.header.clusterId != 0);
        QETCD_AWAIT(m_client->leaseRevoke(elsewhere.id), revoked);
        QETCD_AWAIT(m_client->leaseKeepAliveOnce(elsewhere.id), renewed);
        QCOMPARE(renewed.status.code(), StatusCode::NotFound);
        QVERIFY2(renewed.status.message().contains(QStringLiteral("lease keep-alive %1").arg(elsewhere.id, 0, 16)),
                 qPrintable(renewed.status.message()));
        QETCD_AWAIT(m_client->leaseKeepAliveOnce(0), renewed);
        QCOMPARE(renewed.status.code(), StatusCode::InvalidArgument);

        LeaseGrantResult chosen;
        QETCD_AWAIT(m_client->leaseGrant(10, 0x1234abcd), chosen);
        QCOMPARE(chosen.id, 0x1234abcd);
        QETCD_AWAIT(m_client->leaseRevoke(chosen.id), revoked);
    }

    void compaction()
    {
        PutResult first, second;
        QETCD_AWAIT(m_client->put("/compact/k", "v1"), first);
        QETCD_AWAIT(m_client->put("/compact/k", "v2"), second);
        Result compacted;
        QETCD_AWAIT(m_client->compact(second.header.revision, true), compacted);
        QVERIFY2(compacted.status.isOk(), qPrintable(compacted.status.toString()));
        RangeOptions old;
        old.revision = first.header.revision;
        RangeResult got;
        QETCD_AWAIT(m_client->get("/compact/k", old), got);
        QCOMPARE(got.status.code(), StatusCode::OutOfRange);
        QVERIFY(got.status.message().contains("compacted"));
        QETCD_AWAIT(m_client->get("/compact/k"), got);
        QCOMPARE(got.kvs.value(0).value, QByteArray("v2"));

        // etcd does not say where it compacted: the search finds it, from any start.
        PutResult later;
        for (int i = 0; i < 20; ++i)
            QETCD_AWAIT(m_client->put("/compact/later", QByteArray::number(i)), later);
        for (const qint64 from : {qint64(1), first.header.revision, second.header.revision - 1}) {
            const RetainedHistory kept = awaited(ClusterMaintenance::retainedHistory(m_client.get(), from));
            QVERIFY2(kept.status.isOk(), qPrintable(kept.status.toString()));
            QCOMPARE(kept.oldest, second.header.revision);
            QCOMPARE(kept.current, later.header.revision);
            QCOMPARE(kept.count(), later.header.revision - second.header.revision + 1);
        }
        // Past the compaction, the first revision asked for is the oldest of interest.
        const RetainedHistory since = awaited(ClusterMaintenance::retainedHistory(m_client.get(), second.header.revision + 7, "/compact/k"));
        QCOMPARE(since.oldest, second.header.revision + 7);
    }

    // The console's read-only mode rests on this: every write is refused in the client, with a
    // status saying why and naming what was refused, and etcd never sees it.
    void readOnlyClientRefusesEveryWrite()
    {
        PutResult seeded;
        QETCD_AWAIT(m_client->put("/ro/seeded", "v1"), seeded);
        QETCD_AWAIT(m_client->put("/ro/seeded", "v2"), seeded);
        LeaseGrantResult lease;
        QETCD_AWAIT(m_client->leaseGrant(60), lease);
        PutOptions leased;
        leased.lease = lease.id;
        QETCD_AWAIT(m_client->put("/ro/leased", "v", leased), seeded);
        LeaseListResult leasesBefore;
        QETCD_AWAIT(m_client->leaseList(), leasesBefore);
        const qint64 revisionBefore = seeded.header.revision;

        ClientOptions readOnly = options();
        readOnly.readOnly = true;
        Client client(readOnly);

        // Empty when status is the read-only refusal naming what was refused, else what is wrong.
        const auto refused = [](const Status &status, const char *names) -> QString {
            if (status.code() != StatusCode::ReadOnly)
                return QStringLiteral("expected ReadOnly, got ") + status.toString();
            if (!status.message().contains(QLatin1String("read-only")) || !status.message().contains(QLatin1String(names)))
                return QStringLiteral("message does not name \"%1\" and read-only: ").arg(QLatin1String(names))
                    + status.message();
            return QString();
        };
        PutResult put;
        QETCD_AWAIT(client.put("/ro/new", "v"), put);
        QCOMPARE(refused(put.status, "put \"/ro/new\""), QString());

        LeaseKeepAliveResult renewed;
        QETCD_AWAIT(client.leaseKeepAliveOnce(lease.id), renewed);
        QCOMPARE(refused(renewed.status, "lease keep-alive"), QString());

        DeleteResult removed;
        QETCD_AWAIT(client.remove("/ro/seeded"), removed);
        QCOMPARE(refused(removed.status, "delete"), QString());
        DeleteOptions prefix;
        prefix.range = KeyRange::prefix();
        QETCD_AWAIT(client.remove("/ro/", prefix), removed);
        QCOMPARE(refused(removed.status, "/ro/"), QString());

        Txn putTxn;
        putTxn.compares = {Compare::absent("/ro/new")};
        putTxn.success = {TxnOp::put("/ro/new", "v")};
        Txn deleteOnFailure;  // a write in the branch that would not even run is refused too
        deleteOnFailure.compares = {Compare::present("/ro/seeded")};
        deleteOnFailure.success = {TxnOp::range("/ro/seeded")};
        deleteOnFailure.failure = {TxnOp::remove("/ro/seeded")};
        Txn nested;
        nested.success = {TxnOp::range("/ro/seeded"), TxnOp::nested(putTxn)};
        for (const Txn &txn : {putTxn, deleteOnFailure, nested}) {
            TxnResult result;
            QETCD_AWAIT(client.txn(txn), result);
            QCOMPARE(refused(result.status, "writing \"/ro/"), QString());
        }

        LeaseGrantResult granted;
        QETCD_AWAIT(client.leaseGrant(30), granted);
        QCOMPARE(refused(granted.status, "lease grant"), QString());
        Result result;
        QETCD_AWAIT(client.leaseRevoke(lease.id), result);
        QCOMPARE(refused(result.status, "lease revoke"), QString());
        QETCD_AWAIT(client.compact(revisionBefore), result);
        QCOMPARE(refused(result.status, "compact"), QString());

        // Reads still work, a transaction that only reads included.
        Txn readOnlyTxn;
        readOnlyTxn.compares = {Compare::present("/ro/seeded")};
        readOnlyTxn.success = {TxnOp::range("/ro/seeded")};
        TxnResult read;
        QETCD_AWAIT(client.txn(readOnlyTxn), read);
        QVERIFY2(read.status.isOk(), qPrintable(read.status.toString()));
        QCOMPARE(read.responses.value(0).range.kvs.value(0).value, QByteArray("v2"));

        RangeResult after;
        QETCD_AWAIT(client.get("/ro/", {KeyRange::prefix()}), after);
        QVERIFY2(after.status.isOk(), qPrintable(after.status.toString()));
        QCOMPARE(after.header.revision, revisionBefore);
        QCOMPARE(after.kvs.size(), 2);  // the leased key survived the refused revoke
        LeaseListResult leasesAfter;
        QETCD_AWAIT(client.leaseList(), leasesAfter);
        QCOMPARE(leasesAfter.ids, leasesBefore.ids);
        RangeOptions older;
        older.revision = revisionBefore - 1;  // still there: the compaction never happened
        QETCD_AWAIT(client.get("/ro/seeded", older), after);
        QVERIFY2(after.status.isOk(), qPrintable(after.status.toString()));
        QCOMPARE(after.kvs.value(0).value, QByteArray("v2"));
        QETCD_AWAIT(m_client->leaseRevoke(lease.id), result);
    }

    // A learner added at a peer URL nothing listens on never starts and never counts toward
    // quorum: the one member goes on committing while it is updated, refused promotion (its
    // log is behind) and removed.
    void membershipChangesOnALearner()
    {
        const QString peer = QStringLiteral("http://127.0.0.1:9");  // discard: nobody answers
        ClientOptions readOnlyOptions = options();
        readOnlyOptions.readOnly = true;
        Client readOnly(readOnlyOptions);
        MemberAddResult added;
        QETCD_AWAIT(readOnly.memberAdd({peer}, true), added);
        QCOMPARE(added.status.code(), StatusCode::ReadOnly);
        QVERIFY2(added.status.message().contains("member add http://127.0.0.1:9 (learner)"),
                 qPrintable(added.status.toString()));
        QETCD_AWAIT(m_client->memberAdd({}, true), added);
        QCOMPARE(added.status.code(), StatusCode::InvalidArgument);

        QETCD_AWAIT(m_client->memberAdd({peer}, true), added);
        QVERIFY2(added.status.isOk(), qPrintable(added.status.toString()));
        const quint64 learner = added.member.id;
        QVERIFY(learner != 0);
        QCOMPARE(added.member.peerUrls, QStringList{peer});
        QVERIFY(added.member.isLearner);
        QCOMPARE(added.members.size(), 2);
        QCOMPARE(added.member.name, QString());  // never started

        PutResult written;
        QETCD_AWAIT(m_client->put("/members/still-writable", "yes"), written);
        QVERIFY2(written.status.isOk(), qPrintable(written.status.toString()));

        const auto find = [&](const MemberListResult &list) {
            const auto it = std::find_if(list.members.cbegin(), list.members.cend(),
                                         [&](const Member &m) { return m.id == learner; });
            return it == list.members.cend() ? Member() : *it;
        };
        MemberListResult listed;
        QETCD_AWAIT(m_client->memberList(), listed);
        QVERIFY(find(listed).isLearner);

        MemberListResult after;
        QETCD_AWAIT(m_client->memberPromote(learner), after);
        QCOMPARE(after.status.code(), StatusCode::FailedPrecondition);
        QVERIFY2(after.status.message().contains("member promote " + QString::number(learner, 16)),
                 qPrintable(after.status.toString()));

        // (etcd 3.4 lists the learner as a voter after this, though raft still has it learn:
        // the write below commits with one of two members up.)
        const QString moved = QStringLiteral("http://127.0.0.1:7");
        QETCD_AWAIT(m_client->memberUpdate(learner, {moved}), after);
        QVERIFY2(after.status.isOk(), qPrintable(after.status.toString()));
        QETCD_AWAIT(m_client->memberList(), listed);
        QCOMPARE(find(listed).peerUrls, QStringList{moved});
        QETCD_AWAIT(m_client->put("/members/still-writable", "after the update"), written);
        QVERIFY2(written.status.isOk(), qPrintable(written.status.toString()));

        QETCD_AWAIT(m_client->memberRemove(learner), after);
        QVERIFY2(after.status.isOk(), qPrintable(after.status.toString()));
        QCOMPARE(after.members.size(), 1);
        QETCD_AWAIT(m_client->memberRemove(learner), after);
        QCOMPARE(after.status.code(), StatusCode::NotFound);
    }

    void clusterCalls()
    {
        MemberListResult members;
        QETCD_AWAIT(m_client->memberList(), members);
        QVERIFY(members.status.isOk());
        QCOMPARE(members.members.size(), 1);
        QCOMPARE(members.members[0].name, m_cluster.memberName(0));
        QCOMPARE(members.members[0].clientUrls.value(0), m_cluster.clientUrl(0));

        EndpointStatusResult status;
        QETCD_AWAIT(m_client->endpointStatus(), status);
        QVERIFY2(status.status.isOk(), qPrintable(status.status.toString()));
        QVERIFY(status.version.startsWith("3."));
        QCOMPARE(status.leader, members.members[0].id);
        QVERIFY(status.dbSize > 0);
        QVERIFY(status.raftIndex > 0);
        QCOMPARE(status.endpoint, m_cluster.clientUrl(0));

        QETCD_AWAIT(m_client->endpointStatus("http://127.0.0.1:1"), status);
        QCOMPARE(status.status.code(), StatusCode::InvalidArgument);

        AlarmListResult alarms;
        QETCD_AWAIT(m_client->alarms(), alarms);
        QVERIFY(alarms.status.isOk());
        QVERIFY(alarms.alarms.isEmpty());

        Result ping;
        QETCD_AWAIT(m_client->ping(), ping);
        QVERIFY(ping.status.isOk());
    }

    void keyNamespace()
    {
        ClientOptions spaced = options();
        spaced.keyNamespace = "/tenant-a";
        Client tenant(spaced);
        PutResult put;
        QETCD_AWAIT(tenant.put("/k", "inside"), put);
        QVERIFY(put.status.isOk());
        QETCD_AWAIT(m_client->put("/tenant-b/k", "outside"), put);

        RangeResult got;
        QETCD_AWAIT(m_client->get("/tenant-a/k"), got);
        QCOMPARE(got.kvs.value(0).value, QByteArray("inside"));

        RangeOptions all;
        all.range = KeyRange::prefix();
        QETCD_AWAIT(tenant.get(QByteArray(), all), got);
        QCOMPARE(got.kvs.size(), 1);
        QCOMPARE(got.kvs[0].key, QByteArray("/k"));  // stripped on the way back

        RangeOptions fromStart;
        fromStart.range = KeyRange::fromKey();
        QETCD_AWAIT(tenant.get("/", fromStart), got);
        QCOMPARE(got.kvs.size(), 1);  // never leaks past the namespace

        DeleteOptions everything;
        everything.range = KeyRange::prefix();
        DeleteResult removed;
        QETCD_AWAIT(tenant.remove(QByteArray(), everything), removed);
        QCOMPARE(removed.deleted, 1);
        QETCD_AWAIT(m_client->get("/tenant-b/k"), got);
        QCOMPARE(got.kvs.size(), 1);
    }

    void oversizedValueIsRefusedAndNothingWritten()
    {
        const QByteArray big(3 * 1024 * 1024, 'x');  // etcd's default limit is 1.5 MiB
        PutResult put;
        QETCD_AWAIT(m_client->put("/big/k", big), put);
        QVERIFY(!put.status.isOk());
        QVERIFY2(put.status.message().contains("/big/k"), qPrintable(put.status.message()));
        QVERIFY2(put.status.message().contains("large") || put.status.message().contains("max"),
                 qPrintable(put.status.message()));
        RangeResult got;
        QETCD_AWAIT(m_client->get("/big/k"), got);
        QVERIFY(got.status.isOk());
        QVERIFY(got.kvs.isEmpty());
    }

    void largeRangesArrive()
    {
        // Well past gRPC's 4 MiB receive default: 6 x 1 MiB values in one answer.
        const QByteArray value(1024 * 1024, 'v');
        for (int i = 0; i < 6; ++i) {
            PutResult put;
            QETCD_AWAIT(m_client->put("/large/" + QByteArray::number(i), value), put);
            QVERIFY(put.status.isOk());
        }
        RangeOptions prefix;
        prefix.range = KeyRange::prefix();
        RangeResult got;
        QETCD_AWAIT(m_client->get("/large/", prefix), got);
        QVERIFY2(got.status.isOk(), qPrintable(got.status.toString()));
        QCOMPARE(got.kvs.size(), 6);
    }

    // As the class's documentation advises: a QFutureWatcher on the GUI thread, not then().
    void resultsReachTheGuiThreadThroughAWatcher()
    {
        bool delivered = false;
        bool onMainThread = false;
        QFutureWatcher<PutResult> watcher;
        connect(&watcher, &QFutureWatcherBase::finished, this, [&] {
            delivered = watcher.result().status.isOk();
            onMainThread = QThread::currentThread() == qApp->thread();
        });
        watcher.setFuture(m_client->put("/then/k", "v"));
        QTRY_VERIFY_WITH_TIMEOUT(delivered, scaledMs(10000));
        QVERIFY(onMainThread);
    }

    // The onAnswer overloads hand each answer over on the thread it arrived on, with what the
    // future would have carried, and an onAnswer may start the next call.
    void onAnswerTakesAnswersWhereTheyArriveAndMayStartTheNextCall()
    {
        Client *client = m_client.get();
        const Client::Rpc rpc;
        PutResult put;
        RangeResult got;
        TxnResult swapped;
        DeleteResult removed;
        QList<bool> onMainThread;
        std::atomic<int> answers{0};
        std::atomic<bool> done{false};
        const auto arrived = [&] {
            onMainThread.append(QThread::currentThread() == qApp->thread());
            ++answers;
        };
        client->put("/direct/k", "1", {}, rpc, [&](const PutResult &answer) {
            arrived();
            put = answer;
            client->get("/direct/k", {}, rpc, [&](const RangeResult &answer) {
                arrived();
                got = answer;
                Txn txn;
                txn.compares = {Compare::value("/direct/k", CompareResult::Equal, "1")};
                txn.success = {TxnOp::put("/direct/k", "2")};
                client->txn(txn, rpc, [&](const TxnResult &answer) {
                    arrived();
                    swapped = answer;
                    client->remove("/direct/k", {}, rpc, [&](const DeleteResult &answer) {
                        arrived();
                        removed = answer;
                        done = true;
                    });
                });
            });
        });
        QTRY_VERIFY_WITH_TIMEOUT(done.load(), scaledMs(10000));
        QCOMPARE(onMainThread, QList<bool>({false, false, false, false}));
        QVERIFY2(put.status.isOk(), qPrintable(put.status.toString()));
        QVERIFY2(got.status.isOk(), qPrintable(got.status.toString()));
        QCOMPARE(got.kvs.size(), 1);
        QCOMPARE(got.kvs[0].value, QByteArray("1"));
        QCOMPARE(got.kvs[0].createRevision, put.header.revision);
        QVERIFY2(swapped.status.isOk(), qPrintable(swapped.status.toString()));
        QVERIFY(swapped.succeeded);
        QVERIFY2(removed.status.isOk(), qPrintable(removed.status.toString()));
        QCOMPARE(removed.deleted, 1);
        QCOMPARE(removed.header.revision, swapped.header.revision + 1);

        // Each answered exactly once: a later round trip through the same queue finds no repeat.
        RangeResult after;
        QETCD_AWAIT(client->get("/direct/k"), after);
        QVERIFY(after.kvs.isEmpty());
        QCOMPARE(answers.load(), 4);
    }

    // A call refused before anything was sent is answered too, but never inside the call that
    // started it, so an onAnswer that retries at once cannot recurse.
    void aRefusedCallIsAnsweredOutsideTheCallThatStartedIt()
    {
        ClientOptions readOnly = options();
        readOnly.readOnly = true;
        Client readOnlyClient(readOnly);
        struct Answer
        {
            Status status;
            bool onCallingThread = true;
            std::atomic<int> count{0};
        };
        Answer emptyKey, refusedWrite;
        m_client->get(QByteArray(), {}, {}, [&](const RangeResult &answer) {
            emptyKey.status = answer.status;
            emptyKey.onCallingThread = QThread::currentThread() == qApp->thread();
            ++emptyKey.count;
        });
        readOnlyClient.put("/direct/refused", "v", {}, {}, [&](const PutResult &answer) {
            refusedWrite.status = answer.status;
            refusedWrite.onCallingThread = QThread::currentThread() == qApp->thread();
            ++refusedWrite.count;
        });
        QTRY_COMPARE_WITH_TIMEOUT(emptyKey.count.load() + refusedWrite.count.load(), 2, scaledMs(10000));
        QVERIFY(!emptyKey.onCallingThread);
        QCOMPARE(emptyKey.status.code(), StatusCode::InvalidArgument);
        QVERIFY2(emptyKey.status.message().contains(QLatin1String("key")), qPrintable(emptyKey.status.toString()));
        QVERIFY(!refusedWrite.onCallingThread);
        QCOMPARE(refusedWrite.status.code(), StatusCode::ReadOnly);
        QVERIFY2(refusedWrite.status.message().contains(QLatin1String("/direct/refused")),
                 qPrintable(refusedWrite.status.toString()));
        RangeResult got;
        QETCD_AWAIT(m_client->get("/direct/refused"), got);
        QVERIFY(got.kvs.isEmpty());
    }

    // The overloads with a context answer on the context's thread, once each, and never inside
    // the call; a refusal comes the same way.
    void aContextTakesItsAnswersOnItsOwnThread()
    {
        QThread worker;
        worker.start();
        auto context = std::make_unique<QObject>();
        context->moveToThread(&worker);
        const auto cleanup = qScopeGuard([&] {
            QMetaObject::invokeMethod(context.release(), &QObject::deleteLater);
            worker.quit();
            worker.wait();
        });
        struct Answers
        {
            std::atomic<int> count{0};
            std::atomic<int> elsewhere{0};  // not on the context's thread
            QList<Status> statuses;
            qint64 createRevision = 0;
            QMutex mutex;
        } answers;
        const auto take = [&answers, &worker](const Status &status, qint64 createRevision = 0) {
            QMutexLocker locked(&answers.mutex);
            if (QThread::currentThread() != &worker)
                ++answers.elsewhere;
            answers.statuses.append(status);
            if (createRevision)
                answers.createRevision = createRevision;
            ++answers.count;
        };
        const Client::Rpc rpc;
        QObject *onWorker = context.get();
        m_client->put("/context/k", "1", {}, rpc, onWorker, [&](const PutResult &answer) {
            take(answer.status);
            m_client->get("/context/k", {}, rpc, onWorker, [&](const RangeResult &got) {
                take(got.status, got.kvs.value(0).createRevision);
                Txn txn;
                txn.compares = {Compare::value("/context/k", CompareResult::Equal, "1")};
                txn.success = {TxnOp::put("/context/k", "2")};
                m_client->txn(txn, rpc, onWorker, [&](const TxnResult &swapped) {
                    take(swapped.succeeded ? swapped.status : Status(StatusCode::Unknown, QStringLiteral("not swapped")));
                    m_client->remove("/context/k", {}, rpc, onWorker, [&](const DeleteResult &removed) {
                        take(removed.deleted == 1 ? removed.status : Status(StatusCode::Unknown, QStringLiteral("not deleted")));
                    });
                });
            });
        });
        m_client->get(QByteArray(), {}, rpc, onWorker, [&](const RangeResult &refused) { take(refused.status); });
        QTRY_COMPARE_WITH_TIMEOUT(answers.count.load(), 5, scaledMs(10000));
        // Each once: a later round trip through the same queue and thread finds no repeat.
        std::atomic<bool> after{false};
        m_client->get("/context/k", {}, rpc, onWorker, [&](const RangeResult &) { after = true; });
        QTRY_VERIFY_WITH_TIMEOUT(after.load(), scaledMs(10000));
        QMutexLocker locked(&answers.mutex);
        QCOMPARE(answers.count.load(), 5);
        QCOMPARE(answers.elsewhere.load(), 0);
        QCOMPARE(answers.statuses.size(), 5);
        int refusals = 0;
        for (const Status &status : answers.statuses) {
            if (status.code() == StatusCode::InvalidArgument)
                ++refusals;
            else
                QVERIFY2(status.isOk(), qPrintable(status.toString()));
        }
        QCOMPARE(refusals, 1);
        QVERIFY(answers.createRevision > 0);
    }

    // A context destroyed before its answer arrives never hears it, and what onAnswer captured
    // goes with it; a null context sends nothing at all, and says so.
    void aContextGoneDropsItsAnswerAndANullOneSendsNothing()
    {
        auto captured = std::make_shared<int>(0);
        std::atomic<int> ran{0};
        {
            QObject context;
            m_client->put("/context/gone", "v", {}, {}, &context, [captured, &ran](const PutResult &) { ++ran; });
        }
        PutResult written;
        QETCD_AWAIT(m_client->put("/context/after", "v"), written);
        QTRY_COMPARE_WITH_TIMEOUT(captured.use_count(), 1L, scaledMs(10000));
        QCoreApplication::processEvents();
        QCOMPARE(ran.load(), 0);
        RangeResult got;
        QETCD_AWAIT(m_client->get("/context/gone"), got);
        QCOMPARE(got.kvs.size(), 1);  // sent: only the answer was dropped

        QTest::ignoreMessage(QtWarningMsg,
                             QRegularExpression(QStringLiteral("put .*/context/unsent.* was not sent: it names no context")));
        m_client->put("/context/unsent", "v", {}, {}, nullptr, [&ran](const PutResult &) { ++ran; });
        QETCD_AWAIT(m_client->get("/context/unsent"), got);
        QVERIFY2(got.status.isOk(), qPrintable(got.status.toString()));
        QVERIFY(got.kvs.isEmpty());
        QCOMPARE(ran.load(), 0);
    }

    void everyClientSharesOneCompletionThread()
    {
        // gRPC polls all connections of a process from one thread at a time: a thread per
        // client would only hand each answer from the thread that read it to its own.
        const auto completionThreads = [] {
            int named = 0;
            for (const QFileInfo &task : QDir(QStringLiteral("/proc/self/task")).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot)) {
                QFile comm(task.filePath() + QStringLiteral("/comm"));
                if (comm.open(QIODevice::ReadOnly) && comm.readAll().trimmed() == "qetcd-grpc")
                    ++named;
            }
            return named;
        };
        QCOMPARE(completionThreads(), 1);
        {
            std::vector<std::unique_ptr<Client>> clients;
            for (int i = 0; i < 4; ++i) {
                clients.push_back(std::make_unique<Client>(options()));
                PutResult put;
                QETCD_AWAIT(clients.back()->put("/shared/" + QByteArray::number(i), "v"), put);
                QVERIFY2(put.status.isOk(), qPrintable(put.status.toString()));
            }
            QCOMPARE(completionThreads(), 1);
        }
        // The last client takes the thread with it, and the next one starts it again.
        m_client.reset();
        QTRY_COMPARE_WITH_TIMEOUT(completionThreads(), 0, scaledMs(5000));
        m_client = std::make_unique<Client>(options());
        RangeResult got;
        QETCD_AWAIT(m_client->get("/shared/3"), got);
        QVERIFY2(got.status.isOk(), qPrintable(got.status.toString()));
        QCOMPARE(got.kvs.size(), 1);
        QCOMPARE(completionThreads(), 1);
    }

    void unreachableEndpointIsBoundedByTheDeadline()
    {
        ClientOptions nowhere = ClientOptions::fromEndpoints({QStringLiteral("http://127.0.0.1:1")});
        nowhere.rpc = RpcResilience{RetryPolicy::bounded(2, 100ms), 2s};
        Client client(nowhere);
        QElapsedTimer clock;
        clock.start();
        RangeResult got;
        QETCD_AWAIT(client.get("/k"), got);
        QCOMPARE(got.status.code(), StatusCode::Unavailable);
        QVERIFY2(got.status.message().contains("after 3 attempts"), qPrintable(got.status.message()));
        // Both sides: two 100 ms pauses between the three attempts, and no more than the deadline.
        QVERIFY2(clock.elapsed() >= 200, qPrintable(QString::number(clock.elapsed())));
        QVERIFY2(clock.elapsed() < scaledMs(8000), qPrintable(QString::number(clock.elapsed())));
    }

    // A transaction is never repeated once it may have reached etcd, but one that could not
    // even connect was not sent, so it is retried like any call.
    void transactionThatNeverConnectedIsRetried()
    {
        ClientOptions nowhere = ClientOptions::fromEndpoints({QStringLiteral("http://127.0.0.1:1")});
        nowhere.rpc = RpcResilience{RetryPolicy::bounded(2, 100ms), 2s};
        Client client(nowhere);
        Txn txn;
        txn.success = {TxnOp::put("/k", "v")};
        TxnResult result;
        QETCD_AWAIT(client.txn(txn), result);
        QCOMPARE(result.status.code(), StatusCode::Unavailable);
        QVERIFY2(result.status.message().contains("after 3 attempts"), qPrintable(result.status.message()));
    }

    // etcd refuses a request as "too many" before proposing it, so nothing was applied and even
    // a transaction, never repeated after it may have reached etcd, is sent again.
    void aTransactionRefusedAsTooManyIsSentAgain()
    {
        ClientOptions busy = options();
        busy.rpc = RpcResilience{RetryPolicy::bounded(4, 50ms), 10s};
        Client client(busy);
        std::atomic<int> asked{0};
        Internal::setBeforeSend(&client, [&asked](const QString &what) {
            if (!what.startsWith(QLatin1String("txn")))
                return Internal::SendFault::None;
            return ++asked <= 2 ? Internal::SendFault::TooManyRequests : Internal::SendFault::None;
        });
        Txn txn;
        txn.compares = {Compare::absent("/busy/txn")};
        txn.success = {TxnOp::put("/busy/txn", "once")};
        TxnResult result;
        QETCD_AWAIT(client.txn(txn), result);
        Internal::setBeforeSend(&client, {});
        QVERIFY2(result.status.isOk(), qPrintable(result.status.toString()));
        QVERIFY(result.succeeded);
        QCOMPARE(asked.load(), 3);
        RangeResult got;
        QETCD_AWAIT(m_client->get("/busy/txn"), got);
        QCOMPARE(got.kvs.value(0).value, QByteArray("once"));
        QCOMPARE(got.kvs.value(0).version, 1);
    }

    void tooManyRequestsToTheEndIsToldWithTheAttemptsMade()
    {
        ClientOptions busy = options();
        busy.rpc = RpcResilience{RetryPolicy::bounded(2, 50ms), 10s};
        Client client(busy);
        std::atomic<int> asked{0};
        Internal::setBeforeSend(&client, [&asked](const QString &) {
            ++asked;
            return Internal::SendFault::TooManyRequests;
        });
        PutResult put;
        QETCD_AWAIT(client.put("/busy/put", "v"), put);
        Internal::setBeforeSend(&client, {});
        QCOMPARE(put.status.code(), StatusCode::ResourceExhausted);
        QVERIFY(put.status.isTooManyRequests());
        QVERIFY2(put.status.message().contains("(after 3 attempts)"), qPrintable(put.status.message()));
        QCOMPARE(asked.load(), 3);
        RangeResult got;
        QETCD_AWAIT(m_client->get("/busy/put"), got);
        QVERIFY(got.kvs.isEmpty());
    }

    void blackholedCallsFailWithinTheirDeadlineAndRecover()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY2(proxy.start(), qPrintable(proxy.errorString()));
        ClientOptions viaProxy = ClientOptions::fromEndpoints({proxy.url()});
        viaProxy.rpc = RpcResilience{RetryPolicy::never(), 1500ms};
        Client client(viaProxy);
        PutResult put;
        QETCD_AWAIT(client.put("/proxy/k", "1"), put);
        QVERIFY2(put.status.isOk(), qPrintable(put.status.toString()));

        proxy.setMode(FaultProxy::Mode::Blackhole);
        QElapsedTimer clock;
        clock.start();
        RangeResult got;
        QETCD_AWAIT(client.get("/proxy/k"), got);
        QCOMPARE(got.status.code(), StatusCode::DeadlineExceeded);
        QVERIFY(clock.elapsed() >= 1400);
        QVERIFY2(clock.elapsed() < scaledMs(5000), qPrintable(QString::number(clock.elapsed())));

        proxy.setMode(FaultProxy::Mode::Pass);
        QETCD_AWAIT(client.get("/proxy/k"), got);
        QVERIFY2(got.status.isOk(), qPrintable(got.status.toString()));
        QCOMPARE(got.kvs.value(0).value, QByteArray("1"));
    }
};

QTEST_GUILESS_MAIN(tst_Client)
#include "tst_client.moc"
