// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qetcdquickexport.h"

#include <QtCore/QIdentityProxyModel>
#include <QtCore/QPointer>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace QEtcd {

/// `PauseProxyModel` in QML: a small live model that an operator can hold still.
///
/// A list model's rows, or while paused a copy of them as they were when the pause began: for
/// views of small live models (coordination objects) that an operator freezes to read at
/// leisure. The source goes on changing underneath; resuming shows it as it is then. Copying
/// every role of every row is cheap for tens of rows, not for a key space: KeyModel pauses
/// itself.
class QETCD_QUICK_EXPORT PauseProxyModel : public QIdentityProxyModel
{
    Q_OBJECT
    QML_ELEMENT
    /// The model shown.
    Q_PROPERTY(QAbstractItemModel *source READ source WRITE setSource NOTIFY sourceChanged)
    /// Show the copy taken when the pause began rather than the source.
    Q_PROPERTY(bool paused READ isPaused WRITE setPaused NOTIFY pausedChanged)
    /// Rows shown.
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    /// Changes of the source (rows in, out or changed) since the pause began.
    Q_PROPERTY(int heldChanges READ heldChanges NOTIFY heldChangesChanged)

public:
    /// A proxy without source yet.
    explicit PauseProxyModel(QObject *parent = nullptr);
    /// Destroys the proxy (not its source).
    ~PauseProxyModel() override;

    /// The model shown.
    QAbstractItemModel *source() const { return m_source; }
    /// Sets the model shown.
    void setSource(QAbstractItemModel *source);
    /// The copy is shown.
    bool isPaused() const { return m_paused; }
    /// Takes a copy and shows it, or shows the source again.
    void setPaused(bool paused);
    /// Rows shown.
    int count() const { return rowCount(); }
    /// Changes of the source since the pause began.
    int heldChanges() const { return m_heldChanges; }

Q_SIGNALS:
    /// source changed.
    void sourceChanged();
    /// paused changed.
    void pausedChanged();
    /// count changed.
    void countChanged();
    /// heldChanges changed.
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
