// SPDX-License-Identifier: Apache-2.0
#include "leasemodel.h"

#include "displaytext.h"

#include "clientthread_p.h"
#include "continuation_p.h"
#include "sortedmerge_p.h"

#include <QEtcd/client.h>
#include <QEtcd/coordinationrecogniser.h>

#include <QtCore/QDateTime>
#include <QtCore/QMutex>
#include <QtCore/QPromise>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>

namespace QEtcd {

bool LeaseModel::Lease::operator==(const Lease &other) const
{
    return id == other.id && grantedTtl == other.grantedTtl && ttl == other.ttl && expiresAtMs == other.expiresAtMs
        && keys == other.keys && owner == other.owner;
}

LeaseModel::LeaseModel(QObject *parent) : RefreshingListModel(5000, parent) {}

LeaseModel::~LeaseModel() = default;

void LeaseModel::clearRows()
{
    m_leases.clear();
    Q_EMIT countChanged();
}

namespace {
// Per-lease reads in flight at once: enough to keep a refresh short, few enough that 10,000
// leases neither flood etcd nor starve this process's other threads of the CPU.
constexpr int MaxLeaseReadsInFlight = 16;
} // namespace

// One list, then per lease its time to live with its keys, read keys only, and those keys'
// values (which tell a lock from an election) where a key changed since the last refresh (a
// lease's keys may hold megabytes), a few leases at a time; the rows change once, when all
// are in. The
// answers are taken on the client's own thread, and this thread hears only of the whole: 10,000
// answers queued here would hold its frames back.
void LeaseModel::read(quint64 generation)
{
    Internal::thenOn(client()->leaseList(), this, [this, generation](const LeaseListResult &list) {
        if (!current(generation) || !client())
            return;
        if (!list.status)
            return fail(list.status.message());
        if (list.ids.isEmpty())
            return apply({});
        struct Pending
        {
            QList<qint64> ids;
            std::vector<Lease> leases;
            QHash<qint64, Recognised> known;  // the last refresh's
            std::vector<Recognised> recognised;  // this one's, beside leases
            std::atomic<int> next = 0;
            std::atomic<int> outstanding = 0;
            QMutex mutex;
            QString error;
            QPromise<bool> all;
            std::function<void()> readNext;
        };
        auto pending = std::make_shared<Pending>();
        pending->ids = list.ids;
        pending->leases.resize(size_t(list.ids.size()));
        pending->recognised.resize(size_t(list.ids.size()));
        pending->known = m_recognised;
        pending->outstanding = int(list.ids.size());
        pending->all.start();
        Internal::thenOn(pending->all.future(), this, [this, generation, pending](bool) {
            if (!current(generation))
                return;
            if (!pending->error.isEmpty())
                return fail(pending->error);
            m_recognised.clear();
            for (size_t i = 0; i < pending->leases.size(); ++i) {
                if (pending->leases[i].ttl >= 0 && !pending->recognised[i].keys.isEmpty())
                    m_recognised.insert(pending->leases[i].id, std::move(pending->recognised[i]));
            }
            // Leases that expired between the list and their reading are gone.
            std::erase_if(pending->leases, [](const Lease &lease) { return lease.ttl < 0; });
            apply(std::move(pending->leases));
        });
        // Each lease read ends here, and the next one starts.
        const auto done = [weak = std::weak_ptr(pending)] {
            const auto state = weak.lock();
            if (!state)
                return;
            int left = state->outstanding.load();
            do {
                if (left <= 0)
                    return;  // abandoned
            } while (!state->outstanding.compare_exchange_weak(left, left - 1));
            if (left == 1) {
                state->all.addResult(true);
                state->all.finish();
            } else {
                state->readNext();
            }
        };
        // The client went away: nothing more is asked, and the refresh ends as read so far.
        const auto abandon = [weak = std::weak_ptr(pending)] {
            const auto state = weak.lock();
            if (!state || state->outstanding.exchange(0) == 0)
                return;
            {
                QMutexLocker locker(&state->mutex);
                state->error = QStringLiteral("the client went away while the leases were read");
            }
            state->all.addResult(false);
            state->all.finish();
        };
        Client *const etcd = client();
        QObject *const etcdThread = Internal::dispatcherContext(etcd);
        pending->readNext = [weak = std::weak_ptr(pending), etcd, etcdThread, done, abandon] {
            const auto state = weak.lock();
            if (!state)
                return;
            const int i = state->next++;
            if (i >= state->ids.size())
                return;
            const auto read = [etcd, etcdThread, i, state, done, abandon](const LeaseTimeToLiveResult &live) {
                Lease &lease = state->leases[size_t(i)];
                lease.id = live.id;
                lease.ttl = live.status ? live.ttl : -1;
                if (!live.status && live.status.code() != StatusCode::NotFound) {
                    QMutexLocker locker(&state->mutex);
                    state->error = live.status.message();
                }
                lease.grantedTtl = live.grantedTtl;
                lease.expiresAtMs = QDateTime::currentMSecsSinceEpoch() + live.ttl * 1000;
                for (const QByteArray &key : live.keys)
                    lease.keys.append(DisplayText::fromBytes(key));
                if (lease.ttl < 0 || live.keys.isEmpty())
                    return done();
                // etcd takes 128 operations per transaction by default; a few keys tell the owner.
                const QList<QByteArray> someKeys = live.keys.mid(0, 64);
                RangeOptions keysOnly;
                keysOnly.keysOnly = true;
                Txn listKeys;
                for (const QByteArray &key : someKeys)
                    listKeys.success.append(TxnOp::range(key, keysOnly));
                const auto recognise = [etcd, etcdThread, state, i, someKeys, done, abandon](const TxnResult &listed) {
                    Recognised now;
                    for (const TxnOpResult &response : listed.responses) {
                        for (const KeyValue &kv : response.range.kvs)
                            now.keys.append({kv.key, kv.modRevision});
                    }
                    const auto known = state->known.constFind(state->leases[size_t(i)].id);
                    if (known != state->known.cend() && known->keys == now.keys) {
                        state->recognised[size_t(i)] = *known;
                        state->leases[size_t(i)].owner = known->owner;
                        return done();
                    }
                    if (!listed.status || now.keys.isEmpty())
                        return done();
                    Txn readValues;
                    for (const QByteArray &key : someKeys)
                        readValues.success.append(TxnOp::range(key));
                    const auto owned = [state, i, keys = now.keys, done](const TxnResult &values) {
                        QList<KeyValue> kvs;
                        for (const TxnOpResult &response : values.responses)
                            kvs.append(response.range.kvs);
                        QStringList owners;
                        for (const CoordinationObject &object : CoordinationRecogniser::recognise(kvs))
                            owners.append(object.kindName() + QLatin1Char(' ') + DisplayText::fromBytes(object.path));
                        const QString owner = owners.join(QLatin1String(", "));
                        state->leases[size_t(i)].owner = owner;
                        // Values too large to answer at all stay unread until a key changes.
                        if (values.status || values.status.code() == StatusCode::ResourceExhausted)
                            state->recognised[size_t(i)] = {keys, owner};
                        done();
                    };
                    Internal::thenOn(etcd->txn(readValues), etcdThread, owned, [abandon](const TxnResult &) { abandon(); });
                };
                Internal::thenOn(etcd->txn(listKeys), etcdThread, recognise, [abandon](const TxnResult &) { abandon(); });
            };
            Internal::thenOn(etcd->leaseTimeToLive(state->ids[i], true), etcdThread, read,
                             [abandon](const LeaseTimeToLiveResult &) { abandon(); });
        };
        for (int started = 0; started < MaxLeaseReadsInFlight; ++started)
            pending->readNext();
    });
}

void LeaseModel::apply(std::vector<Lease> leases)
{
    const auto byId = [](const Lease &a, const Lease &b) { return a.id < b.id; };
    std::sort(leases.begin(), leases.end(), byId);
    // etcd tells the time left in whole seconds, and each refresh reads it at a slightly
    // different moment: a deadline that moved by less than that is the same deadline. Keeping
    // it keeps the row unchanged, so that a refresh of 10,000 idle leases changes no row (and
    // re-sorts nothing) instead of all of them.
    for (Lease &lease : leases) {
        const auto known = std::lower_bound(m_leases.cbegin(), m_leases.cend(), lease, byId);
        if (known != m_leases.cend() && known->id == lease.id
            && std::abs(known->expiresAtMs - lease.expiresAtMs) <= SameDeadlineMs) {
            lease.expiresAtMs = known->expiresAtMs;
            lease.ttl = known->ttl;
        }
    }
    Internal::mergeSorted(
        m_leases, leases, byId, std::equal_to<Lease>(),
        {[this](int row) { beginInsertRows({}, row, row); }, [this](int) { endInsertRows(); },
         [this](int row) { beginRemoveRows({}, row, row); }, [this](int) { endRemoveRows(); },
         [this](int row) { Q_EMIT dataChanged(index(row), index(row)); }});
    Q_EMIT countChanged();
    finish();
}

QVariantMap LeaseModel::deadlines() const
{
    QVariantMap map;
    for (const Lease &lease : m_leases) {
        map.insert(QString::number(quint64(lease.id), 16),
                   QVariantMap{{QStringLiteral("grantedTtl"), lease.grantedTtl}, {QStringLiteral("expiresAt"), lease.expiresAtMs}});
    }
    return map;
}

void LeaseModel::revoke(const QString &leaseId)
{
    bool ok = false;
    const qint64 id = qint64(leaseId.toULongLong(&ok, 16));
    if (!ok || id == 0) {
        Q_EMIT revokeFinished(leaseId, Status(StatusCode::InvalidArgument,
                                              QStringLiteral("\"%1\" is not a lease ID in hex").arg(leaseId)));
        return;
    }
    if (!client()) {
        Q_EMIT revokeFinished(leaseId, Status(StatusCode::NotStarted, QStringLiteral("no client to revoke lease %1 with").arg(leaseId)));
        return;
    }
    Internal::thenOn(client()->leaseRevoke(id), this, [this, leaseId](const Result &result) {
        Q_EMIT revokeFinished(leaseId, result.status);  // the client's words name the lease
        if (result.status)
            refresh();
    });
}

int LeaseModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : count();
}

QVariant LeaseModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Lease &lease = m_leases[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case IdRole:
        return QString::number(quint64(lease.id), 16);
    case GrantedTtlRole:
        return lease.grantedTtl;
    case TtlRole:
        return lease.ttl;
    case ExpiresAtRole:
        return lease.expiresAtMs;
    case KeysRole:
        return lease.keys;
    case OwnerRole:
        return lease.owner;
    }
    return {};
}

QHash<int, QByteArray> LeaseModel::roleNames() const
{
    return {{IdRole, "leaseId"}, {GrantedTtlRole, "grantedTtl"}, {TtlRole, "ttl"},
            {ExpiresAtRole, "expiresAt"}, {KeysRole, "keys"}, {OwnerRole, "owner"}};
}

} // namespace QEtcd
