// SPDX-License-Identifier: Apache-2.0
// ListGridModel under QAbstractItemModelTester: a list laid out two or three wide, row by row,
// that follows the list's inserts, removals, changes and resets, and tells the cells past its end.

#include "listgridmodel.h"

#include <QtGui/QStandardItemModel>
#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

class tst_ListGridModel : public QObject
{
    Q_OBJECT

private:
    static constexpr int NameRole = Qt::UserRole + 1;
    static constexpr int SizeRole = Qt::UserRole + 2;

    // The grid tells the list's inserts and removals once per turn of the event loop.
    static void settle() { QCoreApplication::sendPostedEvents(nullptr, QEvent::MetaCall); }
    static QStandardItem *item(const QString &name, int size)
    {
        auto *item = new QStandardItem;
        item->setData(name, NameRole);
        item->setData(size, SizeRole);
        return item;
    }
    static void fill(QStandardItemModel &list, int items)
    {
        for (int i = 0; i < items; ++i)
            list.appendRow(item(QStringLiteral("item%1").arg(i), i));
    }
    // The names the grid shows, row by row, "-" for a cell past the list's end.
    static QStringList cells(const ListGridModel &grid)
    {
        const int filled = grid.roleNames().key("cellFilled");
        QStringList names;
        for (int row = 0; row < grid.rowCount(); ++row) {
            for (int column = 0; column < grid.columnCount(); ++column) {
                const QModelIndex cell = grid.index(row, column);
                names.append(cell.data(filled).toBool() ? cell.data(NameRole).toString() : QStringLiteral("-"));
            }
        }
        return names;
    }

private Q_SLOTS:
    void laysTheListOutRowByRow()
    {
        QStandardItemModel list;
        list.setItemRoleNames({{NameRole, "name"}, {SizeRole, "size"}});
        fill(list, 5);
        ListGridModel grid;
        QAbstractItemModelTester tester(&grid, QAbstractItemModelTester::FailureReportingMode::QtTest);
        grid.setSource(&list);
        grid.setColumns(2);
        QCOMPARE(grid.rowCount(), 3);
        QCOMPARE(grid.columnCount(), 2);
        QCOMPARE(cells(grid), QStringList({"item0", "item1", "item2", "item3", "item4", "-"}));
        QCOMPARE(grid.roleNames().value(NameRole), QByteArray("name"));
        // Past the end, a role holds an empty value of the type the list gave it, not nothing.
        const QVariant emptyName = grid.index(2, 1).data(NameRole);
        QCOMPARE(emptyName.metaType(), QMetaType::fromType<QString>());
        QCOMPARE(emptyName.toString(), QString());
        QCOMPARE(grid.index(0, 0).data(SizeRole).toInt(), 0);
        QCOMPARE(grid.index(2, 1).data(SizeRole).metaType(), QMetaType::fromType<int>());

        grid.setColumns(3);
        QCOMPARE(cells(grid), QStringList({"item0", "item1", "item2", "item3", "item4", "-"}));
        QCOMPARE(grid.rowCount(), 2);
        grid.setColumns(0);  // at least one
        QCOMPARE(grid.columnCount(), 1);
        QCOMPARE(grid.rowCount(), 5);
    }

    void followsInsertsAndRemovals()
    {
        QStandardItemModel list;
        list.setItemRoleNames({{NameRole, "name"}, {SizeRole, "size"}});
        fill(list, 4);
        ListGridModel grid;
        QAbstractItemModelTester tester(&grid, QAbstractItemModelTester::FailureReportingMode::QtTest);
        grid.setColumns(2);
        grid.setSource(&list);
        QSignalSpy inserted(&grid, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&grid, &QAbstractItemModel::rowsRemoved);
        QSignalSpy changed(&grid, &QAbstractItemModel::dataChanged);
        QSignalSpy reset(&grid, &QAbstractItemModel::modelReset);

        // An item at the front moves every cell on by one and opens a row at the end; the cells
        // that stay are told before the row comes.
        list.insertRow(0, item(QStringLiteral("first"), 9));
        QCOMPARE(inserted.count(), 0);
        settle();
        QCOMPARE(cells(grid), QStringList({"first", "item0", "item1", "item2", "item3", "-"}));
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.first().at(1).toInt(), 2);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>(), grid.index(0, 0));
        QCOMPARE(changed.first().at(1).value<QModelIndex>(), grid.index(1, 1));

        // An item in the middle of the last row: only the cells from its row on change.
        changed.clear();
        list.insertRow(5, item(QStringLiteral("last"), 1));
        settle();
        QCOMPARE(cells(grid), QStringList({"first", "item0", "item1", "item2", "item3", "last"}));
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>(), grid.index(2, 0));

        // Taking two away closes the last row.
        list.removeRows(1, 2);
        settle();
        QCOMPARE(cells(grid), QStringList({"first", "item2", "item3", "last"}));
        QCOMPARE(removed.count(), 1);
        QCOMPARE(removed.first().at(1).toInt(), 2);
        list.removeRows(0, list.rowCount());
        settle();
        QCOMPARE(grid.rowCount(), 0);
        QCOMPARE(reset.count(), 0);
    }

    void passesChangesOnToTheirCells()
    {
        QStandardItemModel list;
        list.setItemRoleNames({{NameRole, "name"}, {SizeRole, "size"}});
        fill(list, 6);
        ListGridModel grid;
        QAbstractItemModelTester tester(&grid, QAbstractItemModelTester::FailureReportingMode::QtTest);
        grid.setColumns(2);
        grid.setSource(&list);
        QSignalSpy changed(&grid, &QAbstractItemModel::dataChanged);
        list.item(3)->setData(QStringLiteral("renamed"), NameRole);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>(), grid.index(1, 0));
        QCOMPARE(changed.first().at(1).value<QModelIndex>(), grid.index(1, 1));
        QCOMPARE(changed.first().at(2).value<QList<int>>(), QList<int>({NameRole}));
        QCOMPARE(grid.index(1, 1).data(NameRole).toString(), QStringLiteral("renamed"));
    }

    void resetsWithItsListAndLetsAGoneListGo()
    {
        ListGridModel grid;
        QAbstractItemModelTester tester(&grid, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reset(&grid, &QAbstractItemModel::modelReset);
        {
            QStandardItemModel list;
            fill(list, 3);
            grid.setColumns(2);
            grid.setSource(&list);
            QCOMPARE(grid.rowCount(), 2);
            list.clear();
            QCOMPARE(grid.rowCount(), 0);
            fill(list, 1);
            settle();
            QCOMPARE(grid.rowCount(), 1);
            reset.clear();
        }
        QCOMPARE(reset.count(), 1);
        QCOMPARE(grid.source(), nullptr);
        QCOMPARE(grid.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(tst_ListGridModel)
#include "tst_listgridmodel.moc"
