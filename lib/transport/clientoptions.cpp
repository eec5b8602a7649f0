// SPDX-License-Identifier: Apache-2.0
#include "clientoptions.h"

#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QUrl>

namespace QEtcd {

namespace {
Status invalid(const QString &message)
{
    return Status(StatusCode::InvalidConfiguration, message);
}

// gRPC reads an empty CA bundle as "use the system's roots" and an empty key as "no client
// certificate": a file emptied or mixed up by mistake would silently weaken TLS. Every file
// given must hold PEM, so that mistake is refused before anything connects.
Status checkPemFile(const QString &what, const QString &path)
{
    if (path.isEmpty())
        return {};
    const QFileInfo info(path);
    if (!info.exists())
        return invalid(QStringLiteral("%1 file %2 does not exist").arg(what, path));
    QFile file(path);
    if (!info.isFile() || !file.open(QIODevice::ReadOnly))
        return invalid(QStringLiteral("%1 file %2 is not a readable file").arg(what, path));
    // A PEM file is small; a bound keeps a mistaken path (a disk image) from being read whole.
    constexpr qint64 Largest = 16 * 1024 * 1024;
    const QByteArray content = file.read(Largest);
    if (content.trimmed().isEmpty())
        return invalid(QStringLiteral("%1 file %2 is empty").arg(what, path));
    if (!content.contains("-----BEGIN "))
        return invalid(QStringLiteral("%1 file %2 holds no PEM block (-----BEGIN ...); give the PEM file").arg(what, path));
    return {};
}
} // namespace

QString Endpoint::authority() const
{
    const QString h = host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host;
    return h + QLatin1Char(':') + QString::number(port);
}

QString Endpoint::toString() const
{
    return (tls ? QLatin1String("https://") : QLatin1String("http://")) + authority();
}

Endpoint Endpoint::parse(const QString &rawText, Status *status)
{
    const QString text = rawText.trimmed();
    const auto fail = [&](const QString &why) {
        if (status)
            *status = invalid(QStringLiteral("endpoint \"%1\": %2").arg(rawText, why));
        return Endpoint();
    };
    if (text.isEmpty())
        return fail(QStringLiteral("is empty"));
    const bool hasScheme = text.contains(QLatin1String("://"));
    const QUrl url(hasScheme ? text : QLatin1String("http://") + text, QUrl::StrictMode);
    if (!url.isValid())
        return fail(url.errorString());
    const QString scheme = url.scheme().toLower();
    if (scheme != QLatin1String("http") && scheme != QLatin1String("https"))
        return fail(QStringLiteral("scheme must be http or https, not %1").arg(url.scheme()));
    if (url.host().isEmpty())
        return fail(QStringLiteral("has no host"));
    if (url.port() <= 0)
        return fail(QStringLiteral("has no port (etcd's client port is usually 2379)"));
    if (!url.path().isEmpty() && url.path() != QLatin1String("/"))
        return fail(QStringLiteral("must not have a path (%1)").arg(url.path()));
    if (!url.userInfo().isEmpty() || url.hasQuery() || url.hasFragment())
        return fail(QStringLiteral("must be scheme://host:port only"));
    if (status)
        *status = {};
    return Endpoint{url.host(), quint16(url.port()), scheme == QLatin1String("https")};
}

Status ClientOptions::validate(QList<Endpoint> *parsedEndpoints) const
{
    if (endpoints.isEmpty())
        return invalid(QStringLiteral("no endpoints given"));
    QList<Endpoint> parsed;
    for (const QString &text : endpoints) {
        Status status;
        const Endpoint endpoint = Endpoint::parse(text, &status);
        if (!status)
            return status;
        if (parsed.contains(endpoint))
            return invalid(QStringLiteral("endpoint \"%1\" is listed twice").arg(text));
        parsed.append(endpoint);
    }
    const bool anyTls = std::any_of(parsed.cbegin(), parsed.cend(), [](const Endpoint &e) { return e.tls; });
    const bool allTls = std::all_of(parsed.cbegin(), parsed.cend(), [](const Endpoint &e) { return e.tls; });
    if (anyTls && !allTls)
        return invalid(QStringLiteral("endpoints mix http:// and https://; use one scheme for all"));
    const bool tlsFilesGiven = !tls.caFile.isEmpty() || !tls.certFile.isEmpty() || !tls.keyFile.isEmpty();
    // Never fall back to plaintext when the caller clearly asked for TLS.
    if (tlsFilesGiven && !allTls)
        return invalid(QStringLiteral("TLS files are set but the endpoints are http://; use https:// endpoints"));
    if (tls.skipServerVerification && !allTls) {
        return invalid(QStringLiteral("skipping the server's certificate verification needs https:// endpoints, "
                                      "not http://"));
    }
    if (tls.certFile.isEmpty() != tls.keyFile.isEmpty())
        return invalid(QStringLiteral("mutual TLS needs both a client certificate and its key file"));
    for (const auto &[what, path] : {std::pair{"CA", tls.caFile}, {"client certificate", tls.certFile},
                                     {"client key", tls.keyFile}}) {
        if (Status status = checkPemFile(QLatin1String(what), path); !status)
            return status;
    }
    if (user.isEmpty() && !password.isEmpty())
        return invalid(QStringLiteral("a password is set without a user name"));
    if (dialTimeout <= std::chrono::milliseconds::zero())
        return invalid(QStringLiteral("dialTimeout must be > 0"));
    if (keepAliveTime < serverMinKeepAliveTime)
        return invalid(QStringLiteral("keepAliveTime %1 ms is below the server's minimum of %2 ms; etcd would "
                                      "close the connection with too_many_pings (lower serverMinKeepAliveTime "
                                      "only if etcd runs with a smaller --grpc-keepalive-min-time)")
                           .arg(keepAliveTime.count())
                           .arg(serverMinKeepAliveTime.count()));
    if (keepAliveTimeout <= std::chrono::milliseconds::zero())
        return invalid(QStringLiteral("keepAliveTimeout must be > 0"));
    if (maxReceiveMessageSize < 4 * 1024 * 1024)
        return invalid(QStringLiteral("maxReceiveMessageSize must be at least 4 MiB"));
    if (maxConcurrentHeals < 1)
        return invalid(QStringLiteral("maxConcurrentHeals must be >= 1 (got %1)").arg(maxConcurrentHeals));
    if (!rpc.retryPolicy.isValid())
        return rpc.retryPolicy.validation().withContext(QStringLiteral("rpc resilience"));
    if (rpc.operationTimeout <= std::chrono::milliseconds::zero())
        return invalid(QStringLiteral("rpc operationTimeout must be > 0"));
    if (parsedEndpoints)
        *parsedEndpoints = parsed;
    return {};
}

ClientOptions ClientOptions::fromEndpoints(const QStringList &endpoints)
{
    ClientOptions options;
    options.endpoints = endpoints;
    return options;
}

} // namespace QEtcd
