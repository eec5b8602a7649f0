// SPDX-License-Identifier: Apache-2.0
#include "serviceregistrationparticipant.h"

#include <QEtcd/serviceregistry.h>

namespace QEtcd {

ServiceRegistrationParticipant::ServiceRegistrationParticipant(QObject *parent) : RecipeParticipant(parent)
{
    followHealingLease();
}

QString ServiceRegistrationParticipant::name() const { return m_name; }
QString ServiceRegistrationParticipant::address() const { return m_address; }
int ServiceRegistrationParticipant::port() const { return m_port; }
QString ServiceRegistrationParticipant::payload() const { return m_payload; }
QString ServiceRegistrationParticipant::instanceId() const { return m_registered ? m_registered->id() : QString(); }
QString ServiceRegistrationParticipant::instanceKey() const { return m_instanceKey; }

// Takes effect at the next registerService(); a registered instance keeps its fields.
template <class T>
void ServiceRegistrationParticipant::setField(T &field, const T &value)
{
    if (field == value)
        return;
    field = value;
    Q_EMIT instanceChanged();
}

void ServiceRegistrationParticipant::setName(const QString &name) { setField(m_name, name); }
void ServiceRegistrationParticipant::setAddress(const QString &address) { setField(m_address, address); }
void ServiceRegistrationParticipant::setPort(int port) { setField(m_port, port); }
void ServiceRegistrationParticipant::setPayload(const QString &json) { setField(m_payload, json); }

std::unique_ptr<Recipe> ServiceRegistrationParticipant::createRecipe(Client *client, const QByteArray &path,
                                                                     const RecipeOptions &options)
{
    auto registry = std::make_unique<ServiceRegistry>(client, path, options);
    // Deregistered by an operator: honoured, so registerService() is the user's to call again.
    relay(registry.get(), &ServiceRegistry::registrationRemoved,
          [this](const QByteArray &instanceKey, qint64, const Status &cause) {
              if (QString::fromUtf8(instanceKey) != m_instanceKey)
                  return;
              record(QStringLiteral("removedByOther"), cause.message());
              setRegistered(std::nullopt, {});
              setState(State::Idle);
          });
    return registry;
}

void ServiceRegistrationParticipant::recipeDropped()
{
    setRegistered(std::nullopt, {});
}

void ServiceRegistrationParticipant::registerService()
{
    auto *registry = recipe<ServiceRegistry>();
    if (!registry)
        return;
    if (m_registered)
        unregisterService();
    ServiceInstance instance(m_name, m_payload);
    instance.setAddress(m_address);
    instance.setPort(m_port);
    setState(State::Pending);
    whenDone(registry->registerService(instance), [this, registry, instance](const Status &status) {
        if (!status) {
            reportError(status);
            return setState(State::Idle);
        }
        setRegistered(instance, QString::fromUtf8(registry->instanceKey(instance)));
        setState(State::Active);
        record(QStringLiteral("registered"), QStringLiteral("%1 at %2:%3").arg(m_name, m_address).arg(m_port));
    });
}

void ServiceRegistrationParticipant::unregisterService()
{
    auto *registry = static_cast<ServiceRegistry *>(currentRecipe());
    if (!registry || !m_registered)
        return;
    whenDone(registry->unregisterService(*m_registered), [this](const Status &status) { reportError(status); });
    record(QStringLiteral("unregistered"));
    setRegistered(std::nullopt, {});
    setState(State::Idle);
}

QString ServiceRegistrationParticipant::logKey() const
{
    return m_instanceKey.isEmpty() ? RecipeParticipant::logKey() : m_instanceKey;
}

void ServiceRegistrationParticipant::setRegistered(const std::optional<ServiceInstance> &instance, const QString &key)
{
    m_registered = instance;
    m_instanceKey = key;
    Q_EMIT registeredChanged();
}

} // namespace QEtcd
