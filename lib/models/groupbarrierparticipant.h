// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

/// What CountedBarrier and DoubleBarrier share: a group of memberCount and how many arrived.
class QETCD_QUICK_EXPORT GroupBarrierParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_ANONYMOUS
    /// How many members the group waits for (default 2). Changing it drops what was held.
    Q_PROPERTY(int memberCount READ memberCount WRITE setMemberCount NOTIFY memberCountChanged)
    /// Members waiting to pass (to enter, for a double barrier) as of the last
    /// refreshArrived(); -1 before.
    Q_PROPERTY(int arrived READ arrived NOTIFY arrivedChanged)

public:
    /// How many members the group waits for.
    int memberCount() const;
    /// Sets how many members the group waits for.
    void setMemberCount(int count);
    /// Members waiting to pass (to enter, for a double barrier) as of the last refreshArrived();
    /// -1 before.
    int arrived() const;

    /// Reads arrived afresh.
    Q_INVOKABLE void refreshArrived();

Q_SIGNALS:
    /// memberCount changed.
    void memberCountChanged();
    /// arrived changed.
    void arrivedChanged();

protected:
    using RecipeParticipant::RecipeParticipant;

    /// Reads how many members wait to pass; -1 when the read failed.
    virtual QFuture<qint64> countArrived() = 0;
    /// Runs a wait to pass a gate: Pending, then done(true) and Active, or the error and Idle.
    template <class Done>
    void passGate(QFuture<Status> gate, Done done)
    {
        setState(State::Pending);
        record(QStringLiteral("pending"), QStringLiteral("waiting for %1 members").arg(m_memberCount));
        whenDone(std::move(gate), [this, done](const Status &status) {
            if (!status)
                reportError(status);
            setState(status ? State::Active : State::Idle);
            done(status.isOk());
        });
    }

private:
    int m_memberCount = 2;
    int m_arrived = -1;
};

} // namespace QEtcd
