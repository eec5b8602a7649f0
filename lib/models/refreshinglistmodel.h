// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "modelstatus.h"
#include "qetcdquickexport.h"

#include <QEtcd/client.h>

#include <QtCore/QAbstractListModel>
#include <QtCore/QPointer>
#include <QtCore/QTimer>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

/// The base of LeaseModel and ClusterModel: rows re-read from etcd on a timer.
///
/// What LeaseModel and ClusterModel share: rows that etcd cannot push, re-read every
/// refreshInterval ms (0: only on refresh()) from one client. A re-read that a new client
/// overtook is dropped; its rows never arrive.
class QETCD_QUICK_EXPORT RefreshingListModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ANONYMOUS
    /// The client to read through (EtcdClient.client); a new one empties the rows and reads
    /// afresh.
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    /// Milliseconds between two re-reads; 0: only on refresh().
    Q_PROPERTY(int refreshInterval READ refreshInterval WRITE setRefreshInterval NOTIFY refreshIntervalChanged)
    /// While false nothing is read, neither on the timer nor on refresh(): a page nobody sees
    /// costs etcd nothing. Turning true reads at once. Default true.
    Q_PROPERTY(bool active READ isActive WRITE setActive NOTIFY activeChanged)
    /// For a view's placeholders (ModelStatus).
    Q_PROPERTY(QEtcd::ModelStatus::Status status READ status NOTIFY statusChanged)
    /// Why the last read failed.
    Q_PROPERTY(QString errorString READ errorString NOTIFY statusChanged)

public:
    /// Destroys the model; a read on its way is dropped.
    ~RefreshingListModel() override;

    /// The client.
    Client *client() const;
    /// Sets the client.
    void setClient(Client *client);
    /// Milliseconds between two re-reads.
    int refreshInterval() const;
    /// Sets the milliseconds between two re-reads; 0: only on refresh().
    void setRefreshInterval(int ms);
    /// Reads are made.
    bool isActive() const { return m_active; }
    /// Starts or stops reading; turning true reads at once.
    void setActive(bool active);
    /// The status.
    ModelStatus::Status status() const { return m_status; }
    /// Why the last read failed.
    QString errorString() const { return m_error; }

    /// Starts a re-read unless one is running.
    Q_INVOKABLE void refresh();

Q_SIGNALS:
    /// client changed.
    void clientChanged();
    /// refreshInterval changed.
    void refreshIntervalChanged();
    /// active changed.
    void activeChanged();
    /// status or errorString changed.
    void statusChanged();
    /// A re-read finished and its rows are in.
    void refreshed();

protected:
    /// For the models: re-read every \a refreshIntervalMs.
    RefreshingListModel(int refreshIntervalMs, QObject *parent);

    /// Reads the rows from client(); ends with finish() or fail(), unless current(generation)
    /// has turned false meanwhile.
    virtual void read(quint64 generation) = 0;
    /// Forgets every row (a new client), inside a model reset.
    virtual void clearRows() = 0;

    /// The read of \a generation still counts: no new client overtook it.
    bool current(quint64 generation) const { return generation == m_generation; }
    /// Ends a read with its rows in: Ready, and refreshed().
    void finish();
    /// Ends a read that failed: Error, with \a error.
    void fail(const QString &error);

private:
    void setStatus(ModelStatus::Status status, const QString &error = {});
    void updateTimer();

    QPointer<Client> m_client;
    QTimer m_timer;
    ModelStatus::Status m_status = ModelStatus::Null;
    QString m_error;
    quint64 m_generation = 0;
    bool m_reading = false;
    bool m_active = true;
};

} // namespace QEtcd
