// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "groupbarrierparticipant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

/// `DoubleBarrier` in QML: a DistributedDoubleBarrier; enter() passes once memberCount entered,
/// leave() once all of them left.
class QETCD_QUICK_EXPORT DoubleBarrierParticipant : public GroupBarrierParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(DoubleBarrier)
    /// enter() passed: every member entered.
    Q_PROPERTY(bool entered READ hasEntered NOTIFY phaseChanged)
    /// leave() passed: every member left.
    Q_PROPERTY(bool left READ hasLeft NOTIFY phaseChanged)

public:
    /// A DoubleBarrier without client or path yet.
    explicit DoubleBarrierParticipant(QObject *parent = nullptr);

    /// enter() passed.
    bool hasEntered() const;
    /// leave() passed.
    bool hasLeft() const;

    /// Enters and returns at once; enteredBarrier() once memberCount entered, errorOccurred()
    /// otherwise. \a timeoutMs < 0: wait as long as it takes.
    Q_INVOKABLE void enter(int timeoutMs = -1);
    /// Leaves and returns at once; leftBarrier() once all of them left. \a timeoutMs < 0: wait
    /// as long as it takes.
    Q_INVOKABLE void leave(int timeoutMs = -1);

Q_SIGNALS:
    /// entered or left changed.
    void phaseChanged();
    /// Every member entered.
    void enteredBarrier();
    /// Every member left.
    void leftBarrier();

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void recipeDropped() override;
    QFuture<qint64> countArrived() override;

private:
    void setPhase(bool entered, bool left);

    bool m_entered = false;
    bool m_left = false;
};

} // namespace QEtcd
