// SPDX-License-Identifier: Apache-2.0
// What qetcd shares with etcdctl beyond its flags, against a real etcd: the exit codes, the
// environment of `lock NAME COMMAND`, -w json and -w fields of get, put, del and the lease
// commands (keep-alive --once included) compared with etcdctl's own, txn's three formats too, --hex, bare seconds as durations, --version, and the password asked on a
// terminal (through a pseudo-terminal, as a person would type it).
#include "../common/qetcdprocess.h"

#include <QEtcd/etcdcluster.h>
#include <QEtcd/qetcdversion.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QDeadlineTimer>
#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QRandomGenerator>
#include <QtCore/QRegularExpression>
#include <QtCore/QStandardPaths>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <csignal>
#include <memory>
#include <tuple>

#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace QEtcd::Testing;

namespace {
// A failure is one line on stderr, whatever its code.
bool isOneLine(const QByteArray &err)
{
    return err.startsWith("qetcd") && err.endsWith('\n') && err.count('\n') == 1;
}

// The first difference between two JSON values, as "path: ours vs theirs"; empty when equal.
QString firstDifference(const QJsonValue &ours, const QJsonValue &theirs, const QString &path = QStringLiteral("$"))
{
    const auto shown = [](const QJsonValue &value) {
        return QString::fromUtf8(QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
    };
    if (ours.type() != theirs.type())
        return QStringLiteral("%1: %2 vs %3").arg(path, shown(ours), shown(theirs));
    if (ours.isObject()) {
        const QJsonObject a = ours.toObject();
        const QJsonObject b = theirs.toObject();
        if (a.keys() != b.keys()) {
            return QStringLiteral("%1: fields %2 vs %3")
                .arg(path, a.keys().join(QLatin1Char(',')), b.keys().join(QLatin1Char(',')));
        }
        for (const QString &key : a.keys()) {
            if (const QString difference = firstDifference(a[key], b[key], path + QLatin1Char('.') + key);
                !difference.isEmpty())
                return difference;
        }
        return {};
    }
    if (ours.isArray()) {
        const QJsonArray a = ours.toArray();
        const QJsonArray b = theirs.toArray();
        if (a.size() != b.size())
            return QStringLiteral("%1: %2 entries vs %3").arg(path).arg(a.size()).arg(b.size());
        for (qsizetype i = 0; i < a.size(); ++i) {
            if (const QString difference = firstDifference(a[i], b[i], QStringLiteral("%1[%2]").arg(path).arg(i));
                !difference.isEmpty())
                return difference;
        }
        return {};
    }
    return ours == theirs ? QString() : QStringLiteral("%1: %2 vs %3").arg(path, shown(ours), shown(theirs));
}

// Revisions and versions masked: a write by qetcd and the same write by etcdctl after it differ
// in nothing else.
QByteArray withoutRevisions(QByteArray text)
{
    static const QRegularExpression json(QStringLiteral("(\"(?:revision|create_revision|mod_revision|version)\":)\\d+"));
    static const QRegularExpression fields(
        QStringLiteral("(\"(?:Prev)?(?:Revision|CreateRevision|ModRevision|Version)\" : )\\d+"));
    QString masked = QString::fromUtf8(text);
    masked.replace(json, QStringLiteral("\\1N"));
    masked.replace(fields, QStringLiteral("\\1N"));
    return masked.toUtf8();
}

// Lease IDs (decimal in json and fields, hex in simple) and the seconds a lease has left
// masked: two leases granted alike, or one asked about twice, differ in nothing else.
QByteArray withoutLeaseIdsAndRemainingTtls(QByteArray text)
{
    static const QRegularExpression json(QStringLiteral("(\"(?:ID|id|ttl|revision)\":)-?\\d+"));
    static const QRegularExpression fields(QStringLiteral("(\"(?:ID|TTL|Revision)\" : )-?\\d+"));
    static const QRegularExpression simple(QStringLiteral("(lease )[0-9a-f]{16}|(remaining\\()\\d+"));
    QString masked = QString::fromUtf8(text);
    masked.replace(json, QStringLiteral("\\1N"));
    masked.replace(fields, QStringLiteral("\\1N"));
    masked.replace(simple, QStringLiteral("\\1\\2N"));
    return masked.toUtf8();
}

// etcd lists leases in no particular order, different at each call: the lines sorted.
QByteArray sortedLines(const QByteArray &text)
{
    QByteArrayList lines = text.trimmed().split('\n');
    std::sort(lines.begin(), lines.end());
    return lines.join('\n');
}

// What a program run on a pseudo-terminal showed there, and how it ended.
struct TerminalRun
{
    QByteArray screen;
    int exitCode = -1;
};

// Runs program on a new pseudo-terminal, as from an interactive shell; once the terminal shows
// prompt, types answer and Enter. The child's ETCDCTL_* variables are cleared, as Qetcd does.
TerminalRun runOnTerminal(const QString &program, const QStringList &arguments, const QByteArray &prompt,
                          const QByteArray &answer)
{
    // Everything the child needs is made before the fork, which leaves it one thread to exec with.
    QList<QByteArray> argv{QFile::encodeName(program)};
    for (const QString &argument : arguments)
        argv.append(argument.toUtf8());
    QList<QByteArray> environment;
    const QProcessEnvironment system = QProcessEnvironment::systemEnvironment();
    for (const QString &name : system.keys()) {
        if (!name.startsWith(QLatin1String("ETCDCTL_")))
            environment.append((name + QLatin1Char('=') + system.value(name)).toLocal8Bit());
    }
    const auto pointers = [](QList<QByteArray> &strings) {
        std::vector<char *> list;
        for (QByteArray &string : strings)
            list.push_back(string.data());
        list.push_back(nullptr);
        return list;
    };
    std::vector<char *> argvPointers = pointers(argv);
    std::vector<char *> environmentPointers = pointers(environment);

    TerminalRun run;
    int master = -1;
    const pid_t child = forkpty(&master, nullptr, nullptr, nullptr);
    if (child < 0)
        return run;
    if (child == 0) {
        execve(argvPointers[0], argvPointers.data(), environmentPointers.data());
        _exit(127);
    }

    const QDeadlineTimer deadline(scaledMs(30000));
    bool answered = false;
    for (;;) {
        pollfd readable{master, POLLIN, 0};
        if (poll(&readable, 1, int(std::max<qint64>(0, deadline.remainingTime()))) <= 0)
            break;  // timed out: the child is killed below
        char buffer[256];
        const ssize_t got = read(master, buffer, sizeof buffer);
        if (got <= 0)
            break;  // EIO: every process on the terminal has closed it
        run.screen.append(buffer, got);
        if (!answered && run.screen.contains(prompt)) {
            answered = true;
            const QByteArray typed = answer + '\n';
            if (write(master, typed.constData(), size_t(typed.size())) != typed.size())
                break;
        }
    }
    close(master);
    // The terminal closes as the child exits, a moment before it can be reaped.
    int status = 0;
    pid_t reaped = 0;
    const bool ended = QTest::qWaitFor([&] { return (reaped = waitpid(child, &status, WNOHANG)) != 0; },
                                       int(std::max<qint64>(0, deadline.remainingTime())));
    if (!ended || reaped != child) {
        ::kill(child, SIGKILL);
        waitpid(child, &status, 0);
        return run;
    }
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
}
} // namespace

class tst_CliCompat : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    qint64 m_fixtureRevision = 0;

    // Keys under /cc/e/ written by etcdctl once: plain, on a lease, with control characters and
    // UTF-8; m_fixtureRevision is the revision after the first of them, for --rev.
    void writeEtcdctlFixture()
    {
        if (m_fixtureRevision != 0)
            return;
        m_cluster.etcdctl({"put", "/cc/e/a", "1"});
        m_fixtureRevision = QJsonDocument::fromJson(m_cluster.etcdctl({"get", "/cc/e/a", "-w", "json"}))
                                .object()["header"].toObject()["revision"].toInteger();
        m_cluster.etcdctl({"put", "/cc/e/a", "one"});
        m_cluster.etcdctl({"put", "/cc/e/b", "two words"});
        const QByteArray grant = m_cluster.etcdctl({"lease", "grant", "600"});
        const QString lease = QString::fromLatin1(grant.split(' ').value(1));
        m_cluster.etcdctl({"put", "/cc/e/leased", "v", "--lease", lease});
        m_cluster.etcdctl({"put", "/cc/e/text", QString::fromUtf8("tab\there \"quoted\" \\ \x01 h\xc3\xa9 \xe2\x80\xae")});
        m_cluster.etcdctl({"put", "/cc/e/zempty", ""});
    }

    std::unique_ptr<Qetcd> qetcd(const QStringList &arguments, const QList<std::pair<QString, QString>> &variables = {})
    {
        return std::make_unique<Qetcd>(m_cluster.clientUrl(0), arguments, variables);
    }

    // Runs qetcd to its end; its exit code, stdout and stderr (text or JSON, whatever -w asks).
    int runToEnd(const QStringList &arguments, QByteArray *out = nullptr, QByteArray *err = nullptr)
    {
        auto run = std::make_unique<Qetcd>(m_cluster.clientUrl(0), arguments, QList<std::pair<QString, QString>>{},
                                           Printed::JsonAndPlainLines);
        const int code = run->waitForExit(scaledMs(30000));
        if (out)
            *out = run->rawLines().join('\n');
        if (err)
            *err = run->standardError();
        return code;
    }

    // etcdctl prints each key and an empty line.
    int keysUnder(const QString &prefix)
    {
        const QByteArray out = m_cluster.etcdctl({"get", prefix, "--prefix", "--keys-only"});
        return int(out.split('\n').size() - out.split('\n').count(QByteArray()));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
    }

    // An unreachable or silent endpoint exits 2: tst_cli's unreachableEndpointFailsWithinTheTimeout
    // and silentEndpointHitsTheCommandTimeout.
    void exitCodes_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QByteArray>("mentions");
        QTest::newRow("bad flag: 128") << QStringList{"get", "/cc/k", "--no-such-flag"} << 128 << QByteArray("no-such-flag");
        QTest::newRow("bad value: 128") << QStringList{"--dial-timeout", "soon", "get", "/cc/k"} << 128
                                        << QByteArray("--dial-timeout");
        QTest::newRow("missing argument: 128") << QStringList{"put"} << 128 << QByteArray("KEY [VALUE]");
        QTest::newRow("empty key: 3") << QStringList{"put", "", "v"} << 3 << QByteArray("key is empty");
        QTest::newRow("future revision: 3") << QStringList{"get", "/cc/k", "--rev", "999999999"} << 3
                                            << QByteArray("future revision");
        QTest::newRow("read-only write: 1") << QStringList{"--read-only", "put", "/cc/k", "v"} << 1
                                            << QByteArray("read-only");
        QTest::newRow("unknown lease: 1") << QStringList{"put", "/cc/k", "v", "--lease", "123abc"} << 1
                                          << QByteArray("lease not found");
    }

    void exitCodes()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        QFETCH(QByteArray, mentions);
        QByteArray out;
        QByteArray err;
        QCOMPARE(runToEnd(arguments, &out, &err), exitCode);
        QVERIFY2(isOneLine(err) && err.contains(mentions), err.constData());
        QCOMPARE(out, QByteArray());
    }

    void lockWaitCutShortBySigintExits5()
    {
        auto holder = qetcd({"lock", "/cc/int", "--hold", "60s"});
        QTRY_VERIFY2_WITH_TIMEOUT(!holder->event("acquired").isEmpty(), holder->transcript().constData(),
                                  scaledMs(15000));
        auto waiter = qetcd({"lock", "/cc/int"});
        // Queued: its key is the second under the name.
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/cc/int/"), 2, scaledMs(15000));
        waiter->signal(SIGINT);
        QCOMPARE(waiter->waitForExit(scaledMs(30000)), 5);
        QCOMPARE(waiter->event("closed").value("reason").toString(), QStringLiteral("SIGINT"));
        QVERIFY(waiter->event("acquired").isEmpty());
        const QByteArray err = waiter->standardError();
        QVERIFY2(isOneLine(err) && err.contains("interrupted by SIGINT"), err.constData());

        // Once the lock is held, SIGINT is the ordinary way to give it back.
        holder->signal(SIGINT);
        QCOMPARE(holder->waitForExit(scaledMs(30000)), 0);
    }

    void queueTakeCutShortBySigintExits5()
    {
        auto take = qetcd({"queue", "take", "/cc/q"});
        QTRY_VERIFY2_WITH_TIMEOUT(!take->event("waiting").isEmpty(), take->transcript().constData(), scaledMs(15000));
        take->signal(SIGINT);
        QCOMPARE(take->waitForExit(scaledMs(30000)), 5);
        QCOMPARE(take->event("closed").value("reason").toString(), QStringLiteral("SIGINT"));
    }

    void lockCommandGetsEtcdctlsVariables()
    {
        // The command reads its hold back from etcd with etcdctl while it holds the lock.
        const QString script = QStringLiteral(
            "echo \"key=$ETCD_LOCK_KEY rev=$ETCD_LOCK_REV\"; "
            "etcdctl --endpoints %1 get \"$ETCD_LOCK_KEY\" -w fields | grep -E '\"(Key|CreateRevision)\"'")
                                   .arg(m_cluster.clientUrl(0));
        auto run = qetcd({"lock", "/cc/env", "--", "sh", "-c", script});
        QCOMPARE(run->waitForExit(scaledMs(30000)), 0);
        const QString transcript = QString::fromUtf8(run->transcript());
        const QJsonObject acquired = run->event("acquired");
        QVERIFY2(!acquired.isEmpty(), qPrintable(transcript));
        const QString key = acquired.value("key").toString();
        const qint64 token = acquired.value("fencing_token").toInteger();
        QVERIFY2(key.startsWith(QLatin1String("/cc/env/")), qPrintable(transcript));

        // What the command was given ...
        QVERIFY2(transcript.contains(QStringLiteral("key=%1 rev=%2\n").arg(key).arg(token)), qPrintable(transcript));
        // ... is what etcd holds: the key, created at that revision.
        QVERIFY2(transcript.contains(QStringLiteral("\"Key\" : \"%1\"").arg(key)), qPrintable(transcript));
        QVERIFY2(transcript.contains(QStringLiteral("\"CreateRevision\" : %1\n").arg(token)), qPrintable(transcript));
    }

    // --json is -w jsonl, however spelled; -w json is etcdctl's document (compared with etcdctl's
    // below).
    void writeOutJsonlIsJson()
    {
        QCOMPARE(runToEnd({"put", "/cc/w", "v"}), 0);
        QByteArray withJson;
        QCOMPARE(runToEnd({"--json", "get", "/cc/w"}, &withJson), 0);
        QCOMPARE(QJsonDocument::fromJson(withJson).object().value("value").toString(), QStringLiteral("v"));
        for (const QStringList &spelling : {QStringList{"-w", "jsonl"}, QStringList{"--write-out=jsonl"},
                                            QStringList{"get", "/cc/w", "-w", "jsonl"}}) {
            QByteArray out;
            const QStringList arguments = spelling.contains("get") ? spelling : spelling + QStringList{"get", "/cc/w"};
            QCOMPARE(runToEnd(arguments, &out), 0);
            QCOMPARE(out, withJson);
        }
        auto fromEnvironment = qetcd({"get", "/cc/w"}, {{"ETCDCTL_WRITE_OUT", "jsonl"}});
        QCOMPARE(fromEnvironment->waitForExit(scaledMs(30000)), 0);
        QCOMPARE(fromEnvironment->rawLines().join('\n'), withJson);
        auto etcdctls = qetcd({"get", "/cc/w"}, {{"ETCDCTL_WRITE_OUT", "json"}});
        QCOMPARE(etcdctls->waitForExit(scaledMs(30000)), 0);
        QVERIFY(QJsonDocument::fromJson(etcdctls->rawLines().join('\n')).object().contains("header"));

        QByteArray out;
        QCOMPARE(runToEnd({"-w", "simple", "get", "/cc/w"}, &out), 0);
        QCOMPARE(out, QByteArray("/cc/w\nv"));

        QByteArray err;
        QCOMPARE(runToEnd({"-w", "yaml", "get", "/cc/w"}, nullptr, &err), 128);
        QVERIFY2(isOneLine(err) && err.contains("yaml") && err.contains("simple, json, jsonl"), err.constData());
        QCOMPARE(runToEnd({"-w", "simple", "--json", "get", "/cc/w"}, nullptr, &err), 128);
        QVERIFY2(isOneLine(err) && err.contains("contradict"), err.constData());
    }

    // etcdctl's -w json and -w fields, byte for byte: the same reads at the same revision print
    // the same documents; jq scripts written for etcdctl work on qetcd's.
    void getPrintsWhatEtcdctlPrints_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("prefix") << QStringList{"get", "/cc/e/", "--prefix"};
        QTest::newRow("one key with a lease") << QStringList{"get", "/cc/e/leased"};
        QTest::newRow("control characters and UTF-8") << QStringList{"get", "/cc/e/text"};
        QTest::newRow("keys only") << QStringList{"get", "/cc/e/", "--prefix", "--keys-only"};
        QTest::newRow("limit, more") << QStringList{"get", "/cc/e/", "--prefix", "--limit", "2"};
        QTest::newRow("range end") << QStringList{"get", "/cc/e/a", "/cc/e/c"};
        QTest::newRow("from key") << QStringList{"get", "/cc/e/b", "--from-key"};
        QTest::newRow("no match") << QStringList{"get", "/cc/e/none"};
        QTest::newRow("no match in a prefix") << QStringList{"get", "/cc/none/", "--prefix"};
        QTest::newRow("sorted by value, descending")
            << QStringList{"get", "/cc/e/", "--prefix", "--sort-by", "VALUE", "--order", "DESCEND"};
        QTest::newRow("sorted by modify, no order") << QStringList{"get", "/cc/e/", "--prefix", "--sort-by", "modify"};
        QTest::newRow("key order descending, limit")
            << QStringList{"get", "/cc/e/", "--prefix", "--order", "descend", "--limit", "2"};
        QTest::newRow("by version, ascending, limit")
            << QStringList{"get", "/cc/e/", "--prefix", "--sort-by", "VERSION", "--order", "ASCEND", "--limit", "3"};
        QTest::newRow("by create revision, descending, keys only")
            << QStringList{"get", "/cc/e/", "--prefix", "--sort-by", "CREATE", "--order", "DESCEND", "--keys-only"};
        QTest::newRow("serializable") << QStringList{"get", "/cc/e/", "--prefix", "--consistency", "s"};
    }

    void getPrintsWhatEtcdctlPrints()
    {
        QFETCH(QStringList, arguments);
        writeEtcdctlFixture();
        const QStringList asOfRevision = arguments + QStringList{"--rev", QString::number(m_fixtureRevision)};
        for (const QStringList &read : {arguments, asOfRevision}) {
            const QByteArray theirs = m_cluster.etcdctl(read + QStringList{"-w", "json"}).trimmed();
            QByteArray ours;
            QCOMPARE(runToEnd(read + QStringList{"-w", "json"}, &ours), 0);
            QJsonParseError error;
            const QJsonDocument theirDocument = QJsonDocument::fromJson(theirs, &error);
            QVERIFY2(theirDocument.isObject(), qPrintable(error.errorString() + ": " + theirs));
            const QJsonDocument ourDocument = QJsonDocument::fromJson(ours, &error);
            QVERIFY2(ourDocument.isObject(), qPrintable(error.errorString() + ": " + ours));
            const QString difference = firstDifference(ourDocument.object(), theirDocument.object());
            QVERIFY2(difference.isEmpty(), qPrintable(read.join(' ') + ": " + difference));
            // The order of the fields and the big IDs' digits too, which a parser may not keep.
            QCOMPARE(ours, theirs);

            QByteArray ourFields;
            QCOMPARE(runToEnd(read + QStringList{"-w", "fields"}, &ourFields), 0);
            QCOMPARE(ourFields, m_cluster.etcdctl(read + QStringList{"-w", "fields"}).trimmed());
        }
    }

    // etcdctl 3.4 has no --count-only; 3.5's prints its document without "kvs", which ours is.
    void getCountOnlyIsEtcdctlsDocumentWithoutKeys()
    {
        writeEtcdctlFixture();
        QJsonObject theirs = QJsonDocument::fromJson(m_cluster.etcdctl({"get", "/cc/e/", "--prefix", "-w", "json"})).object();
        QVERIFY(theirs.contains("kvs"));
        theirs.remove("kvs");
        QByteArray ours;
        QCOMPARE(runToEnd({"get", "/cc/e/", "--prefix", "--count-only", "-w", "json"}, &ours), 0);
        const QString difference = firstDifference(QJsonDocument::fromJson(ours).object(), theirs);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QCOMPARE(QJsonDocument::fromJson(ours).object().value("count").toInteger(), 5);
    }

    // A put or a delete by qetcd, then the same by etcdctl: the same document but for the
    // revisions in it.
    void putAndDeletePrintWhatEtcdctlPrints_data()
    {
        QTest::addColumn<QString>("format");
        QTest::newRow("json") << "json";
        QTest::newRow("fields") << "fields";
    }

    void putAndDeletePrintWhatEtcdctlPrints()
    {
        QFETCH(QString, format);
        const QString key = "/cc/w/" + format;
        const QStringList written{"-w", format};
        const auto both = [&](const QStringList &arguments) {
            QByteArray ours;
            const int exitCode = runToEnd(arguments + written, &ours);
            const QByteArray theirs = m_cluster.etcdctl(arguments + written).trimmed();
            return std::tuple{exitCode, withoutRevisions(ours), withoutRevisions(theirs)};
        };
        m_cluster.etcdctl({"del", key});
        for (const QStringList &write : {QStringList{"put", key, "v"}, QStringList{"put", key, "v", "--prev-kv"},
                                         QStringList{"put", key, "v"}, QStringList{"put", key, "--ignore-value", "--prev-kv"},
                                         QStringList{"put", key, "v", "--ignore-lease", "--prev-kv"}}) {
            const auto [exitCode, ours, theirs] = both(write);
            QCOMPARE(exitCode, 0);
            QCOMPARE(ours, theirs);
        }
        const auto deleted = [&](const QStringList &arguments) {
            m_cluster.etcdctl({"put", key, "v"});
            QByteArray ours;
            const int exitCode = runToEnd(arguments + written, &ours);
            m_cluster.etcdctl({"put", key, "v"});
            const QByteArray theirs = m_cluster.etcdctl(arguments + written).trimmed();
            return std::tuple{exitCode, withoutRevisions(ours), withoutRevisions(theirs)};
        };
        for (const QStringList &remove : {QStringList{"del", key}, QStringList{"del", key, "--prev-kv"},
                                          QStringList{"del", key + "/", "--prefix"}}) {
            const auto [exitCode, ours, theirs] = deleted(remove);
            QCOMPARE(exitCode, 0);
            QCOMPARE(ours, theirs);
        }
        // Nothing to delete: etcdctl leaves "deleted" out.
        const auto [exitCode, ours, theirs] = both({"del", key + "/none"});
        QCOMPARE(exitCode, 0);
        QCOMPARE(ours, theirs);
    }

    // etcdctl with input on its stdin, which EtcdCluster::etcdctl() leaves empty.
    QByteArray etcdctlReading(const QStringList &arguments, const QByteArray &input)
    {
        QProcess process;
        process.setProcessEnvironment(toolEnvironment({{"ETCDCTL_API", "3"}}));
        process.start(QStringLiteral("etcdctl"), QStringList{"--endpoints", m_cluster.clientUrl(0)} + arguments);
        process.write(input);
        process.closeWriteChannel();
        if (!process.waitForFinished(scaledMs(15000)))
            qWarning() << "etcdctl" << arguments << "did not finish";
        return process.readAllStandardOutput().trimmed();
    }

    void txnPrintsWhatEtcdctlPrints_data()
    {
        QTest::addColumn<QString>("format");
        QTest::newRow("simple") << "simple";
        QTest::newRow("json") << "json";
        QTest::newRow("fields") << "fields";
    }

    // Both branches, each with a put, a get and a delete, and quoted words and Go escapes in
    // the compares and requests.
    void txnPrintsWhatEtcdctlPrints()
    {
        QFETCH(QString, format);
        m_cluster.etcdctl({"put", "/cc/t/k", "v a"});
        m_cluster.etcdctl({"put", "/cc/t/j", "w"});
        const QByteArray requests = "put /cc/t/k \"v a\" --prev-kv\n"
                                    "get /cc/t/ --prefix\n"
                                    "del /cc/t/none\n"
                                    "\n"
                                    "get /cc/t/j\n"
                                    "del /cc/t/none --prev-kv\n"
                                    "\n";
        for (const QByteArray &compares : {QByteArray("val(\"/cc/t/k\") = \"v\\x20a\"\nc(\"/cc/t/j\") > \"0\"\n\n"),
                                           QByteArray("val(\"/cc/t/k\") != \"v a\"\n\n")}) {
            auto ours = std::make_unique<Qetcd>(m_cluster.clientUrl(0), QStringList{"txn", "-w", format},
                                                QList<std::pair<QString, QString>>{}, Printed::JsonAndPlainLines);
            ours->feed(compares + requests);
            QCOMPARE(ours->waitForExit(scaledMs(30000)), 0);
            const QByteArray theirs = etcdctlReading({"txn", "-w", format}, compares + requests);
            QCOMPARE(withoutRevisions(ours->rawLines().join('\n')), withoutRevisions(theirs));
        }
    }

    // put KEY with the value piped on stdin, every byte of it (newlines, a NUL, bytes that are
    // not UTF-8), as etcdctl stores it; an empty stdin is an empty value.
    void putReadsTheValueFromStdinAsEtcdctlDoes()
    {
        const char bytes[] = "two\nlines\0\xff\xfe end\n";
        const QByteArray value(bytes, sizeof bytes - 1);
        auto ours = qetcd({"put", "/cc/stdin/ours"});
        ours->feed(value);
        QCOMPARE(ours->waitForExit(), 0);
        QProcess etcdctl;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("ETCDCTL_API", "3");
        etcdctl.setProcessEnvironment(environment);
        etcdctl.start(QStandardPaths::findExecutable("etcdctl"),
                      {"--endpoints", m_cluster.clientUrl(0), "put", "/cc/stdin/theirs"});
        etcdctl.write(value);
        etcdctl.closeWriteChannel();
        QVERIFY(etcdctl.waitForFinished(scaledMs(30000)) && etcdctl.exitCode() == 0);
        const QByteArray theirs = m_cluster.etcdctl({"get", "/cc/stdin/theirs", "--print-value-only"});
        QCOMPARE(m_cluster.etcdctl({"get", "/cc/stdin/ours", "--print-value-only"}), theirs);
        QCOMPARE(theirs, value + '\n');  // etcdctl ends the value printed with a line break

        auto empty = qetcd({"put", "/cc/stdin/empty"});
        empty->feed({});
        QCOMPARE(empty->waitForExit(), 0);
        QCOMPARE(m_cluster.etcdctl({"get", "/cc/stdin/empty", "-w", "json"}).contains("\"count\":1"), true);

        // On a terminal it would wait for an end of input nobody knows to type: refused.
        const TerminalRun typed = runOnTerminal(QStringLiteral(QETCD_CLI_PATH),
                                                {"--endpoints", m_cluster.clientUrl(0), "put", "/cc/stdin/tty"}, {}, {});
        QVERIFY2(typed.exitCode == 128 && typed.screen.contains("piped on stdin"), typed.screen.constData());
        QVERIFY(m_cluster.etcdctl({"get", "/cc/stdin/tty", "--print-value-only"}).isEmpty());
    }

    // watch -- COMMAND runs the command on each change with the variables etcdctl gives it, byte
    // for byte, so a script written for etcdctl's runs unchanged. The changes come first and
    // both watches replay them from one revision, so both see them in one answer alike.
    void watchRunsACommandOnEachChangeAsEtcdctlDoes()
    {
        QTemporaryDir directory;
        QVERIFY(directory.isValid());
        const QByteArray listed = m_cluster.etcdctl({"get", "/cc/w/", "-w", "json"});
        const qint64 from = QJsonDocument::fromJson(listed).object()["header"].toObject()["revision"].toInteger() + 1;
        m_cluster.etcdctl({"put", "/cc/w/a", "one"});
        m_cluster.etcdctl({"put", "/cc/w/b", QString::fromUtf8("tab\there \"quoted\"\nh\xc3\xa9 \x01")});
        m_cluster.etcdctl({"del", "/cc/w/a"});
        const QString script = QStringLiteral("printf '%s|%s|%s|%s\\n' \"$ETCD_WATCH_REVISION\" \"$ETCD_WATCH_EVENT_TYPE\" "
                                              "\"$ETCD_WATCH_KEY\" \"$ETCD_WATCH_VALUE\" >> \"$0\"");
        const QStringList watch{"watch", "/cc/w/", "--prefix", "--rev", QString::number(from), "--", "sh", "-c", script};
        const QString ours = directory.filePath("ours");
        const QString theirs = directory.filePath("theirs");
        auto watching = qetcd(watch + QStringList{ours});
        QProcess etcdctl;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("ETCDCTL_API", "3");
        etcdctl.setProcessEnvironment(environment);
        etcdctl.start(QStandardPaths::findExecutable("etcdctl"),
                      QStringList{"--endpoints", m_cluster.clientUrl(0)} + watch + QStringList{theirs});
        const auto lines = [](const QString &path) {
            QFile file(path);
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        };
        QTRY_COMPARE_WITH_TIMEOUT(lines(ours).count('\n'), 3, scaledMs(15000));
        QTRY_COMPARE_WITH_TIMEOUT(lines(theirs).count('\n'), 3, scaledMs(15000));
        etcdctl.kill();
        etcdctl.waitForFinished();
        QCOMPARE(lines(ours), lines(theirs));
        QVERIFY2(lines(ours).contains(QString::fromUtf8("|\"PUT\"|\"/cc/w/b\"|\"tab\\there \\\"quoted\\\"\\nh\xc3\xa9 \\x01\"\n").toUtf8())
                     && lines(ours).contains("|\"DELETE\"|\"/cc/w/a\"|\"\"\n"),
                 lines(ours).constData());
        watching->signal(SIGTERM);
        QCOMPARE(watching->waitForExit(), 0);
        QCOMPARE(watching->event("closed").value("changes_not_run").toInt(-1), 0);
    }

    // snapshot status reads etcdctl's four figures from the file alone: a store with enough keys
    // for branch pages, a value larger than a page (overflow pages) and etcd's other buckets.
    void snapshotStatusPrintsWhatEtcdctlPrints()
    {
        for (int batch = 0; batch < 24; ++batch) {
            QByteArray puts = "\n";  // no compares
            for (int i = 0; i < 128; ++i)
                puts += "put /cc/snap/" + QByteArray::number(batch * 128 + i) + " value-" + QByteArray::number(i) + "\n";
            QCOMPARE(etcdctlReading({"txn"}, puts + "\n\n").left(7), QByteArray("SUCCESS"));
        }
        m_cluster.etcdctl({"put", "/cc/snap/large", QString(20000, QLatin1Char('x'))});
        QTemporaryDir directory;
        const QString file = directory.filePath("snapshot.db");
        int exitCode = -1;
        m_cluster.etcdctl({"snapshot", "save", file}, &exitCode);
        QCOMPARE(exitCode, 0);
        for (const char *format : {"simple", "json", "fields", "table"}) {
            QByteArray ours;
            QCOMPARE(runToEnd({"snapshot", "status", file, "-w", format}, &ours), 0);
            const QByteArray theirs = m_cluster.etcdctl({"snapshot", "status", file, "-w", format}).trimmed();
            QVERIFY2(ours == theirs, qPrintable(QByteArray(format) + ":\n" + ours + "\nvs\n" + theirs));
        }
        // Damaged copies, cut short or with bytes changed (the same ones each run): each read to
        // its end, told as a damaged file or read as one, never a crash or a hang.
        QFile saved(file);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const QByteArray whole = saved.readAll();
        QRandomGenerator random(41);
        for (int i = 0; i < 40; ++i) {
            QByteArray damaged = whole;
            if (i % 4 == 0) {
                damaged.truncate(random.bounded(qsizetype(whole.size())));
            } else {
                for (int flips = 0; flips < 1 + i; ++flips)
                    damaged[random.bounded(qsizetype(whole.size()))] = char(random.bounded(256));
            }
            QFile copy(directory.filePath("damaged.db"));
            QVERIFY(copy.open(QIODevice::WriteOnly | QIODevice::Truncate) && copy.write(damaged) == damaged.size());
            copy.close();
            QByteArray err;
            const int exitCode = runToEnd({"snapshot", "status", copy.fileName()}, nullptr, &err);
            QVERIFY2(exitCode == 0 || (exitCode == 3 && isOneLine(err)), qPrintable(QStringLiteral("copy %1: exit %2, %3").arg(i).arg(exitCode).arg(QString::fromUtf8(err))));
        }

        // Not an etcd database: named, exit 3, nothing on stdout.
        QFile text(directory.filePath("notes.txt"));
        QVERIFY(text.open(QIODevice::WriteOnly) && text.write(QByteArray(9000, 'n')) == 9000);
        text.close();
        QByteArray out, err;
        QCOMPARE(runToEnd({"snapshot", "status", text.fileName()}, &out, &err), 3);
        QVERIFY(out.isEmpty());
        QVERIFY2(isOneLine(err) && err.contains("not an etcd database file") && err.contains("notes.txt"), err.constData());
    }

    void hexIsEtcdctls()
    {
        writeEtcdctlFixture();
        // Byte for byte, with the empty line of /cc/e/zempty's value.
        auto ours = qetcd({"get", "/cc/e/", "--prefix", "--hex"});
        QCOMPARE(ours->waitForExit(scaledMs(30000)), 0);
        QCOMPARE(ours->standardOutput(), m_cluster.etcdctl({"get", "/cc/e/", "--prefix", "--hex"}));
        auto fromEnvironment = qetcd({"get", "/cc/e/a"}, {{"ETCDCTL_HEX", "true"}});
        QCOMPARE(fromEnvironment->waitForExit(scaledMs(30000)), 0);
        QCOMPARE(fromEnvironment->rawLines().join('\n'), QByteArray("\\x2f\\x63\\x63\\x2f\\x65\\x2f\\x61\n\\x6f\\x6e\\x65"));
    }

    // etcdctl's elect -l (--listen) follows the election, as --observe does.
    void electListenIsObserve()
    {
        m_cluster.etcdctl({"put", "/cc/el/leader", "p1"});
        for (const QString &spelling : {QStringLiteral("-l"), QStringLiteral("--listen")}) {
            auto listener = qetcd({"elect", spelling, "/cc/el", "--hold", "1"});
            QCOMPARE(listener->waitForExit(scaledMs(30000)), 0);
            QVERIFY2(listener->has("established"), listener->transcript().constData());
            QCOMPARE(listener->event("leaderChanged").value("value").toString(), QStringLiteral("p1"));
        }
    }

    // etcdctl refuses a format a command lacks, and so does qetcd, naming it.
    void formatsACommandLacksAreRefused()
    {
        QByteArray err;
        QCOMPARE(runToEnd({"get", "/cc/e/a", "-w", "table"}, nullptr, &err), 128);
        QVERIFY2(isOneLine(err) && err.contains("no table output"), err.constData());
        QCOMPARE(runToEnd({"-w", "fields", "watch", "/cc/e/a"}, nullptr, &err), 128);
        QVERIFY2(isOneLine(err) && err.contains("no fields output"), err.constData());
        QCOMPARE(runToEnd({"-w", "fields", "del", "/cc/e/", "--prefix", "--dry-run"}, nullptr, &err), 128);
        QVERIFY2(isOneLine(err) && err.contains("--dry-run"), err.constData());
    }

    // lease grant, revoke, timetolive [--keys] and list in etcdctl's -w simple, json and fields:
    // by qetcd and by etcdctl, the same but for lease IDs, revisions and seconds left.
    void leaseCommandsPrintWhatEtcdctlPrints_data()
    {
        QTest::addColumn<QString>("format");
        QTest::newRow("simple") << "simple";
        QTest::newRow("json") << "json";
        QTest::newRow("fields") << "fields";
    }

    void leaseCommandsPrintWhatEtcdctlPrints()
    {
        QFETCH(QString, format);
        const QStringList written{"-w", format};
        // Both exit codes and both outputs, masked: {ours, theirs}, the exit codes first.
        const auto both = [&](const QStringList &ourArguments, const QStringList &theirArguments) {
            QByteArray ours;
            const int ourExit = runToEnd(ourArguments + written, &ours);
            int theirExit = -1;
            const QByteArray theirs = m_cluster.etcdctl(theirArguments + written, &theirExit).trimmed();
            return QList<QByteArray>{QByteArray::number(ourExit), QByteArray::number(theirExit),
                                     withoutLeaseIdsAndRemainingTtls(ours), withoutLeaseIdsAndRemainingTtls(theirs)};
        };
        const QList<QByteArray> succeeded{"0", "0"};
        const QStringList grant{"lease", "grant", "600"};
        QList<QByteArray> outputs = both(grant, grant);
        QCOMPARE(outputs.mid(0, 2), succeeded);
        QCOMPARE(outputs[2], outputs[3]);

        // One lease asked about by both, with one key on it (etcd's order of several varies).
        const QString lease = QString::fromLatin1(m_cluster.etcdctl(grant).split(' ').value(1));
        m_cluster.etcdctl({"put", "/cc/lease/" + format, "v", "--lease", lease});
        for (const QStringList &ask : {QStringList{"lease", "timetolive", lease},
                                       QStringList{"lease", "timetolive", lease, "--keys"},
                                       QStringList{"lease", "timetolive", "1234"}}) {
            outputs = both(ask, ask);
            QCOMPARE(outputs.mid(0, 2), succeeded);
            QVERIFY2(outputs[2] == outputs[3], qPrintable(ask.join(' ') + ":\n" + outputs[2] + "\nvs\n" + outputs[3]));
        }

        // One renewal of that lease each (the TTL it gets back is the granted one; masked but in
        // simple).
        const QStringList renew{"lease", "keep-alive", lease, "--once"};
        outputs = both(renew, renew);
        QCOMPARE(outputs.mid(0, 2), succeeded);
        QVERIFY2(outputs[2] == outputs[3], qPrintable(renew.join(' ') + ":\n" + outputs[2] + "\nvs\n" + outputs[3]));
        if (format == QLatin1String("simple"))
            QVERIFY2(outputs[2].endsWith("keepalived with TTL(600)"), outputs[2].constData());

        // Each revokes a lease of its own, without keys: nothing to confirm.
        const auto keyless = [&] { return QString::fromLatin1(m_cluster.etcdctl(grant).split(' ').value(1)); };
        outputs = both({"lease", "revoke", keyless()}, {"lease", "revoke", keyless()});
        QCOMPARE(outputs.mid(0, 2), succeeded);
        QCOMPARE(withoutRevisions(outputs[2]), withoutRevisions(outputs[3]));

        // The same leases, listed in etcd's order of the moment.
        QByteArray ourList;
        QCOMPARE(runToEnd(QStringList{"lease", "list"} + written, &ourList), 0);
        const QByteArray theirList = m_cluster.etcdctl(QStringList{"lease", "list"} + written).trimmed();
        if (format == QLatin1String("json")) {
            const auto idsOf = [](const QByteArray &document) {
                QList<qint64> ids;
                for (const QJsonValue &entry : QJsonDocument::fromJson(document).object().value("leases").toArray())
                    ids.append(entry.toObject().value("id").toInteger());
                std::sort(ids.begin(), ids.end());
                return ids;
            };
            QVERIFY(!idsOf(theirList).isEmpty());
            QCOMPARE(idsOf(ourList), idsOf(theirList));
            // What comes before the list, the header's fields, byte for byte.
            QCOMPARE(withoutRevisions(ourList.left(ourList.indexOf("\"leases\""))),
                     withoutRevisions(theirList.left(theirList.indexOf("\"leases\""))));
        } else {
            QCOMPARE(sortedLines(withoutRevisions(ourList)), sortedLines(withoutRevisions(theirList)));
        }

        // -w table is etcdctl's error for leases, and qetcd's.
        QByteArray err;
        QCOMPARE(runToEnd({"lease", "list", "-w", "table"}, nullptr, &err), 128);
        QVERIFY2(isOneLine(err) && err.contains("no table output"), err.constData());
    }

    // member list and endpoint status in all four of etcdctl's formats, table included, byte for
    // byte: etcdctl before and after qetcd, so that a write in between (a lease of an earlier
    // test expiring) is seen and the comparison made again rather than failed.
    void memberListAndEndpointStatusPrintWhatEtcdctlPrints_data()
    {
        QTest::addColumn<QStringList>("arguments");
        for (const char *format : {"simple", "json", "fields", "table"}) {
            QTest::addRow("member list -w %s", format) << QStringList{"member", "list", "-w", format};
            QTest::addRow("endpoint status -w %s", format) << QStringList{"endpoint", "status", "-w", format};
            QTest::addRow("endpoint hashkv -w %s", format) << QStringList{"endpoint", "hashkv", "-w", format};
            QTest::addRow("endpoint status --cluster -w %s", format)
                << QStringList{"endpoint", "status", "--cluster", "-w", format};
        }
        QTest::newRow("endpoint hashkv --cluster") << QStringList{"endpoint", "hashkv", "--cluster"};
        QTest::newRow("endpoint hashkv --rev") << QStringList{"endpoint", "hashkv", "--rev", "1"};
    }

    void memberListAndEndpointStatusPrintWhatEtcdctlPrints()
    {
        QFETCH(QStringList, arguments);
        // etcdctl names the endpoint as given; so does qetcd.
        const QString endpoint = QString(m_cluster.clientUrl(0)).remove(QLatin1String("http://"));
        const QStringList given = QStringList{"--endpoints", endpoint} + arguments;
        QByteArray ours;
        QByteArray theirs;
        for (int attempt = 0; attempt < 3; ++attempt) {
            theirs = m_cluster.etcdctl(given);
            QByteArray err;
            QCOMPARE(runToEnd(given, &ours, &err), 0);
            QVERIFY2(err.isEmpty(), err.constData());
            if (m_cluster.etcdctl(given) == theirs)
                break;
        }
        QVERIFY(!theirs.isEmpty());
        QCOMPARE(ours, theirs.chopped(1));  // rawLines() leave the last line break out
    }

    // endpoint health in etcdctl's four formats; only how long each check took differs (and,
    // in a table, the column that says so).
    void endpointHealthPrintsWhatEtcdctlPrints_data()
    {
        QTest::addColumn<QString>("format");
        for (const char *format : {"simple", "json", "fields", "table"})
            QTest::newRow(format) << QString::fromLatin1(format);
    }

    void endpointHealthPrintsWhatEtcdctlPrints()
    {
        QFETCH(QString, format);
        const QString endpoint = QString(m_cluster.clientUrl(0)).remove(QLatin1String("http://"));
        const QStringList given{"--endpoints", endpoint, "endpoint", "health", "-w", format};
        QByteArray ours;
        QByteArray err;
        QCOMPARE(runToEnd(given, &ours, &err), 0);
        QVERIFY2(err.isEmpty(), err.constData());
        int theirExitCode = -1;
        QByteArray theirErr;
        QByteArray theirs = m_cluster.etcdctl(given, &theirExitCode, &theirErr);
        QCOMPARE(theirExitCode, 0);
        // etcdctl 3.4 prints a healthy endpoint's line on stderr; 3.5 and qetcd on stdout.
        if (format == QLatin1String("simple"))
            theirs = theirErr;
        // A duration as Go prints one ("4.264025ms", "850.2µs"), and a table's borders and padding.
        const auto shape = [](const QByteArray &text) {
            static const QRegularExpression took(QStringLiteral("\\d+(\\.\\d+)?(ns|\u00b5s|ms|s)\\b"));
            QStringList lines;
            for (const QString &line : QString::fromUtf8(text).split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
                if (line.startsWith(QLatin1Char('+')))
                    continue;
                QStringList cells = line.split(QLatin1Char('|'));
                for (QString &cell : cells)
                    cell = cell.trimmed().replace(took, QStringLiteral("T"));
                lines.append(cells.join(QLatin1Char('|')));
            }
            return lines;
        };
        QVERIFY2(ours.contains(endpoint.toUtf8()) && !ours.contains("unhealthy") && !ours.contains("false"), ours.constData());
        QCOMPARE(shape(ours), shape(theirs));
    }

    // Revoking a lease deletes its keys: asked first, naming how many; refused under --read-only
    // like granting one, before anything is sent.
    void leaseRevokeWithKeysIsConfirmed()
    {
        const QString lease = QString::fromLatin1(m_cluster.etcdctl({"lease", "grant", "600"}).split(' ').value(1));
        m_cluster.etcdctl({"put", "/cc/revoke/a", "1", "--lease", lease});
        m_cluster.etcdctl({"put", "/cc/revoke/b", "2", "--lease", lease});

        QByteArray err;
        QCOMPARE(runToEnd({"lease", "revoke", lease}, nullptr, &err), 128);
        QVERIFY2(isOneLine(err) && err.contains("--yes") && err.contains("its 2 keys"), err.constData());
        QCOMPARE(keysUnder("/cc/revoke/"), 2);
        for (const QStringList &write : {QStringList{"lease", "revoke", lease, "--yes"}, QStringList{"lease", "grant", "60"}}) {
            QCOMPARE(runToEnd(QStringList{"--read-only"} + write, nullptr, &err), 1);
            QVERIFY2(isOneLine(err) && err.contains("read-only"), err.constData());
        }
        QCOMPARE(keysUnder("/cc/revoke/"), 2);

        QByteArray out;
        QCOMPARE(runToEnd({"lease", "revoke", lease, "--yes"}, &out, &err), 0);
        QCOMPARE(out, QByteArray("lease " + lease.toLatin1() + " revoked"));
        QCOMPARE(keysUnder("/cc/revoke/"), 0);
        // Gone already: etcd's not found, exit 1.
        QCOMPARE(runToEnd({"lease", "revoke", lease}, nullptr, &err), 1);
        QVERIFY2(isOneLine(err) && err.contains("not found"), err.constData());
    }

    void bareNumbersAreSeconds()
    {
        QCOMPARE(runToEnd({"--dial-timeout", "2", "--command-timeout", "3", "put", "/cc/d", "v"}), 0);
        auto fromEnvironment = qetcd({"get", "/cc/d"}, {{"ETCDCTL_COMMAND_TIMEOUT", "3"}});
        QCOMPARE(fromEnvironment->waitForExit(scaledMs(30000)), 0);

        // --hold 1 holds for one second, not one millisecond or forever.
        QElapsedTimer timer;
        timer.start();
        auto lock = qetcd({"lock", "/cc/d", "--hold", "1"});
        QCOMPARE(lock->waitForExit(scaledMs(30000)), 0);
        QCOMPARE(lock->event("closed").value("reason").toString(), QStringLiteral("hold"));
        QVERIFY2(timer.elapsed() >= 1000, qPrintable(QString::number(timer.elapsed())));

        // A wait's own --timeout: one second, then exit 1, not 2: the cluster did answer.
        for (const QStringList &wait : {QStringList{"queue", "take", "/cc/dq", "--timeout", "1"},
                                        QStringList{"barrier", "wait", "/cc/db", "--timeout", "1"},
                                        QStringList{"double-barrier", "/cc/dd", "--members", "2", "--timeout", "1"}}) {
            timer.restart();
            auto run = qetcd(wait);
            QCOMPARE(run->waitForExit(scaledMs(30000)), 1);
            QVERIFY2(!run->event("timedOut").isEmpty(), run->transcript().constData());
            QVERIFY2(timer.elapsed() >= 1000 && timer.elapsed() < scaledMs(1000) + 5000,
                     qPrintable(QString::number(timer.elapsed())));
        }
    }

    void versionIsPrinted()
    {
        Qetcd run(m_cluster.clientUrl(0), {"--version"});
        QCOMPARE(run.waitForExit(scaledMs(30000)), 0);
        QCOMPARE(run.rawLines(), QList<QByteArray>{"qetcd " QETCD_VERSION_STR});
        QVERIFY(run.standardError().isEmpty());
    }

    // etcdctl version's two lines, the API version the same as etcdctl's (both from etcd 3.4).
    void versionCommandIsEtcdctls()
    {
        Qetcd run(m_cluster.clientUrl(0), {"version"}, {}, Printed::JsonAndPlainLines);
        QCOMPARE(run.waitForExit(scaledMs(30000)), 0);
        const QByteArrayList theirs = m_cluster.etcdctl({"version"}).trimmed().split('\n');
        QCOMPARE(theirs.size(), 2);
        QVERIFY2(theirs[1].startsWith("API version: "), theirs[1].constData());
        QCOMPARE(run.rawLines(), (QList<QByteArray>{"qetcd version: " QETCD_VERSION_STR, theirs[1]}));
    }

    // txn -i on a terminal: each part is asked for before it is read (the prompt is not left in
    // a buffer until the end), and what is typed is the transaction.
    void txnAsksForEachPartOnATerminal()
    {
        const TerminalRun run = runOnTerminal(QStringLiteral(QETCD_CLI_PATH), {"--endpoints", m_cluster.clientUrl(0), "txn", "-i"},
                                              "compares:", "\nput /cc/tty typed\n\n");
        QVERIFY2(run.exitCode == 0, run.screen.constData());
        QVERIFY2(run.screen.contains("success requests (get, put, del):") && run.screen.contains("SUCCESS"), run.screen.constData());
        QCOMPARE(m_cluster.etcdctl({"get", "/cc/tty", "--print-value-only"}), QByteArray("typed\n"));
    }

    void passwordIsAskedOnTheTerminalWithoutEcho()
    {
        EtcdCluster secured;
        QVERIFY2(secured.start(), qPrintable(secured.errorString()));
        int exitCode = -1;
        QByteArray error;
        for (const QStringList &step : {QStringList{"user", "add", "root:s3cret-pw"}, QStringList{"auth", "enable"}}) {
            secured.etcdctl(step, &exitCode, &error);
            QVERIFY2(exitCode == 0, error.constData());
        }
        const QStringList putAsRoot{"--endpoints", secured.clientUrl(0), "--user", "root", "put", "/cc/pw", "typed"};

        TerminalRun run = runOnTerminal(QStringLiteral(QETCD_CLI_PATH), putAsRoot, "Password for root: ", "s3cret-pw");
        QVERIFY2(run.exitCode == 0, qPrintable(QString::number(run.exitCode) + ": " + run.screen));
        QVERIFY2(!run.screen.contains("s3cret-pw"), run.screen.constData());
        QVERIFY2(run.screen.contains("OK"), run.screen.constData());
        QCOMPARE(secured.etcdctl({"--user", "root:s3cret-pw", "get", "/cc/pw", "--print-value-only"}),
                 QByteArray("typed\n"));

        // A wrong one is refused by etcd: invalid input.
        run = runOnTerminal(QStringLiteral(QETCD_CLI_PATH), putAsRoot, "Password for root: ", "guessed");
        QVERIFY2(run.exitCode == 3, qPrintable(QString::number(run.exitCode) + ": " + run.screen));
        QVERIFY2(run.screen.contains("invalid user ID or password"), run.screen.constData());

        // Without a terminal nobody could answer: a clear failure at once, not a hang.
        Qetcd script(secured.clientUrl(0), putAsRoot);
        QCOMPARE(script.waitForExit(scaledMs(30000)), 128);
        const QByteArray err = script.standardError();
        QVERIFY2(isOneLine(err) && err.contains("needs a password") && err.contains("not a terminal"), err.constData());
    }
};

QTEST_GUILESS_MAIN(tst_CliCompat)
#include "tst_cli_compat.moc"
