// SPDX-License-Identifier: Apache-2.0
#include "pauseproxymodel.h"

#include <QtCore/QAbstractListModel>

namespace QEtcd {

namespace {
// Every role of every row of a flat model, as they were when it was built.
class Snapshot : public QAbstractListModel
{
public:
    explicit Snapshot(const QAbstractItemModel &source) : m_roles(source.roleNames())
    {
        const int rows = source.rowCount();
        m_rows.reserve(rows);
        for (int row = 0; row < rows; ++row) {
            const QModelIndex index = source.index(row, 0);
            QHash<int, QVariant> values;
            for (auto it = m_roles.cbegin(); it != m_roles.cend(); ++it)
                values.insert(it.key(), index.data(it.key()));
            m_rows.append(values);
        }
    }
    int rowCount(const QModelIndex &parent) const override { return parent.isValid() ? 0 : int(m_rows.size()); }
    QVariant data(const QModelIndex &index, int role) const override
    {
        return checkIndex(index, CheckIndexOption::IndexIsValid) ? m_rows[index.row()].value(role) : QVariant();
    }
    QHash<int, QByteArray> roleNames() const override { return m_roles; }

private:
    QHash<int, QByteArray> m_roles;
    QList<QHash<int, QVariant>> m_rows;
};
} // namespace

PauseProxyModel::PauseProxyModel(QObject *parent) : QIdentityProxyModel(parent)
{
    for (const auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(this, signal, this, &PauseProxyModel::countChanged);
    connect(this, &QAbstractItemModel::modelReset, this, &PauseProxyModel::countChanged);
}

PauseProxyModel::~PauseProxyModel() = default;

void PauseProxyModel::setSource(QAbstractItemModel *source)
{
    if (source == m_source)
        return;
    for (const QMetaObject::Connection &connection : std::as_const(m_sourceConnections))
        disconnect(connection);
    m_sourceConnections.clear();
    m_source = source;
    if (source) {
        for (const auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
            m_sourceConnections.append(connect(source, signal, this, &PauseProxyModel::hold));
        m_sourceConnections.append(connect(source, &QAbstractItemModel::dataChanged, this, &PauseProxyModel::hold));
        m_sourceConnections.append(connect(source, &QAbstractItemModel::modelReset, this, &PauseProxyModel::hold));
    }
    // A pause over the old source ends with it; the old copy goes once the proxy has left it.
    const std::unique_ptr<QAbstractItemModel> previous = std::move(m_snapshot);
    update();
    Q_EMIT sourceChanged();
}

void PauseProxyModel::setPaused(bool paused)
{
    if (paused == m_paused)
        return;
    m_paused = paused;
    update();
    Q_EMIT pausedChanged();
}

void PauseProxyModel::hold()
{
    if (!m_paused)
        return;
    ++m_heldChanges;
    Q_EMIT heldChangesChanged();
}

void PauseProxyModel::update()
{
    if (m_paused && m_source) {
        if (m_snapshot && sourceModel() == m_snapshot.get())
            return;
        auto snapshot = std::make_unique<Snapshot>(*m_source);
        setSourceModel(snapshot.get());
        m_snapshot = std::move(snapshot);
        return;
    }
    if (sourceModel() != m_source.data())
        setSourceModel(m_source);
    m_snapshot.reset();
    if (std::exchange(m_heldChanges, 0) > 0)
        Q_EMIT heldChangesChanged();
}

} // namespace QEtcd
