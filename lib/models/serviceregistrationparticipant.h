#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

#include <QEtcd/serviceinstance.h>

#include <optional>

namespace QEtcd {

// `ServiceRegistration` in QML: one instance of service `name` registered under path through a
// ServiceRegistry, on a lease that heals by compare-and-set (and never over another owner's key).
class QETCD_QUICK_EXPORT ServiceRegistrationParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(ServiceRegistration)
    Q_PROPERTY(QString name READ name WRITE setName NOTIFY instanceChanged)
    Q_PROPERTY(QString address READ address WRITE setAddress NOTIFY instanceChanged)
    Q_PROPERTY(int port READ port WRITE setPort NOTIFY instanceChanged)
    Q_PROPERTY(QString payload READ payload WRITE setPayload NOTIFY instanceChanged)
    Q_PROPERTY(QString instanceId READ instanceId NOTIFY registeredChanged)
    Q_PROPERTY(QString instanceKey READ instanceKey NOTIFY registeredChanged)

public:
    explicit ServiceRegistrationParticipant(QObject *parent = nullptr);

    QString name() const;
    void setName(const QString &name);
    QString address() const;
    void setAddress(const QString &address);
    int port() const;
    void setPort(int port);
    QString payload() const;  // JSON text
    void setPayload(const QString &json);
    QString instanceId() const;   // empty until registered
    QString instanceKey() const;

    Q_INVOKABLE void registerService();
    Q_INVOKABLE void unregisterService();

Q_SIGNALS:
    void instanceChanged();
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
