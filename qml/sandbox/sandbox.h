// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "faultlink.h"
#include "sandboxmembermodel.h"

#include <eventlogmodel.h>

#include <QtCore/QList>
#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QProcess>
#include <QtCore/QStringList>
#include <QtCore/QThread>
#include <QtQml/qqmlregistration.h>

#include <functional>

class SandboxWorker;

// A local 3-member etcd cluster with throw-away data directories, for trying things out:
// members to stop, kill, pause (SIGSTOP), resume and restart, and FaultLinks that put a fault
// proxy between a participant and the members.
//
// The cluster (QEtcd::Testing::EtcdCluster) lives on a thread of the sandbox's own, where its
// calls may block for seconds (a start waits for every member to be healthy, a restart for the
// member to answer); they run there one at a time, in the order asked, and their results come
// back as property changes. The GUI thread never waits for them, except once: destroying the
// sandbox waits until its cluster has stopped and its directories are gone, so that closing the
// window leaves no etcd behind (a paused member is resumed to be stopped).
//
// Calls that cannot be done now (an unknown member, an action in the wrong state, a start while
// running) return false, set errorString to what was wrong and change nothing else. A call that
// is accepted clears errorString; one that fails later sets it.
class Sandbox : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(State state READ state NOTIFY stateChanged)
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)
    // The members' own client URLs, m0 first; empty unless Running.
    Q_PROPERTY(QStringList clientUrls READ clientUrls NOTIFY clientUrlsChanged)
    Q_PROPERTY(SandboxMemberModel *members READ members CONSTANT)
    // Where member actions and the links' faults are written; optional.
    Q_PROPERTY(QEtcd::EventLogModel *eventLog READ eventLog WRITE setEventLog NOTIFY eventLogChanged)
    // A program started each time the sandbox runs, with the client URLs (comma-separated) as its
    // one argument, to put participants or data on it (scripts/run: scripts/demo-participants);
    // sent SIGTERM when the sandbox stops. Empty: none. One that fails sets errorString.
    Q_PROPERTY(QString seedProgram READ seedProgram WRITE setSeedProgram NOTIFY seedProgramChanged)
    // The seed program printed a line "ready": what it puts on the sandbox is in place.
    Q_PROPERTY(bool seedReady READ isSeedReady NOTIFY seedReadyChanged)

public:
    enum State { Stopped, Starting, Running, Stopping, Failed };
    Q_ENUM(State)

    static constexpr int MemberCount = 3;

    explicit Sandbox(QObject *parent = nullptr);
    ~Sandbox() override;

    State state() const { return m_state; }
    QString errorString() const { return m_errorString; }
    QStringList clientUrls() const;
    SandboxMemberModel *members() const { return m_members; }
    QEtcd::EventLogModel *eventLog() const { return m_eventLog; }
    void setEventLog(QEtcd::EventLogModel *eventLog);
    QString seedProgram() const { return m_seedProgram; }
    void setSeedProgram(const QString &program);
    bool isSeedReady() const { return m_seedReady; }

    Q_INVOKABLE bool start();
    // Stops every member and removes the data directories; from Failed, only forgets the failure.
    Q_INVOKABLE bool stop();

    // Each acts on one member by index (0 for m0) while the sandbox runs, and appends
    // memberStopped, memberKilled, memberPaused, memberResumed or memberRestarted to the event
    // log once it is done (restarted: when the member answers again; the others when the signal
    // was sent).
    Q_INVOKABLE bool stopMember(int member);     // SIGTERM; a running or paused member
    Q_INVOKABLE bool killMember(int member);     // SIGKILL; a running or paused member
    Q_INVOKABLE bool pauseMember(int member);    // SIGSTOP; a running member
    Q_INVOKABLE bool resumeMember(int member);   // SIGCONT; a paused member
    Q_INVOKABLE bool restartMember(int member);  // same ports and data; any member

    // The fault link of this participant: made at the first call, the same object after that.
    // The sandbox owns it (QML never collects it) until the sandbox goes. Null, with
    // errorString, for an empty name.
    Q_INVOKABLE FaultLink *createLink(const QString &participantName);

Q_SIGNALS:
    void stateChanged();
    void errorStringChanged();
    void clientUrlsChanged();
    void eventLogChanged();
    void seedProgramChanged();
    void seedReadyChanged();

private:
    using Member = SandboxMemberModel::Member;
    using Action = SandboxMemberModel::Action;

    QList<quint16> memberPorts() const;  // none unless Running
    void post(std::function<void(SandboxWorker &)> job);
    bool act(Action action, int member);
    bool refuse(const QString &reason);
    void setState(State state);
    void setErrorString(const QString &errorString);
    void startFinished(quint64 run, bool started, const QString &error, const QList<Member> &members);
    void actionFinished(quint64 run, int member, Action action, const QString &error, qint64 signalledMs,
                        qint64 finishedMs, const QList<Member> &members);
    void membersChanged(quint64 run, const QList<Member> &members);
    void startSeed();
    void stopSeed();
    void setSeedReady(bool ready);

    State m_state = Stopped;
    QString m_errorString;
    SandboxMemberModel *m_members;
    QPointer<QEtcd::EventLogModel> m_eventLog;
    QList<FaultLink *> m_links;
    QString m_seedProgram;
    QProcess *m_seed = nullptr;  // while the sandbox runs, if there is a seed program
    bool m_seedReady = false;
    // Counts starts and stops: a result that belongs to an earlier one is dropped.
    quint64 m_run = 0;
    QThread m_thread;
    SandboxWorker *m_worker;  // on m_thread
};
