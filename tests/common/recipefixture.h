// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a recipe test begins with: one real etcd member, started by initTestCase() (where etcd
// cannot start, the test fails), two clients on it; and the readings of signal spies and
// histories that these tests make.
//
//   class tst_Thing : public QObject, protected RecipeFixture
//   ...
//   void initTestCase() { QVERIFY2(startEtcd(), qPrintable(m_cluster.errorString())); }

#include "queuedkeys.h"

#include <QEtcd/client.h>
#include <QEtcd/enums.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/leaseevent.h>
#include <QEtcd/recipe.h>
#include <QEtcd/watcher.h>

#include <QtTest/QSignalSpy>

#include <algorithm>
#include <memory>
#include <utility>

namespace QEtcd::Testing {

class RecipeFixture
{
protected:
    // Also registers the types the tests' signal spies record.
    bool startEtcd()
    {
        qRegisterMetaType<Status>();
        qRegisterMetaType<ConnectionState>();
        qRegisterMetaType<LeaseEvent>();
        if (!m_cluster.start())
            return false;
        m_client = std::make_unique<Client>(direct());
        m_other = std::make_unique<Client>(direct());
        return true;
    }

    ClientOptions direct() const { return ClientOptions::fromEndpoints(m_cluster.clientUrls()); }

    // The keys under path/, oldest first: a lock's or an election's queue.
    QList<KeyValue> queue(const QByteArray &path) { return keysByCreation(m_client.get(), path + '/'); }

    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;
    std::unique_ptr<Client> m_other;  // a second participant's
};

// Options (RecipeOptions or one derived from it) with the lease TTL of seconds.
template <class Options = RecipeOptions>
Options withTtl(qint64 seconds)
{
    Options options;
    options.ttlSeconds = seconds;
    return options;
}

inline bool saidInHistory(const Recipe &recipe, const QString &words)
{
    const QList<RecipeHistoryEntry> history = recipe.history();
    return std::any_of(history.cbegin(), history.cend(),
                       [&](const RecipeHistoryEntry &entry) { return entry.text.contains(words); });
}

// (state, previous) of every connectionStateChanged() a spy recorded.
using StateChange = std::pair<ConnectionState, ConnectionState>;
inline QList<StateChange> stateChanges(const QSignalSpy &spy)
{
    QList<StateChange> result;
    for (const QList<QVariant> &arguments : spy)
        result.append({arguments[0].value<ConnectionState>(), arguments[1].value<ConnectionState>()});
    return result;
}

// stateChanges() sorted: changes reported from two threads (a lease's loss, its heal) may reach a
// listener in either order (Recipe::reportSource); each carries the state it left, and
// connectionState() reads the one computed last.
inline QList<StateChange> sorted(QList<StateChange> changes)
{
    std::sort(changes.begin(), changes.end());
    return changes;
}
inline QList<StateChange> sortedStateChanges(const QSignalSpy &spy)
{
    return sorted(stateChanges(spy));
}

// The kinds of the LeaseEvents a spy recorded, the event being the signal's argument at index.
inline QList<LeaseEventKind> leaseEventKinds(const QSignalSpy &spy, int index = 0)
{
    QList<LeaseEventKind> kinds;
    for (const QList<QVariant> &arguments : spy)
        kinds.append(arguments.at(index).value<LeaseEvent>().kind);
    return kinds;
}

// Whether anyone puts key at fromRevision or later, within ms: a presence key that another
// client removed must stay removed. Past revisions count too (the watch replays them).
inline bool putWithin(Client *client, const QByteArray &key, qint64 fromRevision, int ms)
{
    WatchOptions from;
    from.startRevision = fromRevision;
    from.noDelete = true;
    Watcher watch(client, key, from);
    QSignalSpy puts(&watch, &Watcher::eventsReceived);
    watch.start();
    return puts.wait(ms);
}

} // namespace QEtcd::Testing
