// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/clientoptions.h>

#include <QtCore/QCommandLineOption>
#include <QtCore/QList>
#include <QtCore/QProcessEnvironment>

#include <chrono>
#include <functional>
#include <optional>

QT_BEGIN_NAMESPACE
class QCommandLineParser;
QT_END_NAMESPACE

namespace QEtcd::Cli {

// -w/--write-out. Json is etcdctl's document (get, put, del, lease) where etcdctl has one, so that jq
// scripts written for etcdctl work; the other commands print JSON lines for it, as for JsonLines
// (--json). Fields is etcdctl's "Name" : value lines; Table is refused where etcdctl refuses it.
enum class OutputFormat { Simple, Json, JsonLines, Fields, Table };

// What every command accepts, spelled as etcdctl spells it so operators' habits carry over.
struct GlobalOptions
{
    ClientOptions client;
    std::chrono::milliseconds commandTimeout{5000};
    OutputFormat output = OutputFormat::Simple;
    // --hex: keys and values in text output as \x61\x62, etcdctl's way.
    bool hex = false;
    // --insecure-transport: a password may travel unencrypted to another machine.
    bool insecureTransport = false;
};

// A setting and where it came from, so an error can name the flag or variable to fix.
struct Setting
{
    QString value;
    QString source;
};

// --endpoints, --cacert, --cert, --key, --user, --password, --namespace, --dial-timeout,
// --command-timeout, --max-recv-bytes, -w/--write-out, --json, --hex, --read-only, --insecure-transport,
// --insecure-skip-tls-verify and --help. Each option also reads ETCDCTL_<NAME> (ETCDCTL_DIAL_TIMEOUT for
// --dial-timeout), as etcdctl does; a flag's variable is true or false (ETCDCTL_HEX=true).
QList<QCommandLineOption> globalOptions();
bool takesValue(const QString &globalOptionName);

// Asks for the password of a user; nullopt with error when it cannot be asked.
using PasswordPrompt = std::function<std::optional<QString>(const QString &user, QString *error)>;

// Flags win over the environment, the environment over the defaults. Bare "host:port"
// endpoints are http, or https when TLS files or --insecure-skip-tls-verify are given; an
// explicit http:// together with them is refused. A user without a password is asked for it through
// askPassword, last, once everything else is known to be right. nullopt with error naming the
// flag or variable.
// --endpoints' comma-separated list: a bare host:port is https when tls asks for TLS at all.
QStringList endpointList(const QString &text, const TlsOptions &tls);

std::optional<GlobalOptions> resolveGlobalOptions(const QCommandLineParser &parser,
                                                  const QProcessEnvironment &environment, QString *error,
                                                  const PasswordPrompt &askPassword = {});

// Sets client's user and password from a --user-like and a --password-like setting, once its
// endpoints and TLS are known: etcdctl's "name:password" is read; a password that would travel
// unencrypted to another machine is refused unless insecureTransport; a missing one is asked
// through askPassword. Empty when all is well, else the error naming the setting to fix, with
// preferredPasswordSetting (ETCDCTL_PASSWORD) where a password should come from.
QString applyCredentials(ClientOptions &client, const Setting &user, const Setting &password, bool insecureTransport,
                         const QString &preferredPasswordSetting, const PasswordPrompt &askPassword);

// The first of client's endpoints a secret would travel to in clear text (no TLS, and not this
// machine), as a URL; empty when there is none.
QString unencryptedRemoteEndpoint(const ClientOptions &client);

// The environment for a program qetcd starts: without the ETCDCTL_* variables that carry a
// password (ETCDCTL_PASSWORD, and ETCDCTL_USER, which may be "name:password"). A child is not
// trusted with the credentials of the process that started it.
QProcessEnvironment withoutCredentials(QProcessEnvironment environment);

} // namespace QEtcd::Cli
