// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "groupbarrierparticipant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

/// `CountedBarrier` in QML: a DistributedBarrierWithCount; wait() passes once memberCount arrived.
class QETCD_QUICK_EXPORT CountedBarrierParticipant : public GroupBarrierParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(CountedBarrier)
    /// The last wait() passed: memberCount members arrived.
    Q_PROPERTY(bool lifted READ isLifted NOTIFY liftedChanged)

public:
    /// A CountedBarrier without client or path yet.
    explicit CountedBarrierParticipant(QObject *parent = nullptr);

    /// The last wait() passed.
    bool isLifted() const;
    /// Arrives and waits for the others, returning at once: state turns Pending, then Active
    /// with lifted once memberCount have arrived, or Idle with errorOccurred(). \a timeoutMs
    /// < 0: wait as long as it takes.
    Q_INVOKABLE void wait(int timeoutMs = -1);

Q_SIGNALS:
    /// lifted changed.
    void liftedChanged();

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void recipeDropped() override;
    QFuture<qint64> countArrived() override;

private:
    void setLifted(bool lifted);

    bool m_lifted = false;
};

} // namespace QEtcd
