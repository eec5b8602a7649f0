// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/leaseevent.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/serviceinstance.h>

#include <memory>

namespace QEtcd {

class ServiceRegistryPrivate;

/// Publishes service instances on self-healing leases, in etcd-recipes' layout.
///
/// Publishes service instances at `<servicePath>/names/<name>/<id>` (etcd-recipes' layout), each
/// on its own self-healing lease: after a partition longer than the TTL the instance is put
/// back by compare-and-set with its current JSON, unless someone else owns the key by then
/// (Failed, and their value stays).
///
/// Deleting an instance's key while its lease is alive is how an operator deregisters it
/// (`etcdctl del`, the console): the registry honours that. It tells registrationRemoved(),
/// forgets the instance (registeredInstances() leaves it out, leaseIdOf() says -1), revokes its
/// lease and does not register it again; the application may call registerService() again if
/// it disagrees. Putting the key on another lease counts the same. A lease that expires or is
/// revoked, which looks the same as a partition from here, is healed as above.
///
/// Every call returns at once and its future finishes exactly once. Lease events and state
/// changes are emitted from the client's dispatcher thread.
class QETCD_EXPORT ServiceRegistry : public Recipe
{
    Q_OBJECT

public:
    /// A registry under \a servicePath, through \a client.
    ServiceRegistry(Client *client, const QByteArray &servicePath, const RecipeOptions &options = RecipeOptions(),
                    QObject *parent = nullptr);
    /// Closes the registry: every instance registered here is removed.
    ~ServiceRegistry() override;

    /// The service path.
    QByteArray servicePath() const;
    /// `<servicePath>/names`, where the instances live.
    QByteArray namesPath() const;
    /// The key \a instance is (or would be) registered at.
    QByteArray instanceKey(const ServiceInstance &instance) const;

    /// Registers \a instance on a lease of its own. OwnershipLost when the key already exists;
    /// AlreadyExists when this registry already publishes that id.
    QFuture<Status> registerService(const ServiceInstance &instance);
    /// Replaces the JSON of an instance registered here (same name and id), on its current
    /// lease; from now on a heal re-establishes the new JSON. NotFound when the id was not
    /// registered here; FailedPrecondition when the key is not ours in etcd at that moment
    /// (a heal in progress, or someone else took it).
    QFuture<Status> updateService(const ServiceInstance &instance);
    /// Revokes the instance's lease and removes its key (only while it is still ours).
    QFuture<Status> unregisterService(const ServiceInstance &instance);

    /// The instances registered here, as last put.
    QList<ServiceInstance> registeredInstances() const;
    /// The lease an instance registered here is bound to now; -1 when unknown.
    qint64 leaseIdOf(const ServiceInstance &instance) const;

Q_SIGNALS:
    /// The lease of the instance at \a instanceKey stalled, expired, was healed, or healing
    /// stopped (Failed: someone else owns the key now). From the client's dispatcher thread.
    void leaseEvent(const QByteArray &instanceKey, const QEtcd::LeaseEvent &event);
    /// Another client deleted the instance at \a instanceKey at \a revision while its lease was
    /// alive, or moved it to another lease (\a cause, OwnershipLost, says which): it is no longer
    /// registered here, and is not registered again. From the client's dispatcher thread.
    void registrationRemoved(const QByteArray &instanceKey, qint64 revision, const QEtcd::Status &cause);

protected:
    void doClose() override;

private:
    friend class ServiceRegistryPrivate;
    std::unique_ptr<ServiceRegistryPrivate> d;
};

} // namespace QEtcd
