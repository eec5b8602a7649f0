// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include "jobrun.h"
#include "keyfile_p.h"
#include "kvformat.h"
#include "kvrequests.h"

#include <QEtcd/bulkdelete.h>

#include <QtCore/QFile>
#include <QtCore/QHash>
#include <QtCore/QJsonArray>

#include <unistd.h>

namespace QEtcd::Cli {

namespace {
QCommandLineOption flag(const QString &name, const QString &description)
{
    return QCommandLineOption(name, description);
}

QCommandLineOption valued(const QString &name, const QString &valueName, const QString &description)
{
    return QCommandLineOption(name, description, valueName);
}

QString quoted(const QByteArray &key)
{
    return QLatin1Char('"') + QString::fromUtf8(key) + QLatin1Char('"');
}

const QString rangeHelp = QStringLiteral(
    "Without options the command covers KEY alone; with RANGE_END the keys from KEY\n"
    "up to, not including, RANGE_END; with --prefix every key that starts with KEY\n"
    "(\"\" --prefix: all keys); with --from-key every key from KEY on.");

// etcdctl's rules: one way of widening the range at a time.
std::optional<KeyRange> keyRange(const Invocation &invocation, QString *error)
{
    const QStringList arguments = invocation.arguments();
    const bool prefix = invocation.isSet(QStringLiteral("prefix"));
    const bool fromKey = invocation.isSet(QStringLiteral("from-key"));
    const bool rangeEnd = arguments.size() > 1;
    if (int(prefix) + int(fromKey) + int(rangeEnd) > 1) {
        *error = QStringLiteral("use only one of --prefix, --from-key and RANGE_END");
        return std::nullopt;
    }
    if (prefix)
        return KeyRange::prefix();
    if (fromKey)
        return KeyRange::fromKey();
    if (rangeEnd)
        return KeyRange::upTo(arguments[1].toUtf8());
    return KeyRange::single();
}

} // namespace

namespace Etcdctl {
using Internal::KeyFileText::header;
using Internal::KeyFileText::keyValue;

namespace {
QByteArray keyValues(const QList<KeyValue> &kvs)
{
    QByteArrayList objects;
    for (const KeyValue &kv : kvs)
        objects.append(keyValue(kv));
    return '[' + objects.join(',') + ']';
}

void printKeyValueFields(Invocation &invocation, const QByteArray &prefix, const KeyValue &kv)
{
    invocation.print("\"" + prefix + "Key\" : " + goQuoted(kv.key));
    invocation.print("\"" + prefix + "CreateRevision\" : " + QByteArray::number(kv.createRevision));
    invocation.print("\"" + prefix + "ModRevision\" : " + QByteArray::number(kv.modRevision));
    invocation.print("\"" + prefix + "Version\" : " + QByteArray::number(kv.version));
    invocation.print("\"" + prefix + "Value\" : " + goQuoted(kv.value));
    invocation.print("\"" + prefix + "Lease\" : " + QByteArray::number(kv.lease));
}
} // namespace

void printHeaderFields(Invocation &invocation, const ResponseHeader &header)
{
    for (const QByteArray &line : headerFieldLines(header))
        invocation.print(line);
}

QByteArray getJson(const RangeResult &result)
{
    QByteArray text = "{\"header\":" + header(result.header);
    if (!result.kvs.isEmpty())
        text += ",\"kvs\":" + keyValues(result.kvs);
    if (result.more)
        text += ",\"more\":true";
    if (result.count != 0)
        text += ",\"count\":" + QByteArray::number(result.count);
    return text + '}';
}

void printGet(Invocation &invocation, const RangeResult &result)
{
    if (invocation.output() != OutputFormat::Fields)
        return invocation.print(getJson(result));
    printHeaderFields(invocation, result.header);
    for (const KeyValue &kv : result.kvs)
        printKeyValueFields(invocation, {}, kv);
    invocation.print(QByteArray("\"More\" : ") + (result.more ? "true" : "false"));
    invocation.print("\"Count\" : " + QByteArray::number(result.count));
}

QByteArray putJson(const PutResult &result)
{
    QByteArray text = "{\"header\":" + header(result.header);
    if (result.prevKv)
        text += ",\"prev_kv\":" + keyValue(*result.prevKv);
    return text + '}';
}

void printPut(Invocation &invocation, const PutResult &result)
{
    if (invocation.output() != OutputFormat::Fields)
        return invocation.print(putJson(result));
    printHeaderFields(invocation, result.header);
    if (result.prevKv)
        printKeyValueFields(invocation, "Prev", *result.prevKv);
}

QByteArray deleteJson(const DeleteResult &result)
{
    QByteArray text = "{\"header\":" + header(result.header);
    if (result.deleted != 0)
        text += ",\"deleted\":" + QByteArray::number(result.deleted);
    if (!result.prevKvs.isEmpty())
        text += ",\"prev_kvs\":" + keyValues(result.prevKvs);
    return text + '}';
}

void printDelete(Invocation &invocation, const DeleteResult &result)
{
    if (invocation.output() != OutputFormat::Fields)
        return invocation.print(deleteJson(result));
    printHeaderFields(invocation, result.header);
    invocation.print("\"Deleted\" : " + QByteArray::number(result.deleted));
    for (const KeyValue &kv : result.prevKvs)
        printKeyValueFields(invocation, "Prev", kv);
}

bool wanted(const Invocation &invocation)
{
    return invocation.output() == OutputFormat::Json || invocation.output() == OutputFormat::Fields;
}
} // namespace Etcdctl

namespace {

// A key or value in text output: raw, or with --hex as etcdctl's \x61\x62.
void printBytes(Invocation &invocation, const QByteArray &bytes)
{
    if (invocation.hex())
        invocation.print(hexBytes(bytes));
    else
        invocation.printData(bytes);
}

std::optional<qint64> nonNegative(const Invocation &invocation, const QString &option, QString *error)
{
    if (!invocation.isSet(option))
        return 0;
    bool ok = false;
    const qint64 value = invocation.value(option).toLongLong(&ok);
    if (ok && value >= 0)
        return value;
    *error = QStringLiteral("--%1 must be a whole number >= 0, not \"%2\"").arg(option, invocation.value(option));
    return std::nullopt;
}

// etcdctl's --order and --sort-by, in either case. Sorted by anything but the key and in no
// order, etcd sorts ascending; sorted by the key ascending is etcd's own order, asked as none
// so that a --limit does not make etcd sort the whole range first.
bool sorting(const Invocation &invocation, RangeOptions *options, QString *error)
{
    static const QHash<QString, SortTarget> targets{{QStringLiteral("CREATE"), SortTarget::CreateRevision},
                                                    {QStringLiteral("KEY"), SortTarget::Key},
                                                    {QStringLiteral("MODIFY"), SortTarget::ModRevision},
                                                    {QStringLiteral("VALUE"), SortTarget::Value},
                                                    {QStringLiteral("VERSION"), SortTarget::Version}};
    const QString order = invocation.value(QStringLiteral("order")).toUpper();
    const QString target = invocation.value(QStringLiteral("sort-by")).toUpper();
    if (order == QLatin1String("ASCEND")) {
        options->sortOrder = SortOrder::Ascending;
    } else if (order == QLatin1String("DESCEND")) {
        options->sortOrder = SortOrder::Descending;
    } else if (invocation.isSet(QStringLiteral("order"))) {
        *error = QStringLiteral("--order must be ASCEND or DESCEND, not \"%1\"")
                     .arg(invocation.value(QStringLiteral("order")));
        return false;
    }
    if (invocation.isSet(QStringLiteral("sort-by"))) {
        const auto found = targets.constFind(target);
        if (found == targets.cend()) {
            *error = QStringLiteral("--sort-by must be CREATE, KEY, MODIFY, VALUE or VERSION, not \"%1\"")
                         .arg(invocation.value(QStringLiteral("sort-by")));
            return false;
        }
        options->sortTarget = *found;
    }
    if (options->sortTarget != SortTarget::Key && options->sortOrder == SortOrder::None)
        options->sortOrder = SortOrder::Ascending;
    if (options->sortTarget == SortTarget::Key && options->sortOrder == SortOrder::Ascending)
        options->sortOrder = SortOrder::None;
    return true;
}

// etcdctl's --consistency: l (linearizable, the default) or s (serializable).
bool consistency(const Invocation &invocation, RangeOptions *options, QString *error)
{
    const QString asked = invocation.value(QStringLiteral("consistency"));
    if (!invocation.isSet(QStringLiteral("consistency")) || asked == QLatin1String("l"))
        return true;
    if (asked == QLatin1String("s")) {
        options->serializable = true;
        return true;
    }
    *error = QStringLiteral("--consistency must be l (linearizable) or s (serializable), not \"%1\"").arg(asked);
    return false;
}

} // namespace

std::optional<GetRequest> getRequest(const Invocation &invocation, QString *error)
{
    GetRequest request;
    request.key = invocation.arguments().value(0).toUtf8();
    RangeOptions &options = request.options;
    const auto range = keyRange(invocation, error);
    const auto limit = nonNegative(invocation, QStringLiteral("limit"), error);
    const auto revision = nonNegative(invocation, QStringLiteral("rev"), error);
    const auto minMod = nonNegative(invocation, QStringLiteral("min-mod-revision"), error);
    const auto maxMod = nonNegative(invocation, QStringLiteral("max-mod-revision"), error);
    const auto minCreate = nonNegative(invocation, QStringLiteral("min-create-revision"), error);
    const auto maxCreate = nonNegative(invocation, QStringLiteral("max-create-revision"), error);
    if (!range || !limit || !revision || !minMod || !maxMod || !minCreate || !maxCreate
        || !sorting(invocation, &options, error) || !consistency(invocation, &options, error))
        return std::nullopt;
    options.range = *range;
    options.limit = *limit;
    options.revision = *revision;
    options.minModRevision = *minMod;
    options.maxModRevision = *maxMod;
    options.minCreateRevision = *minCreate;
    options.maxCreateRevision = *maxCreate;
    options.keysOnly = invocation.isSet(QStringLiteral("keys-only"));
    options.countOnly = invocation.isSet(QStringLiteral("count-only"));
    request.valuesOnly = invocation.isSet(QStringLiteral("print-value-only"));
    if (int(options.keysOnly) + int(options.countOnly) + int(request.valuesOnly) > 1) {
        *error = QStringLiteral("use one of --keys-only, --count-only and --print-value-only");
        return std::nullopt;
    }
    if (request.valuesOnly && invocation.output() != OutputFormat::Simple) {
        *error = QStringLiteral("--print-value-only is for text; -w prints whole objects");
        return std::nullopt;
    }
    return request;
}

void printGetAnswer(Invocation &invocation, const GetRequest &request, const RangeResult &result)
{
    if (Etcdctl::wanted(invocation))
        return Etcdctl::printGet(invocation, result);
    if (request.options.countOnly) {
        if (invocation.json())
            invocation.print(QJsonObject{{QLatin1String("count"), result.count}});
        else
            invocation.print(QByteArray::number(result.count));
        return;
    }
    for (const KeyValue &kv : result.kvs) {
        if (invocation.json()) {
            QJsonObject object = keyValueJson(kv);
            if (request.options.keysOnly)
                object.remove(QLatin1String("value"));
            invocation.print(object);
            continue;
        }
        if (!request.valuesOnly)
            printBytes(invocation, kv.key);
        if (!request.options.keysOnly)
            printBytes(invocation, kv.value);
    }
}

namespace {
int runGet(Invocation &invocation)
{
    QString error;
    const auto request = getRequest(invocation, &error);
    if (!request)
        return invocation.usageError(error);
    const RangeResult result = invocation.await(invocation.client().get(request->key, request->options),
                                                QLatin1String("get ") + quoted(request->key));
    if (!result.status)
        return invocation.failed(result.status);
    printGetAnswer(invocation, *request, result);
    return Success;
}

} // namespace

std::optional<PutRequest> putRequest(const Invocation &invocation, QString *error, const std::optional<QByteArray> &piped)
{
    PutRequest request;
    request.key = invocation.arguments().value(0).toUtf8();
    request.value = piped ? *piped : invocation.arguments().value(1).toUtf8();
    PutOptions &options = request.options;
    options.prevKv = invocation.isSet(QStringLiteral("prev-kv"));
    options.ignoreValue = invocation.isSet(QStringLiteral("ignore-value"));
    options.ignoreLease = invocation.isSet(QStringLiteral("ignore-lease"));
    const bool valueGiven = invocation.arguments().size() > 1 || piped;
    if (options.ignoreValue && valueGiven)
        *error = QStringLiteral("--ignore-value keeps the key's value: give KEY alone");
    else if (!options.ignoreValue && !valueGiven)
        *error = QStringLiteral("expects KEY VALUE (KEY alone with --ignore-value)");
    else if (options.ignoreLease && invocation.isSet(QStringLiteral("lease")))
        *error = QStringLiteral("--ignore-lease keeps the key's lease: --lease cannot go with it");
    if (!error->isEmpty())
        return std::nullopt;
    if (invocation.isSet(QStringLiteral("lease"))) {
        const auto lease = parseLeaseId(invocation.value(QStringLiteral("lease")), error);
        if (!lease)
            return std::nullopt;
        options.lease = *lease;
    }
    if (invocation.isSet(QStringLiteral("fence"))) {
        const QString given = invocation.value(QStringLiteral("fence"));
        const qsizetype at = given.lastIndexOf(QLatin1Char('='));
        bool ok = false;
        const qint64 token = given.mid(at + 1).toLongLong(&ok);
        if (at <= 0 || !ok || token <= 0) {
            *error = QStringLiteral("--fence takes LOCK_KEY=FENCING_TOKEN (a token > 0), not \"%1\"").arg(given);
            return std::nullopt;
        }
        request.fence = Compare::createRevision(given.left(at).toUtf8(), CompareResult::Equal, token);
    }
    return request;
}

void printPutAnswer(Invocation &invocation, const PutResult &result)
{
    if (Etcdctl::wanted(invocation))
        return Etcdctl::printPut(invocation, result);
    if (invocation.json()) {
        QJsonObject object{{QLatin1String("revision"), result.header.revision}};
        if (result.prevKv)
            object.insert(QLatin1String("prev_kv"), keyValueJson(*result.prevKv));
        return invocation.print(object);
    }
    invocation.print("OK");
    if (result.prevKv) {
        printBytes(invocation, result.prevKv->key);
        printBytes(invocation, result.prevKv->value);
    }
}

namespace {
int runPut(Invocation &invocation)
{
    // KEY alone: the value is stdin's, every byte of it (a trailing newline too), as etcdctl
    // reads it. On a terminal that would wait for an end of input the user may not know to type.
    std::optional<QByteArray> piped;
    if (invocation.arguments().size() == 1 && !invocation.isSet(QStringLiteral("ignore-value"))) {
        if (isatty(STDIN_FILENO))
            return invocation.usageError(QStringLiteral("expects KEY VALUE, or KEY with the value piped on stdin"));
        QFile input;
        if (!input.open(stdin, QIODevice::ReadOnly))
            return invocation.usageError(QStringLiteral("cannot read the value from stdin: %1").arg(input.errorString()));
        piped = input.readAll();
    }
    QString error;
    const auto request = putRequest(invocation, &error, piped);
    if (!request)
        return invocation.usageError(error);
    const QByteArray &key = request->key;
    PutResult result;
    if (const std::optional<Compare> &fence = request->fence) {
        // The write lands only while the hold that handed out the token stands.
        Txn txn;
        txn.compares = {*fence};
        txn.success = {TxnOp::put(key, request->value, request->options)};
        txn.failure = {TxnOp::range(fence->key)};
        const TxnResult answer = invocation.await(invocation.client().txn(txn), QLatin1String("put ") + quoted(key));
        if (answer.status && !answer.succeeded) {
            const QList<KeyValue> now = answer.responses.value(0).range.kvs;
            return invocation.failed(Status(
                StatusCode::OwnershipLost,
                QStringLiteral("not written: the hold on %1 with fencing token %2 has ended (%3)")
                    .arg(quoted(fence->key))
                    .arg(fence->operand)
                    .arg(now.isEmpty() ? QStringLiteral("the key is gone")
                                       : QStringLiteral("the key's token is %1 now").arg(now.first().createRevision))));
        }
        result = answer.responses.value(0).put;
        result.status = answer.status;
        result.header = answer.header;
    } else {
        result = invocation.await(invocation.client().put(key, request->value, request->options), QLatin1String("put ") + quoted(key));
    }
    if (!result.status)
        return invocation.failed(result.status);
    printPutAnswer(invocation, result);
    return Success;
}

// What del would delete: the count and the first keys, both read at one revision.
int printDeleteDryRun(Invocation &invocation, const QByteArray &key, const KeyRange &range)
{
    constexpr int sampleSize = 10;
    RangeOptions sample;
    sample.range = range;
    sample.keysOnly = true;
    sample.limit = sampleSize;
    const RangeResult result = invocation.await(invocation.client().get(key, sample), QLatin1String("del --dry-run ") + quoted(key));
    if (!result.status)
        return invocation.failed(result.status);
    if (invocation.json()) {
        QJsonArray keys;
        for (const KeyValue &kv : result.kvs)
            keys.append(QString::fromUtf8(kv.key));
        invocation.print(QJsonObject{{QLatin1String("would_delete"), result.count}, {QLatin1String("sample"), keys},
                                     {QLatin1String("revision"), result.header.revision}});
        return Success;
    }
    invocation.print(QByteArray::number(result.count) + " keys would be deleted");
    for (const KeyValue &kv : result.kvs)
        invocation.printData(kv.key);
    if (result.count > result.kvs.size())
        invocation.print("... and " + QByteArray::number(result.count - result.kvs.size()) + " more");
    return Success;
}

// A prefix deleted by BulkDelete: no single revision deletes thousands of keys at once.
int runDeleteInBatches(Invocation &invocation, const QByteArray &prefix)
{
    BulkDelete job(&invocation.client());
    const QString what = QLatin1String("del --in-batches ") + quoted(prefix);
    const BulkDeleteResult result = runJob<BulkDelete, BulkDeleteResult>(
        job, &BulkDelete::finished, [&] { job.startPrefix(prefix); }, what);
    if (invocation.json()) {
        QJsonObject object{{QLatin1String("deleted"), result.deleted},
                           {QLatin1String("transactions"), result.transactions},
                           {QLatin1String("revision"), result.revision}};
        if (!result.status)
            object.insert(QLatin1String("counted"), result.counted);
        invocation.print(object);
    } else {
        invocation.print(QByteArray::number(result.deleted));
    }
    return result.status ? Success : invocation.failed(result.status);
}

} // namespace

std::optional<DeleteRequest> deleteRequest(const Invocation &invocation, QString *error)
{
    DeleteRequest request;
    request.key = invocation.arguments().value(0).toUtf8();
    const auto range = keyRange(invocation, error);
    if (!range)
        return std::nullopt;
    request.options.range = *range;
    request.options.prevKv = invocation.isSet(QStringLiteral("prev-kv"));
    return request;
}

void printDeleteAnswer(Invocation &invocation, const DeleteRequest &request, const DeleteResult &result)
{
    if (Etcdctl::wanted(invocation))
        return Etcdctl::printDelete(invocation, result);
    if (invocation.json()) {
        QJsonObject object{{QLatin1String("deleted"), result.deleted},
                           {QLatin1String("revision"), result.header.revision}};
        if (request.options.prevKv) {
            QJsonArray previous;
            for (const KeyValue &kv : result.prevKvs)
                previous.append(keyValueJson(kv));
            object.insert(QLatin1String("prev_kvs"), previous);
        }
        return invocation.print(object);
    }
    invocation.print(QByteArray::number(result.deleted));
    for (const KeyValue &kv : result.prevKvs) {
        printBytes(invocation, kv.key);
        printBytes(invocation, kv.value);
    }
}

namespace {
int runDelete(Invocation &invocation)
{
    QString error;
    const auto request = deleteRequest(invocation, &error);
    if (!request)
        return invocation.usageError(error);
    const QByteArray &key = request->key;
    const bool inBatches = invocation.isSet(QStringLiteral("in-batches"));
    if (inBatches && (!invocation.isSet(QStringLiteral("prefix")) || key.isEmpty()))
        return invocation.usageError(QStringLiteral("--in-batches deletes the keys under a --prefix that is not empty"));
    if (inBatches && request->options.prevKv)
        return invocation.usageError(QStringLiteral("--in-batches does not print the deleted pairs: leave out --prev-kv"));
    const bool dryRun = invocation.isSet(QStringLiteral("dry-run"));
    if ((dryRun || inBatches) && invocation.output() == OutputFormat::Fields) {
        return invocation.usageError(
            QStringLiteral("--dry-run and --in-batches print simple, json or jsonl, not fields"));
    }
    if (dryRun)
        return printDeleteDryRun(invocation, key, request->options.range);
    if (inBatches)
        return runDeleteInBatches(invocation, key);
    const DeleteResult result = invocation.await(invocation.client().remove(key, request->options),
                                                 QLatin1String("del ") + quoted(key));
    if (!result.status)
        return invocation.failed(result.status);
    printDeleteAnswer(invocation, *request, result);
    return Success;
}
} // namespace

Command getCommand()
{
    Command command;
    command.name = QStringLiteral("get");
    command.summary = QStringLiteral("Read a key or a range of keys");
    command.details = rangeHelp + QStringLiteral(
        "\n\nText output: for each key a line with the key, then a line with the value\n"
        "(raw bytes, or with --hex \\x61 for each byte), as etcdctl prints them;\n"
        "--count-only prints the number alone.\n"
        "-w json and -w fields print what etcdctl prints: {\"header\": {...}, \"kvs\":\n"
        "[...], \"more\": true, \"count\": N}, keys and values in base64, with what is\n"
        "zero or empty left out (no match: the header alone).\n"
        "-w jsonl (--json): one object per key and line, with \"key\", \"value\",\n"
        "\"create_revision\", \"mod_revision\", \"version\" and, for a key with a lease,\n"
        "\"lease\" (hex) and \"lease_dec\"; a key or value that is not valid UTF-8 comes\n"
        "as \"key_base64\" or \"value_base64\". --count-only prints {\"count\": N}.");
    command.arguments = {{QStringLiteral("KEY"), QStringLiteral("The key, or the start of the range")},
                         {QStringLiteral("RANGE_END"), QStringLiteral("End of the range (not included)"), true}};
    command.options = {
        flag(QStringLiteral("prefix"), QStringLiteral("Read every key that starts with KEY")),
        flag(QStringLiteral("from-key"), QStringLiteral("Read every key from KEY on")),
        valued(QStringLiteral("limit"), QStringLiteral("N"), QStringLiteral("Read at most N keys (0: no limit)")),
        valued(QStringLiteral("rev"), QStringLiteral("REVISION"),
               QStringLiteral("Read as of this revision (0: the latest)")),
        flag(QStringLiteral("keys-only"), QStringLiteral("Print the keys without values")),
        flag(QStringLiteral("count-only"), QStringLiteral("Print only how many keys there are")),
        flag(QStringLiteral("print-value-only"), QStringLiteral("Print only the values (text output)")),
        valued(QStringLiteral("order"), QStringLiteral("ORDER"),
               QStringLiteral("ASCEND or DESCEND (with --sort-by alone: ASCEND)")),
        valued(QStringLiteral("sort-by"), QStringLiteral("TARGET"),
               QStringLiteral("Sort by CREATE, KEY, MODIFY, VALUE or VERSION [default KEY]")),
        valued(QStringLiteral("consistency"), QStringLiteral("l|s"),
               QStringLiteral("l: linearizable; s: serializable, answered by the member from its own copy, "
                              "faster and maybe stale [default l]")),
        valued(QStringLiteral("min-mod-revision"), QStringLiteral("REVISION"),
               QStringLiteral("Only keys last changed at or after REVISION")),
        valued(QStringLiteral("max-mod-revision"), QStringLiteral("REVISION"),
               QStringLiteral("Only keys last changed at or before REVISION")),
        valued(QStringLiteral("min-create-revision"), QStringLiteral("REVISION"),
               QStringLiteral("Only keys created at or after REVISION")),
        valued(QStringLiteral("max-create-revision"), QStringLiteral("REVISION"),
               QStringLiteral("Only keys created at or before REVISION")),
    };
    command.run = runGet;
    command.printsFields = true;
    return command;
}

Command putCommand()
{
    Command command;
    command.name = QStringLiteral("put");
    command.summary = QStringLiteral("Write a value to a key");
    command.details = QStringLiteral(
        "Prints OK; with --prev-kv also the previous key and value lines, if any.\n"
        "-w json and -w fields print what etcdctl prints ({\"header\": {...},\n"
        "\"prev_kv\": {...}}). -w jsonl (--json): {\"revision\": N} and, with --prev-kv,\n"
        "\"prev_kv\" as get --json prints it.\n"
        "Lease IDs are hex, as etcdctl prints and reads them: 694d7b0c0d1e0d0a or\n"
        "0x694d7b0c0d1e0d0a; a decimal ID is written dec:7587856238879051018.\n"
        "--fence LOCK_KEY=TOKEN writes only while LOCK_KEY still has create revision\n"
        "TOKEN, the fencing token of a hold: inside `qetcd lock NAME -- COMMAND`, give\n"
        "--fence \"$QETCD_LOCK_KEY=$QETCD_FENCING_TOKEN\", and a hold that was lost or\n"
        "broken meanwhile writes nothing (exit 1, OwnershipLost).\n"
        "Given KEY alone, the value is read from stdin, every byte (a trailing newline\n"
        "too), as etcdctl reads it: `qetcd put KEY < FILE`; refused on a terminal.\n"
        "--ignore-value (KEY alone) moves an existing key onto --lease, or off its lease,\n"
        "keeping its value; --ignore-lease changes the value and keeps the key's lease.\n"
        "Either on a key that does not exist writes nothing (exit 3, etcd's \"key not\n"
        "found\").");
    command.arguments = {{QStringLiteral("KEY"), QStringLiteral("The key to write")},
                         {QStringLiteral("VALUE"), QStringLiteral("The value (else stdin's); put -- before one that starts with -"), true}};
    command.options = {
        valued(QStringLiteral("lease"), QStringLiteral("ID"), QStringLiteral("Attach the key to this lease (hex ID)")),
        flag(QStringLiteral("ignore-value"), QStringLiteral("Keep the key's value (give KEY alone)")),
        flag(QStringLiteral("ignore-lease"), QStringLiteral("Keep the key's lease")),
        flag(QStringLiteral("prev-kv"), QStringLiteral("Print the key-value pair this put replaced")),
        valued(QStringLiteral("fence"), QStringLiteral("LOCK_KEY=TOKEN"),
               QStringLiteral("Write only while that hold stands (its key has create revision TOKEN)")),
    };
    command.run = runPut;
    command.printsFields = true;
    return command;
}

Command deleteCommand()
{
    Command command;
    command.name = QStringLiteral("del");
    command.summary = QStringLiteral("Delete a key or a range of keys");
    command.details = rangeHelp + QStringLiteral(
        "\n\nPrints the number of deleted keys; with --prev-kv then a key line and a value\n"
        "line for each. -w json and -w fields print what etcdctl prints ({\"header\":\n"
        "{...}, \"deleted\": N, \"prev_kvs\": [...]}). -w jsonl (--json): {\"deleted\": N,\n"
        "\"revision\": N} and, with --prev-kv, \"prev_kvs\": [objects as get --json\n"
        "prints them].\n"
        "--dry-run deletes nothing: it prints \"N keys would be deleted\" and the first\n"
        "10 keys, a line each (with --json {\"would_delete\": N, \"sample\": [keys],\n"
        "\"revision\": N}); allowed under --read-only.\n"
        "--in-batches deletes the keys under a --prefix in transactions of at most 128\n"
        "keys (etcd's default --max-txn-ops), key by key as they are read, instead of\n"
        "one request: no single revision and watch event grows with the prefix.\n"
        "SIGINT or SIGTERM stops it between two transactions; it prints the keys\n"
        "deleted (--json: {\"deleted\": N, \"transactions\": N, \"revision\": N}),\n"
        "also when it stopped early (exit status not 0, --json adds \"counted\").");
    command.arguments = {{QStringLiteral("KEY"), QStringLiteral("The key, or the start of the range")},
                         {QStringLiteral("RANGE_END"), QStringLiteral("End of the range (not included)"), true}};
    command.options = {
        flag(QStringLiteral("prefix"), QStringLiteral("Delete every key that starts with KEY")),
        flag(QStringLiteral("from-key"), QStringLiteral("Delete every key from KEY on")),
        flag(QStringLiteral("prev-kv"), QStringLiteral("Print the deleted key-value pairs")),
        flag(QStringLiteral("dry-run"), QStringLiteral("Only count the keys it would delete, and name the first")),
        flag(QStringLiteral("in-batches"), QStringLiteral("Delete a --prefix in transactions of at most 128 keys")),
    };
    command.run = runDelete;
    command.printsFields = true;
    return command;
}

} // namespace QEtcd::Cli
