#pragma once

#include "holdparticipant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

// `Semaphore` in QML: one permit of a DistributedSemaphore of `permits`, held by the GUI thread.
class QETCD_QUICK_EXPORT SemaphoreParticipant : public HoldParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Semaphore)
    Q_PROPERTY(int permits READ permits WRITE setPermits NOTIFY permitsChanged)
    Q_PROPERTY(int available READ available NOTIFY availableChanged)

public:
    explicit SemaphoreParticipant(QObject *parent = nullptr);

    int permits() const;
    void setPermits(int permits);
    // Permits left, waiters counted, as of the last refreshAvailable(); -1 before.
    int available() const;

    // timeoutMs < 0: wait as long as it takes.
    Q_INVOKABLE void acquire(int timeoutMs = -1);
    // False when the permit was lost (or there was none); it is given back either way.
    Q_INVOKABLE bool release();
    Q_INVOKABLE void refreshAvailable();

Q_SIGNALS:
    void permitsChanged();
    void availableChanged();
    void permitLost(const QEtcd::Status &cause);

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void announceLoss(const Status &cause) override { Q_EMIT permitLost(cause); }

private:
    int m_permits = 1;
    int m_available = -1;
};

} // namespace QEtcd
