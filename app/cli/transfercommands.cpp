// SPDX-License-Identifier: Apache-2.0
// Keys in and out of files (export, import) and a key's values compared across revisions (diff).
#include "commands.h"

#include "jobrun.h"
#include "kvformat.h"

#include <QEtcd/keyexport.h>
#include <QEtcd/keyimport.h>
#include <QEtcd/valuediff.h>

#include <QtCore/QJsonArray>

namespace QEtcd::Cli {

namespace {
QString quoted(const QByteArray &key)
{
    return QLatin1Char('"') + QString::fromUtf8(key) + QLatin1Char('"');
}

int runExport(Invocation &invocation)
{
    const QByteArray prefix = invocation.arguments().value(0).toUtf8();
    const QString file = invocation.value(QStringLiteral("output"));
    if (file.isEmpty())
        return invocation.usageError(QStringLiteral("export needs -o FILE, the file to write"));
    const QString formatName = invocation.value(QStringLiteral("format"));
    if (formatName != QLatin1String("etcdctl") && formatName != QLatin1String("jsonl"))
        return invocation.usageError(QStringLiteral("--format is etcdctl or jsonl, not \"%1\"").arg(formatName));
    const KeyExport::Format format = formatName == QLatin1String("jsonl") ? KeyExport::Format::JsonLines : KeyExport::Format::Etcdctl;
    qint64 revision = 0;
    if (invocation.isSet(QStringLiteral("rev"))) {
        bool ok = false;
        revision = invocation.value(QStringLiteral("rev")).toLongLong(&ok);
        if (!ok || revision < 0)
            return invocation.usageError(QStringLiteral("--rev must be a whole number >= 0, not \"%1\"").arg(invocation.value(QStringLiteral("rev"))));
    }
    KeyExport job(&invocation.client());
    const KeyExportResult result = runJob<KeyExport, KeyExportResult>(
        job, &KeyExport::finished,
        [&] { job.start(prefix, file, format, revision, invocation.isSet(QStringLiteral("force"))); },
        QStringLiteral("export"));
    if (!result.status)
        return invocation.failed(result.status);
    if (invocation.json()) {
        invocation.print(QJsonObject{{QLatin1String("file"), file}, {QLatin1String("format"), formatName},
                                     {QLatin1String("keys"), result.keys}, {QLatin1String("revision"), result.revision}});
    } else {
        invocation.print(QStringLiteral("Exported %1 keys under %2 at revision %3 to %4")
                             .arg(result.keys)
                             .arg(quoted(prefix))
                             .arg(result.revision)
                             .arg(file)
                             .toUtf8());
    }
    return Success;
}

QJsonArray keyArray(const QList<QByteArray> &keys)
{
    QJsonArray array;
    for (const QByteArray &key : keys)
        array.append(QString::fromUtf8(key));
    return array;
}

void printPlan(Invocation &invocation, const KeyImportPlan &plan)
{
    if (invocation.json()) {
        invocation.print(QJsonObject{{QLatin1String("creates"), plan.creates},
                                     {QLatin1String("overwrites"), plan.overwrites},
                                     {QLatin1String("unchanged"), plan.unchanged},
                                     {QLatin1String("create_sample"), keyArray(plan.createSample)},
                                     {QLatin1String("overwrite_sample"), keyArray(plan.overwriteSample)},
                                     {QLatin1String("unchanged_sample"), keyArray(plan.unchangedSample)}});
        return;
    }
    invocation.print(QStringLiteral("%1 to create, %2 to overwrite, %3 unchanged")
                         .arg(plan.creates)
                         .arg(plan.overwrites)
                         .arg(plan.unchanged)
                         .toUtf8());
    const auto sample = [&](const char *label, const QList<QByteArray> &keys, qint64 count) {
        for (const QByteArray &key : keys) {
            invocation.standardOutput()->write(label);
            invocation.printData(key);
        }
        if (count > keys.size())
            invocation.print(QStringLiteral("  ... and %1 more").arg(count - keys.size()).toUtf8());
    };
    sample("  create    ", plan.createSample, plan.creates);
    sample("  overwrite ", plan.overwriteSample, plan.overwrites);
    sample("  unchanged ", plan.unchangedSample, plan.unchanged);
}

int runImport(Invocation &invocation)
{
    const QString file = invocation.arguments().value(0);
    if (file.isEmpty())
        return invocation.usageError(QStringLiteral("import takes FILE, the file to import"));
    KeyImportOptions options;
    options.dryRun = invocation.isSet(QStringLiteral("dry-run"));
    options.keepLeases = invocation.isSet(QStringLiteral("keep-leases"));
    if (invocation.isSet(QStringLiteral("prefix-rewrite"))) {
        const QString rewrite = invocation.value(QStringLiteral("prefix-rewrite"));
        const qsizetype at = rewrite.indexOf(QLatin1Char('='));
        if (at <= 0)
            return invocation.usageError(QStringLiteral("--prefix-rewrite takes OLD=NEW (OLD not empty), not \"%1\"").arg(rewrite));
        options.rewriteFrom = rewrite.left(at).toUtf8();
        options.rewriteTo = rewrite.mid(at + 1).toUtf8();
    }
    KeyImport job(&invocation.client());
    QObject::connect(&job, &KeyImport::planned, &job, [&](const KeyImportPlan &plan) { printPlan(invocation, plan); });
    const KeyImportResult result = runJob<KeyImport, KeyImportResult>(
        job, &KeyImport::finished, [&] { job.start(file, options); }, QStringLiteral("import"));
    if (!result.status)
        return invocation.failed(result.status);
    if (options.dryRun)
        return Success;
    if (invocation.json()) {
        invocation.print(QJsonObject{{QLatin1String("written"), result.written},
                                     {QLatin1String("transactions"), result.transactions},
                                     {QLatin1String("revision"), result.revision}});
    } else {
        invocation.print(QStringLiteral("Imported %1 keys in %2 transactions%3")
                             .arg(result.written)
                             .arg(result.transactions)
                             .arg(result.revision > 0 ? QStringLiteral(" (revision %1)").arg(result.revision) : QString())
                             .toUtf8());
    }
    return Success;
}

QString kindName(DiffLine::Kind kind)
{
    switch (kind) {
    case DiffLine::Kind::Same:
        return QStringLiteral("same");
    case DiffLine::Kind::Removed:
        return QStringLiteral("removed");
    case DiffLine::Kind::Added:
        return QStringLiteral("added");
    }
    return {};
}

// Two columns; a removed line and the added line that replaces it share a row, marked '|'.
void printSideBySide(Invocation &invocation, const QList<DiffLine> &lines, int width)
{
    const int column = std::max(8, (width - 3) / 2);
    const auto cell = [column](const QString &text) {
        const QString shown = text.size() > column ? text.left(column - 1) + QChar(0x2026) : text;
        return shown.leftJustified(column);
    };
    for (qsizetype at = 0; at < lines.size();) {
        if (lines[at].kind == DiffLine::Kind::Same) {
            invocation.print((cell(lines[at].text) + QStringLiteral("   ") + lines[at].text.left(column)).toUtf8());
            ++at;
            continue;
        }
        QStringList removed;
        QStringList added;
        for (; at < lines.size() && lines[at].kind != DiffLine::Kind::Same; ++at)
            (lines[at].kind == DiffLine::Kind::Removed ? removed : added).append(lines[at].text);
        for (qsizetype row = 0; row < std::max(removed.size(), added.size()); ++row) {
            const bool both = row < removed.size() && row < added.size();
            const QString marker = both ? QStringLiteral(" | ") : row < removed.size() ? QStringLiteral(" < ") : QStringLiteral(" > ");
            QString line = cell(removed.value(row)) + marker + added.value(row).left(column);
            // Trailing blanks only: the left column's indentation is part of the value.
            while (line.endsWith(QLatin1Char(' ')))
                line.chop(1);
            invocation.print(line.toUtf8());
        }
    }
}

int runDiff(Invocation &invocation)
{
    const QStringList arguments = invocation.arguments();
    const QByteArray key = arguments.value(0).toUtf8();
    if (key.isEmpty() || arguments.size() < 2)
        return invocation.usageError(QStringLiteral("diff takes KEY REV1 [REV2]"));
    qint64 revisions[2] = {0, 0};
    for (int i = 0; i < 2 && i + 1 < arguments.size(); ++i) {
        bool ok = false;
        revisions[i] = arguments[i + 1].toLongLong(&ok);
        if (!ok || revisions[i] <= 0)
            return invocation.usageError(QStringLiteral("REV%1 must be a revision > 0, not \"%2\"").arg(i + 1).arg(arguments[i + 1]));
    }
    int width = 80;
    if (invocation.isSet(QStringLiteral("width"))) {
        bool ok = false;
        width = invocation.value(QStringLiteral("width")).toInt(&ok);
        if (!ok || width < 20)
            return invocation.usageError(QStringLiteral("--width must be a number of columns >= 20, not \"%1\"").arg(invocation.value(QStringLiteral("width"))));
    }
    RangeOptions at[2];
    at[0].revision = revisions[0];
    at[1].revision = revisions[1];
    const QDeadlineTimer deadline = invocation.requestDeadline();
    const QFuture<RangeResult> reads[2] = {invocation.client().get(key, at[0]), invocation.client().get(key, at[1])};
    RangeResult results[2];
    for (int i = 0; i < 2; ++i) {
        results[i] = invocation.await(reads[i], QStringLiteral("get %1 at revision %2").arg(quoted(key)).arg(revisions[i]), deadline);
        if (!results[i].status)
            return invocation.failed(results[i].status);
    }
    // "now" is the revision the second read saw.
    const qint64 toRevision = revisions[1] > 0 ? revisions[1] : results[1].header.revision;
    const QByteArray before = results[0].kvs.value(0).value;
    const QByteArray after = results[1].kvs.value(0).value;
    const QList<DiffLine> lines = ValueDiff::lines(before, after);
    bool isJson = false;
    ValueDiff::normalized(before.isEmpty() ? after : before, &isJson);
    const auto describe = [&](int i, qint64 revision) {
        const QList<KeyValue> &kvs = results[i].kvs;
        return kvs.isEmpty() ? QStringLiteral("%1@%2 (absent)").arg(QString::fromUtf8(key)).arg(revision)
                             : QStringLiteral("%1@%2 (mod_revision %3)").arg(QString::fromUtf8(key)).arg(revision).arg(kvs.first().modRevision);
    };
    if (invocation.json()) {
        QJsonArray array;
        for (const DiffLine &line : lines) {
            array.append(QJsonObject{{QLatin1String("kind"), kindName(line.kind)}, {QLatin1String("text"), line.text},
                                     {QLatin1String("old_line"), line.oldLine}, {QLatin1String("new_line"), line.newLine}});
        }
        invocation.print(QJsonObject{{QLatin1String("key"), QString::fromUtf8(key)},
                                     {QLatin1String("from_revision"), revisions[0]},
                                     {QLatin1String("to_revision"), toRevision},
                                     {QLatin1String("changed"), before != after || results[0].kvs.isEmpty() != results[1].kvs.isEmpty()},
                                     {QLatin1String("lines"), array}});
        return Success;
    }
    if (invocation.isSet(QStringLiteral("side-by-side"))) {
        const int column = std::max(8, (width - 3) / 2);
        invocation.print((describe(0, revisions[0]).left(column).leftJustified(column) + QStringLiteral("   ") + describe(1, toRevision)).toUtf8());
        printSideBySide(invocation, lines, width);
        return Success;
    }
    invocation.print(QStringLiteral("--- %1").arg(describe(0, revisions[0])).toUtf8());
    invocation.print(QStringLiteral("+++ %1").arg(describe(1, toRevision)).toUtf8());
    for (const DiffLine &line : lines) {
        const char marker = line.kind == DiffLine::Kind::Same ? ' ' : line.kind == DiffLine::Kind::Removed ? '-' : '+';
        invocation.print(marker + line.text.toUtf8());
    }
    return Success;
}
} // namespace

Command exportCommand()
{
    Command command;
    command.name = QStringLiteral("export");
    command.summary = QStringLiteral("Write the keys under a prefix to a file (export PREFIX -o FILE)");
    command.details = QStringLiteral(
        "Every key that starts with PREFIX (\"\": every key), read in pages at one\n"
        "revision (--rev, or the first page's), written as it is read to FILE.part and\n"
        "renamed to FILE at the end: an interrupted or failed export leaves no file.\n"
        "FILE is not overwritten without --force.\n"
        "--format etcdctl (the default): the document that\n"
        "`etcdctl get PREFIX --prefix -w json` prints, {\"header\":{...},\"kvs\":[...],\n"
        "\"count\":N}, one key a line. --format jsonl: a header line\n"
        "{\"header\":{...},\"prefix\":\"<base64>\",\"revision\":R}, then one key a line.\n"
        "Each key as etcdctl writes it: \"key\" and \"value\" in base64,\n"
        "\"create_revision\", \"mod_revision\", \"version\", \"lease\" (decimal; left out\n"
        "when 0, as an empty \"value\" is). `qetcd import` reads both.\n"
        "Output: \"Exported N keys under PREFIX at revision R to FILE\" (with --json\n"
        "{\"file\", \"format\", \"keys\", \"revision\"}).");
    command.arguments = {{QStringLiteral("PREFIX"), QStringLiteral("The prefix of the keys to export")}};
    command.options = {
        QCommandLineOption({QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("The file to write"), QStringLiteral("FILE")),
        QCommandLineOption(QStringLiteral("format"), QStringLiteral("etcdctl or jsonl"), QStringLiteral("FORMAT"), QStringLiteral("etcdctl")),
        QCommandLineOption(QStringLiteral("rev"), QStringLiteral("Export the keys as of this revision (0: now)"), QStringLiteral("REVISION")),
        QCommandLineOption(QStringLiteral("force"), QStringLiteral("Replace FILE when it exists")),
    };
    command.run = runExport;
    command.readsOnly = true;
    return command;
}

Command importCommand()
{
    Command command;
    command.name = QStringLiteral("import");
    command.summary = QStringLiteral("Write the keys of an export file (or etcdctl's get -w json) into the cluster");
    command.details = QStringLiteral(
        "Reads FILE (either shape `qetcd export` writes; etcdctl's `get -w json` output\n"
        "too) and checks all of it first: a malformed file is refused, naming its line\n"
        "and entry (exit 3), before anything is written. Then the dry run compares each\n"
        "key with the cluster's and prints the plan: \"N to create, N to overwrite, N\n"
        "unchanged\" and up to 10 keys of each (with --json {\"creates\", \"overwrites\",\n"
        "\"unchanged\", \"create_sample\", \"overwrite_sample\", \"unchanged_sample\"}).\n"
        "--dry-run stops there. Otherwise the keys to write go in transactions of at\n"
        "most 128 keys and 1 MiB, in file order, each refused whole when one of its keys\n"
        "changed since the dry run (exit 1 naming the key; earlier transactions stay\n"
        "written), or when FILE changed since.\n"
        "Output: \"Imported N keys in M transactions (revision R)\" (with --json\n"
        "{\"written\", \"transactions\", \"revision\"}).\n"
        "Keys are written without a lease: the file's lease IDs belong to the cluster\n"
        "it came from. --keep-leases binds them to those IDs (which must exist).\n"
        "--read-only refuses the import before anything is sent (not --dry-run).");
    command.arguments = {{QStringLiteral("FILE"), QStringLiteral("The file to import")}};
    command.options = {
        QCommandLineOption(QStringLiteral("dry-run"), QStringLiteral("Only show what the import would write")),
        QCommandLineOption(QStringLiteral("prefix-rewrite"), QStringLiteral("Write keys under OLD as under NEW instead"), QStringLiteral("OLD=NEW")),
        QCommandLineOption(QStringLiteral("keep-leases"), QStringLiteral("Bind keys to the lease IDs the file names")),
    };
    command.run = runImport;
    return command;
}

Command diffCommand()
{
    Command command;
    command.name = QStringLiteral("diff");
    command.summary = QStringLiteral("Compare a key's value at two revisions (diff KEY REV1 [REV2])");
    command.details = QStringLiteral(
        "REV2 defaults to now. JSON values (objects, arrays) are compared with their\n"
        "keys sorted and pretty printed, so only real changes show. Text output: a\n"
        "unified diff of the whole value (\"---\"/\"+++\" headers naming each side's\n"
        "mod_revision, or \"absent\"; lines marked ' ', '-', '+'); --side-by-side: two\n"
        "columns of --width, changed lines marked '|', removed '<', added '>'.\n"
        "--json: {\"key\", \"from_revision\", \"to_revision\", \"changed\", \"lines\":\n"
        "[{\"kind\": same|removed|added, \"text\", \"old_line\", \"new_line\"}]}.");
    command.arguments = {{QStringLiteral("KEY"), QStringLiteral("The key")},
                         {QStringLiteral("REV1"), QStringLiteral("The older revision")},
                         {QStringLiteral("REV2"), QStringLiteral("The newer revision (default: now)"), true}};
    command.options = {
        QCommandLineOption(QStringLiteral("side-by-side"), QStringLiteral("Two columns instead of a unified diff")),
        QCommandLineOption(QStringLiteral("width"), QStringLiteral("Columns of --side-by-side (default 80)"), QStringLiteral("N")),
    };
    command.run = runDiff;
    command.readsOnly = true;
    return command;
}

} // namespace QEtcd::Cli
