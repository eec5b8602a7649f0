// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QAbstractTableModel>
#include <QtQml/qqmlregistration.h>

// A list model's rows laid out as a grid, row by row, `columns` wide: what a TableView needs
// to show a list as cards side by side while making only the cards in sight. Every role of the
// list reads through; `cellFilled` tells a cell past the list's last row (the end of the
// grid's last row), whose roles hold empty values of their types. The list's inserts, removals
// and moves reach the grid once per turn of the event loop.
class ListGridModel : public QAbstractTableModel
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QAbstractItemModel *source READ source WRITE setSource NOTIFY sourceChanged)
    Q_PROPERTY(int columns READ columns WRITE setColumns NOTIFY columnsChanged)

public:
    explicit ListGridModel(QObject *parent = nullptr);
    ~ListGridModel() override;

    QAbstractItemModel *source() const { return m_source; }
    void setSource(QAbstractItemModel *source);
    int columns() const { return m_columns; }
    void setColumns(int columns);

    // The list's row shown in a cell, whether or not the list has that many rows.
    int sourceRow(const QModelIndex &cell) const { return cell.row() * m_columns + cell.column(); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &cell, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    void sourceChanged();
    void columnsChanged();

private:
    int rowsFor(int items) const { return (items + m_columns - 1) / m_columns; }
    // Inside a reset: the rows the list fills now, nothing left to reflow.
    void countRows()
    {
        m_rows = m_source ? rowsFor(m_source->rowCount()) : 0;
        m_reflowFrom = -1;
    }
    // The list's rows from `first` on moved: the grid grows or shrinks at its end, and every
    // cell from first's on shows another row now.
    void scheduleReflow(int first);
    void reflow();
    void reflowFrom(int first);
    void cellsChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles);

    QAbstractItemModel *m_source = nullptr;  // let go of when it is destroyed
    int m_columns = 1;
    int m_rows = 0;
    int m_filledRole = -1;
    int m_reflowFrom = -1;  // the first row of the list moved since the grid last told; -1: none
    // Each role's type as the list last gave it, for the cells past its end.
    mutable QHash<int, QMetaType> m_roleTypes;
    QList<QMetaObject::Connection> m_connections;
};
