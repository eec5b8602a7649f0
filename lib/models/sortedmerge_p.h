// SPDX-License-Identifier: Apache-2.0
#pragma once

// How the list models that re-read their rows (leases, members, coordination objects) apply a
// new read: a merge in sort order, so rows that stay keep their place and a view keeps its
// selection and scroll position. A model passes its protected row notifications as lambdas.

#include <functional>

namespace QEtcd::Internal {

struct RowNotifications
{
    std::function<void(int row)> beginInsert, endInsert, beginRemove, endRemove, changed;
};

// rows and incoming are sorted by before(); same() says whether a row's data is unchanged.
template <class Rows, class Before, class Same>
void mergeSorted(Rows &rows, const Rows &incoming, Before before, Same same, const RowNotifications &notify)
{
    qsizetype row = 0, next = 0;
    const auto size = [](const Rows &list) { return qsizetype(list.size()); };
    while (row < size(rows) || next < size(incoming)) {
        if (next == size(incoming) || (row < size(rows) && before(rows[row], incoming[next]))) {
            notify.beginRemove(int(row));
            rows.erase(rows.begin() + row);
            notify.endRemove(int(row));
        } else if (row == size(rows) || before(incoming[next], rows[row])) {
            notify.beginInsert(int(row));
            rows.insert(rows.begin() + row, incoming[next++]);
            notify.endInsert(int(row));
            ++row;
        } else {
            if (!same(rows[row], incoming[next])) {
                rows[row] = incoming[next];
                notify.changed(int(row));
            }
            ++row;
            ++next;
        }
    }
}

} // namespace QEtcd::Internal
