#pragma once

#include "groupbarrierparticipant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

// `CountedBarrier` in QML: a DistributedBarrierWithCount; wait() passes once memberCount arrived.
class QETCD_QUICK_EXPORT CountedBarrierParticipant : public GroupBarrierParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(CountedBarrier)
    Q_PROPERTY(bool lifted READ isLifted NOTIFY liftedChanged)

public:
    explicit CountedBarrierParticipant(QObject *parent = nullptr);

    bool isLifted() const;
    // timeoutMs < 0: wait as long as it takes.
    Q_INVOKABLE void wait(int timeoutMs = -1);

Q_SIGNALS:
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
