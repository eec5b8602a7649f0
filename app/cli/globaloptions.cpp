// SPDX-License-Identifier: Apache-2.0
#include "globaloptions.h"

#include "duration.h"

#include <QtCore/QCommandLineParser>
#include <QtCore/QStringList>
#include <QtNetwork/QHostAddress>

#include <algorithm>
#include <limits>

namespace QEtcd::Cli {

namespace {
// gRPC's own default: a smaller limit would refuse answers etcd sends every client.
constexpr qint64 MinimumReceiveBytes = 4 * 1024 * 1024;
struct Spec
{
    const char *name;
    const char *valueName;  // nullptr: a flag without value
    const char *description;
    const char *defaultValue;
    const char *shortName = nullptr;
};

// etcdctl's defaults: 127.0.0.1:2379, a 2 s dial and a 5 s command timeout. The keep-alive ones
// are ours: etcdctl's 2 s pings are more often than etcd's default --grpc-keepalive-min-time allows.
constexpr Spec specs[] = {
    {"endpoints", "LIST", "Comma-separated etcd endpoints; bare host:port is http, or https when TLS files are given",
     "127.0.0.1:2379"},
    {"cacert", "FILE", "Verify the server's certificate with this CA bundle", nullptr},
    {"cert", "FILE", "Client certificate for mutual TLS", nullptr},
    {"key", "FILE", "Private key of --cert", nullptr},
    {"user", "USER", "Authenticate as this user; its password is asked for on the terminal, or read from "
     "ETCDCTL_PASSWORD", nullptr},
    {"password", "PASSWORD", "Password of --user; on the command line every user of the machine sees it (ps): "
     "prefer ETCDCTL_PASSWORD or the prompt", nullptr},
    {"namespace", "PREFIX", "Prefix added to every key and stripped from every answer", nullptr},
    {"dial-timeout", "DURATION", "Time to connect to an endpoint, e.g. 2s, 500ms", "2s"},
    {"command-timeout", "DURATION", "Time limit of each request, e.g. 5s, 1m", "5s"},
    {"keepalive-time", "DURATION", "Time between the pings that check an idle connection; at least etcd's "
     "--grpc-keepalive-min-time (5s), or etcd closes the connection", "10s"},
    {"keepalive-timeout", "DURATION", "Time a ping may go unanswered before the connection counts as broken", "5s"},
    {"max-recv-bytes", "BYTES", "Largest answer accepted, at least 4194304 (4 MiB)", "33554432"},
    {"write-out", "FORMAT", "Output format: simple (text), json (etcdctl's document for get, put, del, lease, "
     "member and endpoint; elsewhere as jsonl), jsonl (as --json), fields (etcdctl's) or table (where etcdctl "
     "has one)", "simple", "w"},
    {"json", nullptr, "Print one JSON object per line instead of text", nullptr},
    {"hex", nullptr, "get, put and del print keys and values as hex bytes (\\x61), as etcdctl does", nullptr},
    {"read-only", nullptr, "Refuse every write before it is sent (inspect without changing anything)", nullptr},
    {"insecure-transport", nullptr, "Allow --user's password to travel unencrypted to an http:// endpoint that is "
     "not on this machine (refused without it)", nullptr},
    {"insecure-skip-tls-verify", nullptr, "Accept the server's certificate without verifying it (TLS, but anyone "
     "on the way can pose as the server); warns on every run. Prefer --cacert", nullptr},
};

QString environmentName(const QString &option)
{
    return QLatin1String("ETCDCTL_") + option.toUpper().replace(QLatin1Char('-'), QLatin1Char('_'));
}

Setting setting(const QCommandLineParser &parser, const QProcessEnvironment &environment, const Spec &spec)
{
    const QString name = QLatin1String(spec.name);
    if (parser.isSet(name))
        return {parser.value(name), QLatin1String("--") + name};
    const QString variable = environmentName(name);
    if (const QString value = environment.value(variable); !value.isEmpty())
        return {value, variable};
    return {QLatin1String(spec.defaultValue), QLatin1String("--") + name};
}

// An endpoint whose traffic never leaves this machine: localhost or a loopback address.
bool isLoopback(const QString &text)
{
    Status status;
    const Endpoint endpoint = Endpoint::parse(text, &status);
    if (!status)
        return false;
    const QHostAddress address(endpoint.host);
    return endpoint.host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0
        || (!address.isNull() && address.isLoopback());
}

// A flag given, or its variable true, as etcdctl reads ETCDCTL_HEX=true (Go's boolean words).
std::optional<bool> flagSetting(const QCommandLineParser &parser, const QProcessEnvironment &environment,
                                const char *name, QString *error)
{
    const QString option = QLatin1String(name);
    if (parser.isSet(option))
        return true;
    const QString variable = environmentName(option);
    const QString value = environment.value(variable);
    static const QStringList yes{QStringLiteral("1"), QStringLiteral("t"), QStringLiteral("T"), QStringLiteral("true"),
                                 QStringLiteral("TRUE"), QStringLiteral("True")};
    static const QStringList no{QString(), QStringLiteral("0"), QStringLiteral("f"), QStringLiteral("F"),
                                QStringLiteral("false"), QStringLiteral("FALSE"), QStringLiteral("False")};
    if (yes.contains(value))
        return true;
    if (no.contains(value))
        return false;
    *error = QStringLiteral("%1: \"%2\" is neither true nor false").arg(variable, value);
    return std::nullopt;
}

const Spec &spec(const char *name)
{
    for (const Spec &s : specs) {
        if (qstrcmp(s.name, name) == 0)
            return s;
    }
    Q_UNREACHABLE();
}
} // namespace

QList<QCommandLineOption> globalOptions()
{
    QList<QCommandLineOption> options;
    for (const Spec &s : specs) {
        QString description = QLatin1String(s.description);
        description += s.defaultValue ? QStringLiteral(" [default %1; env %2]").arg(QLatin1String(s.defaultValue),
                                                                                  environmentName(s.name))
                                      : QStringLiteral(" [env %1]").arg(environmentName(s.name));
        QStringList names{QLatin1String(s.name)};
        if (s.shortName)
            names.prepend(QLatin1String(s.shortName));
        options.append(QCommandLineOption(names, description, s.valueName ? QLatin1String(s.valueName) : QString()));
    }
    options.append(QCommandLineOption({QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help")));
    return options;
}

bool takesValue(const QString &globalOptionName)
{
    return std::any_of(std::begin(specs), std::end(specs), [&](const Spec &s) {
        return s.valueName
            && (globalOptionName == QLatin1String(s.name) || globalOptionName == QLatin1String(s.shortName));
    });
}

QStringList endpointList(const QString &text, const TlsOptions &tls)
{
    // Skipping the verification asks for TLS as clearly as a TLS file does.
    const bool tlsAskedFor = !tls.caFile.isEmpty() || !tls.certFile.isEmpty() || !tls.keyFile.isEmpty()
        || tls.skipServerVerification;
    QStringList endpoints;
    for (const QString &raw : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString endpoint = raw.trimmed();
        const bool bare = !endpoint.contains(QLatin1String("://"));
        endpoints.append(bare && tlsAskedFor ? QLatin1String("https://") + endpoint : endpoint);
    }
    return endpoints;
}

std::optional<GlobalOptions> resolveGlobalOptions(const QCommandLineParser &parser,
                                                  const QProcessEnvironment &environment, QString *error,
                                                  const PasswordPrompt &askPassword)
{
    const auto get = [&](const char *name) { return setting(parser, environment, spec(name)); };
    const auto fail = [&](const QString &message) -> std::optional<GlobalOptions> {
        *error = message;
        return std::nullopt;
    };
    GlobalOptions options;
    ClientOptions &client = options.client;
    const auto flag = [&](const char *name) { return flagSetting(parser, environment, name, error); };
    const std::optional<bool> jsonLines = flag("json");
    const std::optional<bool> hex = flag("hex");
    const std::optional<bool> readOnly = flag("read-only");
    const std::optional<bool> insecureTransport = flag("insecure-transport");
    const std::optional<bool> skipVerification = flag("insecure-skip-tls-verify");
    if (!jsonLines || !hex || !readOnly || !insecureTransport || !skipVerification)
        return std::nullopt;

    static const std::pair<QLatin1String, OutputFormat> formats[] = {
        {QLatin1String("simple"), OutputFormat::Simple}, {QLatin1String("json"), OutputFormat::Json},
        {QLatin1String("jsonl"), OutputFormat::JsonLines}, {QLatin1String("fields"), OutputFormat::Fields},
        {QLatin1String("table"), OutputFormat::Table}};
    const Setting writeOut = get("write-out");
    const auto format = std::find_if(std::begin(formats), std::end(formats),
                                     [&](const auto &known) { return known.first == writeOut.value; });
    if (format == std::end(formats)) {
        return fail(QStringLiteral("%1: unknown output format \"%2\"; formats: simple, json, jsonl, fields, table")
                        .arg(writeOut.source, writeOut.value));
    }
    options.output = format->second;
    // --json is older than -w jsonl, and the same; with -w json the lines win, as before.
    if (*jsonLines) {
        if (options.output != OutputFormat::Simple && options.output != OutputFormat::Json
            && options.output != OutputFormat::JsonLines) {
            return fail(QStringLiteral("--json and %1 %2 contradict each other").arg(writeOut.source, writeOut.value));
        }
        if (options.output == OutputFormat::Simple && parser.isSet(QStringLiteral("write-out")))
            return fail(QStringLiteral("--json and --write-out simple contradict each other"));
        options.output = OutputFormat::JsonLines;
    }
    options.hex = *hex;
    client.readOnly = *readOnly;

    client.tls.caFile = get("cacert").value;
    client.tls.certFile = get("cert").value;
    client.tls.keyFile = get("key").value;
    client.tls.skipServerVerification = *skipVerification;
    const Setting endpoints = get("endpoints");
    client.endpoints = endpointList(endpoints.value, client.tls);
    if (client.endpoints.isEmpty())
        return fail(QStringLiteral("%1: no endpoints given").arg(endpoints.source));

    client.keyNamespace = get("namespace").value.toUtf8();

    for (const auto &[name, target] : {std::pair{"dial-timeout", &client.dialTimeout},
                                       std::pair{"command-timeout", &options.commandTimeout},
                                       std::pair{"keepalive-time", &client.keepAliveTime},
                                       std::pair{"keepalive-timeout", &client.keepAliveTimeout}}) {
        const Setting duration = get(name);
        QString why;
        const auto parsed = parseDuration(duration.value, &why);
        if (!parsed)
            return fail(duration.source + QLatin1String(": ") + why);
        if (*parsed <= std::chrono::milliseconds::zero())
            return fail(QStringLiteral("%1: must be longer than 0").arg(duration.source));
        *target = *parsed;
    }
    client.rpc.operationTimeout = options.commandTimeout;
    if (client.keepAliveTime < client.serverMinKeepAliveTime) {
        const Setting keepAlive = get("keepalive-time");
        return fail(QStringLiteral("%1: %2 is shorter than etcd's --grpc-keepalive-min-time (%3 by default): etcd "
                                   "would close the connection with too_many_pings")
                        .arg(keepAlive.source, keepAlive.value, formatDuration(client.serverMinKeepAliveTime)));
    }

    const Setting receiveLimit = get("max-recv-bytes");
    bool isNumber = false;
    const qint64 receiveBytes = receiveLimit.value.toLongLong(&isNumber);
    if (!isNumber || receiveBytes < MinimumReceiveBytes || receiveBytes > std::numeric_limits<int>::max()) {
        return fail(QStringLiteral("%1: \"%2\" is not a number of bytes from %3 (4 MiB) to %4")
                        .arg(receiveLimit.source, receiveLimit.value)
                        .arg(MinimumReceiveBytes)
                        .arg(std::numeric_limits<int>::max()));
    }
    client.maxReceiveMessageSize = int(receiveBytes);

    if (const Status valid = client.validate(); !valid)
        return fail(valid.message());

    options.insecureTransport = *insecureTransport;
    if (const QString refused = applyCredentials(client, get("user"), get("password"), *insecureTransport,
                                              QStringLiteral("ETCDCTL_PASSWORD"), askPassword);
        !refused.isEmpty()) {
        return fail(refused);
    }
    return options;
}

QString applyCredentials(ClientOptions &client, const Setting &user, const Setting &password, bool insecureTransport,
                         const QString &preferredPasswordSetting, const PasswordPrompt &askPassword)
{
    client.user = user.value;
    client.password = password.value;
    // etcdctl's "--user name:password" is still read. Nothing after the ':' is ever printed: it
    // may be a password, even when a password is given separately too.
    bool passwordMissing = false;
    if (const qsizetype colon = user.value.indexOf(QLatin1Char(':')); colon >= 0) {
        if (!password.value.isEmpty()) {
            return QStringLiteral("%1: user \"%2:…\" has a ':' and %3 gives a password too; give the password once "
                                  "(through %4, or type it when asked)")
                .arg(user.source, user.value.left(colon), password.source, preferredPasswordSetting);
        }
        client.user = user.value.left(colon);
        client.password = user.value.mid(colon + 1);
    } else if (user.value.isEmpty() && !password.value.isEmpty()) {
        return QStringLiteral("%1: a password is given without a user (%2)").arg(password.source, user.source);
    } else {
        passwordMissing = !user.value.isEmpty() && password.value.isEmpty();
    }

    // A password on the wire in clear text is readable by anyone on the way. Refused rather
    // than warned about: a warning scrolls by unseen in a script, and the flag that allows it
    // says in the script itself that it was meant.
    if (!client.user.isEmpty() && !insecureTransport) {
        if (const QString exposed = unencryptedRemoteEndpoint(client); !exposed.isEmpty()) {
            return QStringLiteral("%1: user \"%2\"'s password would travel unencrypted to %3; use an https:// "
                                  "endpoint (with a CA bundle), or add --insecure-transport if the network is trusted")
                .arg(user.source, client.user, exposed);
        }
    }

    if (passwordMissing) {
        QString why;
        const std::optional<QString> asked = askPassword ? askPassword(client.user, &why) : std::nullopt;
        if (!asked) {
            return QStringLiteral("%1: user \"%2\" needs a password: type it when asked on a terminal, or give it through %3%4")
                .arg(user.source, client.user, preferredPasswordSetting,
                     why.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(why));
        }
        client.password = *asked;
    }
    return {};
}

QString unencryptedRemoteEndpoint(const ClientOptions &client)
{
    for (const QString &endpoint : client.endpoints) {
        Status status;
        if (const Endpoint parsed = Endpoint::parse(endpoint, &status); !parsed.tls && !isLoopback(endpoint))
            return parsed.toString();
    }
    return {};
}

QProcessEnvironment withoutCredentials(QProcessEnvironment environment)
{
    environment.remove(environmentName(QStringLiteral("password")));
    environment.remove(environmentName(QStringLiteral("user")));
    return environment;
}

} // namespace QEtcd::Cli
