// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "holdparticipant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

/// `Semaphore` in QML: one permit of a DistributedSemaphore of `permits`, held by the GUI thread.
class QETCD_QUICK_EXPORT SemaphoreParticipant : public HoldParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Semaphore)
    /// The semaphore's permit count (default 1); all participants must agree on it. Changing it
    /// drops what was held.
    Q_PROPERTY(int permits READ permits WRITE setPermits NOTIFY permitsChanged)
    /// Permits left, waiters counted, as of the last refreshAvailable(); -1 before.
    Q_PROPERTY(int available READ available NOTIFY availableChanged)

public:
    /// A Semaphore without client or path yet.
    explicit SemaphoreParticipant(QObject *parent = nullptr);

    /// The permit count.
    int permits() const;
    /// Sets the permit count.
    void setPermits(int permits);
    /// Permits left, waiters counted, as of the last refreshAvailable(); -1 before.
    int available() const;

    /// Asks for a permit and returns at once: state turns Pending, then Active with acquired(),
    /// or Idle with errorOccurred(). \a timeoutMs < 0: wait as long as it takes.
    Q_INVOKABLE void acquire(int timeoutMs = -1);
    /// Gives the permit back. False when it was lost (or there was none); it is given back
    /// either way.
    Q_INVOKABLE bool release();
    /// Reads available afresh.
    Q_INVOKABLE void refreshAvailable();

Q_SIGNALS:
    /// permits changed.
    void permitsChanged();
    /// available changed.
    void availableChanged();
    /// The permit's lease was lost (held is false already), told before etcd can give it to
    /// anyone else.
    void permitLost(const QEtcd::Status &cause);

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void announceLoss(const Status &cause) override { Q_EMIT permitLost(cause); }

private:
    int m_permits = 1;
    int m_available = -1;
};

} // namespace QEtcd
