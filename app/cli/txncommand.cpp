// SPDX-License-Identifier: Apache-2.0
// etcdctl's txn: the compares, the requests run when they all hold and those run when one does
// not, read from standard input as etcdctl reads them (a blank line ends each part), sent as one
// transaction, and the answer printed as etcdctl prints it.
#include "commands.h"
#include "keyfile_p.h"
#include "kvformat.h"
#include "kvrequests.h"

#include <QtCore/QFile>
#include <QtCore/QHash>
#include <QtCore/QJsonArray>

#include <unistd.h>

#include <algorithm>
#include <tuple>
#include <variant>

namespace QEtcd::Cli {

namespace {
// A request of the txn and how its answer is printed: get's and del's options say what to show.
using Request = std::variant<GetRequest, PutRequest, DeleteRequest>;

struct ReadTxn
{
    Txn txn;
    QList<Request> success, failure;
};

// One part of the input: its lines up to a blank line or the end of the input.
class TxnInput
{
public:
    bool open() { return m_file.open(STDIN_FILENO, QIODevice::ReadOnly, QFileDevice::DontCloseHandle); }

    // The next line of the part, trimmed; nullopt at its end. A pipe says nothing of its end
    // before a read finds it: readLine() waits for a line, and reads nothing only there.
    std::optional<QByteArray> next()
    {
        const QByteArray line = m_file.readLine();
        if (line.isEmpty())
            return std::nullopt;
        ++m_number;
        const QByteArray trimmed = line.trimmed();
        return trimmed.isEmpty() ? std::nullopt : std::optional(trimmed);
    }
    int number() const { return m_number; }

private:
    QFile m_file;
    int m_number = 0;
};

void skipSpaces(const QByteArray &line, qsizetype *at)
{
    while (*at < line.size() && (line[*at] == ' ' || line[*at] == '\t'))
        ++*at;
}

// A compare as etcdctl writes it: TARGET("KEY") OP "OPERAND", TARGET one of ver (version), c
// (create), m (mod), val (value) and lease, OP one of = != < >, KEY and OPERAND Go strings.
std::optional<Compare> parseCompare(const QByteArray &line, QString *error)
{
    const qsizetype paren = line.indexOf('(');
    const QByteArray target = line.left(std::max<qsizetype>(paren, 0)).trimmed();
    qsizetype at = paren + 1;
    skipSpaces(line, &at);
    std::optional<QByteArray> key = paren > 0 ? goUnquoted(line, &at, error) : std::nullopt;
    if (paren <= 0)
        *error = QStringLiteral("no TARGET(\"KEY\") in it");
    skipSpaces(line, &at);
    if (key && (at >= line.size() || line[at] != ')')) {
        *error = QStringLiteral("no ) after the key");
        key.reset();
    }
    if (!key)
        return std::nullopt;
    skipSpaces(line, &++at);
    const qsizetype opStart = at;
    while (at < line.size() && line[at] != ' ' && line[at] != '\t' && line[at] != '"' && line[at] != '`')
        ++at;
    const QByteArray op = line.mid(opStart, at - opStart);
    skipSpaces(line, &at);
    const std::optional<QByteArray> operand = goUnquoted(line, &at, error);
    if (!operand)
        return std::nullopt;
    skipSpaces(line, &at);
    if (at < line.size()) {
        *error = QStringLiteral("\"%1\" after the compared value").arg(QString::fromUtf8(line.mid(at)));
        return std::nullopt;
    }
    static const QHash<QByteArray, CompareResult> results{{"=", CompareResult::Equal}, {"==", CompareResult::Equal},
                                                          {"!=", CompareResult::NotEqual}, {"<", CompareResult::Less},
                                                          {">", CompareResult::Greater}};
    const auto result = results.constFind(op);
    if (result == results.cend()) {
        *error = QStringLiteral("the operator is one of = != < >, not \"%1\"").arg(QString::fromUtf8(op));
        return std::nullopt;
    }
    if (target == "val" || target == "value")
        return Compare::value(*key, *result, *operand);
    if (target == "lease") {
        // "0": the key has no lease.
        const std::optional<qint64> lease = *operand == "0" ? std::optional<qint64>(0) : parseLeaseId(QString::fromUtf8(*operand), error);
        return lease ? std::optional(Compare::lease(*key, *result, *lease)) : std::nullopt;
    }
    bool ok = false;
    const qint64 number = operand->toLongLong(&ok);
    if (!ok) {
        *error = QStringLiteral("%1 compares with a whole number, not \"%2\"").arg(QString::fromUtf8(target), QString::fromUtf8(*operand));
        return std::nullopt;
    }
    if (target == "ver" || target == "version")
        return Compare::version(*key, *result, number);
    if (target == "c" || target == "create")
        return Compare::createRevision(*key, *result, number);
    if (target == "m" || target == "mod")
        return Compare::modRevision(*key, *result, number);
    *error = QStringLiteral("the target is one of ver, c, m, val and lease (or version, create, mod, value), not \"%1\"")
                 .arg(QString::fromUtf8(target));
    return std::nullopt;
}

// A request line split as a shell would, without its expansions: words apart at spaces, a word
// in double quotes read as a Go string (so "a b" is one word, and "" an empty one).
std::optional<QStringList> words(const QByteArray &line, QString *error)
{
    QStringList split;
    for (qsizetype at = 0; skipSpaces(line, &at), at < line.size();) {
        if (line[at] == '"') {
            const std::optional<QByteArray> quoted = goUnquoted(line, &at, error);
            if (!quoted)
                return std::nullopt;
            split.append(QString::fromUtf8(*quoted));
            continue;
        }
        const qsizetype start = at;
        while (at < line.size() && line[at] != ' ' && line[at] != '\t')
            ++at;
        split.append(QString::fromUtf8(line.mid(start, at - start)));
    }
    return split;
}

// A request line: get, put or del with their arguments and the options that make one request
// (not put's --fence, a transaction of its own, or del's --dry-run and --in-batches).
std::optional<std::pair<Request, TxnOp>> parseRequest(const Invocation &invocation, const QByteArray &line, QString *error)
{
    const std::optional<QStringList> split = words(line, error);
    if (!split)
        return std::nullopt;
    const QString name = split->value(0);
    static const QList<Command> commands{getCommand(), putCommand(), deleteCommand()};
    const auto command = std::find_if(commands.cbegin(), commands.cend(), [&](const Command &c) { return c.name == name; });
    if (command == commands.cend()) {
        *error = QStringLiteral("a request is get, put or del, not \"%1\"").arg(name);
        return std::nullopt;
    }
    QCommandLineParser parser;
    parser.addOptions(command->options);
    if (!parser.parse(*split)) {
        *error = parser.errorText();
        return std::nullopt;
    }
    for (const QString &own : {QStringLiteral("fence"), QStringLiteral("dry-run"), QStringLiteral("in-batches")}) {
        if (parser.optionNames().contains(own)) {
            *error = QStringLiteral("--%1 is not for a request inside a txn").arg(own);
            return std::nullopt;
        }
    }
    if (const QString problem = argumentCountProblem(*command, parser); !problem.isEmpty()) {
        *error = name + QLatin1Char(' ') + problem;
        return std::nullopt;
    }
    const Invocation request(*command, parser, invocation.options());
    if (name == QLatin1String("get")) {
        const auto get = getRequest(request, error);
        return get ? std::optional(std::pair{Request(*get), TxnOp::range(get->key, get->options)}) : std::nullopt;
    }
    if (name == QLatin1String("put")) {
        const auto put = putRequest(request, error);
        return put ? std::optional(std::pair{Request(*put), TxnOp::put(put->key, put->value, put->options)}) : std::nullopt;
    }
    const auto del = deleteRequest(request, error);
    return del ? std::optional(std::pair{Request(*del), TxnOp::remove(del->key, del->options)}) : std::nullopt;
}

// The three parts, each up to a blank line; in interactive mode each asked for on stdout.
std::optional<ReadTxn> readTxn(Invocation &invocation, QString *error)
{
    TxnInput input;
    if (!input.open()) {
        *error = QStringLiteral("cannot read the transaction from stdin");
        return std::nullopt;
    }
    const bool interactive = invocation.isSet(QStringLiteral("interactive"));
    const auto failed = [&](const QByteArray &line, const QString &why) {
        *error = QStringLiteral("line %1 (%2): %3").arg(input.number()).arg(QString::fromUtf8(line), why);
        return std::nullopt;
    };
    ReadTxn read;
    // On a terminal the prompt must show before the input is read: flushed at once.
    const auto prompt = [&](const char *text) {
        if (interactive) {
            invocation.print(text);
            invocation.flush();
        }
    };
    prompt("compares:");
    while (const std::optional<QByteArray> line = input.next()) {
        const std::optional<Compare> compare = parseCompare(*line, error);
        if (!compare)
            return failed(*line, *error);
        read.txn.compares.append(*compare);
    }
    for (auto [ops, requests, asked] : {std::tuple{&read.txn.success, &read.success, "success requests (get, put, del):"},
                                         std::tuple{&read.txn.failure, &read.failure, "failure requests (get, put, del):"}}) {
        prompt(asked);
        while (const std::optional<QByteArray> line = input.next()) {
            const auto request = parseRequest(invocation, *line, error);
            if (!request)
                return failed(*line, *error);
            requests->append(request->first);
            ops->append(request->second);
        }
    }
    return read;
}

// etcdctl's -w json of a TxnResponse: Go's own encoding of the struct, each answer in the
// "Response" it came in.
QByteArray txnJson(const TxnResult &result)
{
    QByteArray text = "{\"header\":" + Internal::KeyFileText::header(result.header);
    if (result.succeeded)
        text += ",\"succeeded\":true";
    QByteArrayList responses;
    for (const TxnOpResult &answer : result.responses) {
        switch (answer.kind) {
        case TxnOp::Kind::Range:
            responses.append("{\"Response\":{\"ResponseRange\":" + Etcdctl::getJson(answer.range) + "}}");
            break;
        case TxnOp::Kind::Put:
            responses.append("{\"Response\":{\"ResponsePut\":" + Etcdctl::putJson(answer.put) + "}}");
            break;
        case TxnOp::Kind::Delete:
            responses.append("{\"Response\":{\"ResponseDeleteRange\":" + Etcdctl::deleteJson(answer.remove) + "}}");
            break;
        case TxnOp::Kind::Txn:  // qetcd's txn reads no nested transaction
            break;
        }
    }
    if (!responses.isEmpty())
        text += ",\"responses\":[" + responses.join(',') + ']';
    return text + '}';
}

// qetcd's -w jsonl: one object, each answer as its command's --json prints it under "get",
// "put" or "del".
QJsonObject txnJsonLine(const TxnResult &result, const QList<Request> &requests)
{
    QJsonArray responses;
    for (qsizetype i = 0; i < result.responses.size() && i < requests.size(); ++i) {
        const TxnOpResult &answer = result.responses[i];
        QJsonArray kvs;
        for (const KeyValue &kv : answer.range.kvs)
            kvs.append(keyValueJson(kv));
        QJsonArray previous;
        for (const KeyValue &kv : answer.remove.prevKvs)
            previous.append(keyValueJson(kv));
        if (answer.kind == TxnOp::Kind::Range)
            responses.append(QJsonObject{{QLatin1String("get"), QJsonObject{{QLatin1String("kvs"), kvs}, {QLatin1String("count"), answer.range.count}}}});
        else if (answer.kind == TxnOp::Kind::Put)
            responses.append(QJsonObject{{QLatin1String("put"), answer.put.prevKv ? QJsonObject{{QLatin1String("prev_kv"), keyValueJson(*answer.put.prevKv)}} : QJsonObject{}}});
        else if (answer.kind == TxnOp::Kind::Delete)
            responses.append(QJsonObject{{QLatin1String("del"), QJsonObject{{QLatin1String("deleted"), answer.remove.deleted}, {QLatin1String("prev_kvs"), previous}}}});
    }
    return {{QLatin1String("succeeded"), result.succeeded},
            {QLatin1String("revision"), result.header.revision},
            {QLatin1String("responses"), responses}};
}

int runTxn(Invocation &invocation)
{
    QString error;
    const std::optional<ReadTxn> read = readTxn(invocation, &error);
    if (!read)
        return invocation.usageError(error);
    const TxnResult result = invocation.await(invocation.client().txn(read->txn), QStringLiteral("txn"));
    if (!result.status)
        return invocation.failed(result.status);
    const QList<Request> &requests = result.succeeded ? read->success : read->failure;
    switch (invocation.output()) {
    case OutputFormat::Json:
        invocation.print(txnJson(result));
        return Success;
    case OutputFormat::JsonLines:
        invocation.print(txnJsonLine(result, requests));
        return Success;
    case OutputFormat::Fields:
        Etcdctl::printHeaderFields(invocation, result.header);
        invocation.print(QByteArray("\"Succeeded\" : ") + (result.succeeded ? "true" : "false"));
        break;
    default:
        invocation.print(result.succeeded ? "SUCCESS" : "FAILURE");
        break;
    }
    for (qsizetype i = 0; i < result.responses.size() && i < requests.size(); ++i) {
        if (invocation.output() != OutputFormat::Fields)
            invocation.print(QByteArray());
        const TxnOpResult &answer = result.responses[i];
        if (const auto *get = std::get_if<GetRequest>(&requests[i]))
            printGetAnswer(invocation, *get, answer.range);
        else if (std::holds_alternative<PutRequest>(requests[i]))
            printPutAnswer(invocation, answer.put);
        else
            printDeleteAnswer(invocation, std::get<DeleteRequest>(requests[i]), answer.remove);
    }
    return Success;
}
} // namespace

Command txnCommand()
{
    Command command;
    command.name = QStringLiteral("txn");
    command.summary = QStringLiteral("Run requests in one transaction, if its compares hold");
    command.details = QStringLiteral(
        "Reads the transaction from stdin, as etcdctl does, in three parts, each ended\n"
        "by a blank line (or the end of the input):\n"
        "  compares, one a line: TARGET(\"KEY\") OP \"VALUE\", TARGET one of ver (version),\n"
        "    c (create revision), m (mod revision), val (value) and lease (a hex lease\n"
        "    ID; \"0\": no lease), OP one of = != < >. A key that does not exist has\n"
        "    version, create and mod revision 0.\n"
        "  the requests run when every compare holds, one a line: get, put or del with\n"
        "    their arguments and options, a word in double quotes taken as one;\n"
        "  the requests run when one does not.\n"
        "KEY, VALUE and quoted words are Go strings (\\n, \\\", \\x41). -i asks for each\n"
        "part.\n"
        "Prints SUCCESS or FAILURE, then each answer after a blank line as its command\n"
        "prints it; -w json and -w fields print what etcdctl prints; -w jsonl (--json):\n"
        "{\"succeeded\": bool, \"revision\": N, \"responses\": [{\"get\": {\"kvs\": [...],\n"
        "\"count\": N}}, {\"put\": {}}, {\"del\": {\"deleted\": N, \"prev_kvs\": [...]}}]}.\n"
        "A line that does not read exits 128 naming it, before anything is sent; under\n"
        "--read-only a txn that writes is refused unsent.\n\n"
        "  printf '%s\\n' 'mod(\"/cfg\") = \"7\"' '' 'put /cfg v2' '' 'get /cfg' | qetcd txn");
    command.options = {QCommandLineOption({QStringLiteral("i"), QStringLiteral("interactive")},
                                          QStringLiteral("Ask for the compares, the success and the failure requests"))};
    command.run = runTxn;
    command.printsFields = true;
    return command;
}

} // namespace QEtcd::Cli
