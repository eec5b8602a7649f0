// SPDX-License-Identifier: Apache-2.0
#include "serviceprovider.h"

#include "blockingwait_p.h"
#include "discovery_p.h"
#include "keymirror_p.h"
#include "servicecache.h"

#include <QtCore/QRandomGenerator>

namespace QEtcd {

using namespace Internal;
using Clock = std::chrono::steady_clock;

ProviderStrategy::~ProviderStrategy() = default;

std::optional<ServiceInstance> RandomStrategy::select(const QList<ServiceInstance> &instances)
{
    if (instances.isEmpty())
        return std::nullopt;
    return instances.at(QRandomGenerator::global()->bounded(qsizetype(instances.size())));
}

std::optional<ServiceInstance> RoundRobinStrategy::select(const QList<ServiceInstance> &instances)
{
    if (instances.isEmpty())
        return std::nullopt;
    return instances.at(qsizetype(m_cursor.fetch_add(1) % quint64(instances.size())));
}

StickyStrategy::StickyStrategy(std::unique_ptr<ProviderStrategy> delegate) : m_delegate(std::move(delegate)) {}

std::optional<ServiceInstance> StickyStrategy::select(const QList<ServiceInstance> &instances)
{
    QMutexLocker locker(&m_mutex);
    if (m_last) {
        for (const ServiceInstance &instance : instances) {
            if (instance == *m_last)
                return instance;
        }
    }
    m_last = m_delegate->select(instances);
    return m_last;
}

namespace {
// What a request needs after the provider may be gone: the strategy and the ejection book.
struct Selection
{
    struct Count
    {
        ServiceInstance instance;
        int errors = 0;
    };
    struct Down
    {
        ServiceInstance instance;
        Clock::time_point until;
    };

    std::unique_ptr<ProviderStrategy> strategy;
    int errorThreshold = 3;
    Clock::duration downPeriod;
    QString serviceName;

    QMutex mutex;
    QList<Count> counts;
    QList<Down> down;

    // True when the error ejected the instance.
    bool noteError(const ServiceInstance &instance)
    {
        QMutexLocker locker(&mutex);
        auto count = std::find_if(counts.begin(), counts.end(), [&](const Count &c) { return c.instance == instance; });
        if (count == counts.end()) {
            counts.append(Count{instance, 0});
            count = std::prev(counts.end());
        }
        if (++count->errors < errorThreshold)
            return false;
        counts.erase(count);
        down.append({instance, Clock::now() + downPeriod});
        return true;
    }

    QList<ServiceInstance> ejected()
    {
        QMutexLocker locker(&mutex);
        forgetExpired();
        QList<ServiceInstance> list;
        for (const Down &each : std::as_const(down))
            list.append(each.instance);
        return list;
    }

    // Ejections end lazily, the next time someone asks.
    void forgetExpired()
    {
        const auto now = Clock::now();
        down.removeIf([now](const Down &each) { return each.until <= now; });
    }

    ServiceInstanceResult pick(const QList<ServiceInstance> &instances)
    {
        QList<ServiceInstance> available;
        {
            QMutexLocker locker(&mutex);
            forgetExpired();
            for (const ServiceInstance &instance : instances) {
                if (std::none_of(down.cbegin(), down.cend(), [&](const Down &each) { return each.instance == instance; }))
                    available.append(instance);
            }
        }
        if (const auto chosen = strategy->select(available))
            return {Status(), *chosen};
        return {Status(StatusCode::NotFound, QStringLiteral("No instances available for service ") + serviceName), {}};
    }
};
} // namespace

class ServiceProviderPrivate
{
public:
    QByteArray namesPath;
    std::shared_ptr<Selection> selection = std::make_shared<Selection>();
    std::unique_ptr<ServiceCache> cache;
    QFuture<Status> cacheStarted;  // set by start(), before started is
    std::atomic<bool> started{false};
};

ServiceProvider::ServiceProvider(Client *client, const QByteArray &namesPath, const QString &serviceName,
                                 std::unique_ptr<ProviderStrategy> strategy, const ProviderOptions &options,
                                 QObject *parent)
    : Recipe(client, QStringLiteral("ServiceProvider"), serviceName.toUtf8(), options, parent),
      d(std::make_unique<ServiceProviderPrivate>())
{
    qRegisterMetaType<ServiceInstance>();
    d->namesPath = namesPath;
    d->selection->strategy = strategy ? std::move(strategy) : std::make_unique<RandomStrategy>();
    d->selection->errorThreshold = options.errorThreshold;
    d->selection->downPeriod = options.downPeriod;
    d->selection->serviceName = serviceName;
    d->cache = std::make_unique<ServiceCache>(client, namesPath, serviceName, options);
    // The provider's health is its cache's.
    follow(d->cache.get(), QStringLiteral("cache"));
}

ServiceProvider::~ServiceProvider()
{
    close();
}

QString ServiceProvider::serviceName() const
{
    return d->selection->serviceName;
}

ServiceCache *ServiceProvider::cache() const
{
    return d->cache.get();
}

QFuture<Status> ServiceProvider::start()
{
    if (Status status = validate(); !status)
        return QtFuture::makeReadyFuture(status);
    if (d->selection->errorThreshold < 1 || d->selection->downPeriod < Clock::duration::zero())
        return QtFuture::makeReadyFuture(
            Status(StatusCode::InvalidArgument,
                   context() + QStringLiteral(": errorThreshold must be >= 1 and downPeriod >= 0")));
    if (Status refused = beginStart(); !refused)
        return QtFuture::makeReadyFuture(refused);
    d->cacheStarted = d->cache->start();
    d->started = true;
    return d->cacheStarted;
}

QFuture<ServiceInstanceResult> ServiceProvider::instanceAsync()
{
    if (isClosed())
        return QtFuture::makeReadyFuture(
            ServiceInstanceResult{Status(StatusCode::Closed, context() + QStringLiteral(": closed")), {}});
    if (Status status = checkServiceName(serviceName(), context()); !status)
        return QtFuture::makeReadyFuture(ServiceInstanceResult{status, {}});
    if (d->started && d->cacheStarted.isFinished() && d->cacheStarted.result().isOk())
        return QtFuture::makeReadyFuture(d->selection->pick(d->cache->instances()));
    // Not started, or the cache is still loading: ask etcd.
    return after(readInstances(client(), d->namesPath, serviceName(), context()),
        [selection = d->selection](const ServiceInstancesResult &read) {
            if (!read.status)
                return ServiceInstanceResult{read.status, {}};
            return selection->pick(read.instances);
        });
}

ServiceInstanceResult ServiceProvider::instance(std::chrono::milliseconds timeout)
{
    const QFuture<ServiceInstanceResult> future = instanceAsync();
    if (!future.isFinished()) {
        if (Status waited = waitBlocking(client(), future, QDeadlineTimer(timeout), StopToken(),
                                         context() + QStringLiteral(": instance"));
            !waited)
            return {waited, {}};
    }
    return future.result();
}

void ServiceProvider::noteError(const ServiceInstance &instance)
{
    if (!d->selection->noteError(instance))
        return;
    recordHistory(RecipeHistoryEntry::Source::Recipe,
                  QStringLiteral("ejected %1 (%2:%3) for %4 ms")
                      .arg(instance.id(), instance.address())
                      .arg(instance.port())
                      .arg(std::chrono::duration_cast<std::chrono::milliseconds>(d->selection->downPeriod).count()));
    Q_EMIT instanceEjected(instance);
}

QList<ServiceInstance> ServiceProvider::ejectedInstances() const
{
    return d->selection->ejected();
}

void ServiceProvider::doClose()
{
    d->cache->close();
    QMutexLocker locker(&d->selection->mutex);
    d->selection->down.clear();
    d->selection->counts.clear();
}

} // namespace QEtcd
