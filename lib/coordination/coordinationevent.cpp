// SPDX-License-Identifier: Apache-2.0
#include "coordinationevent.h"

#include "coordinationindex_p.h"

namespace QEtcd {

using namespace Internal;

QString CoordinationEvent::typeName() const
{
    static const char *const names[] = {"acquired",     "handedOn",      "released",      "waiterJoined",  "waiterLeft",
                                        "elected",      "leaderEnded",   "candidateJoined", "candidateLeft", "barrierSet",
                                        "barrierLifted", "memberArrived", "memberLeft",    "roundOpened",   "roundReleased",
                                        "instanceUp",   "instanceDown",  "itemsPut",      "itemsTaken",    "counterChanged",
                                        "healed"};
    return QString::fromLatin1(names[int(type)]);
}

QString CoordinationEvent::causeName() const
{
    switch (cause) {
    case Cause::None:
        return {};
    case Cause::Deleted:
        return QStringLiteral("deleted");
    case Cause::LeaseEnded:
        return QStringLiteral("leaseEnded");
    case Cause::RemovedByOwner:
        return QStringLiteral("removedByOwner");
    case Cause::LiftedByOperator:
        return QStringLiteral("liftedByOperator");
    }
    return {};
}

QJsonObject CoordinationEvent::toJson() const
{
    CoordinationObject object;
    object.kind = kind;
    QJsonObject json{{QLatin1String("revision"), revision},
                     {QLatin1String("event"), typeName()},
                     {QLatin1String("kind"), object.kindName()},
                     {QLatin1String("path"), QString::fromUtf8(path)}};
    if (!entry.key.isEmpty()) {
        json.insert(QLatin1String("who"), entry.displayName());
        json.insert(QLatin1String("key"), QString::fromUtf8(entry.key));
        json.insert(QLatin1String("token"), entry.createRevision);
        if (entry.lease)
            json.insert(QLatin1String("lease_id"), leaseIdText(entry.lease));
    }
    if (!previous.key.isEmpty()) {
        json.insert(QLatin1String("previous_who"), previous.displayName());
        json.insert(QLatin1String("previous_key"), QString::fromUtf8(previous.key));
        if (previous.lease)
            json.insert(QLatin1String("previous_lease_id"), leaseIdText(previous.lease));
    }
    if (cause != Cause::None)
        json.insert(QLatin1String("cause"), causeName());
    if (type == Type::ItemsPut || type == Type::ItemsTaken || type == Type::CounterChanged || type == Type::Healed)
        json.insert(type == Type::Healed ? QLatin1String("after_revisions") : QLatin1String("count"), count);
    if (type == Type::CounterChanged)
        json.insert(QLatin1String("previous_count"), previousCount);
    if (!rule.isEmpty())
        json.insert(QLatin1String("rule"), rule);
    if (timeMs >= 0)
        json.insert(QLatin1String("time_ms"), timeMs);
    if (goneMs >= 0)
        json.insert(QLatin1String("gone_ms"), goneMs);
    return json;
}

QString CoordinationEvent::toText() const
{
    CoordinationObject object;
    object.kind = kind;
    return QStringLiteral("%1  %2 %3: %4").arg(revision).arg(object.kindName(), QString::fromUtf8(path), summary());
}

QString CoordinationEvent::summary() const
{
    // A candidate that wrote no name is known by its proposal as well as by its lease.
    const auto named = [this](const CoordinationEntry &each) {
        return kind == CoordinationObject::Kind::Election && each.name.isEmpty() && !each.value.isEmpty()
            ? QStringLiteral("\"%1\" (%2)").arg(each.valueText(), each.displayName())
            : each.displayName();
    };
    const QString who = named(entry);
    const QString how = cause == Cause::Deleted            ? QStringLiteral(" (key deleted)")
                      : cause == Cause::LeaseEnded         ? QStringLiteral(" (its lease ended)")
                      : cause == Cause::RemovedByOwner     ? QStringLiteral(" (removed by its owner)")
                      : cause == Cause::LiftedByOperator   ? QStringLiteral(" (lifted by an operator)")
                                                           : QString();
    QString what;
    switch (type) {
    case Type::Acquired:
        what = QStringLiteral("acquired by %1 (token %2)").arg(who).arg(entry.createRevision);
        break;
    case Type::HandedOn:
        what = QStringLiteral("handed on from %1 to %2 (token %3)").arg(named(previous), who).arg(entry.createRevision);
        break;
    case Type::Released:
        what = QStringLiteral("released by %1%2").arg(who, how);
        break;
    case Type::WaiterJoined:
        what = QStringLiteral("%1 waits").arg(who);
        break;
    case Type::WaiterLeft:
        what = QStringLiteral("%1 stopped waiting%2").arg(who, how);
        break;
    case Type::Elected:
        what = previous.key.isEmpty() ? QStringLiteral("%1 elected (term %2)").arg(who).arg(entry.createRevision)
                                      : QStringLiteral("%1 elected after %2 (term %3)")
                                            .arg(who, named(previous))
                                            .arg(entry.createRevision);
        break;
    case Type::LeaderEnded:
        what = QStringLiteral("%1 no longer leads%2").arg(who, how);
        break;
    case Type::CandidateJoined:
        what = QStringLiteral("%1 stands").arg(who);
        break;
    case Type::CandidateLeft:
        what = QStringLiteral("%1 withdrew%2").arg(who, how);
        break;
    case Type::BarrierSet:
        what = QStringLiteral("set by %1").arg(who);
        break;
    case Type::BarrierLifted:
        what = QStringLiteral("lifted, set by %1%2").arg(who, how);
        break;
    case Type::MemberArrived:
        what = QStringLiteral("%1 arrived").arg(who);
        break;
    case Type::MemberLeft:
        what = QStringLiteral("%1 left%2").arg(who, how);
        break;
    case Type::RoundOpened:
        what = QStringLiteral("round opened by %1").arg(who);
        break;
    case Type::RoundReleased:
        what = QStringLiteral("round released");
        break;
    case Type::InstanceUp:
        what = QStringLiteral("instance %1 up").arg(who);
        break;
    case Type::InstanceDown:
        what = QStringLiteral("instance %1 down%2").arg(who, how);
        break;
    case Type::ItemsPut:
        what = QStringLiteral("%1 item(s) put").arg(count);
        break;
    case Type::ItemsTaken:
        what = QStringLiteral("%1 item(s) taken").arg(count);
        break;
    case Type::CounterChanged:
        what = QStringLiteral("%1 -> %2").arg(previousCount).arg(count);
        break;
    case Type::Healed:
        what = QStringLiteral("%1 healed after %2 revision(s)%3, lease %4 -> %5")
                   .arg(who)
                   .arg(count)
                   .arg(goneMs >= 0 ? QStringLiteral(" (%1 s)").arg(double(goneMs) / 1000.0, 0, 'f', 1) : QString(),
                        leaseIdText(previous.lease), leaseIdText(entry.lease));
        break;
    }
    return what;
}

bool CoordinationEvent::operator==(const CoordinationEvent &other) const
{
    return revision == other.revision && type == other.type && kind == other.kind && path == other.path
        && entry == other.entry && previous == other.previous && cause == other.cause && count == other.count
        && previousCount == other.previousCount && rule == other.rule && timeMs == other.timeMs
        && goneMs == other.goneMs;
}

} // namespace QEtcd
