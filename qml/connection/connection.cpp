// SPDX-License-Identifier: Apache-2.0
#include "connection.h"

#include "continuation_p.h"

#include <QEtcd/clientoptions.h>

#include <QtCore/QSettings>

#include <algorithm>
#include <limits>
#include <QtNetwork/QHostAddress>
#include <QtNetwork/QHostInfo>
#include <QtNetwork/QNetworkInterface>

#include <qt6keychain/keychain.h>

namespace {
const QString keychainService = QStringLiteral("qetcd-console");

QString profilesGroup()
{
    return QStringLiteral("profiles");
}

QEtcd::ClientOptions optionsOf(const QVariantMap &profile, const QString &password)
{
    QEtcd::ClientOptions options;
    options.endpoints = profile.value(QStringLiteral("endpoints")).toStringList();
    options.tls.caFile = profile.value(QStringLiteral("caFile")).toString();
    options.tls.certFile = profile.value(QStringLiteral("certFile")).toString();
    options.tls.keyFile = profile.value(QStringLiteral("keyFile")).toString();
    options.tls.serverNameOverride = profile.value(QStringLiteral("serverName")).toString();
    options.user = profile.value(QStringLiteral("user")).toString();
    options.password = password;
    options.keyNamespace = profile.value(QStringLiteral("namespace")).toString().toUtf8();
    options.readOnly = profile.value(QStringLiteral("readOnly")).toBool();
    if (const qint64 dial = profile.value(QStringLiteral("dialTimeoutMs")).toLongLong(); dial > 0)
        options.dialTimeout = std::chrono::milliseconds(dial);
    if (const qint64 command = profile.value(QStringLiteral("commandTimeoutMs")).toLongLong(); command > 0)
        options.rpc.operationTimeout = std::chrono::milliseconds(command);
    // Checked by ClientOptions::validate() when the client is made: below 4 MiB is refused, named.
    if (const qint64 receive = profile.value(QStringLiteral("maxRecvBytes")).toLongLong(); receive > 0)
        options.maxReceiveMessageSize = int(std::min<qint64>(receive, std::numeric_limits<int>::max()));
    return options;
}

SshTunnel::Through throughOf(const QVariantMap &profile)
{
    return {profile.value(QStringLiteral("sshHost")).toString().trimmed(),
            profile.value(QStringLiteral("sshUser")).toString().trimmed(),
            profile.value(QStringLiteral("sshPort")).toInt(),
            profile.value(QStringLiteral("sshJump")).toString().trimmed()};
}

// The same cluster whichever way it was written down or ordered: what a write choice is kept for.
// Through an SSH tunnel the endpoints are the far side's: "127.0.0.1:2379" there is not here.
QString clusterKey(const QVariantMap &profile)
{
    QStringList endpoints = profile.value(QStringLiteral("endpoints")).toStringList();
    for (QString &text : endpoints) {
        QEtcd::Status status;
        if (const QEtcd::Endpoint endpoint = QEtcd::Endpoint::parse(text, &status); status)
            text = endpoint.toString();
    }
    endpoints.sort();
    const SshTunnel::Through through = throughOf(profile);
    const QString key = endpoints.join(QLatin1Char(','));
    return through.host.isEmpty() ? key : QStringLiteral("ssh %1 %2").arg(SshTunnel::describe(through), key);
}

QString endpointList(const QStringList &endpoints)
{
    return endpoints.join(QStringLiteral(", "));
}


// What ssh would take for an option, or split at a space, instead of a name.
bool unsafeForSsh(const QString &text)
{
    return text.startsWith(QLatin1Char('-')) || std::any_of(text.cbegin(), text.cend(), [](QChar c) {
               return c.isSpace() || c.category() == QChar::Other_Control;
           });
}
} // namespace

Connection::Connection(QObject *parent) : QObject(parent)
{
    m_retry.setInterval(std::chrono::seconds(3));
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &Connection::probe);
    connect(&m_tunnel, &SshTunnel::opened, this, &Connection::tunnelOpened);
    connect(&m_tunnel, &SshTunnel::failed, this, &Connection::tunnelFailed);
}

QString Connection::tunnelState() const
{
    switch (m_tunnel.state()) {
    case SshTunnel::State::Off:
        return {};
    case SshTunnel::State::Opening:
        return QStringLiteral("opening");
    case SshTunnel::State::Open:
        return QStringLiteral("open");
    case SshTunnel::State::Failed:
        return QStringLiteral("failed");
    }
    return {};
}

QString Connection::tunnelThrough() const
{
    return m_tunnel.state() == SshTunnel::State::Off ? QString() : SshTunnel::describe(m_tunnel.through());
}

Connection::~Connection()
{
    // QML destroys the window's objects in no set order: the client goes after the models and
    // watches still using it, on the next turn of the event loop.
    if (m_client)
        m_client.release()->deleteLater();
}

void Connection::setCommandLine(const QVariantMap &options)
{
    if (options == m_commandLine)
        return;
    m_commandLine = options;
    // --writable is for the connection the command line makes: its flags', or --profile's (open()).
    if (options.value(QStringLiteral("writable")).toBool() && options.value(QStringLiteral("profile")).toString().isEmpty())
        m_writeChoices.insert(clusterKey(options), true);
    Q_EMIT commandLineChanged();
}

QStringList Connection::endpoints() const
{
    return m_current.value(QStringLiteral("endpoints")).toStringList();
}

bool Connection::isReadOnly() const
{
    return m_client && m_client->options().readOnly;
}

bool Connection::isReadOnlyLocked() const
{
    return m_commandLine.value(QStringLiteral("readOnly")).toBool();
}

bool Connection::isSandbox() const
{
    return m_current.value(QStringLiteral("sandbox")).toBool();
}

QString Connection::user() const
{
    return m_current.value(QStringLiteral("user")).toString();
}

QStringList Connection::profileNames() const
{
    QSettings settings;
    settings.beginGroup(profilesGroup());
    QStringList names;
    for (const QString &group : settings.childGroups()) {
        if (const QString name = settings.value(group + QStringLiteral("/name")).toString(); !name.isEmpty())
            names.append(name);
    }
    names.sort(Qt::CaseInsensitive);
    return names;
}

QVariantMap Connection::profile(const QString &name) const
{
    QSettings settings;
    settings.beginGroup(profilesGroup());
    for (const QString &group : settings.childGroups()) {
        settings.beginGroup(group);
        if (settings.value(QStringLiteral("name")).toString() == name) {
            QVariantMap profile;
            for (const QString &key : settings.childKeys())
                profile.insert(key, settings.value(key));
            profile.insert(QStringLiteral("endpoints"), settings.value(QStringLiteral("endpoints")).toStringList());
            profile.insert(QStringLiteral("readOnly"), settings.value(QStringLiteral("readOnly")).toBool());
            if (settings.contains(QStringLiteral("maxRecvBytes")))
                profile.insert(QStringLiteral("maxRecvBytes"), settings.value(QStringLiteral("maxRecvBytes")).toLongLong());
            return profile;
        }
        settings.endGroup();
    }
    return {};
}

QStringList Connection::rememberedWindows() const
{
    // Only profiles that still exist: one deleted since is not opened empty.
    const QStringList existing = profileNames();
    QStringList profiles = QSettings().value(QStringLiteral("windows/profiles")).toStringList();
    profiles.removeIf([&existing](const QString &name) { return !existing.contains(name); });
    return profiles;
}

void Connection::rememberWindows(const QStringList &profiles)
{
    QSettings().setValue(QStringLiteral("windows/profiles"), profiles);
}

QString Connection::saveProfile(const QVariantMap &profile)
{
    const QString name = profile.value(QStringLiteral("name")).toString().trimmed();
    if (name.isEmpty())
        return tr("The profile needs a name.");
    QEtcd::ClientOptions options = optionsOf(profile, {});
    if (options.endpoints.isEmpty())
        return tr("The profile needs at least one endpoint, such as http://127.0.0.1:2379.");
    // The password is asked for at connecting; only the rest is checked here.
    if (const QEtcd::Status valid = options.validate(); !valid)
        return valid.message();
    const SshTunnel::Through through = throughOf(profile);
    bool portOk = true;
    const QString port = profile.value(QStringLiteral("sshPort")).toString().trimmed();
    if (!port.isEmpty() && port != QLatin1String("0") && (port.toInt(&portOk) < 1 || !portOk || port.toInt() > 65535))
        return tr("The SSH port must be a number from 1 to 65535 (or empty for ssh's own), not \"%1\".").arg(port);
    for (const auto &[what, text] : {std::pair{tr("SSH host"), through.host}, std::pair{tr("SSH user"), through.user},
                                     std::pair{tr("jump host"), through.jump}}) {
        if (unsafeForSsh(text))
            return tr("The %1 \"%2\" may not start with \"-\" or hold spaces.").arg(what, text);
    }
    if (through.host.isEmpty() && (!through.user.isEmpty() || through.port > 0 || !through.jump.isEmpty()))
        return tr("An SSH user, port or jump host needs the SSH host to go through.");
    QSettings settings;
    // Group names are the profile's name percent-encoded: QSettings keys may not hold '/'.
    settings.beginGroup(profilesGroup() + QLatin1Char('/') + QString::fromLatin1(name.toUtf8().toPercentEncoding()));
    settings.remove(QString());
    settings.setValue(QStringLiteral("name"), name);
    settings.setValue(QStringLiteral("endpoints"), options.endpoints);
    for (const char *key : {"caFile", "certFile", "keyFile", "user", "namespace"})
        settings.setValue(QLatin1String(key), profile.value(QLatin1String(key)).toString());
    settings.setValue(QStringLiteral("readOnly"), options.readOnly);
    settings.setValue(QStringLiteral("maxRecvBytes"), qint64(options.maxReceiveMessageSize));
    settings.setValue(QStringLiteral("sshHost"), through.host);
    settings.setValue(QStringLiteral("sshUser"), through.user);
    settings.setValue(QStringLiteral("sshPort"), through.port);
    settings.setValue(QStringLiteral("sshJump"), through.jump);
    settings.endGroup();
    settings.sync();
    if (settings.status() != QSettings::NoError)
        return tr("The profile could not be written to %1.").arg(settings.fileName());
    Q_EMIT profilesChanged();
    return {};
}

void Connection::removeProfile(const QString &name)
{
    QSettings settings;
    settings.remove(profilesGroup() + QLatin1Char('/') + QString::fromLatin1(name.toUtf8().toPercentEncoding()));
    auto *job = new QKeychain::DeletePasswordJob(keychainService);
    job->setKey(name);
    job->start();  // deletes itself; a keychain that never had it has nothing to delete
    Q_EMIT profilesChanged();
}

bool Connection::isOnThisMachine(const QStringList &endpoints)
{
    const QList<QHostAddress> interfaces = QNetworkInterface::allAddresses();
    for (const QString &text : endpoints) {
        QEtcd::Status status;
        const QEtcd::Endpoint endpoint = QEtcd::Endpoint::parse(text, &status);
        if (!status)
            return false;
        // Names other than these two are not resolved: a lookup could block the window, and a
        // name that resolves here today may point elsewhere tomorrow.
        if (endpoint.host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0
            || endpoint.host.compare(QHostInfo::localHostName(), Qt::CaseInsensitive) == 0)
            continue;
        const QHostAddress address(endpoint.host);
        if (address.isNull() || !(address.isLoopback() || interfaces.contains(address)))
            return false;
    }
    return !endpoints.isEmpty();
}

bool Connection::writesAllowed(const QVariantMap &profile) const
{
    if (isReadOnlyLocked())
        return false;
    if (const auto choice = m_writeChoices.constFind(clusterKey(profile)); choice != m_writeChoices.constEnd())
        return *choice;
    return !profile.value(QStringLiteral("readOnly")).toBool() && throughOf(profile).host.isEmpty()
        && isOnThisMachine(profile.value(QStringLiteral("endpoints")).toStringList());
}

void Connection::allowWrites(bool allowed)
{
    if (!m_client || isReadOnlyLocked())
        return;
    m_writeChoices.insert(clusterKey(m_current), allowed);
    if (allowed != isReadOnly())
        return;  // already so
    connectWith(m_profileName, m_current, m_client->options().password);
}

void Connection::open(const QString &name)
{
    const QVariantMap saved = profile(name);
    if (saved.isEmpty()) {
        setProblem(tr("There is no profile named \"%1\". Pick one in the header, or make it with Profiles….").arg(name), {});
        return;
    }
    if (m_commandLine.value(QStringLiteral("writable")).toBool()
        && name == m_commandLine.value(QStringLiteral("profile")).toString()) {
        // --profile NAME --writable: once; the header's switch may take it back.
        const QString cluster = clusterKey(saved);
        if (!m_writeChoices.contains(cluster))
            m_writeChoices.insert(cluster, true);
    }
    const QString user = saved.value(QStringLiteral("user")).toString();
    if (user.isEmpty())
        return connectWith(name, saved, {});
    auto *job = new QKeychain::ReadPasswordJob(keychainService, this);
    job->setKey(name);
    connect(job, &QKeychain::Job::finished, this, [this, name, user, job] {
        const bool keychain = job->error() == QKeychain::NoError || job->error() == QKeychain::EntryNotFound;
        if (keychain != m_keychainAvailable) {
            m_keychainAvailable = keychain;
            Q_EMIT keychainAvailableChanged();
        }
        if (job->error() == QKeychain::NoError)
            return connectWith(name, profile(name), job->textData());
        const QString reason = keychain
            ? tr("The keychain holds no password for profile \"%1\" yet.").arg(name)
            : tr("No keychain service answered (%1), so the password is asked for each time and kept only "
                 "until the console closes.")
                  .arg(job->errorString());
        Q_EMIT passwordNeeded(name, user, reason, keychain);
    });
    job->start();
}

void Connection::openWithPassword(const QString &name, const QString &password, bool remember)
{
    if (name.isEmpty()) {
        m_commandLinePassword = password;
        return openCommandLine();
    }
    const QVariantMap saved = profile(name);
    if (saved.isEmpty())
        return open(name);  // says there is no such profile
    if (remember) {
        auto *job = new QKeychain::WritePasswordJob(keychainService, this);
        job->setKey(name);
        job->setTextData(password);
        connect(job, &QKeychain::Job::finished, this, [this, job] {
            if (job->error() != QKeychain::NoError)
                Q_EMIT keychainFailed(tr("The password was not kept in the keychain (%1); it is asked for again "
                                         "next time.")
                                          .arg(job->errorString()));
        });
        job->start();
    }
    connectWith(name, saved, password);
}

void Connection::openCommandLine()
{
    QVariantMap options = m_commandLine;
    QString password = options.take(QStringLiteral("password")).toString();
    if (password.isEmpty())
        password = m_commandLinePassword;
    const QString user = options.value(QStringLiteral("user")).toString();
    if (!user.isEmpty() && password.isEmpty()) {
        // Asked here, not on the command line: a password in argv is visible to every user in ps.
        Q_EMIT passwordNeeded({}, user, tr("The command line names user \"%1\" without a password.").arg(user), false);
        return;
    }
    connectWith({}, options, password);
}

void Connection::openSandbox(const QStringList &endpoints)
{
    if (!isSandbox())
        m_profileBeforeSandbox = m_profileName;
    connectWith({},
                {{QStringLiteral("endpoints"), endpoints}, {QStringLiteral("readOnly"), false},
                 {QStringLiteral("sandbox"), true}},
                {});
}

void Connection::closeSandbox()
{
    if (m_client && !isSandbox())
        return;
    if (m_profileBeforeSandbox.isEmpty())
        openCommandLine();
    else
        open(m_profileBeforeSandbox);
}

void Connection::connectWith(const QString &name, const QVariantMap &profile, const QString &password)
{
    const SshTunnel::Through through = throughOf(profile);
    if (through.host.isEmpty()) {
        m_tunnel.close();
        Q_EMIT tunnelChanged();
        return makeClient(name, profile, password);
    }
    QList<QEtcd::Endpoint> endpoints;
    for (const QString &text : profile.value(QStringLiteral("endpoints")).toStringList()) {
        QEtcd::Status parsed;
        endpoints.append(QEtcd::Endpoint::parse(text, &parsed));
        if (!parsed)  // the client names what is wrong with it
            return makeClient(name, profile, password);
    }
    if (endpoints.isEmpty())  // nothing to forward: the client says what is missing
        return makeClient(name, profile, password);
    // The same tunnel serves a reconnection (writes allowed or forbidden, a password entered).
    const bool sameTunnel = m_tunnel.state() == SshTunnel::State::Open
        && SshTunnel::describe(m_tunnel.through()) == SshTunnel::describe(through)
        && m_pending.profile.value(QStringLiteral("endpoints")) == profile.value(QStringLiteral("endpoints"));
    m_pending = {name, profile, password};
    if (sameTunnel)
        return tunnelOpened();
    // Nothing of the cluster the window leaves stays on the pages while the tunnel opens.
    replaceClient(name, profile, nullptr);
    openTunnel(through, endpoints);
}

void Connection::openTunnel(const SshTunnel::Through &through, const QList<QEtcd::Endpoint> &endpoints)
{
    m_checking = true;
    Q_EMIT problemChanged();
    m_tunnel.open(through, endpoints);
    Q_EMIT tunnelChanged();
}

void Connection::tunnelOpened()
{
    Q_EMIT tunnelChanged();
    QVariantMap profile = m_pending.profile;
    const QStringList endpoints = profile.value(QStringLiteral("endpoints")).toStringList();
    // TLS is checked against the host the endpoint names, not the tunnel's 127.0.0.1.
    if (profile.value(QStringLiteral("serverName")).toString().isEmpty() && !endpoints.isEmpty()) {
        QEtcd::Status parsed;
        profile.insert(QStringLiteral("serverName"), QEtcd::Endpoint::parse(endpoints.constFirst(), &parsed).host);
    }
    makeClient(m_pending.name, profile, m_pending.password, m_tunnel.localEndpoints());
}

void Connection::tunnelFailed(const QString &why)
{
    Q_EMIT tunnelChanged();
    setProblem(tr("The SSH tunnel through %1 to %2 is not open: %3. The console tries again every few seconds.")
                   .arg(SshTunnel::describe(m_tunnel.through()),
                        endpointList(m_pending.profile.value(QStringLiteral("endpoints")).toStringList()), why),
               QStringLiteral("ssh"));
}

void Connection::makeClient(const QString &name, const QVariantMap &profile, const QString &password,
                            const QStringList &tunnelEnds)
{
    QEtcd::ClientOptions options = optionsOf(profile, password);
    if (!tunnelEnds.isEmpty())
        options.endpoints = tunnelEnds;
    options.readOnly = !writesAllowed(profile);
    replaceClient(name, profile, std::make_unique<QEtcd::Client>(options));
    check();
}

void Connection::replaceClient(const QString &name, const QVariantMap &profile, std::unique_ptr<QEtcd::Client> next)
{
    std::unique_ptr<QEtcd::Client> previous = std::exchange(m_client, std::move(next));
    m_profileName = name;
    m_current = profile;  // its endpoints are the cluster's, which the pages and the header name
    m_current.remove(QStringLiteral("password"));
    ++m_generation;
    // Every page moves to the new client while this signal is delivered; the previous one goes
    // once the calls it still answers have let go of it.
    Q_EMIT clientChanged();
    if (previous)
        previous.release()->deleteLater();
}

void Connection::check()
{
    if (m_tunnel.state() == SshTunnel::State::Failed)
        return openTunnel(m_tunnel.through(), m_tunnel.endpoints());
    if (!m_client)
        return;
    const QString where = endpointList(endpoints());
    if (const QEtcd::Status refused = m_client->configurationStatus(); !refused) {
        return setProblem(tr("The connection to %1 cannot be made: %2. Correct the profile (or the command "
                             "line's flags) and connect again.")
                              .arg(where, refused.message()),
                          QStringLiteral("profile"));
    }
    m_checking = true;
    Q_EMIT problemChanged();
    probe();
}

void Connection::probe()
{
    if (m_tunnel.state() == SshTunnel::State::Failed)
        return openTunnel(m_tunnel.through(), m_tunnel.endpoints());
    if (!m_client || !m_client->configurationStatus())
        return;
    // A count-only read of one key answers for the endpoint, TLS, the user and the password.
    QEtcd::Internal::thenOn(m_client->ping(), this, [this, generation = m_generation](const QEtcd::Result &answer) {
        if (generation != m_generation)
            return;
        m_checking = false;
        if (answer.status)
            return setProblem({}, {});
        const QString where = endpointList(endpoints());
        const QEtcd::Status &status = answer.status;
        switch (status.code()) {
        case QEtcd::StatusCode::TlsError:
            return setProblem(tr("TLS with %1 failed: %2. Check that the CA file is the one that signed the "
                                 "server's certificate, and the client certificate and key, then connect again.")
                                  .arg(where, status.message()),
                              QStringLiteral("tls"));
        case QEtcd::StatusCode::InvalidArgument:
        case QEtcd::StatusCode::Unauthenticated:
            if (status.message().contains(QLatin1String("authenticat"))) {
                return setProblem(tr("%1 refused user \"%2\": %3. Enter the password again.")
                                      .arg(where, user(), status.message()),
                                  QStringLiteral("password"));
            }
            break;
        case QEtcd::StatusCode::PermissionDenied:
            // The user may still read what its role allows; the pages say where it may not.
            return setProblem({}, {});
        case QEtcd::StatusCode::ResourceExhausted:
            if (status.isTooManyRequests()) {
                return setProblem(tr("%1 is too busy to answer (%2): more proposals wait than it takes. Wait a "
                                     "moment; the console keeps trying.")
                                      .arg(where, status.message()),
                                  QStringLiteral("busy"));
            }
            break;
        default:
            break;
        }
        setProblem(tr("No etcd answered at %1: %2. Check the address and port, that etcd runs there and that "
                      "nothing blocks the way; the console keeps trying.")
                       .arg(where, status.message()),
                   QStringLiteral("endpoint"));
    });
}

QString Connection::advice(const QEtcd::Status &status) const
{
    switch (status.code()) {
    case QEtcd::StatusCode::Ok:
        return {};
    case QEtcd::StatusCode::ReadOnly:
        return isReadOnlyLocked()
            ? tr("%1. The console was started with --read-only: nothing can be written.").arg(status.message())
            : tr("%1. This connection is read-only: allow writes with the header's read-only switch.").arg(status.message());
    case QEtcd::StatusCode::PermissionDenied:
        return tr("%1. User \"%2\" lacks the permission: ask an administrator for a role that grants it, or "
                  "connect as another user.")
            .arg(status.message(), user());
    case QEtcd::StatusCode::ResourceExhausted:
        if (status.isTooManyRequests())
            return tr("%1. %2 is too busy (too many requests): try again in a moment.")
                .arg(status.message(), endpointList(endpoints()));
        return status.message();  // a limit of ours, which the message names
    case QEtcd::StatusCode::Unavailable:
    case QEtcd::StatusCode::DeadlineExceeded:
        return tr("%1. %2 did not answer in time: check the connection, then try again.")
            .arg(status.message(), endpointList(endpoints()));
    default:
        return status.message();
    }
}

QVariantMap Connection::participantOptions() const
{
    if (!m_client)
        return {};
    // The client's own options: the password is kept nowhere else.
    return profileOf(m_client->options());
}

QVariantMap Connection::profileOf(const QEtcd::ClientOptions &options)
{
    return {{QStringLiteral("endpoints"), options.endpoints},
            {QStringLiteral("caFile"), options.tls.caFile},
            {QStringLiteral("certFile"), options.tls.certFile},
            {QStringLiteral("keyFile"), options.tls.keyFile},
            {QStringLiteral("serverName"), options.tls.serverNameOverride},
            {QStringLiteral("user"), options.user},
            {QStringLiteral("password"), options.password},
            {QStringLiteral("namespace"), QString::fromUtf8(options.keyNamespace)},
            {QStringLiteral("readOnly"), options.readOnly},
            {QStringLiteral("dialTimeoutMs"), qint64(options.dialTimeout.count())},
            {QStringLiteral("commandTimeoutMs"), qint64(options.rpc.operationTimeout.count())},
            {QStringLiteral("maxRecvBytes"), qint64(options.maxReceiveMessageSize)}};
}

void Connection::setProblem(const QString &problem, const QString &kind)
{
    if (kind == QLatin1String("endpoint") || kind == QLatin1String("busy") || kind == QLatin1String("ssh"))
        m_retry.start();
    else
        m_retry.stop();
    if (problem == m_problem && kind == m_problemKind && !m_checking)
        return;
    m_problem = problem;
    m_problemKind = kind;
    m_checking = false;
    Q_EMIT problemChanged();
}
