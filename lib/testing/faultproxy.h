#pragma once

#include <QEtcd/qetcdtestingexport.h>

#include <QtCore/QObject>
#include <QtCore/QString>

#include <chrono>
#include <memory>

namespace QEtcd::Testing {

class FaultProxyPrivate;

// A TCP proxy on 127.0.0.1 that forwards to one upstream address and can partition, delay or
// reset the traffic on command. Its sockets live on an internal thread, so a test whose own
// thread blocks never stalls it.
class QETCD_TESTING_EXPORT FaultProxy : public QObject
{
    Q_OBJECT
    Q_PROPERTY(Mode mode READ mode WRITE setMode NOTIFY modeChanged)
public:
    enum class Mode {
        Pass,      // bytes flow both ways as they arrive
        Blackhole, // connections stay open, nothing passes either way; held traffic flows on Pass
        Delay,     // each chunk is delivered delay() (+ jitter) after it arrived, in each direction
        Reset,     // open connections are reset (RST), new ones are accepted then reset
    };
    Q_ENUM(Mode)

    explicit FaultProxy(const QString &targetHost, quint16 targetPort, QObject *parent = nullptr);
    ~FaultProxy() override;

    // Listens on 127.0.0.1 (an ephemeral port when listenPort is 0).
    bool start(quint16 listenPort = 0);
    QString errorString() const;
    quint16 port() const;
    QString url(const QString &scheme = QStringLiteral("http")) const;

    // Thread-safe. setMode() has been applied to every connection when it returns.
    Mode mode() const;
    void setMode(Mode mode);
    // Thread-safe. The delay applies to chunks that arrive after the call.
    std::chrono::milliseconds delay() const;
    void setDelay(std::chrono::milliseconds oneWay);
    // Thread-safe. In Delay mode each chunk waits delay() plus a random extra of up to jitter(),
    // drawn afresh for each chunk. Chunks never overtake one another: one held back holds back
    // those behind it, as on one TCP connection.
    std::chrono::milliseconds jitter() const;
    void setJitter(std::chrono::milliseconds maxExtraOneWay);
    // Thread-safe.
    int connectionCount() const;
    quint64 bytesForwarded() const;

Q_SIGNALS:
    void modeChanged(QEtcd::Testing::FaultProxy::Mode mode);

private:
    Q_DISABLE_COPY_MOVE(FaultProxy)
    std::unique_ptr<FaultProxyPrivate> d;
};

} // namespace QEtcd::Testing
