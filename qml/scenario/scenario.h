// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <clustermodel.h>
#include <eventlogmodel.h>
#include <keyeventrecorder.h>
#include <participant.h>

#include "story.h"

#include <QEtcd/client.h>

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QStringList>
#include <QtCore/QTimer>
#include <QtQml/qqmlregistration.h>

#include <map>
#include <memory>

class FaultLink;
class Sandbox;

// A narrated story on the sandbox, read from its file (docs/scenarios.md; the built-in ones are
// Qt resources): each step says what happens, does it (lock, cut off, kill a member…), and
// waits for the event that proves it happened, in order, in the event log. With autoplay it
// goes on by itself; otherwise next() moves on. A step whose event does not come in time fails
// the scenario with the step named.
//
// The story's participants are the scenario's own, each its own client behind its own fault
// link, and write to the same event log as everything else. What the scenario itself reads and
// writes (etcd's side of the story, an operator's put) goes through a client of its own to the
// sandbox's members, never through the window's: a user who switches the window to a real
// cluster mid-scenario must not have the story write there.
class Scenario : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString name READ name WRITE setName NOTIFY nameChanged)
    Q_PROPERTY(QString title READ title NOTIFY nameChanged)
    Q_PROPERTY(QString summary READ summary NOTIFY nameChanged)
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

    explicit Scenario(QObject *parent = nullptr);
    ~Scenario() override;
    Q_DISABLE_COPY_MOVE(Scenario)

    // The built-in stories' names, in the order a menu lists them.
    static QStringList names();
    // The title of a built-in story by name, or of the story in a file ("A lock holder is
    // partitioned"); empty for one that cannot be read.
    Q_INVOKABLE QString titleOf(const QString &name);
    // A built-in story's name, or a story file's path or file: URL. A file that cannot be read
    // leaves the scenario Failed, with errorString naming its line and field, and no steps.
    QString name() const { return m_name; }
    void setName(const QString &name);
    QString title() const { return m_story.title; }
    QString summary() const { return m_story.summary; }
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
    int stepCount() const { return int(m_story.steps.size()); }
    QString narration() const;
    QString awaiting() const;
    QString errorString() const { return m_error; }
    const Story &story() const { return m_story; }
    // When the event that proved step happened (monotonic ms), once it has in this run.
    std::optional<qint64> momentOf(int step) const;

    // Clears the event log, makes fresh participants and runs the first step; false (with
    // errorString) without a running sandbox, a readable story or an event log.
    Q_INVOKABLE bool start();
    Q_INVOKABLE void next();
    // Ends the run and lets the participants go.
    Q_INVOKABLE void stop();

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
    void act(const Story::Action &action);
    void call(const Story::Action &action);
    void actOnMember(const QString &member, const QString &memberAction);
    void read(const QString &key);
    void intervene(const QString &intervention, const QString &path);
    QString keyOf(const QString &key, int step) const;
    void runStep();
    void check();
    void matched(const Match &match);
    void fail(const QString &why);
    void setState(State state);

    QString m_name;
    Story m_story;
    QString m_loadError;  // why the story named could not be read
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
