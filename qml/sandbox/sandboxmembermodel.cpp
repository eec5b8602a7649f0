// SPDX-License-Identifier: Apache-2.0
#include "sandboxmembermodel.h"

namespace {
using Action = SandboxMemberModel::Action;
using MemberState = SandboxMemberModel::MemberState;

constexpr Action allActions[] = {Action::Stop, Action::Kill, Action::Pause, Action::Resume, Action::Restart};

QString actionName(Action action)
{
    switch (action) {
    case Action::Stop:
        return QStringLiteral("stop");
    case Action::Kill:
        return QStringLiteral("kill");
    case Action::Pause:
        return QStringLiteral("pause");
    case Action::Resume:
        return QStringLiteral("resume");
    case Action::Restart:
        return QStringLiteral("restart");
    case Action::NoAction:
        break;
    }
    return {};
}

QString stateWord(MemberState state)
{
    switch (state) {
    case MemberState::Running:
        return SandboxMemberModel::tr("running");
    case MemberState::Paused:
        return SandboxMemberModel::tr("paused");
    case MemberState::Stopped:
        return SandboxMemberModel::tr("stopped");
    case MemberState::Killed:
        return SandboxMemberModel::tr("killed");
    case MemberState::Exited:
        return SandboxMemberModel::tr("exited");
    }
    return {};
}
} // namespace

SandboxMemberModel::SandboxMemberModel(QObject *parent) : QAbstractListModel(parent) {}

SandboxMemberModel::~SandboxMemberModel() = default;

void SandboxMemberModel::resetMembers(const QList<Member> &members)
{
    const int before = count();
    beginResetModel();
    m_rows.clear();
    for (const Member &member : members)
        m_rows.append({member, NoAction});
    endResetModel();
    if (count() != before)
        Q_EMIT countChanged();
}

void SandboxMemberModel::updateMembers(const QList<Member> &members)
{
    for (int row = 0; row < count() && row < members.size(); ++row) {
        Member &current = m_rows[row].member;
        if (current.pid == members[row].pid && current.state == members[row].state)
            continue;
        current.pid = members[row].pid;
        current.state = members[row].state;
        Q_EMIT dataChanged(index(row), index(row), {PidRole, StateRole, BlockedReasonsRole});
    }
}

void SandboxMemberModel::setAction(int row, Action action)
{
    if (m_rows[row].action == action)
        return;
    m_rows[row].action = action;
    Q_EMIT dataChanged(index(row), index(row), {ActionRole, BusyRole, BlockedReasonsRole});
}

QString SandboxMemberModel::pastTense(Action action)
{
    switch (action) {
    case Action::Stop:
        return tr("stopped");
    case Action::Kill:
        return tr("killed");
    case Action::Pause:
        return tr("paused");
    case Action::Resume:
        return tr("resumed");
    case Action::Restart:
        return tr("restarted");
    case Action::NoAction:
        break;
    }
    return {};
}

QString SandboxMemberModel::blockedReason(int row, Action action) const
{
    const Row &current = m_rows.at(row);
    const QString &name = current.member.name;
    if (current.action != NoAction)
        return tr("%1 is being %2: wait until that is done.").arg(name, pastTense(current.action));
    const MemberState state = current.member.state;
    const bool up = state == Running || state == Paused;
    switch (action) {
    case Stop:
    case Kill:
        if (!up)
            return tr("%1 is %2: only a running or paused member can be %3.").arg(name, stateWord(state), pastTense(action));
        break;
    case Pause:
        if (state != Running)
            return tr("%1 is %2: only a running member can be paused.").arg(name, stateWord(state));
        break;
    case Resume:
        if (state != Paused)
            return tr("%1 is %2: only a paused member can be resumed.").arg(name, stateWord(state));
        break;
    case Restart:  // whatever its state: a running member is stopped first
    case NoAction:
        break;
    }
    return {};
}

int SandboxMemberModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : count();
}

QVariant SandboxMemberModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case NameRole:
        return row.member.name;
    case ClientUrlRole:
        return row.member.clientUrl;
    case PidRole:
        return row.member.pid;
    // As numbers, which QML compares with SandboxMemberModel.Paused and the like.
    case StateRole:
        return int(row.member.state);
    case ActionRole:
        return int(row.action);
    case BusyRole:
        return row.action != NoAction;
    case BlockedReasonsRole: {
        QVariantMap reasons;
        for (Action action : allActions)
            reasons.insert(actionName(action), blockedReason(index.row(), action));
        return reasons;
    }
    default:
        return {};
    }
}

QHash<int, QByteArray> SandboxMemberModel::roleNames() const
{
    return {{NameRole, "name"},   {ClientUrlRole, "clientUrl"}, {PidRole, "pid"},
            {StateRole, "state"}, {ActionRole, "action"},       {BusyRole, "busy"},
            {BlockedReasonsRole, "blockedReasons"}};
}
