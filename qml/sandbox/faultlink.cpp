// SPDX-License-Identifier: Apache-2.0
#include "faultlink.h"

#include "sandbox.h"

#include <QEtcd/faultproxy.h>

#include <QtCore/QLoggingCategory>

namespace {
Q_LOGGING_CATEGORY(lcFaultLink, "qetcd.console.faultlink", QtInfoMsg)

using QEtcd::Testing::FaultProxy;

FaultProxy::Mode proxyMode(FaultLink::Mode mode)
{
    switch (mode) {
    case FaultLink::Pass:
        return FaultProxy::Mode::Pass;
    case FaultLink::Blackhole:
        return FaultProxy::Mode::Blackhole;
    case FaultLink::Delay:
        return FaultProxy::Mode::Delay;
    case FaultLink::Reset:
        break;
    }
    return FaultProxy::Mode::Reset;
}
} // namespace

FaultLink::FaultLink(const QString &name, const QList<quint16> &memberPorts, Sandbox *sandbox)
    : QObject(sandbox), m_name(name), m_sandbox(sandbox)
{
    follow(memberPorts);
}

FaultLink::~FaultLink() = default;

QStringList FaultLink::endpoints() const
{
    QStringList urls;
    for (const auto &proxy : m_proxies)
        urls.append(proxy->url());
    return urls;
}

void FaultLink::follow(const QList<quint16> &memberPorts)
{
    m_following = !memberPorts.isEmpty();
    const QStringList before = endpoints();
    QList<quint16> listenPorts;
    for (const auto &proxy : m_proxies)
        listenPorts.append(proxy->port());
    // A FaultProxy forwards to one address for life: following another cluster means new
    // proxies on the old ports, and the old ones must let go of those ports first.
    m_proxies.clear();
    const int count = m_following ? int(memberPorts.size()) : Sandbox::MemberCount;
    for (int member = 0; member < count; ++member) {
        // Without a cluster the target is never dialled: Reset turns every connection away first.
        auto proxy = std::make_unique<FaultProxy>(QStringLiteral("127.0.0.1"), m_following ? memberPorts[member] : 0);
        proxy->setDelay(std::chrono::milliseconds(m_delayMs));
        proxy->setMode(m_following ? proxyMode(m_mode) : FaultProxy::Mode::Reset);
        const quint16 port = listenPorts.value(member);
        // Should another program have taken the port meanwhile, the link moves to a new one
        // (endpointsChanged): clients built on the old endpoints lose that member.
        if (!proxy->start(port) && (port == 0 || !proxy->start(0))) {
            qCWarning(lcFaultLink).noquote() << "FaultLink" << m_name << "has no endpoint for member" << member << ":"
                                             << proxy->errorString();
            continue;
        }
        m_proxies.push_back(std::move(proxy));
    }
    if (endpoints() != before)
        Q_EMIT endpointsChanged();
}

void FaultLink::setMode(Mode mode)
{
    if (mode == m_mode)
        return;
    m_mode = mode;
    if (m_following) {
        for (const auto &proxy : m_proxies)
            proxy->setMode(proxyMode(mode));
    }
    Q_EMIT modeChanged();
    record();
}

bool FaultLink::applyDelay(int milliseconds)
{
    if (milliseconds < 0) {
        qCWarning(lcFaultLink) << "FaultLink" << m_name << ": a delay of" << milliseconds << "ms is no delay; ignored";
        return false;
    }
    if (milliseconds == m_delayMs)
        return false;
    m_delayMs = milliseconds;
    for (const auto &proxy : m_proxies)
        proxy->setDelay(std::chrono::milliseconds(milliseconds));
    Q_EMIT delayMsChanged();
    return true;
}

void FaultLink::setDelayMs(int milliseconds)
{
    if (applyDelay(milliseconds) && m_mode == Delay)
        record();
}

void FaultLink::delay(int milliseconds)
{
    if (m_mode == Delay || milliseconds < 0)
        return setDelayMs(milliseconds);  // which refuses a negative delay
    applyDelay(milliseconds);
    setMode(Delay);
}

void FaultLink::record()
{
    QEtcd::EventLogModel *log = m_sandbox->eventLog();
    if (!log)
        return;
    QString detail;
    switch (m_mode) {
    case Pass:
        detail = QStringLiteral("pass");
        break;
    case Blackhole:
        detail = QStringLiteral("blackhole");
        break;
    case Delay:
        detail = QStringLiteral("delay %1 ms").arg(m_delayMs);
        break;
    case Reset:
        detail = QStringLiteral("reset");
        break;
    }
    log->append(m_name, QStringLiteral("fault"), detail);
}
