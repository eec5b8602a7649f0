// SPDX-License-Identifier: Apache-2.0
#pragma once

// The work queue checker's verdict (tst_workqueuechecker), on etcd's history of the queue's
// keys and on what each consumer believed. The history tells each claim's end apart by what
// went with its claims/ key in one revision: with the in-flight copy under claimed/ and nothing
// put back, an acknowledgement; with the item put back under items/, a requeue (or, when the
// delivery count was restored too, a claim given back because nobody received it); alone, a
// claim lost with its consumer's lease. Then:
// - every enqueued value became exactly one item, acknowledged exactly once or dead-lettered;
// - every delivery after the first has the attempt after the previous delivery's, whose claim
//   was really lost (or given back by a requeue), never acknowledged;
// - the in-flight copy is never deleted while no claim stands;
// - each consumer received what etcd gave it, and what it believed of its acks (done, or told
//   its claim was lost) is what etcd did with that very claim.

#include <QEtcd/watcher.h>

#include <QtCore/QHash>
#include <QtCore/QList>
#include <QtCore/QMap>
#include <QtCore/QSet>
#include <QtCore/QString>
#include <QtCore/QtEndian>

#include <optional>

namespace QEtcd::Testing {

// One delivery as its consumer saw it, and what its ack told the consumer.
struct WorkDelivery
{
    enum class Ack {
        Done,     // ack() said Ok
        Lost,     // ack() said OwnershipLost, and no earlier try of it went unanswered
        Unknown,  // never answered for sure (an answer lost, then "lost": maybe our own ack)
    };
    QString consumer;
    QByteArray owner;  // the consumer's clientId, what its claims hold
    QByteArray id;
    QByteArray value;
    int attempt = 0;
    qint64 claimRevision = 0;
    Ack ack = Ack::Unknown;
};

// What the history held, for the checker's floors.
struct WorkQueueFigures
{
    int items = 0;
    int acknowledged = 0;
    int deadLettered = 0;
    int claims = 0;
    int claimsLost = 0;   // claims/ keys gone with their lease
    int redeliveries = 0;  // claims after a lost (or requeued) one
    int givenBack = 0;
};

namespace WorkQueueVerdict {
enum class End { Open, Acknowledged, Lost, Requeued, GivenBack };

struct Claim
{
    qint64 revision = 0;
    QByteArray owner;
    int attempt = 0;
    End end = End::Open;
    qint64 endRevision = 0;
};

struct Item
{
    QByteArray value;
    QList<Claim> claims;
    int acknowledgements = 0;
    bool deadLettered = false;
};

inline QString endName(End end)
{
    switch (end) {
    case End::Open: return QStringLiteral("still standing");
    case End::Acknowledged: return QStringLiteral("acknowledged");
    case End::Lost: return QStringLiteral("lost");
    case End::Requeued: return QStringLiteral("requeued");
    case End::GivenBack: return QStringLiteral("given back");
    }
    return {};
}

// The key's place under path/ (items, claimed, claims, attempts, dlq, delayed) and its id.
inline std::pair<QByteArray, QByteArray> placeOf(const QByteArray &path, const QByteArray &key)
{
    const QByteArray rest = key.mid(path.size() + 1);
    const qsizetype slash = rest.indexOf('/');
    return slash < 0 ? std::pair<QByteArray, QByteArray>{} : std::pair{rest.left(slash), rest.mid(slash + 1)};
}
} // namespace WorkQueueVerdict

// Empty when the history and the beliefs keep every promise above, else the first broken one.
// enqueued: every value the producers were told went in; history: every event under path/, in
// etcd's order (deletes need only key and revision).
inline QString workQueueViolation(const QByteArray &path, const QList<QByteArray> &enqueued,
                                  const QList<WatchEvent> &history, const QList<WorkDelivery> &deliveries,
                                  WorkQueueFigures *figures = nullptr)
{
    using namespace WorkQueueVerdict;
    QMap<QByteArray, Item> items;  // by id
    QHash<QByteArray, QList<QByteArray>> idsOf;  // by value
    const auto id = [](const QByteArray &value) { return QString::fromUtf8(value); };
    // The history's first broken promise. Reported after the consumers' acknowledgements, which
    // name the consumer behind it when one acknowledged what it no longer held.
    QString broken;
    const auto note = [&broken](const QString &problem) {
        if (broken.isEmpty())
            broken = problem;
    };

    for (qsizetype first = 0; first < history.size();) {
        const qint64 revision = history[first].kv.modRevision;
        qsizetype next = first;
        // What each id's keys did in this one revision, by place.
        QMap<QByteArray, QHash<QByteArray, const WatchEvent *>> changes;
        for (; next < history.size() && history[next].kv.modRevision == revision; ++next) {
            const auto [place, itemId] = placeOf(path, history[next].kv.key);
            if (!place.isEmpty())
                changes[itemId].insert(place, &history[next]);
        }
        first = next;
        for (auto it = changes.cbegin(); it != changes.cend(); ++it) {
            const QByteArray &itemId = it.key();
            const auto &change = it.value();
            const auto put = [&](const char *place) {
                const WatchEvent *event = change.value(place);
                return event && event->type == WatchEvent::Type::Put;
            };
            const auto deleted = [&](const char *place) {
                const WatchEvent *event = change.value(place);
                return event && event->type == WatchEvent::Type::Delete;
            };
            const bool known = items.contains(itemId);
            Item &item = items[itemId];
            if (!known) {
                const WatchEvent *entered = change.value("items", change.value("delayed"));
                if (!entered || entered->type != WatchEvent::Type::Put) {
                    note(QStringLiteral("item %1 appeared at revision %2 without being enqueued").arg(id(itemId)).arg(revision));
                    continue;
                }
                item.value = entered->kv.value;
                idsOf[item.value].append(itemId);
            }
            Claim *last = item.claims.isEmpty() ? nullptr : &item.claims.last();
            const bool standing = last && last->end == End::Open;
            if (put("claims")) {
                const QByteArray count = change.value("attempts") ? change.value("attempts")->kv.value : QByteArray();
                const Claim claim{revision, change.value("claims")->kv.value,
                                  count.size() == 4 ? qFromBigEndian<qint32>(count.constData()) : 0, End::Open, 0};
                // The delivery before this one: given-back claims reached nobody.
                const Claim *previous = nullptr;
                for (auto c = item.claims.crbegin(); c != item.claims.crend() && !previous; ++c) {
                    if (c->end != End::GivenBack)
                        previous = &*c;
                }
                const int expected = previous ? previous->attempt + 1 : 1;
                if (standing)
                    note(QStringLiteral("item %1 claimed at revision %2 while its claim of revision %3 still stood")
                             .arg(id(itemId)).arg(revision).arg(last->revision));
                else if (item.acknowledgements > 0)
                    note(QStringLiteral("item %1 delivered again at revision %2 after it was acknowledged")
                             .arg(id(itemId)).arg(revision));
                else if (previous && previous->end != End::Lost && previous->end != End::Requeued)
                    note(QStringLiteral("item %1 delivered again at revision %2 after a claim that was %3, not lost")
                             .arg(id(itemId)).arg(revision).arg(endName(previous->end)));
                else if (claim.attempt != expected)
                    note(QStringLiteral("item %1 delivered at revision %2 as attempt %3, not %4")
                             .arg(id(itemId)).arg(revision).arg(claim.attempt).arg(expected));
                if (figures) {
                    ++figures->claims;
                    figures->redeliveries += previous ? 1 : 0;
                }
                item.claims.append(claim);
            } else if (deleted("claims")) {
                if (!standing) {
                    note(QStringLiteral("item %1's claim deleted at revision %2 while none stood").arg(id(itemId)).arg(revision));
                    continue;
                }
                last->endRevision = revision;
                if (!deleted("claimed")) {
                    last->end = End::Lost;
                    if (figures)
                        ++figures->claimsLost;
                } else if (put("items")) {
                    last->end = change.value("attempts") ? End::GivenBack : End::Requeued;
                    if (figures && last->end == End::GivenBack)
                        ++figures->givenBack;
                } else {
                    last->end = End::Acknowledged;
                    ++item.acknowledgements;
                }
            } else if (deleted("claimed") && !put("items") && !put("dlq")) {
                // The sweep of a lost claim puts the item back (or into dlq/) in the same revision.
                note(QStringLiteral("item %1's in-flight copy deleted at revision %2 while no claim stood "
                                    "(acknowledged by a consumer whose claim was lost)")
                         .arg(id(itemId)).arg(revision));
                ++item.acknowledgements;
            }
            if (put("dlq"))
                item.deadLettered = true;
        }
    }

    for (auto it = items.cbegin(); it != items.cend(); ++it) {
        const Item &item = it.value();
        if (item.acknowledgements > 1)
            note(QStringLiteral("item %1 acknowledged %2 times").arg(id(it.key())).arg(item.acknowledgements));
        else if (item.acknowledgements == 1 && item.deadLettered)
            note(QStringLiteral("item %1 both acknowledged and dead-lettered").arg(id(it.key())));
        else if (item.acknowledgements == 0 && !item.deadLettered)
            note(QStringLiteral("item %1 (%2) neither acknowledged nor dead-lettered").arg(id(it.key()), id(item.value)));
        if (figures) {
            ++figures->items;
            figures->acknowledged += item.acknowledgements;
            figures->deadLettered += item.deadLettered ? 1 : 0;
        }
    }
    for (const QByteArray &value : enqueued) {
        if (const int landed = int(idsOf.value(value).size()); landed != 1)
            note(QStringLiteral("value %1 was enqueued once and became %2 items").arg(id(value)).arg(landed));
    }

    // Beliefs: acknowledgements first, so that a consumer acking what it no longer held is named
    // rather than the one whose claim it took.
    const auto claimOf = [&items](const WorkDelivery &delivery) -> std::optional<Claim> {
        const Item item = items.value(delivery.id);
        for (const Claim &claim : item.claims) {
            if (claim.revision == delivery.claimRevision)
                return claim;
        }
        return std::nullopt;
    };
    for (const WorkDelivery &delivery : deliveries) {
        const std::optional<Claim> claim = claimOf(delivery);
        if (!claim || claim->owner != delivery.owner || claim->attempt != delivery.attempt
            || items.value(delivery.id).value != delivery.value)
            return QStringLiteral("%1 received item %2 (attempt %3, claim of revision %4) that etcd never gave it")
                .arg(delivery.consumer, id(delivery.id)).arg(delivery.attempt).arg(delivery.claimRevision);
        if (delivery.ack == WorkDelivery::Ack::Done && claim->end != End::Acknowledged)
            return QStringLiteral("%1 acknowledged item %2 under its claim of revision %3, but that claim was %4 "
                                  "(at revision %5)")
                .arg(delivery.consumer, id(delivery.id)).arg(delivery.claimRevision).arg(endName(claim->end))
                .arg(claim->endRevision);
    }
    if (!broken.isEmpty())
        return broken;
    for (const WorkDelivery &delivery : deliveries) {
        const std::optional<Claim> claim = claimOf(delivery);
        if (delivery.ack == WorkDelivery::Ack::Lost && claim->end == End::Acknowledged)
            return QStringLiteral("%1 was told its claim of revision %2 on item %3 was lost, but it was acknowledged "
                                  "at revision %4")
                .arg(delivery.consumer).arg(delivery.claimRevision).arg(id(delivery.id)).arg(claim->endRevision);
    }
    return {};
}

} // namespace QEtcd::Testing
