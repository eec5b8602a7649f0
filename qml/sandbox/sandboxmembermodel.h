// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QAbstractListModel>
#include <QtCore/QList>
#include <QtQml/qqmlregistration.h>

// The members of a running Sandbox, one row each (m0, m1, m2): what the Cluster page's cards
// and the sandbox's per-member actions read. Empty while the sandbox is not running.
class SandboxMemberModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("A Sandbox's members are its `members` property")
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    enum MemberState {
        Running,
        Paused,   // SIGSTOP: its connections stay open and nothing answers on them
        Stopped,  // by stopMember()
        Killed,   // by killMember()
        Exited,   // on its own: it crashed, or something outside the console ended it
    };
    Q_ENUM(MemberState)

    // What the sandbox is doing to a member right now.
    enum Action { NoAction, Stop, Kill, Pause, Resume, Restart };
    Q_ENUM(Action)

    enum Role {
        NameRole = Qt::UserRole + 1,
        ClientUrlRole,
        PidRole,     // 0 while no process runs
        StateRole,   // MemberState
        ActionRole,  // Action
        BusyRole,    // an action runs
        // Why each action cannot be done now, by name (stop, kill, pause, resume, restart);
        // empty for those that can.
        BlockedReasonsRole,
    };
    Q_ENUM(Role)

    struct Member
    {
        QString name;
        QString clientUrl;
        quint16 clientPort = 0;
        qint64 pid = 0;
        MemberState state = Stopped;
    };

    explicit SandboxMemberModel(QObject *parent = nullptr);
    ~SandboxMemberModel() override;

    int count() const { return int(m_rows.size()); }
    const Member &member(int row) const { return m_rows.at(row).member; }
    Action action(int row) const { return m_rows.at(row).action; }

    // A new cluster's members (or none): every row is replaced, no action runs.
    void resetMembers(const QList<Member> &members);
    // The same members as they are now: pids and states change in place.
    void updateMembers(const QList<Member> &members);
    void setAction(int row, Action action);
    // Why the action cannot be done to the member now, or empty.
    QString blockedReason(int row, Action action) const;
    // "stopped", "killed", ...: what the action does to a member, for messages.
    static QString pastTense(Action action);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    void countChanged();

private:
    struct Row
    {
        Member member;
        Action action = NoAction;
    };
    QList<Row> m_rows;
};
