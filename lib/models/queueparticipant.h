// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

/// `Queue` in QML: a DistributedQueue. put() appends; take() waits for the oldest item and
/// hands it over with taken(); depth is as of the last refreshDepth().
class QETCD_QUICK_EXPORT QueueParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Queue)
    /// Items waiting, as of the last refreshDepth(); -1 before.
    Q_PROPERTY(int depth READ depth NOTIFY depthChanged)

public:
    /// A Queue without client or path yet.
    explicit QueueParticipant(QObject *parent = nullptr);

    /// Items waiting, as of the last refreshDepth(); -1 before.
    int depth() const;

    /// Appends \a value and returns at once; enqueued() when it is in.
    Q_INVOKABLE void put(const QString &value);
    /// Takes the oldest item and returns at once: Pending, then taken() (or errorOccurred(),
    /// NotFound for an empty queue) and Idle. \a timeoutMs < 0: wait as long as it takes;
    /// 0: only what is there now.
    Q_INVOKABLE void take(int timeoutMs = -1);
    /// Reads depth afresh.
    Q_INVOKABLE void refreshDepth();

Q_SIGNALS:
    /// depth changed.
    void depthChanged();
    /// \a value is in the queue.
    void enqueued(const QString &value);
    /// This participant took the item at \a key; it is gone from etcd.
    void taken(const QString &key, const QString &value);

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void recipeDropped() override {}

private:
    int m_depth = -1;
};

} // namespace QEtcd
