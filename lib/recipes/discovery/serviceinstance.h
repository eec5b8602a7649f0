#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QByteArray>
#include <QtCore/QList>
#include <QtCore/QMetaType>
#include <QtCore/QObject>
#include <QtCore/QSharedDataPointer>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <optional>

namespace QEtcd {

class ServiceInstanceData;

// One registered instance of a service, as etcd-recipes writes it: a compact JSON object whose
// fields appear in the order below, every default included, so each side reads the other's
// registrations. The id (7 random characters) names the key and is not part of equality.
class QETCD_EXPORT ServiceInstance
{
    Q_GADGET
    Q_PROPERTY(QString name READ name CONSTANT)
    Q_PROPERTY(QString jsonPayload READ jsonPayload CONSTANT)
    Q_PROPERTY(QString address READ address CONSTANT)
    Q_PROPERTY(int port READ port CONSTANT)
    Q_PROPERTY(int sslPort READ sslPort CONSTANT)
    Q_PROPERTY(qint64 registrationTimeUtc READ registrationTimeUtc CONSTANT)
    Q_PROPERTY(QEtcd::ServiceInstance::ServiceType serviceType READ serviceType CONSTANT)
    Q_PROPERTY(QString uri READ uri CONSTANT)
    Q_PROPERTY(bool enabled READ isEnabled CONSTANT)
    Q_PROPERTY(QString id READ id CONSTANT)

public:
    // Metadata only; written as its upper-case name ("DYNAMIC", "DYNAMIC_SEQUENTIAL", ...).
    enum class ServiceType { Dynamic, Static, Permanent, DynamicSequential };
    Q_ENUM(ServiceType)

    ServiceInstance();  // invalid: no name
    // A fresh id and a registration time of now.
    ServiceInstance(const QString &name, const QString &jsonPayload);
    ServiceInstance(const ServiceInstance &other);
    ServiceInstance(ServiceInstance &&other) noexcept;
    ServiceInstance &operator=(const ServiceInstance &other);
    ServiceInstance &operator=(ServiceInstance &&other) noexcept;
    ~ServiceInstance();

    bool isValid() const;  // has a name

    QString name() const;
    QString jsonPayload() const;
    void setJsonPayload(const QString &payload);
    QString address() const;
    void setAddress(const QString &address);
    int port() const;  // -1: none
    void setPort(int port);
    int sslPort() const;  // -1: none
    void setSslPort(int port);
    qint64 registrationTimeUtc() const;  // milliseconds since the epoch
    void setRegistrationTimeUtc(qint64 msecsSinceEpoch);
    ServiceType serviceType() const;
    void setServiceType(ServiceType type);
    bool isDynamic() const;  // Dynamic or DynamicSequential
    QString uri() const;
    void setUri(const QString &uri);
    bool isEnabled() const;
    void setEnabled(bool enabled);
    QString id() const;

    // The payload through a text codec (StringCodec, JsonCodec): nothing when it does not decode.
    template <class Codec>
    std::optional<typename Codec::Type> payload() const
    {
        return Codec::decode(jsonPayload().toUtf8());
    }
    template <class Codec>
    void setPayload(const typename Codec::Type &value)
    {
        setJsonPayload(QString::fromUtf8(Codec::encode(value)));
    }

    QByteArray toJson() const;
    // Nothing, with the reason in *error, when json is not an instance (missing fields take
    // their defaults, unknown fields are ignored).
    static std::optional<ServiceInstance> fromJson(const QByteArray &json, QString *error = nullptr);

    static QString serviceTypeName(ServiceType type);

    // Every field but the id.
    friend bool operator==(const ServiceInstance &a, const ServiceInstance &b) { return a.equals(b); }
    friend bool operator!=(const ServiceInstance &a, const ServiceInstance &b) { return !a.equals(b); }

private:
    bool equals(const ServiceInstance &other) const;
    QSharedDataPointer<ServiceInstanceData> d;
};

// ServiceInstance as a codec, for NodeCache and the typed recipes.
struct QETCD_EXPORT ServiceInstanceCodec
{
    using Type = ServiceInstance;
    static QByteArray encode(const ServiceInstance &value) { return value.toJson(); }
    static std::optional<ServiceInstance> decode(const QByteArray &bytes) { return ServiceInstance::fromJson(bytes); }
};

struct QETCD_EXPORT ServiceInstanceResult
{
    Status status;
    ServiceInstance instance;
};

struct QETCD_EXPORT ServiceInstancesResult
{
    Status status;
    QList<ServiceInstance> instances;  // sorted by id
};

struct QETCD_EXPORT ServiceNamesResult
{
    Status status;
    QStringList names;  // sorted, each once
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::ServiceInstance)
