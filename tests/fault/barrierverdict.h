// SPDX-License-Identifier: Apache-2.0
#pragma once

// The counted-barrier checker's verdicts. From the members' own lines: no member is released
// before every arrival of its round had begun. From etcd's history of the barrier: every round
// that tripped had its full count of members' keys written in it, and how many rounds had keys
// of an earlier round (stale keys) present when their members arrived.

#include <QEtcd/watcher.h>

#include <QtCore/QJsonObject>
#include <QtCore/QMap>
#include <QtCore/QSet>

namespace QEtcd::Testing {

// One member's arrival, by the lines of one `qetcd barrier count` run: "waiting" (printed
// before the arrival is asked for), "arrived" (its key is written in "round") and "released",
// each stamped "mono_ms" (CLOCK_MONOTONIC).
struct BarrierArrival
{
    QString member;
    qint64 waitingMs = -1;
    qint64 round = 0;        // 0: never arrived
    qint64 releasedMs = -1;  // -1: not released
};

// A member's lines, one run after another, as arrivals (each "waiting" begins one).
inline QList<BarrierArrival> barrierArrivals(const QString &member, const QList<QJsonObject> &lines)
{
    QList<BarrierArrival> arrivals;
    for (const QJsonObject &line : lines) {
        const QString event = line.value(QLatin1String("event")).toString();
        const qint64 monoMs = line.value(QLatin1String("mono_ms")).toInteger(-1);
        if (event == QLatin1String("waiting"))
            arrivals.append({member, monoMs});
        else if (arrivals.isEmpty())
            continue;
        else if (event == QLatin1String("arrived"))
            arrivals.last().round = line.value(QLatin1String("round")).toInteger();
        else if (event == QLatin1String("released"))
            arrivals.last().releasedMs = monoMs;
    }
    return arrivals;
}

// Empty when every release came after every arrival of its round had begun, else the first
// release (in time) that did not. A member can only be counted once it asked, so a release
// before that asked is one the barrier did not wait for. Milliseconds floor both instants: a
// release in the same millisecond is not early.
inline QString releasedEarly(const QList<BarrierArrival> &arrivals)
{
    QMap<qint64, const BarrierArrival *> lastBegun;  // round -> its last arrival to begin
    for (const BarrierArrival &arrival : arrivals) {
        if (arrival.round == 0)
            continue;
        const BarrierArrival *&last = lastBegun[arrival.round];
        if (!last || arrival.waitingMs > last->waitingMs)
            last = &arrival;
    }
    const BarrierArrival *earliest = nullptr;
    for (const BarrierArrival &arrival : arrivals) {
        if (arrival.round == 0 || arrival.releasedMs < 0 || arrival.releasedMs >= lastBegun[arrival.round]->waitingMs)
            continue;
        if (!earliest || arrival.releasedMs < earliest->releasedMs)
            earliest = &arrival;
    }
    if (!earliest)
        return {};
    const BarrierArrival *last = lastBegun[earliest->round];
    return QStringLiteral("released early: %1 was released from round %2 at %3 ms, %4 ms before %5 began its "
                          "arrival in that round")
        .arg(earliest->member)
        .arg(earliest->round)
        .arg(earliest->releasedMs)
        .arg(last->waitingMs - earliest->releasedMs)
        .arg(last->member);
}

// etcd's history of one counted barrier replayed: the rounds (<path>/ready from its creation to
// its deletion) and the members' keys (<path>/waiting/...) created in each.
class BarrierRounds
{
public:
    BarrierRounds(const QByteArray &path, qint64 memberCount)
        : m_ready(path + "/ready"), m_waitingPrefix(path + "/waiting/"), m_memberCount(memberCount)
    {
    }

    // Takes etcd's next change; empty while the history is sound, else the first round that
    // tripped a member short (it stays the verdict).
    QString take(const WatchEvent &change)
    {
        const KeyValue &kv = change.kv;
        const bool put = change.type == WatchEvent::Type::Put;
        if (kv.key == m_ready) {
            if (put) {
                m_round = kv.createRevision;
                m_keysInRound = 0;
            } else if (m_round != 0) {
                ++m_tripped;
                if (m_keysInRound < m_memberCount && m_violation.isEmpty()) {
                    m_violation = QStringLiteral("round %1 tripped (ready deleted at revision %2) with %3 of %4 "
                                                 "members' keys written in it")
                                      .arg(m_round)
                                      .arg(kv.modRevision)
                                      .arg(m_keysInRound)
                                      .arg(m_memberCount);
                }
                m_round = 0;
            }
            return m_violation;
        }
        if (!kv.key.startsWith(m_waitingPrefix))
            return m_violation;
        if (!put) {
            m_present.remove(kv.key);
            return m_violation;
        }
        if (kv.createRevision != kv.modRevision || m_present.contains(kv.key))
            return m_violation;  // rewritten, not an arrival
        m_present.insert(kv.key, kv.createRevision);
        if (m_round == 0)
            return m_violation;
        ++m_keysInRound;
        for (const qint64 createRevision : std::as_const(m_present)) {
            if (createRevision < m_round) {
                m_roundsWithStaleKeys.insert(m_round);
                break;
            }
        }
        return m_violation;
    }

    QString takeAll(const QList<WatchEvent> &history)
    {
        for (const WatchEvent &change : history)
            take(change);
        return m_violation;
    }

    // Rounds that tripped so far.
    int tripped() const { return m_tripped; }
    // Rounds in which a member arrived while a key of an earlier round was still there.
    int roundsWithStaleKeys() const { return int(m_roundsWithStaleKeys.size()); }

private:
    const QByteArray m_ready;
    const QByteArray m_waitingPrefix;
    const qint64 m_memberCount;
    qint64 m_round = 0;  // the open round's revision; 0: none open
    qint64 m_keysInRound = 0;
    int m_tripped = 0;
    QMap<QByteArray, qint64> m_present;  // members' keys -> create revision
    QSet<qint64> m_roundsWithStaleKeys;
    QString m_violation;
};

} // namespace QEtcd::Testing
