// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdtestingexport.h>

#include <QtCore/QObject>
#include <QtCore/QString>

#include <chrono>
#include <memory>

namespace QEtcd::Testing {

class FaultProxyPrivate;

/// A loopback TCP proxy whose traffic a test can pass, blackhole, delay or reset.
///
/// A TCP proxy on 127.0.0.1 that forwards to one upstream address and can partition, delay or
/// reset the traffic on command. Its sockets live on an internal thread, so a test whose own
/// thread blocks never stalls it.
///
/// Without netem, every partition in qetcd's own tests is made by putting a FaultProxy between
/// a client and an etcd member and switching its mode.
class QETCD_TESTING_EXPORT FaultProxy : public QObject
{
    Q_OBJECT
    /// What happens to the traffic.
    Q_PROPERTY(Mode mode READ mode WRITE setMode NOTIFY modeChanged)
public:
    /// What happens to the traffic.
    enum class Mode {
        Pass,      ///< Bytes flow both ways as they arrive.
        Blackhole, ///< Connections stay open, nothing passes either way; held traffic flows on Pass.
        Delay,     ///< Each chunk is delivered delay() (+ jitter()) after it arrived, in each direction.
        Reset,     ///< Open connections are reset (RST), new ones are accepted then reset.
    };
    Q_ENUM(Mode)

    /// A proxy to \a targetHost port \a targetPort, in Pass mode; it listens once started.
    explicit FaultProxy(const QString &targetHost, quint16 targetPort, QObject *parent = nullptr);
    /// Closes every connection and stops listening.
    ~FaultProxy() override;

    /// Listens on 127.0.0.1 (an ephemeral port when \a listenPort is 0); false with
    /// errorString() when it cannot.
    bool start(quint16 listenPort = 0);
    /// Why start() failed.
    QString errorString() const;
    /// The port it listens on.
    quint16 port() const;
    /// Its address as a URL ("http://127.0.0.1:port"), for ClientOptions::endpoints.
    QString url(const QString &scheme = QStringLiteral("http")) const;

    /// The mode. Thread-safe.
    Mode mode() const;
    /// Switches the mode; it has been applied to every connection when this returns.
    /// Thread-safe.
    void setMode(Mode mode);
    /// The one-way delay of Delay mode. Thread-safe.
    std::chrono::milliseconds delay() const;
    /// Sets the one-way delay; it applies to chunks that arrive after the call. Thread-safe.
    void setDelay(std::chrono::milliseconds oneWay);
    /// The largest random extra delay of Delay mode. Thread-safe.
    std::chrono::milliseconds jitter() const;
    /// In Delay mode each chunk waits delay() plus a random extra of up to \a maxExtraOneWay,
    /// drawn afresh for each chunk. Chunks never overtake one another: one held back holds back
    /// those behind it, as on one TCP connection. Thread-safe.
    void setJitter(std::chrono::milliseconds maxExtraOneWay);
    /// Connections open now. Thread-safe.
    int connectionCount() const;
    /// Bytes forwarded so far, both ways. Thread-safe.
    quint64 bytesForwarded() const;

Q_SIGNALS:
    /// The mode changed to \a mode.
    void modeChanged(QEtcd::Testing::FaultProxy::Mode mode);

private:
    Q_DISABLE_COPY_MOVE(FaultProxy)
    std::unique_ptr<FaultProxyPrivate> d;
};

} // namespace QEtcd::Testing
