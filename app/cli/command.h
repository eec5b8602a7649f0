// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "exitcodes.h"
#include "globaloptions.h"

#include <QEtcd/client.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QDeadlineTimer>
#include <QtCore/QEventLoop>
#include <QtCore/QFutureWatcher>
#include <QtCore/QJsonObject>
#include <QtCore/QTimer>

#include <functional>
#include <memory>

namespace QEtcd::Cli {

class Invocation;

struct Argument
{
    QString name;         // as shown in the synopsis: "KEY"
    QString description;
    bool optional = false;
    // Only the last argument: it takes every remaining argument (a command line to run).
    bool repeats = false;
};

// One subcommand. Its options are parsed together with the global ones, so
// "qetcd get --help" shows both and global options may come before or after the command name.
struct Command
{
    QString name;
    QString summary;  // one line, for "qetcd --help"
    QString details;  // more help: output formats, rules between options
    QList<Argument> arguments;
    QList<QCommandLineOption> options;
    std::function<int(Invocation &)> run;
    // The command only reads (exporter): its client refuses writes whatever --read-only says.
    bool readsOnly = false;
    // The etcdctl formats it prints besides simple, json and jsonl; -w fields or -w table is
    // refused by the others, as etcdctl refuses a format a command lacks.
    bool printsFields = false;
    bool printsTable = false;
};

// One of the things a command with actions does: barrier hold|wait|count, queue put|take, ...
struct Action
{
    QString name;
    QStringList arguments;  // what it takes after its name; "[NAME]" may be left out
    // The command's options that apply to this action; an option no action names applies to
    // all of them. Given to another action, an option is a mistake, not a no-op.
    QStringList options;
    std::function<int(Invocation &)> run;
};

// --cluster: every member's client URLs instead of --endpoints (Invocation::useClusterEndpoints).
QCommandLineOption clusterOption();
// run, against every member's client URLs when --cluster was given.
std::function<int(Invocation &)> withClusterOption(int (*run)(Invocation &));

// Runs the action the first argument names, once its arguments and options are right for it;
// otherwise a usage error naming what was wrong (exit 3).
int runAction(Invocation &invocation, const QList<Action> &actions);

// A command being run: its parsed command line, the resolved global options, a client made on
// first use, and the output conventions.
class Invocation
{
public:
    Invocation(const Command &command, const QCommandLineParser &parser, GlobalOptions options);
    Q_DISABLE_COPY_MOVE(Invocation)

    // JSON of either shape: commands without etcdctl's document print JSON lines for -w json.
    bool json() const { return m_options.output == OutputFormat::Json || m_options.output == OutputFormat::JsonLines; }
    OutputFormat output() const { return m_options.output; }
    bool hex() const { return m_options.hex; }
    bool readOnly() const { return m_options.client.readOnly; }
    // The global options this command runs with, for a command it reads from its input (txn).
    const GlobalOptions &options() const { return m_options; }
    // --endpoints as given (client().endpoints() are normalised: "http://127.0.0.1:2379").
    QStringList endpointsAsGiven() const { return m_options.client.endpoints; }
    QStringList arguments() const { return m_parser.positionalArguments(); }
    bool isSet(const QString &option) const { return m_parser.isSet(option); }
    QString value(const QString &option) const { return m_parser.value(option); }
    QStringList values(const QString &option) const { return m_parser.values(option); }

    Client &client();
    // A client of its own for one endpoint of --endpoints, with every other option given: its
    // calls go to that member and never fail over to another.
    std::unique_ptr<Client> clientFor(const QString &endpoint) const;
    // --cluster (etcdctl's, of endpoint and defrag): from now on the endpoints are every
    // member's client URLs, as the member list that --endpoints answers gives them. A failure
    // says what went wrong; the endpoints are then unchanged.
    Status useClusterEndpoints();

    // Waits for a call's result until deadline, by default --command-timeout from now; what
    // names the request in the message of a timeout ("get \"k\""). Requests started together
    // share one deadline, so a dead endpoint costs one timeout, not one per request.
    template <class Result>
    Result await(const QFuture<Result> &future, const QString &what, const QDeadlineTimer &deadline);
    template <class Result>
    Result await(const QFuture<Result> &future, const QString &what)
    {
        return await(future, what, requestDeadline());
    }
    QDeadlineTimer requestDeadline() const { return QDeadlineTimer(m_options.commandTimeout); }
    // As above, for the calls that answer with a Status alone.
    Status await(const QFuture<Status> &future, const QString &what);

    void print(const QByteArray &line);
    void print(const QJsonObject &object);
    // What print() wrote so far, out now: a long-running command's line is read as it comes.
    void flush();
    // A key or value in text output. On a terminal its control characters are escaped (data
    // must not drive the terminal); into a pipe or file it goes byte for byte, as etcdctl
    // writes it, so `get --print-value-only > file` keeps binary values whole.
    void printData(const QByteArray &bytes);
    // Standard output as print() writes it, for an EventWriter.
    QIODevice *standardOutput();
    // A line of a command's findings on stderr (etcdctl prints an unhealthy endpoint there),
    // after what stdout holds so far.
    void printToStderr(const QByteArray &line);
    // Print "qetcd: <status message>" or "qetcd <command>: <message>" on stderr and return the
    // exit code: exitCodeFor(status, origin), or for a usage error BadArguments.
    int failed(const Status &status, FailureOrigin origin = FailureOrigin::Request);
    int usageError(const QString &message);
    // A failure's message as printed: what gRPC or etcd said, then, for the mistakes a new user
    // makes (a wrong CA, plaintext to a TLS port, no client certificate, no --user, a missing
    // permission), which flag to give or fix, naming the endpoints.
    QString explained(const Status &failure) const;
    // The DeadlineExceeded status await() gives when --command-timeout ran out on what.
    Status timedOut(const QString &what) const;

private:
    const Command &m_command;
    const QCommandLineParser &m_parser;
    GlobalOptions m_options;
    std::unique_ptr<Client> m_client;
};

// Runs an event loop until future has finished or deadline has passed; true when it finished.
template <class T>
bool waitFor(const QFuture<T> &future, const QDeadlineTimer &deadline)
{
    if (!future.isFinished()) {
        // The client's thread delivers the result; an event loop lets the timeout interrupt.
        QEventLoop loop;
        QFutureWatcher<T> watcher;
        QObject::connect(&watcher, &QFutureWatcherBase::finished, &loop, &QEventLoop::quit);
        watcher.setFuture(future);
        QTimer::singleShot(std::chrono::ceil<std::chrono::milliseconds>(deadline.remainingTimeAsDuration()), &loop,
                           &QEventLoop::quit);
        loop.exec();
    }
    return future.isFinished();
}

template <class Result>
Result Invocation::await(const QFuture<Result> &future, const QString &what, const QDeadlineTimer &deadline)
{
    if (!waitFor(future, deadline)) {
        Result result;
        result.status = timedOut(what);
        return result;
    }
    return future.result();
}

inline Status Invocation::await(const QFuture<Status> &future, const QString &what)
{
    return waitFor(future, requestDeadline()) ? future.result() : timedOut(what);
}

// Rows as a table on stdout: columns as wide as their widest cell, two spaces apart.
void printTable(Invocation &invocation, const QList<QStringList> &rows);
// etcdctl's -w table: a box of +, - and |, the header centred, the cells right-aligned.
void printBoxTable(Invocation &invocation, const QStringList &header, const QList<QStringList> &rows);

// Why parser's arguments do not fit command ("expects KEY [RANGE_END] (got 3 arguments)"); empty
// when they do.
QString argumentCountProblem(const Command &command, const QCommandLineParser &parser);

// Runs "qetcd ARGS..." with commands and returns the exit code; arguments[0] is the program.
int runCommandLine(const QStringList &arguments, const QList<Command> &commands);

} // namespace QEtcd::Cli
