// SPDX-License-Identifier: Apache-2.0
#include "serviceinstance.h"

#include <QtCore/QDateTime>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QRandomGenerator>

namespace QEtcd {

class ServiceInstanceData : public QSharedData
{
public:
    QString name;
    QString jsonPayload;
    QString address;
    int port = -1;
    int sslPort = -1;
    qint64 registrationTimeUtc = 0;
    ServiceInstance::ServiceType serviceType = ServiceInstance::ServiceType::Dynamic;
    QString uri;
    bool enabled = true;
    QString id;
};

namespace {
// etcd-recipes' randomId(7).
QString randomToken()
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    QString token;
    for (int i = 0; i < 7; ++i)
        token += QLatin1Char(alphabet[QRandomGenerator::global()->bounded(int(sizeof(alphabet) - 1))]);
    return token;
}

constexpr std::pair<ServiceInstance::ServiceType, const char *> typeNames[] = {
    {ServiceInstance::ServiceType::Dynamic, "DYNAMIC"},
    {ServiceInstance::ServiceType::Static, "STATIC"},
    {ServiceInstance::ServiceType::Permanent, "PERMANENT"},
    {ServiceInstance::ServiceType::DynamicSequential, "DYNAMIC_SEQUENTIAL"},
};

// kotlinx.serialization's string escaping, so that our bytes equal the reference's: the two
// quoting characters, the five short escapes, \u00xx (lower-case hex) for the other control
// characters, everything else as UTF-8.
void appendQuoted(QByteArray &out, const QString &text)
{
    static const char hex[] = "0123456789abcdef";
    out += '"';
    for (const char c : text.toUtf8()) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\f': out += "\\f"; break;
        default:
            if (uchar(c) < 0x20) {
                out += "\\u00";
                out += hex[uchar(c) >> 4];
                out += hex[uchar(c) & 0xf];
            } else {
                out += c;
            }
        }
    }
    out += '"';
}
} // namespace

ServiceInstance::ServiceInstance() : d(new ServiceInstanceData) {}

ServiceInstance::ServiceInstance(const QString &name, const QString &jsonPayload) : d(new ServiceInstanceData)
{
    d->name = name;
    d->jsonPayload = jsonPayload;
    d->registrationTimeUtc = QDateTime::currentMSecsSinceEpoch();
    d->id = randomToken();
}

ServiceInstance::ServiceInstance(const ServiceInstance &other) = default;
ServiceInstance::ServiceInstance(ServiceInstance &&other) noexcept = default;
ServiceInstance &ServiceInstance::operator=(const ServiceInstance &other) = default;
ServiceInstance &ServiceInstance::operator=(ServiceInstance &&other) noexcept = default;
ServiceInstance::~ServiceInstance() = default;

bool ServiceInstance::isValid() const { return !d->name.isEmpty(); }
QString ServiceInstance::name() const { return d->name; }
QString ServiceInstance::jsonPayload() const { return d->jsonPayload; }
void ServiceInstance::setJsonPayload(const QString &payload) { d->jsonPayload = payload; }
QString ServiceInstance::address() const { return d->address; }
void ServiceInstance::setAddress(const QString &address) { d->address = address; }
int ServiceInstance::port() const { return d->port; }
void ServiceInstance::setPort(int port) { d->port = port; }
int ServiceInstance::sslPort() const { return d->sslPort; }
void ServiceInstance::setSslPort(int port) { d->sslPort = port; }
qint64 ServiceInstance::registrationTimeUtc() const { return d->registrationTimeUtc; }
void ServiceInstance::setRegistrationTimeUtc(qint64 msecsSinceEpoch) { d->registrationTimeUtc = msecsSinceEpoch; }
ServiceInstance::ServiceType ServiceInstance::serviceType() const { return d->serviceType; }
void ServiceInstance::setServiceType(ServiceType type) { d->serviceType = type; }
QString ServiceInstance::uri() const { return d->uri; }
void ServiceInstance::setUri(const QString &uri) { d->uri = uri; }
bool ServiceInstance::isEnabled() const { return d->enabled; }
void ServiceInstance::setEnabled(bool enabled) { d->enabled = enabled; }
QString ServiceInstance::id() const { return d->id; }

bool ServiceInstance::isDynamic() const
{
    return d->serviceType == ServiceType::Dynamic || d->serviceType == ServiceType::DynamicSequential;
}

QString ServiceInstance::serviceTypeName(ServiceType type)
{
    for (const auto &[each, name] : typeNames) {
        if (each == type)
            return QString::fromLatin1(name);
    }
    return {};
}

bool ServiceInstance::equals(const ServiceInstance &other) const
{
    return d->name == other.d->name && d->jsonPayload == other.d->jsonPayload && d->address == other.d->address
        && d->port == other.d->port && d->sslPort == other.d->sslPort
        && d->registrationTimeUtc == other.d->registrationTimeUtc && d->serviceType == other.d->serviceType
        && d->uri == other.d->uri && d->enabled == other.d->enabled;
}

// Written by hand: QJsonObject sorts its keys, and the reference's readers and byte-level
// comparisons expect kotlinx's declaration order.
QByteArray ServiceInstance::toJson() const
{
    QByteArray out;
    out += "{\"name\":";
    appendQuoted(out, d->name);
    out += ",\"jsonPayload\":";
    appendQuoted(out, d->jsonPayload);
    out += ",\"address\":";
    appendQuoted(out, d->address);
    out += ",\"port\":" + QByteArray::number(d->port);
    out += ",\"sslPort\":" + QByteArray::number(d->sslPort);
    out += ",\"registrationTimeUTC\":" + QByteArray::number(d->registrationTimeUtc);
    out += ",\"serviceType\":";
    appendQuoted(out, serviceTypeName(d->serviceType));
    out += ",\"uri\":";
    appendQuoted(out, d->uri);
    out += ",\"enabled\":";
    out += d->enabled ? "true" : "false";
    out += ",\"id\":";
    appendQuoted(out, d->id);
    out += '}';
    return out;
}

std::optional<ServiceInstance> ServiceInstance::fromJson(const QByteArray &json, QString *error)
{
    const auto refuse = [error](const QString &why) -> std::optional<ServiceInstance> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return refuse(QStringLiteral("not JSON: ") + parseError.errorString());
    if (!document.isObject())
        return refuse(QStringLiteral("not a JSON object"));
    const QJsonObject object = document.object();

    ServiceInstance instance{QString(), QString()};
    QString wrongField;
    const auto text = [&](const char *field, QString *into) {
        const QJsonValue value = object.value(QLatin1String(field));
        if (value.isString())
            *into = value.toString();
        else if (!value.isUndefined())
            wrongField = QLatin1String(field);
    };
    const auto integer = [&](const char *field, auto *into) {
        const QJsonValue value = object.value(QLatin1String(field));
        if (value.isDouble() && value.toDouble() == double(value.toInteger()))
            *into = value.toInteger();
        else if (!value.isUndefined())
            wrongField = QLatin1String(field);
    };
    // Absent fields keep the constructor's defaults, as kotlinx's do: a fresh id, now.
    ServiceInstanceData *data = instance.d.data();
    text("name", &data->name);
    text("jsonPayload", &data->jsonPayload);
    text("address", &data->address);
    integer("port", &data->port);
    integer("sslPort", &data->sslPort);
    integer("registrationTimeUTC", &data->registrationTimeUtc);
    text("uri", &data->uri);
    text("id", &data->id);
    QString type = serviceTypeName(ServiceType::Dynamic);
    text("serviceType", &type);
    if (const QJsonValue enabled = object.value(QLatin1String("enabled")); enabled.isBool())
        data->enabled = enabled.toBool();
    else if (!enabled.isUndefined())
        wrongField = QStringLiteral("enabled");
    if (!wrongField.isEmpty())
        return refuse(QStringLiteral("field \"%1\" has the wrong type").arg(wrongField));
    if (data->name.isEmpty())
        return refuse(QStringLiteral("no name"));
    bool known = false;
    for (const auto &[each, name] : typeNames) {
        if (type == QLatin1String(name)) {
            data->serviceType = each;
            known = true;
        }
    }
    if (!known)
        return refuse(QStringLiteral("unknown serviceType \"%1\"").arg(type));
    return instance;
}

} // namespace QEtcd
