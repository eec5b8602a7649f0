#pragma once

#include <QEtcd/clientoptions.h>

#include <QtCore/QCommandLineOption>
#include <QtCore/QList>
#include <QtCore/QProcessEnvironment>

#include <chrono>
#include <optional>

QT_BEGIN_NAMESPACE
class QCommandLineParser;
QT_END_NAMESPACE

namespace QEtcd::Cli {

// What every command accepts, spelled as etcdctl spells it so operators' habits carry over.
struct GlobalOptions
{
    ClientOptions client;
    std::chrono::milliseconds commandTimeout{5000};
    bool json = false;
};

// --endpoints, --cacert, --cert, --key, --user, --password, --namespace, --dial-timeout,
// --command-timeout, --json, --read-only and --help. Each option with a value also reads ETCDCTL_<NAME>
// (ETCDCTL_DIAL_TIMEOUT for --dial-timeout), as etcdctl does.
QList<QCommandLineOption> globalOptions();
bool takesValue(const QString &globalOptionName);

// Flags win over the environment, the environment over the defaults. Bare "host:port"
// endpoints are http, or https when TLS files are given (etcdctl's reading); an explicit
// http:// together with TLS files is refused. nullopt with error naming the flag or variable.
std::optional<GlobalOptions> resolveGlobalOptions(const QCommandLineParser &parser,
                                                  const QProcessEnvironment &environment, QString *error);

} // namespace QEtcd::Cli
