// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QList>
#include <QtCore/QObject>
#include <QtCore/QStringList>
#include <QtQml/qqmlregistration.h>

#include <memory>
#include <vector>

namespace QEtcd::Testing {
class FaultProxy;
}
class Sandbox;

// A participant's own path to the sandbox: one FaultProxy per member, each forwarding to that
// member's client port, so a client given all of `endpoints` fails over as it would to the
// members themselves, and the participant can be cut off (blackhole), slowed (delay) or reset
// without touching anyone else. Made by Sandbox::createLink(), which owns it.
//
// The link follows the cluster: its endpoints are the same loopback ports for as long as it
// lives, whether it was made before the sandbox ran or the sandbox is stopped and started again.
// While the sandbox runs they forward to its members in the link's mode; while it does not, they
// accept and reset every connection, as a cluster that is not there would. The mode and the
// delay are the link's and outlive any restart.
//
// Every change of mode (and of the delay while delaying) is appended to the sandbox's event log
// as a `fault` of participant `name`: detail pass, blackhole, "delay N ms" or reset.
class FaultLink : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("FaultLinks are made by Sandbox.createLink()")
    Q_PROPERTY(QString name READ name CONSTANT)
    Q_PROPERTY(QStringList endpoints READ endpoints NOTIFY endpointsChanged)
    Q_PROPERTY(Mode mode READ mode WRITE setMode NOTIFY modeChanged)
    Q_PROPERTY(int delayMs READ delayMs WRITE setDelayMs NOTIFY delayMsChanged)

public:
    enum Mode {
        Pass,       // traffic flows as it comes
        Blackhole,  // connections stay open and nothing passes: a partition
        Delay,      // each chunk arrives delayMs late, each way
        Reset,      // every connection is reset, new ones too
    };
    Q_ENUM(Mode)

    ~FaultLink() override;

    QString name() const { return m_name; }
    QStringList endpoints() const;
    Mode mode() const { return m_mode; }
    void setMode(Mode mode);
    int delayMs() const { return m_delayMs; }
    void setDelayMs(int milliseconds);

    Q_INVOKABLE void pass() { setMode(Pass); }
    Q_INVOKABLE void blackhole() { setMode(Blackhole); }
    // Delays by this many milliseconds each way; the one event says mode and delay together.
    Q_INVOKABLE void delay(int milliseconds);
    Q_INVOKABLE void reset() { setMode(Reset); }

Q_SIGNALS:
    void endpointsChanged();
    void modeChanged();
    void delayMsChanged();

private:
    friend class Sandbox;
    // memberPorts: the sandbox members' client ports while it runs, none otherwise.
    FaultLink(const QString &name, const QList<quint16> &memberPorts, Sandbox *sandbox);
    void follow(const QList<quint16> &memberPorts);
    bool applyDelay(int milliseconds);
    void record();

    const QString m_name;
    Sandbox *const m_sandbox;  // the parent
    Mode m_mode = Pass;
    int m_delayMs = 0;
    bool m_following = false;
    std::vector<std::unique_ptr<QEtcd::Testing::FaultProxy>> m_proxies;
};
