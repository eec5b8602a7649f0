// SPDX-License-Identifier: Apache-2.0
#include "distributeddoublebarrier.h"

#include "distributedbarrierwithcount.h"
#include "keymirror_p.h"

namespace QEtcd {

class DistributedDoubleBarrierPrivate
{
public:
    QByteArray path;
    std::unique_ptr<DistributedBarrierWithCount> entering;
    std::unique_ptr<DistributedBarrierWithCount> leaving;
};

DistributedDoubleBarrier::DistributedDoubleBarrier(Client *client, const QByteArray &path, qint64 memberCount,
                                                   const RecipeOptions &options, QObject *parent)
    : Recipe(client, QStringLiteral("DistributedDoubleBarrier"), path, options, parent),
      d(std::make_unique<DistributedDoubleBarrierPrivate>())
{
    d->path = path;
    // this->options() carries the resolved clientId, so both rendezvous name the same member.
    d->entering = std::make_unique<DistributedBarrierWithCount>(client, path + "/enter", memberCount, this->options());
    d->leaving = std::make_unique<DistributedBarrierWithCount>(client, path + "/leave", memberCount, this->options());
    for (const auto &[inner, name] : {std::pair(d->entering.get(), QStringLiteral("enter")),
                                      std::pair(d->leaving.get(), QStringLiteral("leave"))}) {
        follow(inner, name);
        // State changes and errors are recorded here on their own.
        connect(inner, &Recipe::historyAppended, this,
                [this, name](const RecipeHistoryEntry &entry) {
                    if (entry.source != RecipeHistoryEntry::Source::ConnectionState
                        && entry.source != RecipeHistoryEntry::Source::Error)
                        recordHistory(entry.source, name + QStringLiteral(": ") + entry.text);
                },
                Qt::DirectConnection);
    }
}

DistributedDoubleBarrier::~DistributedDoubleBarrier()
{
    close();
}

QByteArray DistributedDoubleBarrier::path() const
{
    return d->path;
}

qint64 DistributedDoubleBarrier::memberCount() const
{
    return d->entering->memberCount();
}

// A rendezvous that was never used is not closed along with us (close() before start() is a
// no-op), hence the isClosed() checks here.
bool DistributedDoubleBarrier::enter(std::chrono::milliseconds timeout)
{
    if (isClosed())
        return false;
    beginStart();
    return d->entering->waitOnBarrier(timeout);
}

QFuture<Status> DistributedDoubleBarrier::enterAsync(std::chrono::milliseconds timeout)
{
    if (isClosed())
        return QtFuture::makeReadyFuture(Status(StatusCode::Closed, context() + QStringLiteral(": closed")));
    beginStart();
    return d->entering->waitOnBarrierAsync(timeout);
}

bool DistributedDoubleBarrier::leave(std::chrono::milliseconds timeout)
{
    if (isClosed())
        return false;
    beginStart();
    return d->leaving->waitOnBarrier(timeout);
}

QFuture<Status> DistributedDoubleBarrier::leaveAsync(std::chrono::milliseconds timeout)
{
    if (isClosed())
        return QtFuture::makeReadyFuture(Status(StatusCode::Closed, context() + QStringLiteral(": closed")));
    beginStart();
    return d->leaving->waitOnBarrierAsync(timeout);
}

QFuture<qint64> DistributedDoubleBarrier::enterWaiterCount() const
{
    return d->entering->waiterCount();
}

QFuture<qint64> DistributedDoubleBarrier::leaveWaiterCount() const
{
    return d->leaving->waiterCount();
}

void DistributedDoubleBarrier::doClose()
{
    d->entering->close();
    d->leaving->close();
}

} // namespace QEtcd
