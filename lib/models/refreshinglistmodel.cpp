// SPDX-License-Identifier: Apache-2.0
#include "refreshinglistmodel.h"

namespace QEtcd {

RefreshingListModel::RefreshingListModel(int refreshIntervalMs, QObject *parent) : QAbstractListModel(parent)
{
    m_timer.setInterval(refreshIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &RefreshingListModel::refresh);
}

RefreshingListModel::~RefreshingListModel() = default;

Client *RefreshingListModel::client() const
{
    return m_client;
}

void RefreshingListModel::setClient(Client *client)
{
    if (client == m_client)
        return;
    m_client = client;
    ++m_generation;
    m_reading = false;
    Q_EMIT clientChanged();
    beginResetModel();
    clearRows();
    endResetModel();
    setStatus(ModelStatus::Null);
    refresh();
    updateTimer();
}

int RefreshingListModel::refreshInterval() const
{
    return m_timer.interval();
}

void RefreshingListModel::setRefreshInterval(int ms)
{
    if (ms == m_timer.interval())
        return;
    m_timer.setInterval(ms);
    updateTimer();
    Q_EMIT refreshIntervalChanged();
}

void RefreshingListModel::setActive(bool active)
{
    if (active == m_active)
        return;
    m_active = active;
    refresh();
    updateTimer();
    Q_EMIT activeChanged();
}

void RefreshingListModel::updateTimer()
{
    if (m_timer.interval() > 0 && m_client && m_active)
        m_timer.start();
    else
        m_timer.stop();
}

void RefreshingListModel::refresh()
{
    if (!m_client || !m_active || std::exchange(m_reading, true))
        return;
    if (m_status != ModelStatus::Ready)
        setStatus(ModelStatus::Loading);
    read(m_generation);
}

void RefreshingListModel::finish()
{
    m_reading = false;
    setStatus(ModelStatus::Ready);
    Q_EMIT refreshed();
}

void RefreshingListModel::fail(const QString &error)
{
    m_reading = false;
    setStatus(ModelStatus::Error, error);
}

void RefreshingListModel::setStatus(ModelStatus::Status status, const QString &error)
{
    if (status == m_status && error == m_error)
        return;
    m_status = status;
    m_error = error;
    Q_EMIT statusChanged();
}

} // namespace QEtcd
