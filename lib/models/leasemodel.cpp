#include "leasemodel.h"

#include "continuation_p.h"
#include "sortedmerge_p.h"

#include <QEtcd/client.h>
#include <QEtcd/coordinationrecogniser.h>

#include <QtCore/QDateTime>

#include <algorithm>
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

// One list, then per lease its time to live with its keys and those keys' values (which tell
// a lock from an election), all in flight at once; the rows change once, when all are in.
void LeaseModel::read(quint64 generation)
{
    Internal::thenOn(client()->leaseList(), this, [this, generation](const LeaseListResult &list) {
        if (!current(generation) || !client())
            return;
        if (!list.status)
            return fail(list.status.message());
        struct Pending
        {
            std::vector<Lease> leases;
            int outstanding = 0;
            QString error;
        };
        auto pending = std::make_shared<Pending>();
        pending->leases.resize(size_t(list.ids.size()));
        pending->outstanding = int(list.ids.size());
        const auto done = [this, generation, pending] {
            if (--pending->outstanding > 0 || !current(generation))
                return;
            if (!pending->error.isEmpty())
                return fail(pending->error);
            // Leases that expired between the list and their reading are gone.
            std::erase_if(pending->leases, [](const Lease &lease) { return lease.ttl < 0; });
            apply(std::move(pending->leases));
        };
        if (list.ids.isEmpty())
            return apply({});
        for (qsizetype i = 0; i < list.ids.size(); ++i) {
            Internal::thenOn(client()->leaseTimeToLive(list.ids[i], true), this, [this, i, pending, done](const LeaseTimeToLiveResult &live) {
                if (!client())
                    return done();  // the client went away; what was read still counts
                Lease &lease = pending->leases[size_t(i)];
                lease.id = live.id;
                lease.ttl = live.status ? live.ttl : -1;
                if (!live.status && live.status.code() != StatusCode::NotFound)
                    pending->error = live.status.message();
                lease.grantedTtl = live.grantedTtl;
                lease.expiresAtMs = QDateTime::currentMSecsSinceEpoch() + live.ttl * 1000;
                for (const QByteArray &key : live.keys)
                    lease.keys.append(QString::fromUtf8(key));
                if (lease.ttl < 0 || live.keys.isEmpty())
                    return done();
                // etcd takes 128 operations per transaction by default; a few keys tell the owner.
                Txn reads;
                for (const QByteArray &key : live.keys.mid(0, 64))
                    reads.success.append(TxnOp::range(key));
                Internal::thenOn(client()->txn(reads), this, [pending, i, done](const TxnResult &values) {
                    QList<KeyValue> kvs;
                    for (const TxnOpResult &response : values.responses)
                        kvs.append(response.range.kvs);
                    QStringList owners;
                    for (const CoordinationObject &object : CoordinationRecogniser::recognise(kvs))
                        owners.append(object.kindName() + QLatin1Char(' ') + QString::fromUtf8(object.path));
                    pending->leases[size_t(i)].owner = owners.join(QLatin1String(", "));
                    done();
                });
            });
        }
    });
}

void LeaseModel::apply(std::vector<Lease> leases)
{
    std::sort(leases.begin(), leases.end(), [](const Lease &a, const Lease &b) { return a.id < b.id; });
    Internal::mergeSorted(
        m_leases, leases, [](const Lease &a, const Lease &b) { return a.id < b.id; }, std::equal_to<Lease>(),
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
