// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <clustermodel.h>
#include <eventlogmodel.h>
#include <keyeventrecorder.h>
#include <participant.h>

#include <QEtcd/client.h>

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QStringList>
#include <QtCore/QTimer>
#include <QtQml/qqmlregistration.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace QEtcd {
class BarrierParticipant;
class ElectionParticipant;
class MutexParticipant;
class ServiceRegistrationParticipant;
}
class FaultLink;
class Sandbox;

// A narrated script on the sandbox: each step says what happens, does it (lock, cut off, kill
// a member…), and waits for the event that proves it happened, in order, in the event log.
// With autoplay it goes on by itself; otherwise next() moves on. A step whose event does not
// come in time fails the scenario with the step named.
//
// The scripts themselves (lock-partition, spurious-barrier, registration-heal, leader-death)
// are in scenarioscripts.cpp; their participants are the scenario's own, each its own client
// behind its own fault link, and write to the same event log as everything else. What the
// scenario itself reads and writes (etcd's side of the story, an operator's put) goes through
// a client of its own to the sandbox's members, never through the window's: a user who switches
// the window to a real cluster mid-scenario must not have the story write there.
class Scenario : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString name READ name WRITE setName NOTIFY nameChanged)
    Q_PROPERTY(QString title READ title NOTIFY nameChanged)
    Q_PROPERTY(QStringList names READ names CONSTANT)
    Q_PROPERTY(Sandbox *sandbox READ sandbox WRITE setSandbox NOTIFY sandboxChanged)
    Q_PROPERTY(QEtcd::ClusterModel *cluster READ cluster WRITE setCluster NOTIFY clusterChanged)
    Q_PROPERTY(QEtcd::EventLogModel *eventLog READ eventLog WRITE setEventLog NOTIFY eventLogChanged)
    Q_PROPERTY(bool autoplay READ autoplay WRITE setAutoplay NOTIFY autoplayChanged)
    Q_PROPERTY(State state READ state NOTIFY progressChanged)
    Q_PROPERTY(int step READ step NOTIFY progressChanged)
    Q_PROPERTY(int stepCount READ stepCount NOTIFY nameChanged)
    Q_PROPERTY(QString narration READ narration NOTIFY progressChanged)
    Q_PROPERTY(QString awaiting READ awaiting NOTIFY progressChanged)
    Q_PROPERTY(QString errorString READ errorString NOTIFY progressChanged)

public:
    // Idle: not started; Acting: a step runs and waits for its event; Ready: the step's event
    // came, next() goes on; Finished; Failed (errorString names the step).
    enum class State { Idle, Acting, Ready, Finished, Failed };
    Q_ENUM(State)

    // What a step waits for: the next event (after the previous step's) from participant of
    // this kind; key, detail and spurious must match when given. A quiet step instead waits
    // `within` and fails if any of the forbidden kinds from participant happens meanwhile.
    struct Expectation
    {
        QString participant;  // empty: anyone
        QString kind;
        std::function<QString()> key;
        QString detail;
        std::optional<bool> spurious;
        std::chrono::milliseconds within{20000};
        QStringList forbidden;  // a quiet step: none of these kinds from participant (empty: anyone)
        QString says;           // what is awaited, for people ("A is told it lost the lock")
        // The step whose event this one's must follow in the log; -1: the step before. Events
        // two observers see at once (etcd deleting a key, the next holder acquiring) may reach
        // the log in either order, so both follow the cause instead.
        int after = -1;
    };
    struct Step
    {
        QString narration;
        std::function<void()> act;
        Expectation expect;
    };

    explicit Scenario(QObject *parent = nullptr);
    ~Scenario() override;
    Q_DISABLE_COPY_MOVE(Scenario)

    static QStringList names();
    // The title of a scenario by name ("A lock holder is partitioned"); empty for an unknown one.
    Q_INVOKABLE QString titleOf(const QString &name);
    QString name() const { return m_name; }
    void setName(const QString &name);
    QString title() const { return m_title; }
    Sandbox *sandbox() const { return m_sandbox; }
    void setSandbox(Sandbox *sandbox);
    // The scenario's own client to the sandbox, while a run lasts; null otherwise.
    QEtcd::Client *client() const;
    QEtcd::ClusterModel *cluster() const;
    void setCluster(QEtcd::ClusterModel *cluster);
    QEtcd::EventLogModel *eventLog() const;
    void setEventLog(QEtcd::EventLogModel *log);
    bool autoplay() const { return m_autoplay; }
    void setAutoplay(bool autoplay);
    State state() const { return m_state; }
    int step() const { return m_step; }
    int stepCount() const { return int(m_steps.size()); }
    QString narration() const;
    QString awaiting() const;
    QString errorString() const { return m_error; }

    // Clears the event log, makes fresh participants and runs the first step; false (with
    // errorString) without a running sandbox, a known name or an event log.
    Q_INVOKABLE bool start();
    Q_INVOKABLE void next();
    // Ends the run and lets the participants go.
    Q_INVOKABLE void stop();

    // For the scripts: the scenario's participant `name`, made on first use behind its own
    // fault link, and its recipes, one of each kind, made on first use.
    QEtcd::MutexParticipant *mutex(const QString &participantName, const QString &path, int ttlSeconds);
    QEtcd::BarrierParticipant *barrier(const QString &participantName, const QString &path, int ttlSeconds);
    QEtcd::ElectionParticipant *election(const QString &participantName, const QString &path, int ttlSeconds);
    QEtcd::ServiceRegistrationParticipant *service(const QString &participantName, const QString &path,
                                                   int ttlSeconds);
    FaultLink *linkOf(const QString &participantName);
    // The key of the event a step matched, for steps that wait on the same key later.
    QString matchedKey(int step) const;
    qint64 matchedTime(int step) const;
    static int memberIndex(const QString &memberName);
    void setConclusion(std::function<QString()> conclusion) { m_conclusion = std::move(conclusion); }

    // Every scenario's keys live under this prefix, which the scenario watches as etcd sees it.
    static QString prefix() { return QStringLiteral("/demo/"); }

Q_SIGNALS:
    void nameChanged();
    void sandboxChanged();
    void clusterChanged();
    void eventLogChanged();
    void autoplayChanged();
    void progressChanged();
    // A participant the scenario made, for a timeline to follow its lease.
    void participantCreated(const QString &name, QEtcd::RecipeParticipant *participant);
    void finished(bool succeeded, const QString &message);

private:
    struct Actor;
    struct Match
    {
        QString key;
        qint64 monotonicMs = 0;
    };

    Actor &actor(const QString &name);
    template <class Participant>
    Participant *recipe(const QString &participantName, const QString &path, int ttlSeconds);
    void runStep();
    void check();
    void matched(const Match &match);
    void fail(const QString &why);
    void setState(State state);

    QString m_name;
    QString m_title;
    std::vector<Step> m_steps;
    std::function<QString()> m_conclusion;
    QPointer<Sandbox> m_sandbox;
    std::unique_ptr<QEtcd::Client> m_client;  // to the sandbox's members, from start() to stop()
    QPointer<QEtcd::ClusterModel> m_cluster;
    QPointer<QEtcd::EventLogModel> m_eventLog;
    bool m_autoplay = false;
    State m_state = State::Idle;
    int m_step = -1;
    std::vector<Match> m_matches;  // by step
    std::vector<qsizetype> m_matchedAt;  // by step: the event's index in the log, -1 before
    QEtcd::KeyEventRecorder m_etcdSide;  // what etcd itself does under the scenarios' prefix
    QString m_error;
    QTimer m_deadline;  // a step's `within`
    QTimer m_pause;     // autoplay's breath between steps, for a reader and for the timeline
    std::map<QString, std::unique_ptr<Actor>> m_actors;
};
