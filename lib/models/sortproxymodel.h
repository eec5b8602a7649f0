// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qetcdquickexport.h"

#include <QtCore/QSortFilterProxyModel>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

/// `SortProxyModel` in QML: a list model sorted by one of its roles, by name.
///
/// A list model's rows sorted by one of its roles, named as QML names it ("expiresAt"); an
/// empty sortRole keeps the source's own order. Rows move as their values change.
class QETCD_QUICK_EXPORT SortProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT
    QML_ELEMENT
    /// The model sorted.
    Q_PROPERTY(QAbstractItemModel *source READ sourceModel WRITE setSource NOTIFY sourceChanged)
    /// The role to sort by, as QML names it ("expiresAt"); empty keeps the source's order.
    Q_PROPERTY(QString sortRole READ sortRoleName WRITE setSortRoleName NOTIFY sortChanged)
    /// Largest first.
    Q_PROPERTY(bool descending READ isDescending WRITE setDescending NOTIFY sortChanged)

public:
    /// A proxy without source yet.
    explicit SortProxyModel(QObject *parent = nullptr);
    /// Destroys the proxy (not its source).
    ~SortProxyModel() override;

    /// Sets the model sorted.
    void setSource(QAbstractItemModel *source);
    /// The role sorted by.
    QString sortRoleName() const { return m_roleName; }
    /// Sets the role to sort by.
    void setSortRoleName(const QString &role);
    /// Largest first.
    bool isDescending() const { return m_descending; }
    /// Sets the direction.
    void setDescending(bool descending);

Q_SIGNALS:
    /// source changed.
    void sourceChanged();
    /// sortRole or descending changed.
    void sortChanged();

private:
    void apply();

    QString m_roleName;
    bool m_descending = false;
};

} // namespace QEtcd
