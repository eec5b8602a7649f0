#pragma once

#include "qetcdquickexport.h"

#include <QtCore/QSortFilterProxyModel>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

// A list model's rows sorted by one of its roles, named as QML names it ("expiresAt"); an
// empty sortRole keeps the source's own order. Rows move as their values change.
class QETCD_QUICK_EXPORT SortProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QAbstractItemModel *source READ sourceModel WRITE setSource NOTIFY sourceChanged)
    Q_PROPERTY(QString sortRole READ sortRoleName WRITE setSortRoleName NOTIFY sortChanged)
    Q_PROPERTY(bool descending READ isDescending WRITE setDescending NOTIFY sortChanged)

public:
    explicit SortProxyModel(QObject *parent = nullptr);
    ~SortProxyModel() override;

    void setSource(QAbstractItemModel *source);
    QString sortRoleName() const { return m_roleName; }
    void setSortRoleName(const QString &role);
    bool isDescending() const { return m_descending; }
    void setDescending(bool descending);

Q_SIGNALS:
    void sourceChanged();
    void sortChanged();

private:
    void apply();

    QString m_roleName;
    bool m_descending = false;
};

} // namespace QEtcd
