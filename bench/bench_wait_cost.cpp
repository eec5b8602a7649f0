// SPDX-License-Identifier: Apache-2.0
// What etcd and a client spend, in CPU, on each way a lock's waiter can learn that the entries
// ahead of it are gone, beside the Txn + Delete pair that every lock cycle pays:
//   - following: a watch on the lock's prefix, open all along, that hears every delete;
//   - reading: one linearizable Get (a waiter told of one deletion reads whether anyone is left);
//   - watching per wait: a single-key watch created and cancelled.
// A lock whose waiters follow pays one event per waiter per hand-off; one whose waiters watch
// only the entry ahead pays a read and a watch per hand-off instead, the read on the hand-off's
// path. Where etcd and the clients share the cores, whatever one costs is taken from the other.
//
// Each figure is CPU time over operations in a slice: etcd's from its /proc stat, the client's
// from this process (the followers' clients included, since answering their events is part of
// what following costs). Slices of each kind take turns, in an order rotating every round.

#include "benchsupport.h"

#include <QEtcd/client.h>
#include <QEtcd/watcher.h>

#include <functional>
#include <vector>

using namespace QEtcd;
using namespace Bench;
using namespace std::chrono;

namespace {

struct Cost
{
    double etcdUs = 0;
    double clientUs = 0;
    int operations = 0;
};

// Runs operation back to back for window and returns its CPU cost per operation.
Cost measure(const QString &etcdStat, milliseconds window, const std::function<void()> &operation)
{
    const double etcdBefore = statCpuSeconds(etcdStat);
    const double clientBefore = processCpuSeconds();
    const qint64 start = nowNs();
    int operations = 0;
    while (nowNs() - start < duration_cast<nanoseconds>(window).count()) {
        operation();
        ++operations;
    }
    return {(statCpuSeconds(etcdStat) - etcdBefore) * 1e6 / operations,
            (processCpuSeconds() - clientBefore) * 1e6 / operations, operations};
}

// One way of learning of departures, and the slices measured of it.
class Kind
{
public:
    Kind(QString name, std::function<Cost()> slice) : m_name(std::move(name)), m_slice(std::move(slice)) {}
    void measureSlice(milliseconds window)
    {
        m_costs.append(m_slice());
        m_seconds += duration<double>(window).count();
    }
    double etcdUs() const { return mean(&Cost::etcdUs); }
    double clientUs() const { return mean(&Cost::clientUs); }
    QString name() const { return m_name; }
    QJsonObject figures() const
    {
        QJsonArray etcd;
        QJsonArray client;
        int operations = 0;
        for (const Cost &cost : m_costs) {
            etcd.append(rounded(cost.etcdUs));
            client.append(rounded(cost.clientUs));
            operations += cost.operations;
        }
        return {{"etcd_cpu_us_per_op", etcd},
                {"client_cpu_us_per_op", client},
                {"etcd_cpu_us_mean", rounded(etcdUs())},
                {"client_cpu_us_mean", rounded(clientUs())},
                {"ops_per_s", rounded(operations / m_seconds)}};
    }

private:
    double mean(double Cost::*field) const
    {
        double sum = 0;
        for (const Cost &cost : m_costs)
            sum += cost.*field;
        return m_costs.isEmpty() ? 0 : sum / m_costs.size();
    }
    QString m_name;
    std::function<Cost()> m_slice;
    QList<Cost> m_costs;
    double m_seconds = 0;
};

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parseCommandLine(parser, app,
                     QStringLiteral("CPU per operation, etcd's and the client's, for each way a lock's waiter can "
                                    "learn of departures, beside a bare Txn+Delete pair. Prints one JSON object."),
                     {{QStringLiteral("seconds"), QStringLiteral("Length of one slice."), QStringLiteral("s"),
                       QStringLiteral("2")},
                      {QStringLiteral("rounds"), QStringLiteral("Slices of each kind, taking turns."),
                       QStringLiteral("n"), QStringLiteral("3")},
                      {QStringLiteral("followers"), QStringLiteral("Clients following the bare key's deletions."),
                       QStringLiteral("n"), QStringLiteral("15")}});
    return run([&] {
        const milliseconds slice = seconds(positiveOption(parser, QStringLiteral("seconds")));
        const int rounds = positiveOption(parser, QStringLiteral("rounds"));
        const int followerCount = positiveOption(parser, QStringLiteral("followers"));
        Testing::EtcdCluster cluster;
        startCluster(cluster);
        const QString etcdStat = QStringLiteral("/proc/%1/stat").arg(cluster.pid(0));
        Client client(ClientOptions::fromEndpoints(cluster.clientUrls()));
        const QByteArray present = "/bench/wait/present";
        await(client.put(present, "x"), QStringLiteral("put"));

        const auto txnDelete = [&] { txnThenDelete(client, "/bench/wait/entry"); };
        const auto followedTxnDelete = [&] {
            const Followers followers(cluster.clientUrls(), "/bench/wait/", followerCount);
            return measure(etcdStat, slice, txnDelete);
        };
        const auto linearizableGet = [&] {
            if (await(client.get(present), QStringLiteral("get")).kvs.isEmpty())
                fail(QStringLiteral("the read found nothing"));
        };
        const auto watchCreatedAndCancelled = [&] {
            Watcher watch(&client, present);
            const Status started = await(watch.start(), QStringLiteral("watch"));
            if (!started)
                fail(QStringLiteral("a watch did not start: ") + started.toString());
            watch.close();
        };
        const auto measured = [&](const std::function<void()> &operation) {
            return [&, operation] { return measure(etcdStat, slice, operation); };
        };
        std::vector<Kind> kinds{{QStringLiteral("txn_delete"), measured(txnDelete)},
                                {QStringLiteral("txn_delete_followed"), followedTxnDelete},
                                {QStringLiteral("linearizable_get"), measured(linearizableGet)},
                                {QStringLiteral("watch_created_and_cancelled"), measured(watchCreatedAndCancelled)}};
        takeTurns(rounds, int(kinds.size()), [&](int, int kind) { kinds[size_t(kind)].measureSlice(slice); });
        QJsonObject result{{"benchmark", "wait_cost"}, {"slice_s", qint64(slice.count() / 1000)},
                           {"rounds", rounds},          {"followers", followerCount}};
        for (const Kind &kind : kinds)
            result.insert(kind.name(), kind.figures());
        const Kind &bare = kinds[0];
        const Kind &followed = kinds[1];
        result.insert(QStringLiteral("per_follower_event"),
                      QJsonObject{{"etcd_cpu_us", rounded((followed.etcdUs() - bare.etcdUs()) / followerCount)},
                                  {"client_cpu_us", rounded((followed.clientUs() - bare.clientUs()) / followerCount)}});
        return result;
    });
}
