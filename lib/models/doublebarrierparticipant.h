#pragma once

#include "groupbarrierparticipant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

// `DoubleBarrier` in QML: a DistributedDoubleBarrier; enter() passes once memberCount entered,
// leave() once all of them left.
class QETCD_QUICK_EXPORT DoubleBarrierParticipant : public GroupBarrierParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(DoubleBarrier)
    Q_PROPERTY(bool entered READ hasEntered NOTIFY phaseChanged)
    Q_PROPERTY(bool left READ hasLeft NOTIFY phaseChanged)

public:
    explicit DoubleBarrierParticipant(QObject *parent = nullptr);

    bool hasEntered() const;
    bool hasLeft() const;

    // timeoutMs < 0: wait as long as it takes.
    Q_INVOKABLE void enter(int timeoutMs = -1);
    Q_INVOKABLE void leave(int timeoutMs = -1);

Q_SIGNALS:
    void phaseChanged();
    void enteredBarrier();
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
