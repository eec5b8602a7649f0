// SPDX-License-Identifier: Apache-2.0
#include "serviceregistry.h"

#include "client.h"
#include "client_p.h"
#include "continuation_p.h"
#include "discovery_p.h"
#include "selfhealingkeepalive.h"
#include "threading_p.h"

#include <QtCore/QHash>
#include <QtCore/QMutex>
#include <QtCore/QPromise>

namespace QEtcd {

using namespace Internal;

namespace {
using Promise = std::shared_ptr<QPromise<Status>>;

void finish(const Promise &promise, const Status &status)
{
    promise->addResult(status);
    promise->finish();
}

struct Registration
{
    QByteArray key;
    ServiceInstance instance;  // guarded by the registry's mutex
    QByteArray json;           // dispatcher thread: what (re-)establishing writes
    std::unique_ptr<SelfHealingKeepAlive> keeper;
    int source = -1;
    Promise registering;  // dispatcher thread; set until the first establish is done
    std::atomic<bool> registered{false};
};
} // namespace

// Lives on the client's dispatcher thread, where every registration is made, healed and undone.
class ServiceRegistryPrivate : public QObject
{
public:
    ServiceRegistryPrivate(ServiceRegistry *q, Client *client, const QByteArray &servicePath,
                           const RecipeOptions &options)
        : q(q), client(client), servicePath(servicePath), namesPath(namesPathOf(servicePath)), options(options)
    {
        moveToThread(ClientPrivate::get(client)->dispatcher());
    }

    QByteArray keyOf(const ServiceInstance &instance) const
    {
        return appendToPath(namesPath, (instance.name() + QLatin1Char('/') + instance.id()).toUtf8());
    }

    std::shared_ptr<Registration> registrationOf(const QString &id) const
    {
        QMutexLocker locker(&mutex);
        return registrations.value(id);
    }

    // Runs operation on the dispatcher thread, later, even when called from it: a call made
    // from a lease signal must not tear down the lease that is emitting.
    template <class Operation>
    QFuture<Status> post(Operation operation)
    {
        auto promise = std::make_shared<QPromise<Status>>();
        promise->start();
        QFuture<Status> future = promise->future();
        QMetaObject::invokeMethod(this, [operation, promise] { operation(promise); }, Qt::QueuedConnection);
        return future;
    }

    // --- dispatcher thread ----------------------------------------------------------------
    void add(const Promise &promise, const ServiceInstance &instance)
    {
        if (closing)
            return finish(promise, Status(StatusCode::Closed, q->context() + QStringLiteral(": closed")));
        const QByteArray key = keyOf(instance);
        if (registrationOf(instance.id()))
            return finish(promise, Status(StatusCode::AlreadyExists,
                                          q->context() + QStringLiteral(": %1 is already registered here")
                                                             .arg(QString::fromUtf8(key))));
        auto registration = std::make_shared<Registration>();
        registration->key = key;
        registration->instance = instance;
        registration->json = instance.toJson();
        registration->registering = promise;
        registration->keeper = std::make_unique<SelfHealingKeepAlive>(
            client, options.ttlSeconds,
            [this, weak = std::weak_ptr(registration)](qint64 lease, qint64 previous) {
                if (auto registration = weak.lock())
                    return establish(registration, lease, previous);
                return QtFuture::makeReadyFuture(Status(StatusCode::Closed, QStringLiteral("unregistered")));
            },
            options.resilience.lease);
        registration->keeper->followKey(key);
        // Queued: forgetting the registration destroys the keeper that is telling.
        connect(registration->keeper.get(), &SelfHealingKeepAlive::keyTakenAway, this,
                [this, weak = std::weak_ptr(registration)](const QByteArray &, qint64 revision, const Status &cause) {
                    if (const auto registration = weak.lock())
                        removedByOther(registration, revision, cause);
                },
                Qt::QueuedConnection);
        connect(registration->keeper.get(), &SelfHealingKeepAlive::leaseEvent, q,
                [registry = q, key](const LeaseEvent &event) { Q_EMIT registry->leaseEvent(key, event); },
                Qt::DirectConnection);
        registration->source = q->track(registration->keeper.get(), QStringLiteral("instance ") + QString::fromUtf8(key));
        {
            QMutexLocker locker(&mutex);
            registrations.insert(instance.id(), registration);
        }
        thenOn(registration->keeper->start(), this, [this, registration](const Status &started) {
            if (!registration->registering)
                return;  // unregistered or closed meanwhile, and told so
            const Promise promise = std::exchange(registration->registering, nullptr);
            if (!started) {
                drop(registration);
                return finish(promise, started.withContext(q->context() + QStringLiteral(": service registration "
                                                                                          "failed for ")
                                                           + QString::fromUtf8(registration->key)));
            }
            registration->registered = true;
            q->recordHistory(RecipeHistoryEntry::Source::Recipe,
                             QStringLiteral("registered %1 on lease %2")
                                 .arg(QString::fromUtf8(registration->key))
                                 .arg(registration->keeper->currentLeaseId(), 0, 16));
            finish(promise, {});
        });
    }

    // The compare-and-set of casEstablish(), with the JSON current when it runs. Should an
    // update land while the put is in flight, the newer JSON follows on the same lease, so a
    // heal never leaves a stale payload behind.
    QFuture<Status> establish(const std::shared_ptr<Registration> &registration, qint64 lease, qint64 previous)
    {
        const QByteArray json = registration->json;
        return thenOn(
                   casEstablish(client, registration->key, json, lease, previous), this,
                   [this, registration, json, lease](const Status &established) {
                       if (!established || registration->json == json)
                           return QtFuture::makeReadyFuture(established);
                       return establish(registration, lease, lease);
                   },
                   [](const Status &established) { return QtFuture::makeReadyFuture(established); });
    }

    void update(const Promise &promise, const ServiceInstance &instance)
    {
        const auto registration = registrationOf(instance.id());
        if (!registration || !registration->registered)
            return finish(promise, Status(StatusCode::NotFound,
                                          q->context() + QStringLiteral(": %1 was not registered with registerService()")
                                                             .arg(QString::fromUtf8(keyOf(instance)))));
        if (registration->key != keyOf(instance))
            return finish(promise, Status(StatusCode::InvalidArgument,
                                          q->context() + QStringLiteral(": instance %1 was registered as %2")
                                                             .arg(instance.id(), QString::fromUtf8(registration->key))));
        registration->json = instance.toJson();
        {
            QMutexLocker locker(&mutex);
            registration->instance = instance;
        }
        const qint64 lease = registration->keeper->currentLeaseId();
        PutOptions onLease;
        onLease.lease = lease;
        Txn txn;
        txn.compares = {Compare::lease(registration->key, CompareResult::Equal, lease)};
        txn.success = {TxnOp::put(registration->key, registration->json, onLease)};
        const QString where = q->context() + QStringLiteral(": update of ") + QString::fromUtf8(registration->key);
        after(client->txn(txn, options.resilience.rpc), [promise, where, lease](const TxnResult &result) {
            if (!result.status)
                return finish(promise, result.status.withContext(where));
            if (!result.succeeded)
                return finish(promise, Status(StatusCode::FailedPrecondition,
                                              where + QStringLiteral(": the key is not on lease %1 right now; if the "
                                                                     "lease heals, the new JSON is what it restores")
                                                          .arg(lease, 0, 16)));
            finish(promise, {});
        });
    }

    void remove(const Promise &promise, const ServiceInstance &instance)
    {
        std::shared_ptr<Registration> registration;
        {
            QMutexLocker locker(&mutex);
            registration = registrations.take(instance.id());
        }
        if (!registration)
            return finish(promise, Status(StatusCode::NotFound,
                                          q->context() + QStringLiteral(": %1 was not registered with registerService()")
                                                             .arg(QString::fromUtf8(keyOf(instance)))));
        if (registration->registering)
            finish(std::exchange(registration->registering, nullptr),
                   Status(StatusCode::Cancelled, q->context() + QStringLiteral(": unregistered before registered")));
        after(release(registration), [promise](const Status &released) { finish(promise, released); });
    }

    // Closing the keeper revokes the lease, which removes the key; the delete after it covers a
    // revoke that did not get through, and touches the key only while it is still on our lease.
    QFuture<Status> release(const std::shared_ptr<Registration> &registration)
    {
        const qint64 lease = registration->keeper->currentLeaseId();
        untrack(registration);
        registration->keeper.reset();
        q->recordHistory(RecipeHistoryEntry::Source::Recipe,
                         QStringLiteral("unregistered ") + QString::fromUtf8(registration->key));
        if (lease <= 0)
            return QtFuture::makeReadyFuture(Status());
        Txn txn;
        txn.compares = {Compare::lease(registration->key, CompareResult::Equal, lease)};
        txn.success = {TxnOp::remove(registration->key)};
        const QString where = q->context() + QStringLiteral(": unregistering ") + QString::fromUtf8(registration->key);
        return after(client->txn(txn, options.resilience.rpc), [where](const TxnResult &result) {
            return result.status.withContext(where);
        });
    }

    // Deleting an instance's key is how an operator deregisters it: the registration is
    // forgotten and told, never put back; registering again is the application's decision.
    void removedByOther(const std::shared_ptr<Registration> &registration, qint64 revision, const Status &cause)
    {
        if (registrationOf(registration->instance.id()) != registration || !q)
            return;  // unregistered or closed meanwhile
        drop(registration);
        q->recordHistory(RecipeHistoryEntry::Source::Recipe, cause.message());
        Q_EMIT q->registrationRemoved(registration->key, revision, cause);
    }

    // A registration that failed for good: forget it.
    void drop(const std::shared_ptr<Registration> &registration)
    {
        {
            QMutexLocker locker(&mutex);
            if (registrations.value(registration->instance.id()) == registration)
                registrations.remove(registration->instance.id());
        }
        untrack(registration);
        registration->keeper.reset();
    }

    // Its lease no longer counts towards the registry's state; if it was the one in trouble,
    // the state recovers.
    void untrack(const std::shared_ptr<Registration> &registration)
    {
        q->reportSource(registration->source, Recipe::SourceHealth::Healthy);
        q->removeSource(registration->source);
    }

    void shutDown()
    {
        closing = true;
        QHash<QString, std::shared_ptr<Registration>> all;
        {
            QMutexLocker locker(&mutex);
            all.swap(registrations);
        }
        for (const auto &registration : std::as_const(all)) {
            if (registration->registering)
                finish(std::exchange(registration->registering, nullptr),
                       Status(StatusCode::Closed, q->context() + QStringLiteral(": closed")));
            release(registration);
        }
    }

    ServiceRegistry *q;
    Client *const client;
    const QByteArray servicePath;
    const QByteArray namesPath;
    const RecipeOptions options;

    mutable QMutex mutex;
    QHash<QString, std::shared_ptr<Registration>> registrations;  // by id; written on the dispatcher thread
    bool closing = false;  // dispatcher thread
};

ServiceRegistry::ServiceRegistry(Client *client, const QByteArray &servicePath, const RecipeOptions &options,
                                 QObject *parent)
    : Recipe(client, QStringLiteral("ServiceRegistry"), servicePath, options, parent),
      d(client ? std::make_unique<ServiceRegistryPrivate>(this, client, servicePath, this->options()) : nullptr)
{
    qRegisterMetaType<LeaseEvent>();
}

ServiceRegistry::~ServiceRegistry()
{
    close();
    if (ServiceRegistryPrivate *priv = d.release()) {
        runOn(priv, [priv] { priv->q = nullptr; });
        priv->deleteLater();
    }
}

QByteArray ServiceRegistry::servicePath() const
{
    return d ? d->servicePath : QByteArray();
}

QByteArray ServiceRegistry::namesPath() const
{
    return d ? d->namesPath : QByteArray();
}

QByteArray ServiceRegistry::instanceKey(const ServiceInstance &instance) const
{
    return d ? d->keyOf(instance) : QByteArray();
}

QFuture<Status> ServiceRegistry::registerService(const ServiceInstance &instance)
{
    if (Status status = validate(); !status)
        return QtFuture::makeReadyFuture(status);
    if (d->servicePath.isEmpty())
        return QtFuture::makeReadyFuture(
            Status(StatusCode::InvalidArgument, context() + QStringLiteral(": the service path is empty")));
    if (Status status = checkServiceName(instance.name(), context()); !status)
        return QtFuture::makeReadyFuture(status);
    if (instance.id().isEmpty() || instance.id().contains(QLatin1Char('/')))
        return QtFuture::makeReadyFuture(Status(StatusCode::InvalidArgument,
                                                context() + QStringLiteral(": the instance id must be one key segment")));
    if (isClosed())
        return QtFuture::makeReadyFuture(Status(StatusCode::Closed, context() + QStringLiteral(": closed")));
    beginStart();
    return d->post([priv = d.get(), instance](const Promise &promise) { priv->add(promise, instance); });
}

QFuture<Status> ServiceRegistry::updateService(const ServiceInstance &instance)
{
    if (!d || isClosed())
        return QtFuture::makeReadyFuture(Status(StatusCode::Closed, context() + QStringLiteral(": closed")));
    return d->post([priv = d.get(), instance](const Promise &promise) { priv->update(promise, instance); });
}

QFuture<Status> ServiceRegistry::unregisterService(const ServiceInstance &instance)
{
    if (!d || isClosed())
        return QtFuture::makeReadyFuture(Status(StatusCode::Closed, context() + QStringLiteral(": closed")));
    return d->post([priv = d.get(), instance](const Promise &promise) { priv->remove(promise, instance); });
}

QList<ServiceInstance> ServiceRegistry::registeredInstances() const
{
    QList<ServiceInstance> list;
    if (!d)
        return list;
    QMutexLocker locker(&d->mutex);
    for (const auto &registration : std::as_const(d->registrations)) {
        if (registration->registered)
            list.append(registration->instance);
    }
    return list;
}

qint64 ServiceRegistry::leaseIdOf(const ServiceInstance &instance) const
{
    if (!d)
        return -1;
    QMutexLocker locker(&d->mutex);
    const auto registration = d->registrations.value(instance.id());
    return registration && registration->keeper ? registration->keeper->currentLeaseId() : -1;
}

void ServiceRegistry::doClose()
{
    runOn(d.get(), [priv = d.get()] { priv->shutDown(); });
}

} // namespace QEtcd
