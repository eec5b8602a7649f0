// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "holdparticipant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

/// `Mutex` in QML: a DistributedMutex held by the GUI thread. lock() returns at once; held turns
/// true with acquired(), and false with lockLost() when the hold's lease is lost.
class QETCD_QUICK_EXPORT MutexParticipant : public HoldParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Mutex)

public:
    /// A Mutex without client or path yet.
    explicit MutexParticipant(QObject *parent = nullptr);

    /// Asks for the lock and returns at once: state turns Pending, then Active with acquired(),
    /// or Idle with errorOccurred() (DeadlineExceeded after \a timeoutMs). \a timeoutMs < 0:
    /// wait as long as it takes.
    Q_INVOKABLE void lock(int timeoutMs = -1);
    /// Gives the lock back. False when the hold was lost (or there was none): what it protected
    /// may have been changed by someone else meanwhile. The lock is given back either way.
    Q_INVOKABLE bool unlock();

Q_SIGNALS:
    /// The hold's lease was lost (held is false already), told before etcd can let anyone else
    /// in.
    void lockLost(const QEtcd::Status &cause);

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void announceLoss(const Status &cause) override { Q_EMIT lockLost(cause); }
};

} // namespace QEtcd
