// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qetcdquickexport.h"
#include "refreshinglistmodel.h"

#include <QtCore/QHash>

#include <utility>
#include <vector>

namespace QEtcd {


/// `LeaseModel` in QML: every lease etcd has, with its keys and their owner.
///
/// Every lease etcd has, refreshed every refreshInterval: its granted TTL, the keys attached to
/// it, and the coordination object those keys make up ("lock /app/locks/deploy"). The
/// remaining TTL is not pushed row by row: expiresAt is the deadline, moved only when a refresh
/// finds it moved by more than a second (as a keep-alive moves it), and a view counts down to it
/// with its own clock (one timer for the view, not a signal per row per frame). A key re-put on
/// another lease moves with it: each refresh reads the keys from etcd, keys only; their values
/// (which tell a lock from an election) are read again only when a key changed.
class QETCD_QUICK_EXPORT LeaseModel : public RefreshingListModel
{
    Q_OBJECT
    QML_ELEMENT
    /// How many leases there are.
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    /// The roles of a row, with the names QML reads them by.
    enum Role {
        IdRole = Qt::UserRole + 1,  ///< `leaseId`: hex, as etcdctl prints it.
        GrantedTtlRole,             ///< `grantedTtl`: seconds.
        TtlRole,                    ///< `ttl`: seconds left when the deadline was last read as moved.
        ExpiresAtRole,              ///< `expiresAt`: ms since the epoch: the refresh's time plus ttl.
        KeysRole,                   ///< `keys`: a QStringList.
        OwnerRole,                  ///< `owner`: "kind path" of the coordination object, or empty.
    };
    Q_ENUM(Role)

    /// A LeaseModel re-read every 5 s once it has a client.
    explicit LeaseModel(QObject *parent = nullptr);
    /// Destroys the model.
    ~LeaseModel() override;

    /// How many leases there are.
    int count() const { return int(m_leases.size()); }

    /// Every lease's granted TTL and deadline as of the last refresh, by ID (hex):
    /// {"<id>": {grantedTtl, expiresAt}}, for views that draw a countdown beside a lease's holder.
    Q_INVOKABLE QVariantMap deadlines() const;

    /// Revokes the lease (hex, as the leaseId role spells it): etcd deletes its keys at once.
    /// Ends in revokeFinished(); a read-only client refuses it with StatusCode::ReadOnly before
    /// anything is sent. The lease leaves the rows with the re-read that follows.
    Q_INVOKABLE void revoke(const QString &leaseId);

    /// One row per lease, sorted by ID.
    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    /// A lease's \a role.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    /// The Role names.
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    /// count changed.
    void countChanged();
    /// A revoke() ended; a failed \a status names the lease and etcd's answer.
    void revokeFinished(const QString &leaseId, const QEtcd::Status &status);

protected:
    void read(quint64 generation) override;
    void clearRows() override;

private:
    // etcd's TTLs are whole seconds, read at a slightly different moment each refresh.
    static constexpr qint64 SameDeadlineMs = 1500;
    struct Lease
    {
        qint64 id = 0;
        qint64 grantedTtl = 0;
        qint64 ttl = 0;
        qint64 expiresAtMs = 0;
        QStringList keys;
        QString owner;
        bool operator==(const Lease &other) const;
    };
    // A lease's owner with the keys (and their revisions) it was recognised from: a refresh
    // reads the keys only, and their values again only when one of them changed.
    struct Recognised
    {
        QList<std::pair<QByteArray, qint64>> keys;
        QString owner;
    };
    void apply(std::vector<Lease> leases);

    std::vector<Lease> m_leases;  // sorted by id
    QHash<qint64, Recognised> m_recognised;  // by lease id; a refresh works on a copy
};

} // namespace QEtcd
