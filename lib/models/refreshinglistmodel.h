#pragma once

#include "modelstatus.h"
#include "qetcdquickexport.h"

#include <QEtcd/client.h>

#include <QtCore/QAbstractListModel>
#include <QtCore/QPointer>
#include <QtCore/QTimer>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

// What LeaseModel and ClusterModel share: rows that etcd cannot push, re-read every
// refreshInterval ms (0: only on refresh()) from one client. A re-read that a new client
// overtook is dropped; its rows never arrive.
class QETCD_QUICK_EXPORT RefreshingListModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ANONYMOUS
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    Q_PROPERTY(int refreshInterval READ refreshInterval WRITE setRefreshInterval NOTIFY refreshIntervalChanged)
    Q_PROPERTY(QEtcd::ModelStatus::Status status READ status NOTIFY statusChanged)
    Q_PROPERTY(QString errorString READ errorString NOTIFY statusChanged)

public:
    ~RefreshingListModel() override;

    Client *client() const;
    void setClient(Client *client);
    int refreshInterval() const;
    void setRefreshInterval(int ms);
    ModelStatus::Status status() const { return m_status; }
    QString errorString() const { return m_error; }

    // Starts a re-read unless one is running.
    Q_INVOKABLE void refresh();

Q_SIGNALS:
    void clientChanged();
    void refreshIntervalChanged();
    void statusChanged();
    // A re-read finished and its rows are in.
    void refreshed();

protected:
    RefreshingListModel(int refreshIntervalMs, QObject *parent);

    // Reads the rows from client(); ends with finish() or fail(), unless current(generation)
    // has turned false meanwhile.
    virtual void read(quint64 generation) = 0;
    // Forgets every row (a new client), inside a model reset.
    virtual void clearRows() = 0;

    bool current(quint64 generation) const { return generation == m_generation; }
    void finish();
    void fail(const QString &error);

private:
    void setStatus(ModelStatus::Status status, const QString &error = {});

    QPointer<Client> m_client;
    QTimer m_timer;
    ModelStatus::Status m_status = ModelStatus::Null;
    QString m_error;
    quint64 m_generation = 0;
    bool m_reading = false;
};

} // namespace QEtcd
