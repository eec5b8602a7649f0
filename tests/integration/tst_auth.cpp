#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

// etcd with RBAC on: a root user, and "app" whose role may only touch /app/.
class tst_Auth : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<EtcdCluster> m_cluster;

    ClientOptions as(const QString &user, const QString &password) const
    {
        ClientOptions options = ClientOptions::fromEndpoints(m_cluster->clientUrls());
        options.user = user;
        options.password = password;
        return options;
    }

    void etcdctlOk(const QStringList &args)
    {
        int exitCode = -1;
        QByteArray error;
        m_cluster->etcdctl(args, &exitCode, &error);
        QVERIFY2(exitCode == 0, qPrintable(args.join(' ') + ": " + QString::fromUtf8(error)));
    }

private Q_SLOTS:
    void initTestCase()
    {
        EtcdCluster::Options options;
        // Simple tokens that expire after 1 s of disuse, so the refresh path is exercised.
        options.extraArgs = {QStringLiteral("--auth-token=simple"), QStringLiteral("--auth-token-ttl=1")};
        m_cluster = std::make_unique<EtcdCluster>(options);
        QVERIFY2(m_cluster->start(), qPrintable(m_cluster->errorString()));
        etcdctlOk({"user", "add", "root:rootpw"});
        etcdctlOk({"role", "add", "app-role"});
        etcdctlOk({"role", "grant-permission", "app-role", "readwrite", "/app/", "--prefix=true"});
        etcdctlOk({"user", "add", "app:apppw"});
        etcdctlOk({"user", "grant-role", "app", "app-role"});
        etcdctlOk({"auth", "enable"});
    }

    void permittedPrefixWorks()
    {
        Client client(as("app", "apppw"));
        PutResult put;
        QETCD_AWAIT(client.put("/app/k", "v"), put);
        QVERIFY2(put.status.isOk(), qPrintable(put.status.toString()));
        RangeResult got;
        QETCD_AWAIT(client.get("/app/k"), got);
        QCOMPARE(got.kvs.value(0).value, QByteArray("v"));
    }

    void permissionDeniedOutsideItIsReportedAsSuch()
    {
        Client client(as("app", "apppw"));
        PutResult put;
        QETCD_AWAIT(client.put("/other/k", "v"), put);
        QCOMPARE(put.status.code(), StatusCode::PermissionDenied);
        QVERIFY2(put.status.message().contains("/other/k"), qPrintable(put.status.message()));
        QVERIFY(put.status.message().contains("permission denied"));

        Client root(as("root", "rootpw"));
        RangeResult got;
        QETCD_AWAIT(root.get("/other/k"), got);
        QVERIFY2(got.status.isOk(), qPrintable(got.status.toString()));
        QVERIFY(got.kvs.isEmpty());  // nothing was half-written
    }

    void wrongPasswordIsNamed()
    {
        Client client(as("app", "wrong"));
        RangeResult got;
        QETCD_AWAIT(client.get("/app/k"), got);
        QVERIFY(!got.status.isOk());
        QVERIFY2(got.status.message().contains("authenticate as user \"app\""), qPrintable(got.status.message()));
        QVERIFY(got.status.message().contains("invalid user ID or password"));
    }

    void noCredentialsIsRefused()
    {
        Client client(ClientOptions::fromEndpoints(m_cluster->clientUrls()));
        PutResult put;
        QETCD_AWAIT(client.put("/app/k", "v"), put);
        QVERIFY(!put.status.isOk());
        QVERIFY2(put.status.message().contains("user name is empty")
                     || put.status.message().contains("permission denied"),
                 qPrintable(put.status.message()));
    }

    void expiredTokenIsRefreshedWithoutTheCallerNoticing()
    {
        Client client(as("app", "apppw"));
        PutResult put;
        QETCD_AWAIT(client.put("/app/refresh", "1"), put);
        QVERIFY(put.status.isOk());
        // The passing of time is the scenario here: etcd drops a simple token after its TTL
        // (1 s) without use, and there is no event to wait for instead.
        QTest::qWait(2500);
        QTest::ignoreMessage(QtInfoMsg, QRegularExpression("rejected the auth token.*authenticating again"));
        QETCD_AWAIT(client.put("/app/refresh", "2"), put);
        QVERIFY2(put.status.isOk(), qPrintable(put.status.toString()));
        RangeResult got;
        QETCD_AWAIT(client.get("/app/refresh"), got);
        QCOMPARE(got.kvs.value(0).value, QByteArray("2"));
    }
};

QTEST_GUILESS_MAIN(tst_Auth)
#include "tst_auth.moc"
