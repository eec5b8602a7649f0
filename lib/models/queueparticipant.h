#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

// `Queue` in QML: a DistributedQueue. put() appends; take() waits for the oldest item and
// hands it over with taken(); depth is as of the last refreshDepth().
class QETCD_QUICK_EXPORT QueueParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Queue)
    Q_PROPERTY(int depth READ depth NOTIFY depthChanged)

public:
    explicit QueueParticipant(QObject *parent = nullptr);

    int depth() const;  // -1 before the first refreshDepth()

    Q_INVOKABLE void put(const QString &value);
    // timeoutMs < 0: wait as long as it takes; 0: only what is there now.
    Q_INVOKABLE void take(int timeoutMs = -1);
    Q_INVOKABLE void refreshDepth();

Q_SIGNALS:
    void depthChanged();
    void enqueued(const QString &value);
    void taken(const QString &key, const QString &value);

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void recipeDropped() override {}

private:
    int m_depth = -1;
};

} // namespace QEtcd
