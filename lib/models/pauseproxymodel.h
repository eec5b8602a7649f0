#pragma once

#include "qetcdquickexport.h"

#include <QtCore/QIdentityProxyModel>
#include <QtCore/QPointer>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace QEtcd {

// A list model's rows, or while paused a copy of them as they were when the pause began: for
// views of small live models (coordination objects) that an operator freezes to read at
// leisure. The source goes on changing underneath; resuming shows it as it is then. Copying
// every role of every row is cheap for tens of rows, not for a key space: KeyModel pauses
// itself.
class QETCD_QUICK_EXPORT PauseProxyModel : public QIdentityProxyModel
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QAbstractItemModel *source READ source WRITE setSource NOTIFY sourceChanged)
    Q_PROPERTY(bool paused READ isPaused WRITE setPaused NOTIFY pausedChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    // Changes of the source (rows in, out or changed) since the pause began.
    Q_PROPERTY(int heldChanges READ heldChanges NOTIFY heldChangesChanged)

public:
    explicit PauseProxyModel(QObject *parent = nullptr);
    ~PauseProxyModel() override;

    QAbstractItemModel *source() const { return m_source; }
    void setSource(QAbstractItemModel *source);
    bool isPaused() const { return m_paused; }
    void setPaused(bool paused);
    int count() const { return rowCount(); }
    int heldChanges() const { return m_heldChanges; }

Q_SIGNALS:
    void sourceChanged();
    void pausedChanged();
    void countChanged();
    void heldChangesChanged();

private:
    void update();
    void hold();

    QPointer<QAbstractItemModel> m_source;
    bool m_paused = false;
    std::unique_ptr<QAbstractItemModel> m_snapshot;
    QList<QMetaObject::Connection> m_sourceConnections;
    int m_heldChanges = 0;
};

} // namespace QEtcd
