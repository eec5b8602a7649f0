// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

#include <QEtcd/serviceinstance.h>

#include <optional>

namespace QEtcd {

/// `ServiceRegistration` in QML: one instance of service `name` registered under path through a
/// ServiceRegistry, on a lease that heals by compare-and-set (and never over another owner's key).
class QETCD_QUICK_EXPORT ServiceRegistrationParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(ServiceRegistration)
    /// The service's name.
    Q_PROPERTY(QString name READ name WRITE setName NOTIFY instanceChanged)
    /// The instance's address.
    Q_PROPERTY(QString address READ address WRITE setAddress NOTIFY instanceChanged)
    /// The instance's port; -1 for none.
    Q_PROPERTY(int port READ port WRITE setPort NOTIFY instanceChanged)
    /// The instance's payload, JSON text.
    Q_PROPERTY(QString payload READ payload WRITE setPayload NOTIFY instanceChanged)
    /// The registered instance's id; empty until registered.
    Q_PROPERTY(QString instanceId READ instanceId NOTIFY registeredChanged)
    /// The registered instance's key in etcd; empty until registered.
    Q_PROPERTY(QString instanceKey READ instanceKey NOTIFY registeredChanged)

public:
    /// A ServiceRegistration without client or path yet.
    explicit ServiceRegistrationParticipant(QObject *parent = nullptr);

    /// The service's name.
    QString name() const;
    /// Sets the service's name, for the next registerService().
    void setName(const QString &name);
    /// The address.
    QString address() const;
    /// Sets the address, for the next registerService().
    void setAddress(const QString &address);
    /// The port.
    int port() const;
    /// Sets the port, for the next registerService().
    void setPort(int port);
    /// The payload, JSON text.
    QString payload() const;
    /// Sets the payload, for the next registerService().
    void setPayload(const QString &json);
    /// The registered instance's id; empty until registered.
    QString instanceId() const;
    /// The registered instance's key; empty until registered.
    QString instanceKey() const;

    /// Registers a new instance from the properties (unregistering the one before) and returns
    /// at once: Pending, then Active, or Idle with errorOccurred(). While its lease heals, state
    /// is Pending; Lost when the key went to someone else.
    Q_INVOKABLE void registerService();
    /// Removes the registered instance; state turns Idle.
    Q_INVOKABLE void unregisterService();

Q_SIGNALS:
    /// name, address, port or payload changed.
    void instanceChanged();
    /// instanceId and instanceKey changed.
    void registeredChanged();

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void recipeDropped() override;
    QString logKey() const override;

private:
    template <class T>
    void setField(T &field, const T &value);
    void setRegistered(const std::optional<ServiceInstance> &instance, const QString &key);

    QString m_name;
    QString m_address;
    int m_port = -1;
    QString m_payload;
    std::optional<ServiceInstance> m_registered;
    QString m_instanceKey;
};

} // namespace QEtcd
