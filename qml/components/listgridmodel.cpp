// SPDX-License-Identifier: Apache-2.0
#include "listgridmodel.h"

#include <algorithm>

ListGridModel::ListGridModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

ListGridModel::~ListGridModel() = default;

void ListGridModel::setSource(QAbstractItemModel *source)
{
    if (m_source == source)
        return;
    beginResetModel();
    for (const QMetaObject::Connection &connection : std::as_const(m_connections))
        disconnect(connection);
    m_connections.clear();
    m_source = source;
    m_filledRole = -1;
    m_roleTypes.clear();
    if (m_source) {
        // The first role the list does not use.
        const QList<int> roles = m_source->roleNames().keys();
        m_filledRole = std::max(int(Qt::UserRole), roles.isEmpty() ? 0 : *std::max_element(roles.cbegin(), roles.cend()) + 1);
        const auto reflowAll = [this] { scheduleReflow(0); };
        m_connections = {
            connect(m_source, &QAbstractItemModel::modelAboutToBeReset, this, &ListGridModel::beginResetModel),
            connect(m_source, &QAbstractItemModel::modelReset, this, [this] {
                countRows();
                endResetModel();
            }),
            connect(m_source, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &, int first) { scheduleReflow(first); }),
            connect(m_source, &QAbstractItemModel::rowsRemoved, this, [this](const QModelIndex &, int first) { scheduleReflow(first); }),
            connect(m_source, &QAbstractItemModel::rowsMoved, this, reflowAll),
            connect(m_source, &QAbstractItemModel::layoutChanged, this, reflowAll),
            connect(m_source, &QAbstractItemModel::dataChanged, this, &ListGridModel::cellsChanged),
            connect(m_source, &QObject::destroyed, this, [this] { setSource(nullptr); }),
        };
    }
    countRows();
    endResetModel();
    Q_EMIT sourceChanged();
}

void ListGridModel::setColumns(int columns)
{
    columns = std::max(1, columns);
    if (m_columns == columns)
        return;
    beginResetModel();
    m_columns = columns;
    countRows();
    endResetModel();
    Q_EMIT columnsChanged();
}

int ListGridModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_rows;
}

int ListGridModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_columns;
}

QVariant ListGridModel::data(const QModelIndex &cell, int role) const
{
    if (!m_source || !cell.isValid() || cell.model() != this)
        return {};
    // A delegate the view keeps for reuse may still ask for a cell the grid no longer has:
    // it gets an empty one.
    const int row = sourceRow(cell);
    const bool filled = cell.row() < m_rows && cell.column() < m_columns && row < m_source->rowCount();
    if (role == m_filledRole)
        return filled;
    if (filled) {
        QVariant value = m_source->data(m_source->index(row, 0), role);
        if (value.isValid())
            m_roleTypes.insert(role, value.metaType());
        return value;
    }
    // An empty value of the role's type keeps a delegate's typed properties quiet.
    const QMetaType type = m_roleTypes.value(role);
    return type.isValid() ? QVariant(type) : QVariant();
}

QHash<int, QByteArray> ListGridModel::roleNames() const
{
    if (!m_source)
        return {};
    QHash<int, QByteArray> names = m_source->roleNames();
    names.insert(m_filledRole, QByteArrayLiteral("cellFilled"));
    return names;
}

void ListGridModel::scheduleReflow(int first)
{
    // Once per turn of the event loop, whatever the list did meanwhile: Qt's table instance model
    // finds a cell's delegate by row + column × the row count, and a change told after the count
    // changed, before the view laid itself out again, would reach another cell's delegate.
    if (m_reflowFrom < 0)
        QMetaObject::invokeMethod(this, &ListGridModel::reflow, Qt::QueuedConnection);
    m_reflowFrom = m_reflowFrom < 0 ? first : std::min(m_reflowFrom, first);
}

void ListGridModel::reflow()
{
    if (m_reflowFrom < 0 || !m_source)
        return;
    reflowFrom(std::exchange(m_reflowFrom, -1));
}

void ListGridModel::reflowFrom(int first)
{
    // The cells that stay change first, while the row count is still the one the view knows.
    const int rows = rowsFor(m_source->rowCount());
    const int firstRow = first / m_columns;
    const int lastKept = std::min(rows, m_rows) - 1;
    if (firstRow <= lastKept)
        Q_EMIT dataChanged(index(firstRow, 0), index(lastKept, m_columns - 1));
    if (rows > m_rows) {
        beginInsertRows({}, m_rows, rows - 1);
        m_rows = rows;
        endInsertRows();
    } else if (rows < m_rows) {
        beginRemoveRows({}, rows, m_rows - 1);
        m_rows = rows;
        endRemoveRows();
    }
}

void ListGridModel::cellsChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles)
{
    if (m_reflowFrom >= 0)
        return scheduleReflow(topLeft.row());  // told with the rows' own change
    const int firstRow = topLeft.row() / m_columns;
    const int lastRow = std::min(bottomRight.row() / m_columns, m_rows - 1);
    if (firstRow <= lastRow)
        Q_EMIT dataChanged(index(firstRow, 0), index(lastRow, m_columns - 1), roles);
}
