// SPDX-License-Identifier: Apache-2.0
#include <QEtcd/client.h>
#include <QEtcd/clientoptions.h>

#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace QEtcd;
using namespace std::chrono_literals;

Q_DECLARE_METATYPE(QEtcd::ClientOptions)

namespace {
// Any file that certainly exists and is readable.
QString existingFile()
{
    return QCoreApplication::applicationFilePath();
}
} // namespace

class tst_ClientOptions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesEndpoints_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<bool>("tls");
        QTest::newRow("http") << "http://127.0.0.1:2379" << "127.0.0.1" << 2379 << false;
        QTest::newRow("https") << "https://etcd.example:2379" << "etcd.example" << 2379 << true;
        QTest::newRow("bare like etcdctl") << "10.0.0.1:2379" << "10.0.0.1" << 2379 << false;
        QTest::newRow("ipv6") << "http://[::1]:2379" << "::1" << 2379 << false;
        QTest::newRow("trailing slash") << "http://localhost:2379/" << "localhost" << 2379 << false;
        QTest::newRow("spaces") << "  http://localhost:2379 " << "localhost" << 2379 << false;
    }

    void parsesEndpoints()
    {
        QFETCH(QString, text);
        QFETCH(QString, host);
        QFETCH(int, port);
        QFETCH(bool, tls);
        Status status(StatusCode::Unknown, "unset");
        const Endpoint endpoint = Endpoint::parse(text, &status);
        QVERIFY2(status.isOk(), qPrintable(status.toString()));
        QCOMPARE(endpoint.host, host);
        QCOMPARE(int(endpoint.port), port);
        QCOMPARE(endpoint.tls, tls);
    }

    void ipv6AuthorityIsBracketed()
    {
        Status status;
        QCOMPARE(Endpoint::parse("http://[::1]:2379", &status).authority(), QString("[::1]:2379"));
    }

    void refusesBadEndpoints_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("empty") << "" << "empty";
        QTest::newRow("scheme") << "ftp://host:21" << "scheme";
        QTest::newRow("no port") << "http://host" << "port";
        QTest::newRow("path") << "http://host:2379/v3" << "path";
        QTest::newRow("garbage") << "http://ho st:12" << "ho st";
        QTest::newRow("user info") << "http://me@host:2379" << "scheme://host:port";
    }

    void refusesBadEndpoints()
    {
        QFETCH(QString, text);
        QFETCH(QString, mentions);
        Status status;
        Endpoint::parse(text, &status);
        QCOMPARE(status.code(), StatusCode::InvalidConfiguration);
        QVERIFY2(status.message().contains(mentions), qPrintable(status.message()));
    }

    void validatesTheWhole_data()
    {
        QTest::addColumn<ClientOptions>("options");
        QTest::addColumn<QString>("mentions");
        ClientOptions none;
        QTest::newRow("no endpoints") << none << "no endpoints";
        ClientOptions twice = ClientOptions::fromEndpoints({"http://a:1", "a:1"});
        QTest::newRow("duplicate") << twice << "twice";
        ClientOptions mixed = ClientOptions::fromEndpoints({"http://a:1", "https://b:1"});
        QTest::newRow("mixed schemes") << mixed << "mix";
        ClientOptions plaintextWithTls = ClientOptions::fromEndpoints({"http://a:1"});
        plaintextWithTls.tls.caFile = existingFile();
        QTest::newRow("tls files on http") << plaintextWithTls << "https://";
        ClientOptions missingCa = ClientOptions::fromEndpoints({"https://a:1"});
        missingCa.tls.caFile = QStringLiteral("/nonexistent/ca.pem");
        QTest::newRow("missing CA") << missingCa << "/nonexistent/ca.pem";
        ClientOptions certWithoutKey = ClientOptions::fromEndpoints({"https://a:1"});
        certWithoutKey.tls.certFile = existingFile();
        QTest::newRow("cert without key") << certWithoutKey << "key";
        ClientOptions fastPings = ClientOptions::fromEndpoints({"http://a:1"});
        fastPings.keepAliveTime = 1s;
        QTest::newRow("keepalive below server minimum") << fastPings << "too_many_pings";
        ClientOptions passwordOnly = ClientOptions::fromEndpoints({"http://a:1"});
        passwordOnly.password = QStringLiteral("secret");
        QTest::newRow("password without user") << passwordOnly << "user";
        ClientOptions noHeals = ClientOptions::fromEndpoints({"http://a:1"});
        noHeals.maxConcurrentHeals = 0;
        QTest::newRow("no heal may run") << noHeals << "maxConcurrentHeals must be >= 1 (got 0)";
    }

    void validatesTheWhole()
    {
        QFETCH(ClientOptions, options);
        QFETCH(QString, mentions);
        const Status status = options.validate();
        QCOMPARE(status.code(), StatusCode::InvalidConfiguration);
        QVERIFY2(status.message().contains(mentions), qPrintable(status.message()));
    }

    // gRPC would read an empty CA as "the system's roots" and an empty key as "no client
    // certificate": TLS weakened without a word. Each file must hold PEM, and the refusal names it.
    void tlsFilesWithoutPemAreRefusedNamingTheFile_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("mentions");
        for (const char *field : {"caFile", "certFile", "keyFile"}) {
            QTest::addRow("%s empty", field) << field << QByteArray() << "is empty";
            QTest::addRow("%s blank", field) << field << QByteArray(" \n\n") << "is empty";
            QTest::addRow("%s not PEM", field) << field << QByteArray("\x30\x82\x01\x0a binary DER") << "no PEM block";
        }
    }

    void tlsFilesWithoutPemAreRefusedNamingTheFile()
    {
        QFETCH(QString, field);
        QFETCH(QByteArray, content);
        QFETCH(QString, mentions);
        QTemporaryDir directory;
        const auto write = [&](const QString &name, const QByteArray &bytes) {
            const QString path = directory.filePath(name);
            QFile file(path);
            if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
                qFatal("cannot write %s", qPrintable(path));
            return path;
        };
        const QByteArray pem("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
        ClientOptions options = ClientOptions::fromEndpoints({"https://a:1"});
        options.tls.caFile = write(QStringLiteral("ca.pem"), field == QLatin1String("caFile") ? content : pem);
        options.tls.certFile = write(QStringLiteral("cert.pem"), field == QLatin1String("certFile") ? content : pem);
        options.tls.keyFile = write(QStringLiteral("key.pem"), field == QLatin1String("keyFile") ? content : pem);
        const QString bad = field == QLatin1String("caFile") ? options.tls.caFile
            : field == QLatin1String("certFile")             ? options.tls.certFile
                                                             : options.tls.keyFile;
        const Status status = options.validate();
        QCOMPARE(status.code(), StatusCode::InvalidConfiguration);
        QVERIFY2(status.message().contains(bad) && status.message().contains(mentions), qPrintable(status.message()));
        // A client made with them refuses every call, naming the file, before connecting.
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QRegularExpression::escape(bad)));
        Client client(options);
        QCOMPARE(client.configurationStatus().code(), StatusCode::InvalidConfiguration);
        // With PEM in every file the same options pass.
        write(QFileInfo(bad).fileName(), pem);
        QVERIFY2(options.validate().isOk(), qPrintable(options.validate().message()));
    }

    void fastKeepAliveAllowedWhenServerAllowsIt()
    {
        ClientOptions options = ClientOptions::fromEndpoints({"http://a:1"});
        options.keepAliveTime = 1s;
        options.serverMinKeepAliveTime = 500ms;
        QVERIFY(options.validate().isOk());
    }

    void refusedClientFailsEveryCallWithoutSending()
    {
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("no endpoints"));
        Client client(ClientOptions{});
        QCOMPARE(client.configurationStatus().code(), StatusCode::InvalidConfiguration);
        auto future = client.put("k", "v");
        QVERIFY(future.isFinished());
        QCOMPARE(future.result().status.code(), StatusCode::InvalidConfiguration);
        QVERIFY(future.result().status.message().contains("put \"k\""));
    }

    void emptyKeyIsRefusedBeforeSending()
    {
        // Port 9 (discard) is never dialled: the request is refused while being built.
        Client client(ClientOptions::fromEndpoints({"http://127.0.0.1:9"}));
        auto put = client.put(QByteArray(), "v");
        QVERIFY(put.isFinished());
        QCOMPARE(put.result().status.code(), StatusCode::InvalidArgument);
        QVERIFY(put.result().status.message().contains("key is empty"));
        auto get = client.get(QByteArray());
        QCOMPARE(get.result().status.code(), StatusCode::InvalidArgument);
        auto grant = client.leaseGrant(0);
        QCOMPARE(grant.result().status.code(), StatusCode::InvalidArgument);
        QVERIFY(grant.result().status.message().contains("TTL"));
    }
};

QTEST_GUILESS_MAIN(tst_ClientOptions)
#include "tst_clientoptions.moc"
