// SPDX-License-Identifier: Apache-2.0
#include "sortproxymodel.h"

namespace QEtcd {

SortProxyModel::SortProxyModel(QObject *parent) : QSortFilterProxyModel(parent)
{
    setDynamicSortFilter(true);
}

SortProxyModel::~SortProxyModel() = default;

void SortProxyModel::setSource(QAbstractItemModel *source)
{
    if (source == sourceModel())
        return;
    setSourceModel(source);
    apply();
    Q_EMIT sourceChanged();
}

void SortProxyModel::setSortRoleName(const QString &role)
{
    if (role == m_roleName)
        return;
    m_roleName = role;
    apply();
    Q_EMIT sortChanged();
}

void SortProxyModel::setDescending(bool descending)
{
    if (descending == m_descending)
        return;
    m_descending = descending;
    apply();
    Q_EMIT sortChanged();
}

void SortProxyModel::apply()
{
    const int role = sourceModel() ? sourceModel()->roleNames().key(m_roleName.toUtf8(), -1) : -1;
    if (role < 0) {
        if (!m_roleName.isEmpty() && sourceModel())
            qWarning("SortProxyModel: the source has no role \"%s\"; keeping its order", qPrintable(m_roleName));
        sort(-1);
        return;
    }
    setSortRole(role);
    sort(0, m_descending ? Qt::DescendingOrder : Qt::AscendingOrder);
}

} // namespace QEtcd
