// SPDX-License-Identifier: Apache-2.0
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

/// One registered instance of a service, in etcd-recipes' JSON wire format.
///
/// One registered instance of a service, as etcd-recipes writes it: a compact JSON object whose
/// fields appear in the order below, every default included, so each side reads the other's
/// registrations. The id (7 random characters) names the key and is not part of equality.
class QETCD_EXPORT ServiceInstance
{
    Q_GADGET
    /// The service's name: one key segment, no '/'.
    Q_PROPERTY(QString name READ name CONSTANT)
    /// Free-form payload, JSON text by convention.
    Q_PROPERTY(QString jsonPayload READ jsonPayload CONSTANT)
    /// Where the instance listens.
    Q_PROPERTY(QString address READ address CONSTANT)
    /// Its plain port; -1 for none.
    Q_PROPERTY(int port READ port CONSTANT)
    /// Its TLS port; -1 for none.
    Q_PROPERTY(int sslPort READ sslPort CONSTANT)
    /// When it was registered, in milliseconds since the epoch.
    Q_PROPERTY(qint64 registrationTimeUtc READ registrationTimeUtc CONSTANT)
    /// Metadata about its lifetime.
    Q_PROPERTY(QEtcd::ServiceInstance::ServiceType serviceType READ serviceType CONSTANT)
    /// A URI for the instance, if it has one.
    Q_PROPERTY(QString uri READ uri CONSTANT)
    /// Whether it takes work.
    Q_PROPERTY(bool enabled READ isEnabled CONSTANT)
    /// The 7 random characters that name its key.
    Q_PROPERTY(QString id READ id CONSTANT)

public:
    /// What kind of instance it says it is, in Curator's words.
    ///
    /// Metadata only; written as its upper-case name ("DYNAMIC", "DYNAMIC_SEQUENTIAL", ...).
    /// qetcd registers every type the same way, on a self-healing lease.
    enum class ServiceType {
        Dynamic,           ///< DYNAMIC: lives while its process runs (the default).
        Static,            ///< STATIC: a fixed instance, configured rather than registered at run time.
        Permanent,         ///< PERMANENT: meant to outlive its process.
        DynamicSequential  ///< DYNAMIC_SEQUENTIAL: dynamic, with a sequence-numbered node in Curator.
    };
    Q_ENUM(ServiceType)

    /// An invalid instance: no name.
    ServiceInstance();
    /// An instance of service \a name with \a jsonPayload, a fresh id and a registration time
    /// of now.
    ServiceInstance(const QString &name, const QString &jsonPayload);
    /// Copies \a other, id included.
    ServiceInstance(const ServiceInstance &other);
    /// Moves \a other.
    ServiceInstance(ServiceInstance &&other) noexcept;
    /// Copies \a other, id included.
    ServiceInstance &operator=(const ServiceInstance &other);
    /// Moves \a other.
    ServiceInstance &operator=(ServiceInstance &&other) noexcept;
    /// Destroys the instance (the value, not its registration).
    ~ServiceInstance();

    /// It has a name.
    bool isValid() const;

    /// The service's name.
    QString name() const;
    /// The payload.
    QString jsonPayload() const;
    /// Sets the payload.
    void setJsonPayload(const QString &payload);
    /// Where the instance listens.
    QString address() const;
    /// Sets the address.
    void setAddress(const QString &address);
    /// Its plain port; -1 for none.
    int port() const;
    /// Sets the plain port; -1 for none.
    void setPort(int port);
    /// Its TLS port; -1 for none.
    int sslPort() const;
    /// Sets the TLS port; -1 for none.
    void setSslPort(int port);
    /// When it was registered, in milliseconds since the epoch.
    qint64 registrationTimeUtc() const;
    /// Sets the registration time.
    void setRegistrationTimeUtc(qint64 msecsSinceEpoch);
    /// Metadata about its lifetime.
    ServiceType serviceType() const;
    /// Sets the service type.
    void setServiceType(ServiceType type);
    /// The type is Dynamic or DynamicSequential.
    bool isDynamic() const;
    /// The instance's URI.
    QString uri() const;
    /// Sets the URI.
    void setUri(const QString &uri);
    /// Whether it takes work (true unless set otherwise).
    bool isEnabled() const;
    /// Sets whether it takes work.
    void setEnabled(bool enabled);
    /// The 7 random characters that name its key.
    QString id() const;

    /// The payload through a text codec (StringCodec, JsonCodec): nothing when it does not decode.
    template <class Codec>
    std::optional<typename Codec::Type> payload() const
    {
        return Codec::decode(jsonPayload().toUtf8());
    }
    /// Sets the payload to \a value through a text codec.
    template <class Codec>
    void setPayload(const typename Codec::Type &value)
    {
        setJsonPayload(QString::fromUtf8(Codec::encode(value)));
    }

    /// The instance as etcd-recipes writes it: compact JSON, fields in its order.
    QByteArray toJson() const;
    /// Reads an instance from \a json. Nothing, with the reason in \a error, when it is not an
    /// instance (missing fields take their defaults, unknown fields are ignored).
    static std::optional<ServiceInstance> fromJson(const QByteArray &json, QString *error = nullptr);

    /// The name \a type is written with ("DYNAMIC", "STATIC", ...).
    static QString serviceTypeName(ServiceType type);

    /// Every field but the id is the same.
    friend bool operator==(const ServiceInstance &a, const ServiceInstance &b) { return a.equals(b); }
    /// Some field but the id differs.
    friend bool operator!=(const ServiceInstance &a, const ServiceInstance &b) { return !a.equals(b); }

private:
    bool equals(const ServiceInstance &other) const;
    QSharedDataPointer<ServiceInstanceData> d;
};

/// ServiceInstance as a codec, for NodeCache and the typed recipes.
struct QETCD_EXPORT ServiceInstanceCodec
{
    using Type = ServiceInstance;  ///< The type of the values.
    /// The instance as JSON.
    static QByteArray encode(const ServiceInstance &value) { return value.toJson(); }
    /// The instance; nothing for bytes that are not an instance's JSON.
    static std::optional<ServiceInstance> decode(const QByteArray &bytes) { return ServiceInstance::fromJson(bytes); }
};

/// One instance, or why there is none.
struct QETCD_EXPORT ServiceInstanceResult
{
    Status status;             ///< Ok, or why there is no instance.
    ServiceInstance instance;  ///< The instance, when status is ok.
};

/// A service's instances, or why they could not be read.
struct QETCD_EXPORT ServiceInstancesResult
{
    Status status;                     ///< Ok, or why the read failed.
    QList<ServiceInstance> instances;  ///< Sorted by id.
};

/// The names of services, or why they could not be read.
struct QETCD_EXPORT ServiceNamesResult
{
    Status status;      ///< Ok, or why the read failed.
    QStringList names;  ///< Sorted, each once.
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::ServiceInstance)
