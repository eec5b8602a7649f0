// SPDX-License-Identifier: Apache-2.0
#include "command.h"

#include "duration.h"
#include "kvformat.h"
#include "passwordprompt.h"

#include <QEtcd/qetcdversion.h>

#include <QtCore/QFile>
#include <QtCore/QJsonDocument>

#include <algorithm>

#include <unistd.h>

namespace QEtcd::Cli {

namespace {
QFile &standardStream(int fd)
{
    static QFile out, err;
    QFile &file = fd == 1 ? out : err;
    if (!file.isOpen())
        file.open(fd, QIODevice::WriteOnly, QFileDevice::DontCloseHandle);
    return file;
}

// The failure contract is one line, whatever the server or gRPC put in their messages.
void printError(const QString &message)
{
    QFile &err = standardStream(2);
    // Messages quote keys, which are etcd's data: their control characters are made visible.
    err.write(visibleControls(message.simplified().toUtf8(), LineBreaks::Escape) + '\n');
    err.flush();
}

// Only the options section of QCommandLineParser's help, to show several groups.
QString optionsHelp(const QList<QCommandLineOption> &options)
{
    QCommandLineParser parser;
    parser.addOptions(options);
    const QString text = parser.helpText();
    const QLatin1String heading("Options:\n");
    return text.mid(text.indexOf(heading) + heading.size());
}

QString synopsis(const Command &command)
{
    QStringList parts;
    for (const Argument &argument : command.arguments) {
        const QString name = argument.repeats ? argument.name + QStringLiteral("...") : argument.name;
        parts.append(argument.optional ? QLatin1Char('[') + name + QLatin1Char(']') : name);
    }
    return parts.join(QLatin1Char(' '));
}

// Help reads in an 80-column terminal: text longer than its line goes on under its first word,
// which starts at column `column`, with `indent` before each line after the first.
QString wrapped(const QString &text, qsizetype column, const QString &indent)
{
    constexpr qsizetype helpWidth = 80;
    QString help;
    qsizetype lineWidth = column;
    bool lineHasWords = false;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (lineHasWords && lineWidth + 1 + word.size() > helpWidth) {
            help += QLatin1Char('\n') + indent;
            lineWidth = indent.size();
            lineHasWords = false;
        }
        if (lineHasWords) {
            help += QLatin1Char(' ');
            ++lineWidth;
        }
        help += word;
        lineWidth += word.size();
        lineHasWords = true;
    }
    return help;
}

QString labelled(const QString &label, qsizetype labelWidth, const QString &text)
{
    const QString head = QStringLiteral("  ") + label.leftJustified(labelWidth) + QStringLiteral("  ");
    return head + wrapped(text, head.size(), QString(2 + labelWidth + 2, QLatin1Char(' '))) + QLatin1Char('\n');
}

QString overviewHelp(const QList<Command> &commands)
{
    QString text = QStringLiteral("Usage: qetcd [global options] COMMAND [options] [arguments]\n\n"
                                  "Reads and writes an etcd v3 cluster; flags and ETCDCTL_* variables\n"
                                  "as etcdctl has them.\n\n"
                                  "Commands:\n");
    qsizetype nameWidth = 0;
    for (const Command &command : commands)
        nameWidth = std::max(nameWidth, command.name.size());
    for (const Command &command : commands)
        text += labelled(command.name, nameWidth, command.summary);
    text += QStringLiteral("\nGlobal options:\n") + optionsHelp(globalOptions());
    text += QStringLiteral("\nRun \"qetcd COMMAND --help\" for a command's options, \"qetcd --version\" for\n"
                           "the version.\n\n")
        + exitCodesHelp();
    return text;
}

QString commandHelp(const Command &command)
{
    QString text = QStringLiteral("Usage: qetcd %1 [options] %2\n\n%3\n")
                       .arg(command.name, synopsis(command), wrapped(command.summary, 0, QString()));
    if (!command.details.isEmpty())
        text += QLatin1Char('\n') + command.details + QLatin1Char('\n');
    if (!command.arguments.isEmpty()) {
        text += QStringLiteral("\nArguments:\n");
        for (const Argument &argument : command.arguments)
            text += labelled(argument.name, 10, argument.description);
    }
    if (!command.options.isEmpty())
        text += QStringLiteral("\nOptions:\n") + optionsHelp(command.options);
    text += QStringLiteral("\nGlobal options:\n") + optionsHelp(globalOptions());
    return text;
}

// Global options may come before the command name, as with etcdctl: skip them and their values.
qsizetype commandIndex(const QStringList &arguments)
{
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        const QString &argument = arguments[i];
        if (argument == QLatin1String("--"))
            return -1;
        if (!argument.startsWith(QLatin1Char('-')) || argument.size() == 1)
            return i;
        const QString name = argument.mid(argument.startsWith(QLatin1String("--")) ? 2 : 1);
        if (!name.contains(QLatin1Char('=')) && takesValue(name))
            ++i;
    }
    return -1;
}

int usage(const QString &message)
{
    printError(message);
    return BadArguments;
}

// The command or action a command line names, or nullptr, with every name there is for the
// error that says which exist.
template <class Named>
const Named *findNamed(const QList<Named> &candidates, const QString &name, QString *names)
{
    QStringList all;
    for (const Named &candidate : candidates)
        all.append(candidate.name);
    *names = all.join(QLatin1String(", "));
    const auto found = std::find_if(candidates.cbegin(), candidates.cend(),
                                    [&](const Named &candidate) { return candidate.name == name; });
    return found == candidates.cend() ? nullptr : &*found;
}
} // namespace

Invocation::Invocation(const Command &command, const QCommandLineParser &parser, GlobalOptions options)
    : m_command(command), m_parser(parser), m_options(std::move(options))
{
}

Client &Invocation::client()
{
    if (!m_client)
        m_client = std::make_unique<Client>(m_options.client);
    return *m_client;
}

std::unique_ptr<Client> Invocation::clientFor(const QString &endpoint) const
{
    ClientOptions options = m_options.client;
    options.endpoints = {endpoint};
    return std::make_unique<Client>(options);
}

Status Invocation::useClusterEndpoints()
{
    const MemberListResult listed = await(client().memberList(), QStringLiteral("member list"));
    if (!listed.status)
        return listed.status.withContext(QStringLiteral("fetching the endpoints from the cluster's member list"));
    QStringList urls;
    for (const Member &member : listed.members)
        urls += member.clientUrls;  // none for a member added but not started
    if (urls.isEmpty())
        return Status(StatusCode::NotFound, QStringLiteral("the cluster's member list names no client URL"));
    ClientOptions options = m_options.client;
    options.endpoints = urls;
    if (const Status valid = options.validate(); !valid)
        return valid.withContext(QStringLiteral("the member list's client URLs %1").arg(urls.join(QLatin1String(", "))));
    m_options.client = options;
    m_client.reset();
    return {};
}

QCommandLineOption clusterOption()
{
    return QCommandLineOption(QStringLiteral("cluster"),
                              QStringLiteral("Every member's client URLs, from the member list, instead of --endpoints"));
}

std::function<int(Invocation &)> withClusterOption(int (*run)(Invocation &))
{
    return [run](Invocation &invocation) {
        if (invocation.isSet(QStringLiteral("cluster"))) {
            if (const Status fetched = invocation.useClusterEndpoints(); !fetched)
                return invocation.failed(fetched);
        }
        return run(invocation);
    };
}

void Invocation::printToStderr(const QByteArray &line)
{
    standardStream(1).flush();
    QFile &err = standardStream(2);
    err.write(line + '\n');
    err.flush();
}

void Invocation::print(const QByteArray &line)
{
    standardStream(1).write(line + '\n');
}

void Invocation::flush()
{
    standardStream(1).flush();
}

void Invocation::printData(const QByteArray &bytes)
{
    static const bool terminal = isatty(STDOUT_FILENO);
    print(terminal ? visibleControls(bytes) : bytes);
}

QIODevice *Invocation::standardOutput()
{
    return &standardStream(1);
}

void Invocation::print(const QJsonObject &object)
{
    print(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

int Invocation::failed(const Status &status, FailureOrigin origin)
{
    standardStream(1).flush();
    printError(QLatin1String("qetcd: ") + explained(status));
    return exitCodeFor(status, origin);
}

int Invocation::usageError(const QString &message)
{
    return usage(QStringLiteral("qetcd %1: %2").arg(m_command.name, message));
}

int runAction(Invocation &invocation, const QList<Action> &actions)
{
    const QStringList given = invocation.arguments();
    const QString name = given.value(0);
    QString names;
    const Action *action = findNamed(actions, name, &names);
    if (!action)
        return invocation.usageError(QStringLiteral("unknown action \"%1\"; actions: %2").arg(name, names));
    const qsizetype required = std::count_if(action->arguments.cbegin(), action->arguments.cend(),
                                             [](const QString &argument) { return !argument.startsWith('['); });
    const qsizetype count = given.size() - 1;
    if (count < required || count > action->arguments.size()) {
        return invocation.usageError(action->arguments.isEmpty()
                                         ? QStringLiteral("%1 takes no arguments").arg(name)
                                         : QStringLiteral("%1 takes %2").arg(name, action->arguments.join(" and ")));
    }
    for (const Action &other : actions) {
        for (const QString &option : other.options) {
            if (invocation.isSet(option) && !action->options.contains(option))
                return invocation.usageError(QStringLiteral("--%1 does not apply to %2").arg(option, name));
        }
    }
    return action->run(invocation);
}

void printTable(Invocation &invocation, const QList<QStringList> &rows)
{
    QList<qsizetype> widths;
    for (const QStringList &row : rows) {
        widths.resize(std::max(widths.size(), row.size()));
        for (qsizetype i = 0; i < row.size(); ++i)
            widths[i] = std::max(widths[i], row[i].size());
    }
    for (const QStringList &row : rows) {
        QString line;
        for (qsizetype i = 0; i < row.size(); ++i)
            line += i + 1 < row.size() ? row[i].leftJustified(widths[i] + 2) : row[i];
        invocation.print(line.trimmed().toUtf8());
    }
}

void printBoxTable(Invocation &invocation, const QStringList &header, const QList<QStringList> &rows)
{
    QList<qsizetype> widths;
    for (const QString &name : header)
        widths.append(name.size());
    for (const QStringList &row : rows) {
        for (qsizetype i = 0; i < row.size() && i < widths.size(); ++i)
            widths[i] = std::max(widths[i], row[i].size());
    }
    QString border = QStringLiteral("+");
    for (const qsizetype width : widths)
        border += QString(width + 2, QLatin1Char('-')) + QLatin1Char('+');
    const auto line = [&](const QStringList &cells, bool centred) {
        QString text = QStringLiteral("|");
        for (qsizetype i = 0; i < widths.size(); ++i) {
            const QString cell = cells.value(i);
            const qsizetype gap = widths[i] - cell.size();
            // tablewriter centres with the smaller half of the gap on the left.
            const qsizetype left = centred ? gap / 2 : gap;
            text += QLatin1Char(' ') + QString(left, QLatin1Char(' ')) + cell + QString(gap - left, QLatin1Char(' '))
                + QStringLiteral(" |");
        }
        return text;
    };
    invocation.print(border.toUtf8());
    invocation.print(line(header, true).toUtf8());
    invocation.print(border.toUtf8());
    for (const QStringList &row : rows)
        invocation.printData(line(row, false).toUtf8());
    invocation.print(border.toUtf8());
}

QString Invocation::explained(const Status &failure) const
{
    const ClientOptions &client = m_options.client;
    const QString endpoints = client.endpoints.join(QLatin1Char(','));
    const bool tls = std::all_of(client.endpoints.cbegin(), client.endpoints.cend(),
                                 [](const QString &e) { return e.startsWith(QLatin1String("https://")); });
    QString message = failure.message();
    // The library's hint covers every cause of a hang-up; the flags given here narrow it down.
    if (const qsizetype hint = message.indexOf(QStringLiteral(" — over TLS")); hint >= 0)
        message.truncate(hint);
    const auto advise = [&](const QString &advice) { return message + QStringLiteral(" — ") + advice; };
    const bool hungUp = message.contains(QLatin1String("Endpoint read failed"))
        || message.contains(QLatin1String("Socket closed")) || message.contains(QLatin1String("Connection reset"));
    switch (failure.code()) {
    case StatusCode::TlsError:
        if (message.contains(QLatin1String("certificate verify failed"))) {
            return advise(client.tls.caFile.isEmpty()
                              ? QStringLiteral("the certificate of %1 is not signed by a CA this machine trusts: give "
                                               "the cluster's CA with --cacert")
                                    .arg(endpoints)
                              : QStringLiteral("the certificate of %1 is not signed by the CA in --cacert %2: give the CA "
                                               "that signed it")
                                    .arg(endpoints, client.tls.caFile));
        }
        return advise(QStringLiteral("TLS with %1 failed: check --cacert, --cert and --key").arg(endpoints));
    case StatusCode::Unavailable:
        if (hungUp && !tls) {
            return advise(QStringLiteral("%1 hung up on plaintext: if it serves TLS, use https:// endpoints with --cacert")
                              .arg(endpoints));
        }
        if (hungUp && client.tls.certFile.isEmpty()) {
            return advise(QStringLiteral("%1 hung up during TLS: if it requires a client certificate, give --cert and "
                                         "--key")
                              .arg(endpoints));
        }
        if (hungUp) {
            return advise(QStringLiteral("%1 hung up during TLS: check that --cert %2 is signed by a CA it trusts and "
                                         "not expired, and the server's log")
                              .arg(endpoints, client.tls.certFile));
        }
        break;
    case StatusCode::InvalidArgument:
        if (message.contains(QLatin1String("user name is empty"))) {
            return advise(QStringLiteral("%1 requires authentication: give --user NAME (or ETCDCTL_USER); the password "
                                         "is asked for, or read from ETCDCTL_PASSWORD")
                              .arg(endpoints));
        }
        break;
    case StatusCode::PermissionDenied:
        return advise(QStringLiteral("user \"%1\" lacks the permission: ask an administrator for a role that grants it, "
                                     "or use another --user")
                          .arg(client.user));
    default:
        break;
    }
    return message;
}

Status Invocation::timedOut(const QString &what) const
{
    const QStringList &endpoints = m_options.client.endpoints;
    const QString within = formatDuration(m_options.commandTimeout);
    // A request to one member names it already (endpoint health, hashkv, status): the others
    // may well have answered.
    if (std::any_of(endpoints.cbegin(), endpoints.cend(), [&](const QString &one) { return what.contains(one); })) {
        return Status(StatusCode::DeadlineExceeded,
                      QStringLiteral("%1: no answer within %2 (--command-timeout)").arg(what, within));
    }
    return Status(StatusCode::DeadlineExceeded,
                  QStringLiteral("%1: no answer from %2 within %3 (--command-timeout)")
                      .arg(what, endpoints.join(QLatin1Char(',')), within));
}

QString argumentCountProblem(const Command &command, const QCommandLineParser &parser)
{
    const qsizetype given = parser.positionalArguments().size();
    const qsizetype required = std::count_if(command.arguments.cbegin(), command.arguments.cend(),
                                             [](const Argument &a) { return !a.optional; });
    const bool repeats = !command.arguments.isEmpty() && command.arguments.constLast().repeats;
    if (given >= required && (given <= command.arguments.size() || repeats))
        return {};
    return QStringLiteral("expects %1 (got %2 arguments)").arg(synopsis(command)).arg(given);
}

namespace {
int dispatch(const QStringList &arguments, const QList<Command> &commands)
{
    const qsizetype index = commandIndex(arguments);
    if (index < 0 && arguments.contains(QLatin1String("--version"))) {
        standardStream(1).write("qetcd " QETCD_VERSION_STR "\n");
        return Success;
    }
    if (index < 0) {
        const bool help = arguments.contains(QLatin1String("--help")) || arguments.contains(QLatin1String("-h"));
        if (arguments.size() > 1 && !help)
            return usage(QStringLiteral("qetcd: no command given; see qetcd --help"));
        standardStream(1).write(overviewHelp(commands).toUtf8());
        return Success;
    }
    const QString name = arguments[index];
    QString names;
    const Command *command = findNamed(commands, name, &names);
    if (!command)
        return usage(QStringLiteral("qetcd: unknown command \"%1\"; commands: %2").arg(name, names));

    QCommandLineParser parser;
    parser.addOptions(command->options);
    parser.addOptions(globalOptions());
    QStringList rest = arguments;
    rest.removeAt(index);
    if (!parser.parse(rest))
        return usage(QStringLiteral("qetcd %1: %2").arg(name, parser.errorText()));
    if (parser.isSet(QStringLiteral("help"))) {
        standardStream(1).write(commandHelp(*command).toUtf8());
        return Success;
    }
    if (const QString problem = argumentCountProblem(*command, parser); !problem.isEmpty())
        return usage(QStringLiteral("qetcd %1: %2; see qetcd %1 --help").arg(name, problem));
    QString error;
    std::optional<GlobalOptions> options =
        resolveGlobalOptions(parser, QProcessEnvironment::systemEnvironment(), &error, askPasswordOnTerminal);
    if (!options)
        return usage(QLatin1String("qetcd: ") + error);

    if ((options->output == OutputFormat::Fields && !command->printsFields)
        || (options->output == OutputFormat::Table && !command->printsTable)) {
        return usage(QStringLiteral("qetcd %1: no %2 output, as etcdctl has none for it; use simple, json or jsonl")
                         .arg(name, options->output == OutputFormat::Fields ? QStringLiteral("fields")
                                                                            : QStringLiteral("table")));
    }
    options->client.readOnly = options->client.readOnly || command->readsOnly;
    // On every run, not once per machine: the flag is most often left in a script or in
    // ETCDCTL_INSECURE_SKIP_TLS_VERIFY, where it would otherwise be forgotten.
    if (options->client.tls.skipServerVerification) {
        printError(QStringLiteral("qetcd: warning: the server's certificate is not verified "
                                  "(--insecure-skip-tls-verify): anyone on the way can pose as the server"));
    }
    Invocation invocation(*command, parser, std::move(*options));
    return command->run(invocation);
}
} // namespace

int runCommandLine(const QStringList &arguments, const QList<Command> &commands)
{
    const int code = dispatch(arguments, commands);
    standardStream(1).flush();
    return code;
}

} // namespace QEtcd::Cli
