// SPDX-License-Identifier: Apache-2.0
// The qetcd CLI's conventions, without a server: durations, global options and the
// ETCDCTL_* environment, lease IDs, JSON for key-value pairs, the event stream and the
// shutdown signals that long-running commands use.
#include <duration.h>
#include <eventwriter.h>
#include <globaloptions.h>
#include <kvformat.h>
#include <shutdownsignals.h>

#include <QtCore/QBuffer>
#include <QtCore/QCommandLineParser>
#include <QtCore/QJsonDocument>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <csignal>

using namespace QEtcd;
using namespace QEtcd::Cli;
using namespace std::chrono_literals;

namespace {
std::optional<GlobalOptions> resolve(const QStringList &flags, const QProcessEnvironment &environment,
                                     QString *error)
{
    QCommandLineParser parser;
    parser.addOptions(globalOptions());
    if (!parser.parse(QStringList{QStringLiteral("qetcd")} + flags)) {
        *error = parser.errorText();
        return std::nullopt;
    }
    return resolveGlobalOptions(parser, environment, error);
}

QProcessEnvironment environment(const QList<std::pair<QString, QString>> &variables)
{
    QProcessEnvironment env;
    for (const auto &[name, value] : variables)
        env.insert(name, value);
    return env;
}

// Any file that certainly exists and is readable, standing in for a PEM file.
// A file that exists and holds a PEM block, as TLS files must (what is in it is not read here).
QString existingFile()
{
    static QTemporaryDir directory;
    const QString path = directory.filePath(QStringLiteral("tls.pem"));
    if (!QFile::exists(path)) {
        QFile file(path);
        if (file.open(QIODevice::WriteOnly))
            file.write("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    }
    return path;
}
} // namespace

class tst_CliConventions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesDurations_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("ms");
        QTest::newRow("seconds") << "5s" << qint64(5000);
        QTest::newRow("milliseconds") << "500ms" << qint64(500);
        QTest::newRow("minutes") << "2m" << qint64(120000);
        QTest::newRow("hours") << "1h" << qint64(3600000);
        QTest::newRow("compound") << "1m30s" << qint64(90000);
        QTest::newRow("fraction") << "1.5s" << qint64(1500);
        QTest::newRow("leading dot") << ".25s" << qint64(250);
        QTest::newRow("micro rounds up") << "1us" << qint64(1);
        QTest::newRow("nanoseconds") << "2000000ns" << qint64(2);
        QTest::newRow("zero") << "0" << qint64(0);
        QTest::newRow("bare number is seconds") << "5" << qint64(5000);
        QTest::newRow("bare fraction is seconds") << "0.25" << qint64(250);
        QTest::newRow("explicit plus") << "+3s" << qint64(3000);
    }

    void parsesDurations()
    {
        QFETCH(QString, text);
        QFETCH(qint64, ms);
        QString error;
        const auto parsed = parseDuration(text, &error);
        QVERIFY2(parsed.has_value(), qPrintable(error));
        QCOMPARE(parsed->count(), ms);
    }

    void refusesBadDurations_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("reason");
        QTest::newRow("empty") << "" << "empty";
        QTest::newRow("number without unit after a term") << "1m30" << "missing unit";
        QTest::newRow("unknown unit") << "5x" << "unknown unit";
        QTest::newRow("unit alone") << "s" << "expected a number";
        QTest::newRow("negative") << "-1s" << "negative";
        QTest::newRow("trailing junk") << "5s!" << "expected a number";
        QTest::newRow("space") << "5 s" << "unknown unit";
    }

    void refusesBadDurations()
    {
        QFETCH(QString, text);
        QFETCH(QString, reason);
        QString error;
        QVERIFY(!parseDuration(text, &error).has_value());
        QVERIFY2(error.contains(reason), qPrintable(error));
        QVERIFY2(error.contains(QLatin1Char('"') + text + QLatin1Char('"')), qPrintable(error));
    }

    void formatsDurationsReadably()
    {
        QCOMPARE(formatDuration(2s), QStringLiteral("2s"));
        QCOMPARE(formatDuration(1500ms), QStringLiteral("1500ms"));
        QCOMPARE(formatDuration(3min), QStringLiteral("3m"));
        QCOMPARE(formatDuration(90s), QStringLiteral("90s"));
        for (std::chrono::milliseconds d : std::initializer_list<std::chrono::milliseconds>{2s, 1500ms, 3min, 90s, 2h})
            QCOMPARE(parseDuration(formatDuration(d)), std::optional<std::chrono::milliseconds>(d));
    }

    void printsDurationsAsGoDoes_data()
    {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<QString>("go");
        QTest::newRow("zero") << qint64(0) << QStringLiteral("0s");
        QTest::newRow("nanoseconds") << qint64(999) << QStringLiteral("999ns");
        QTest::newRow("microseconds") << qint64(850200) << QString::fromUtf8("850.2\u00b5s");
        QTest::newRow("whole milliseconds") << qint64(2000000) << QStringLiteral("2ms");
        QTest::newRow("milliseconds") << qint64(18368799) << QStringLiteral("18.368799ms");
        QTest::newRow("seconds") << qint64(1001926921) << QStringLiteral("1.001926921s");
        QTest::newRow("minutes") << qint64(62500000000) << QStringLiteral("1m2.5s");
        QTest::newRow("hours") << qint64(3600000000000) << QStringLiteral("1h0m0s");
    }

    // As Go's time.Duration.String(): etcdctl's endpoint health says how long a check took so.
    void printsDurationsAsGoDoes()
    {
        QFETCH(qint64, ns);
        QFETCH(QString, go);
        QCOMPARE(goDuration(ns), go);
    }

    void defaultsAreEtcdctls()
    {
        QString error;
        const auto options = resolve({}, {}, &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QCOMPARE(options->client.endpoints, QStringList{QStringLiteral("127.0.0.1:2379")});
        QCOMPARE(options->client.dialTimeout, 2s);
        QCOMPARE(options->commandTimeout, 5s);
        QCOMPARE(options->client.rpc.operationTimeout, 5s);
        QCOMPARE(options->client.keepAliveTime, 10s);  // ours: etcdctl's 2s is too often for etcd
        QCOMPARE(options->client.keepAliveTimeout, 5s);
        QCOMPARE(options->output, OutputFormat::Simple);
        QVERIFY(!options->hex);
    }

    void keepAliveFlagsAndVariablesReachTheClient()
    {
        QString error;
        auto options = resolve({"--keepalive-time", "30s", "--keepalive-timeout", "2s"}, {}, &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QCOMPARE(options->client.keepAliveTime, 30s);
        QCOMPARE(options->client.keepAliveTimeout, 2s);
        options = resolve({}, environment({{"ETCDCTL_KEEPALIVE_TIME", "1m"}}), &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QCOMPARE(options->client.keepAliveTime, 60s);
        QVERIFY(!resolve({"--keepalive-time", "2s"}, {}, &error));
        QVERIFY2(error.startsWith("--keepalive-time: 2s is shorter than etcd's --grpc-keepalive-min-time"),
                 qPrintable(error));
        QVERIFY(!resolve({}, environment({{"ETCDCTL_KEEPALIVE_TIMEOUT", "0"}}), &error));
        QVERIFY2(error.startsWith("ETCDCTL_KEEPALIVE_TIMEOUT:") && error.contains("longer than 0"), qPrintable(error));
    }

    void flagsWinOverEnvironment()
    {
        const QProcessEnvironment env = environment({{"ETCDCTL_ENDPOINTS", "10.0.0.1:2379,10.0.0.2:2379"},
                                                     {"ETCDCTL_COMMAND_TIMEOUT", "9s"},
                                                     {"ETCDCTL_DIAL_TIMEOUT", "3s"},
                                                     {"ETCDCTL_NAMESPACE", "/app/"}});
        QString error;
        auto options = resolve({}, env, &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QCOMPARE(options->client.endpoints, (QStringList{"10.0.0.1:2379", "10.0.0.2:2379"}));
        QCOMPARE(options->commandTimeout, 9s);
        QCOMPARE(options->client.dialTimeout, 3s);
        QCOMPARE(options->client.keyNamespace, QByteArray("/app/"));

        options = resolve({"--endpoints", "http://127.0.0.1:1", "--command-timeout=500ms", "--json"}, env, &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QCOMPARE(options->client.endpoints, QStringList{"http://127.0.0.1:1"});
        QCOMPARE(options->commandTimeout, 500ms);
        QCOMPARE(options->client.dialTimeout, 3s);
        QCOMPARE(options->output, OutputFormat::JsonLines);
        QCOMPARE(options->client.maxReceiveMessageSize, 32 * 1024 * 1024);

        options = resolve({"--max-recv-bytes", "8388608"}, env, &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QCOMPARE(options->client.maxReceiveMessageSize, 8 * 1024 * 1024);
    }

    void writeOutNamesEtcdctlsFormatsAndJsonLines_data()
    {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QString>("variable");
        QTest::addColumn<OutputFormat>("output");
        QTest::newRow("default") << QStringList{} << QString() << OutputFormat::Simple;
        QTest::newRow("-w json") << QStringList{"-w", "json"} << QString() << OutputFormat::Json;
        QTest::newRow("-w jsonl") << QStringList{"-w", "jsonl"} << QString() << OutputFormat::JsonLines;
        QTest::newRow("--json") << QStringList{"--json"} << QString() << OutputFormat::JsonLines;
        QTest::newRow("--json -w json") << QStringList{"--json", "-w", "json"} << QString() << OutputFormat::JsonLines;
        QTest::newRow("-w fields") << QStringList{"-w", "fields"} << QString() << OutputFormat::Fields;
        QTest::newRow("-w table") << QStringList{"--write-out=table"} << QString() << OutputFormat::Table;
        QTest::newRow("ETCDCTL_WRITE_OUT") << QStringList{} << "fields" << OutputFormat::Fields;
        QTest::newRow("flag over variable") << QStringList{"-w", "json"} << "fields" << OutputFormat::Json;
    }

    void writeOutNamesEtcdctlsFormatsAndJsonLines()
    {
        QFETCH(QStringList, flags);
        QFETCH(QString, variable);
        QFETCH(OutputFormat, output);
        QString error;
        const auto options = resolve(flags, variable.isEmpty() ? QProcessEnvironment()
                                                               : environment({{"ETCDCTL_WRITE_OUT", variable}}),
                                     &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QCOMPARE(options->output, output);
    }

    void refusesUnknownAndContradictoryFormats()
    {
        QString error;
        QVERIFY(!resolve({"-w", "yaml"}, {}, &error));
        QVERIFY2(error.contains("\"yaml\"") && error.contains("simple, json, jsonl, fields, table"), qPrintable(error));
        QVERIFY(!resolve({"--json", "-w", "fields"}, {}, &error));
        QVERIFY2(error.contains("contradict"), qPrintable(error));
        QVERIFY(!resolve({"--json", "-w", "simple"}, {}, &error));
        QVERIFY2(error.contains("contradict"), qPrintable(error));
    }

    void flagsReadTheirVariablesAsEtcdctlDoes()
    {
        QString error;
        auto options = resolve({}, environment({{"ETCDCTL_HEX", "true"}, {"ETCDCTL_READ_ONLY", "1"}}), &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QVERIFY(options->hex);
        QVERIFY(options->client.readOnly);
        options = resolve({}, environment({{"ETCDCTL_HEX", "false"}, {"ETCDCTL_JSON", "True"}}), &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QVERIFY(!options->hex);
        QCOMPARE(options->output, OutputFormat::JsonLines);
        options = resolve({"--hex"}, environment({{"ETCDCTL_HEX", "false"}}), &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QVERIFY(options->hex);

        QVERIFY(!resolve({}, environment({{"ETCDCTL_HEX", "yes"}}), &error));
        QVERIFY2(error.startsWith("ETCDCTL_HEX:") && error.contains("\"yes\""), qPrintable(error));
        // Unverified TLS by the flag as by the variable; off unless asked for.
        for (const auto &[flags, variables] :
             {std::pair{QStringList{"--insecure-skip-tls-verify"}, QList<std::pair<QString, QString>>{}},
              std::pair{QStringList{}, QList<std::pair<QString, QString>>{{"ETCDCTL_INSECURE_SKIP_TLS_VERIFY", "true"}}}}) {
            options = resolve(flags, environment(variables), &error);
            QVERIFY2(options.has_value(), qPrintable(error));
            QVERIFY(options->client.tls.skipServerVerification);
        }
        options = resolve({}, {}, &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QVERIFY(!options->client.tls.skipServerVerification);
        // A password to a remote plaintext endpoint is allowed by the variable as by the flag.
        options = resolve({"--user", "root:pw", "--endpoints", "db.example:2379"},
                          environment({{"ETCDCTL_INSECURE_TRANSPORT", "true"}}), &error);
        QVERIFY2(options.has_value(), qPrintable(error));
    }

    void bareEndpointsUseTlsWhenTlsIsAskedFor()
    {
        QString error;
        auto options = resolve({"--endpoints", "a:2379, b:2379", "--cacert", existingFile()}, {}, &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QCOMPARE(options->client.endpoints, (QStringList{"https://a:2379", "https://b:2379"}));
        QCOMPARE(options->client.tls.caFile, existingFile());

        options = resolve({"--endpoints", "a:2379"},
                          environment({{"ETCDCTL_CERT", existingFile()}, {"ETCDCTL_KEY", existingFile()}}), &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QCOMPARE(options->client.endpoints, QStringList{"https://a:2379"});

        // Skipping the certificate's verification asks for TLS too.
        options = resolve({"--endpoints", "a:2379", "--insecure-skip-tls-verify"}, {}, &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QCOMPARE(options->client.endpoints, QStringList{"https://a:2379"});

        // An explicit http:// with TLS files is a contradiction, not something to guess about.
        QVERIFY(!resolve({"--endpoints", "http://a:2379", "--cacert", existingFile()}, {}, &error));
        QVERIFY2(error.contains("http://"), qPrintable(error));
        QVERIFY(!resolve({"--endpoints", "http://a:2379", "--insecure-skip-tls-verify"}, {}, &error));
        QVERIFY2(error.contains("http://"), qPrintable(error));
    }

    void splitsUserAndPasswordLikeEtcdctl()
    {
        QString error;
        auto options = resolve({"--user", "root:se:cret"}, {}, &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QCOMPARE(options->client.user, QStringLiteral("root"));
        QCOMPARE(options->client.password, QStringLiteral("se:cret"));

        options = resolve({"--user", "root"}, environment({{"ETCDCTL_PASSWORD", "pw"}}), &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        QCOMPARE(options->client.user, QStringLiteral("root"));
        QCOMPARE(options->client.password, QStringLiteral("pw"));

        // No prompt here (standard input is not asked in this test): the error says how to give
        // the password, never to put it on the command line.
        QVERIFY(!resolve({}, environment({{"ETCDCTL_USER", "root"}}), &error));
        QVERIFY2(error.startsWith("ETCDCTL_USER:") && error.contains("needs a password"), qPrintable(error));
        QVERIFY2(error.contains("ETCDCTL_PASSWORD") && !error.contains("USER:PASSWORD") && !error.contains("--password"),
                 qPrintable(error));
    }

    // "--user alice:pw" with ETCDCTL_PASSWORD set made "alice:pw" the user name, and the error
    // printed it: nothing after a user's ':' is ever printed.
    void neverPrintsWhatFollowsTheColonOfAUser()
    {
        QString error;
        QVERIFY(!resolve({"--user", "alice:s3cret"}, environment({{"ETCDCTL_PASSWORD", "other"}}), &error));
        QVERIFY2(error.startsWith("--user:") && error.contains("alice") && error.contains("ETCDCTL_PASSWORD"),
                 qPrintable(error));
        QVERIFY2(!error.contains("s3cret") && !error.contains("other"), qPrintable(error));
        QVERIFY(!resolve({"--user", "alice:s3cret", "--password", "other", "--endpoints", "http://db.example:2379"}, {},
                         &error));
        QVERIFY2(!error.contains("s3cret") && !error.contains("other"), qPrintable(error));
        QVERIFY(!resolve({"--user", "alice:s3cret", "--endpoints", "http://db.example:2379"}, {}, &error));
        QVERIFY2(!error.contains("s3cret"), qPrintable(error));
    }

    // A password in clear text to another machine is refused unless asked for by name.
    void refusesAPasswordInPlaintextOffThisMachine()
    {
        QString error;
        QVERIFY(!resolve({"--user", "root:pw", "--endpoints", "127.0.0.1:2379,db.example:2379"}, {}, &error));
        QVERIFY2(error.startsWith("--user:") && error.contains("http://db.example:2379")
                     && error.contains("unencrypted") && error.contains("--insecure-transport"),
                 qPrintable(error));
        QVERIFY(!error.contains("pw\""));
        auto options = resolve({"--user", "root:pw", "--endpoints", "db.example:2379", "--insecure-transport"}, {}, &error);
        QVERIFY2(options.has_value(), qPrintable(error));
        // On this machine, over TLS, or without a user there is nothing to refuse.
        for (const QStringList &flags : {QStringList{"--user", "root:pw", "--endpoints", "localhost:2379,[::1]:2380"},
                                         QStringList{"--user", "root:pw", "--endpoints", "https://db.example:2379"},
                                         QStringList{"--endpoints", "http://db.example:2379"}}) {
            options = resolve(flags, {}, &error);
            QVERIFY2(options.has_value(), qPrintable(flags.join(' ') + ": " + error));
        }
    }

    void badSettingsNameTheirSource()
    {
        QString error;
        QVERIFY(!resolve({"--dial-timeout", "5x"}, {}, &error));
        QVERIFY2(error.startsWith("--dial-timeout:") && error.contains("unknown unit"), qPrintable(error));
        QVERIFY(!resolve({}, environment({{"ETCDCTL_COMMAND_TIMEOUT", "soon"}}), &error));
        QVERIFY2(error.startsWith("ETCDCTL_COMMAND_TIMEOUT:"), qPrintable(error));
        QVERIFY(!resolve({"--command-timeout", "0"}, {}, &error));
        QVERIFY2(error.contains("longer than 0"), qPrintable(error));
        QVERIFY(!resolve({"--max-recv-bytes", "1000"}, {}, &error));
        QVERIFY2(error.startsWith("--max-recv-bytes: \"1000\" is not a number of bytes from 4194304"), qPrintable(error));
        QVERIFY(!resolve({}, environment({{"ETCDCTL_MAX_RECV_BYTES", "lots"}}), &error));
        QVERIFY2(error.startsWith("ETCDCTL_MAX_RECV_BYTES: \"lots\""), qPrintable(error));
        QVERIFY(!resolve({"--endpoints", ","}, {}, &error));
        QVERIFY2(error.contains("no endpoints"), qPrintable(error));
        QVERIFY(!resolve({"--endpoints", "ftp://x:1"}, {}, &error));
        QVERIFY2(error.contains("ftp://x:1"), qPrintable(error));
    }

    void everyOptionNamesItsVariable()
    {
        for (const QCommandLineOption &option : globalOptions()) {
            const QString name = option.names().constLast();
            if (name == QLatin1String("help"))
                continue;
            const QString variable = "ETCDCTL_" + name.toUpper().replace('-', '_');
            QVERIFY2(option.description().contains(variable), qPrintable(option.description()));
            QCOMPARE(takesValue(name), !option.valueName().isEmpty());
        }
        QVERIFY(!takesValue("json"));
        QVERIFY(!takesValue("help"));
    }

    void parsesLeaseIds_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("id");
        QTest::newRow("hex as etcdctl prints") << "694d7b0c0d1e0d0a" << qint64(0x694d7b0c0d1e0d0a);
        QTest::newRow("0x") << "0x694d7b0c0d1e0d0a" << qint64(0x694d7b0c0d1e0d0a);
        QTest::newRow("digits only are still hex") << "10" << qint64(16);
        QTest::newRow("decimal") << "dec:7587856238879051018" << qint64(7587856238879051018);
    }

    void parsesLeaseIds()
    {
        QFETCH(QString, text);
        QFETCH(qint64, id);
        QString error;
        const auto parsed = parseLeaseId(text, &error);
        QVERIFY2(parsed.has_value(), qPrintable(error));
        QCOMPARE(*parsed, id);
    }

    void refusesBadLeaseIds()
    {
        QString error;
        for (const char *text : {"", "xyz", "0", "-5", "ffffffffffffffff", "dec:12ab", "dec:0"}) {
            QVERIFY2(!parseLeaseId(text, &error).has_value(), text);
            QVERIFY2(error.contains(QLatin1Char('"') + QLatin1String(text) + QLatin1Char('"')), qPrintable(error));
        }
    }

    void leaseHexRoundTrips()
    {
        QCOMPARE(leaseHex(0x694d7b0c0d1e0d0a), QStringLiteral("694d7b0c0d1e0d0a"));
        QCOMPARE(leaseHex(0x1f), QStringLiteral("000000000000001f"));
        QCOMPARE(parseLeaseId(leaseHex(0x1f)), std::optional<qint64>(0x1f));
    }

    void quotesAsGoDoes_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QByteArray>("quoted");
        QTest::newRow("plain") << QByteArray("/a b") << QByteArray("\"/a b\"");
        QTest::newRow("quote and backslash") << QByteArray("x\"\\") << QByteArray("\"x\\\"\\\\\"");
        QTest::newRow("named controls") << QByteArray("\n\t\r\a") << QByteArray("\"\\n\\t\\r\\a\"");
        QTest::newRow("other controls") << QByteArray("\x1b\x7f", 2) << QByteArray("\"\\x1b\\x7f\"");
        QTest::newRow("not UTF-8") << QByteArray("\xff\xfe") << QByteArray("\"\\xff\\xfe\"");
        QTest::newRow("printable UTF-8 kept") << QByteArray("h\xc3\xa9") << QByteArray("\"h\xc3\xa9\"");
        QTest::newRow("no-break space") << QByteArray("\xc2\xa0") << QByteArray("\"\\u00a0\"");
        QTest::newRow("bidi override") << QByteArray("\xe2\x80\xae") << QByteArray("\"\\u202e\"");
        QTest::newRow("empty") << QByteArray() << QByteArray("\"\"");
    }

    void quotesAsGoDoes()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QByteArray, quoted);
        QCOMPARE(goQuoted(bytes), quoted);
    }

    // What goQuoted() writes, goUnquoted() reads back; and the octal escapes, raw strings and
    // trailing text it meets in txn's lines.
    void unquotesAsGoDoes()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QByteArray, quoted);
        qsizetype at = 0;
        QString error;
        const QByteArray line = quoted + ") = \"1\"";
        QCOMPARE(goUnquoted(line, &at, &error), std::optional(bytes));
        QCOMPARE(at, quoted.size());
    }
    void unquotesAsGoDoes_data() { quotesAsGoDoes_data(); }

    void unquotesGoLiteralsAndTellsWhatIsWrong()
    {
        const auto read = [](const QByteArray &text, QString *error = nullptr) {
            qsizetype at = 0;
            QString ignored;
            return goUnquoted(text, &at, error ? error : &ignored);
        };
        QCOMPARE(read("\"\\101\\x42\\u0043\\U0001F600\""), std::optional(QByteArray("ABC\xf0\x9f\x98\x80")));
        QCOMPARE(read("`raw \\n \"`"), std::optional(QByteArray("raw \\n \"")));
        QString error;
        QCOMPARE(read("\"open", &error), std::nullopt);
        QVERIFY2(error.contains("no closing"), qPrintable(error));
        QCOMPARE(read("\"\\q\"", &error), std::nullopt);
        QVERIFY2(error.contains("escape Go does not read at \\q"), qPrintable(error));
        QCOMPARE(read("bare", &error), std::nullopt);
        QVERIFY2(error.contains("a quoted string was expected"), qPrintable(error));
    }

    // go-humanize's Bytes, as etcdctl snapshot status prints a size.
    void sizesAsEtcdctlPrintsThem()
    {
        QCOMPARE(humanBytes(0), QStringLiteral("0 B"));
        QCOMPARE(humanBytes(82), QStringLiteral("82 B"));
        QCOMPARE(humanBytes(1000), QStringLiteral("1.0 kB"));
        QCOMPARE(humanBytes(20480), QStringLiteral("20 kB"));
        QCOMPARE(humanBytes(25600), QStringLiteral("26 kB"));
        QCOMPARE(humanBytes(1500000), QStringLiteral("1.5 MB"));
        QCOMPARE(humanBytes(2147483648LL), QStringLiteral("2.1 GB"));
    }

    void hexIsEtcdctls()
    {
        QCOMPARE(hexBytes("ab"), QByteArray("\\x61\\x62"));
        QCOMPARE(hexBytes(QByteArray("\x00\xff", 2)), QByteArray("\\x00\\xff"));
        QCOMPARE(hexBytes({}), QByteArray());
    }

    void keyValueJsonKeepsBytes()
    {
        KeyValue kv;
        kv.key = "/k";
        kv.value = "h\xc3\xa9llo";
        kv.createRevision = 2;
        kv.modRevision = 5;
        kv.version = 3;
        QJsonObject json = keyValueJson(kv);
        QCOMPARE(json.value("key").toString(), QStringLiteral("/k"));
        QCOMPARE(json.value("value").toString(), QString::fromUtf8("h\xc3\xa9llo"));
        QCOMPARE(json.value("create_revision").toInteger(), 2);
        QCOMPARE(json.value("mod_revision").toInteger(), 5);
        QCOMPARE(json.value("version").toInteger(), 3);
        QVERIFY(!json.contains("lease"));
        QVERIFY(!json.contains("value_base64"));

        kv.key = QByteArray("\xef\xbb\xbf/bom");
        kv.value = QByteArray("\x00\xff\xfe", 3);
        kv.lease = 0x694d7b0c0d1e0d0a;
        json = keyValueJson(kv);
        QCOMPARE(json.value("key").toString().toUtf8(), kv.key);  // the BOM is kept
        QVERIFY(!json.contains("value"));
        QCOMPARE(QByteArray::fromBase64(json.value("value_base64").toString().toLatin1()), kv.value);
        QCOMPARE(json.value("lease").toString(), QStringLiteral("694d7b0c0d1e0d0a"));
        // Written as an exact integer, not rounded through a double.
        QVERIFY(QJsonDocument(json).toJson(QJsonDocument::Compact).contains("\"lease_dec\":7587856238879051018"));
    }

    void eventLinesStartWithEventAndMonotonicTime()
    {
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        EventWriter writer(&buffer);
        const qint64 before = EventWriter::monotonicMs();
        writer.write("acquired", {{"key", "/lock/a"}, {"event", "spoofed"}, {"mono_ms", 1}, {"lease", "694d"}});
        writer.write("released");
        const qint64 after = EventWriter::monotonicMs();

        const QList<QByteArray> lines = buffer.data().split('\n');
        QCOMPARE(lines.size(), 3);
        QVERIFY(lines[2].isEmpty());
        QVERIFY2(lines[0].startsWith("{\"event\":\"acquired\",\"mono_ms\":"), lines[0].constData());
        QVERIFY2(lines[1].startsWith("{\"event\":\"released\",\"mono_ms\":"), lines[1].constData());
        for (const QByteArray &line : lines.first(2)) {
            QJsonParseError parseError;
            const QJsonObject object = QJsonDocument::fromJson(line, &parseError).object();
            QVERIFY2(parseError.error == QJsonParseError::NoError, line.constData());
            QVERIFY(object.value("mono_ms").toInteger() >= before);
            QVERIFY(object.value("mono_ms").toInteger() <= after);
        }
        const QJsonObject first = QJsonDocument::fromJson(lines[0]).object();
        QCOMPARE(first.value("event").toString(), QStringLiteral("acquired"));
        QCOMPARE(first.value("key").toString(), QStringLiteral("/lock/a"));
        QCOMPARE(first.value("lease").toString(), QStringLiteral("694d"));
        QCOMPARE(first.size(), 4);
    }

    void monotonicMsIsTheSystemsMonotonicClock()
    {
        timespec now{};
        clock_gettime(CLOCK_MONOTONIC, &now);
        const qint64 reference = qint64(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
        QVERIFY(qAbs(EventWriter::monotonicMs() - reference) < 1000);
    }

    void signalsBecomeOneShutdownRequest_data()
    {
        QTest::addColumn<int>("signo");
        QTest::addColumn<QString>("reason");
        QTest::newRow("SIGINT") << SIGINT << "SIGINT";
        QTest::newRow("SIGTERM") << SIGTERM << "SIGTERM";
    }

    void signalsBecomeOneShutdownRequest()
    {
        QFETCH(int, signo);
        QFETCH(QString, reason);
        // A second signal must meet the handler that was there before; here it is one that
        // counts, so the test survives it.
        static volatile sig_atomic_t previousHandlerCalls = 0;
        previousHandlerCalls = 0;
        struct sigaction counting = {}, original = {};
        counting.sa_handler = [](int) { previousHandlerCalls = previousHandlerCalls + 1; };
        sigemptyset(&counting.sa_mask);
        sigaction(signo, &counting, &original);
        {
            ShutdownSignals shutdown;
            QSignalSpy spy(&shutdown, &ShutdownSignals::shutdownRequested);
            ::raise(signo);
            QTRY_COMPARE(spy.size(), 1);
            QCOMPARE(spy.at(0).at(0).toString(), reason);
            QCOMPARE(int(previousHandlerCalls), 0);

            ::raise(signo);
            QCOMPARE(int(previousHandlerCalls), 1);
            QCoreApplication::processEvents();
            QCOMPARE(spy.size(), 1);
        }
        struct sigaction restored = {};
        sigaction(signo, &original, &restored);
        QVERIFY(restored.sa_handler == counting.sa_handler);
    }

    void holdEndsOnceLikeASignal()
    {
        ShutdownSignals shutdown;
        QSignalSpy spy(&shutdown, &ShutdownSignals::shutdownRequested);
        shutdown.holdFor(20ms);
        QTRY_COMPARE(spy.size(), 1);
        QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("hold"));
    }

    void handlersAreRestoredOnDestruction()
    {
        struct sigaction before = {}, after = {};
        sigaction(SIGTERM, nullptr, &before);
        {
            ShutdownSignals shutdown;
            struct sigaction during = {};
            sigaction(SIGTERM, nullptr, &during);
            QVERIFY(during.sa_handler != before.sa_handler);
        }
        sigaction(SIGTERM, nullptr, &after);
        QVERIFY(after.sa_handler == before.sa_handler);
    }
};

QTEST_GUILESS_MAIN(tst_CliConventions)
#include "tst_cliconventions.moc"
