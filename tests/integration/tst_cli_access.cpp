// SPDX-License-Identifier: Apache-2.0
// The access commands against real etcd with auth on: `user ...`, `role ...` and `auth ...` in
// etcdctl's shape, each through the qetcd binary. Passwords come from stdin or the one explicit
// flag and never show up in the output; destructive actions want --yes off a terminal;
// --read-only refuses before anything is asked or sent; a user without rights is told so by name;
// `auth enable` is refused on a cluster without a root user.
#include "../common/authsetup.h"
#include "../common/qetcdprocess.h"

#include <QEtcd/etcdcluster.h>

#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd::Testing;

class tst_CliAccess : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<EtcdCluster> m_cluster;

    QString endpoint() const { return m_cluster->clientUrl(0); }

    std::unique_ptr<Qetcd> asRoot(const QStringList &arguments) const
    {
        return std::make_unique<Qetcd>(endpoint(), QStringList{"--user", "root:rootpw", "--json"} + arguments);
    }

    // The JSON lines of a run as root that exited with expectedExit; empty (and a warning) otherwise.
    QList<QJsonObject> root(const QStringList &arguments, int expectedExit = 0) const
    {
        auto process = asRoot(arguments);
        if (const int exit = process->waitForExit(); exit != expectedExit) {
            qWarning() << arguments << "exited" << exit << process->standardError();
            return {};
        }
        return process->events();
    }

    // What etcd says, through etcdctl: the tool the commands must agree with.
    QByteArray etcdctl(const QStringList &arguments) const
    {
        return m_cluster->etcdctl(QStringList{"--user", "root:rootpw"} + arguments);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_cluster = std::make_unique<EtcdCluster>();
        QVERIFY2(m_cluster->start(), qPrintable(m_cluster->errorString()));
        const QString authFailed = enableAuth(*m_cluster);
        QVERIFY2(authFailed.isEmpty(), qPrintable(authFailed));
    }

    void cleanupTestCase() { m_cluster.reset(); }

    // user add --no-password: a user for certificate logins; a login by password as it fails,
    // and a password given alongside is refused before anything is sent.
    void userWithoutPassword()
    {
        QCOMPARE(root({"user", "add", "by-cert", "--no-password"}).value(0).value("created").toBool(), true);
        QVERIFY(etcdctl({"user", "list"}).contains("by-cert"));
        auto login = std::make_unique<Qetcd>(endpoint(), QStringList{"--user", "by-cert:guess", "get", "/app/k"});
        const int loginExit = login->waitForExit();
        QVERIFY2(loginExit == 3 && login->standardError().contains("authentication failed"),
                 qPrintable(QString::number(loginExit) + ": " + login->standardError()));
        auto both = asRoot({"user", "add", "other", "--no-password", "--new-user-password", "pw"});
        QCOMPARE(both->waitForExit(), 128);
        QVERIFY2(both->standardError().contains("--no-password"), both->standardError().constData());
        QVERIFY(!etcdctl({"user", "list"}).contains("other"));
    }

    // The whole life of a user and a role, each step checked against etcdctl.
    void userAndRoleLifeCycle()
    {
        QCOMPARE(root({"role", "add", "reader"}).value(0).value("created").toBool(), true);
        const QList<QJsonObject> granted = root({"role", "grant-permission", "reader", "read", "/data/", "--prefix"});
        QCOMPARE(text(granted.value(0), "keys"), QStringLiteral("[/data/, /data0) (prefix /data/)"));
        QCOMPARE(root({"role", "grant-permission", "reader", "write", "/a", "/c"}).size(), 1);
        QVERIFY(etcdctl({"role", "get", "reader"}).contains("[/data/, /data0) (prefix /data/)"));

        const QJsonObject role = root({"role", "get", "reader"}).value(0);
        const QJsonArray permissions = role.value("permissions").toArray();
        QCOMPARE(permissions.size(), 2);
        QCOMPARE(permissions[0].toObject().value("keys").toString(), QStringLiteral("[/a, /c)"));
        QCOMPARE(permissions[0].toObject().value("type").toString(), QStringLiteral("write"));
        QCOMPARE(permissions[1].toObject().value("type").toString(), QStringLiteral("read"));
        QVERIFY(root({"role", "list"}).contains(QJsonObject{{"role", "reader"}}));

        // The password from stdin, never echoed back.
        auto add = asRoot({"user", "add", "rita", "--interactive=false"});
        add->feed("rita-secret\n");
        QCOMPARE(add->waitForExit(), 0);
        QVERIFY(!add->standardOutput().contains("rita-secret") && !add->standardError().contains("rita-secret"));
        QCOMPARE(root({"user", "grant-role", "rita", "reader"}).value(0).value("granted").toBool(), true);
        QCOMPARE(root({"user", "get", "rita"}).value(0).value("roles").toArray(), QJsonArray{"reader"});
        QVERIFY(etcdctl({"user", "get", "rita"}).contains("Roles: reader"));
        // --detail: each role's permissions, byte for byte etcdctl's text; as JSON, each role as
        // role get prints it.
        auto detail = std::make_unique<Qetcd>(endpoint(), QStringList{"--user", "root:rootpw", "user", "get", "rita", "--detail"},
                                              QList<std::pair<QString, QString>>{}, Printed::JsonAndPlainLines);
        QCOMPARE(detail->waitForExit(), 0);
        QCOMPARE(detail->standardOutput(), etcdctl({"user", "get", "rita", "--detail"}));
        const QJsonArray detailed = root({"user", "get", "rita", "--detail"}).value(0).value("roles").toArray();
        QCOMPARE(detailed.size(), 1);
        QCOMPARE(detailed[0].toObject(), root({"role", "get", "reader"}).value(0));
        QVERIFY(root({"user", "list"}).contains(QJsonObject{{"user", "rita"}}));
        QVERIFY(m_cluster->etcdctl({"--user", "rita:rita-secret", "get", "/data/x"}).isEmpty());

        // Text output as etcdctl's.
        Qetcd text(endpoint(), {"--user", "root:rootpw", "user", "passwd", "rita", "--new-user-password", "rita-second"});
        QCOMPARE(text.waitForExit(), 0);
        QCOMPARE(text.standardOutput(), QByteArray("Password updated\n"));
        int exitCode = -1;
        m_cluster->etcdctl({"--user", "rita:rita-secret", "get", "/data/x"}, &exitCode);
        QVERIFY(exitCode != 0);
        m_cluster->etcdctl({"--user", "rita:rita-second", "get", "/data/x"}, &exitCode);
        QCOMPARE(exitCode, 0);

        const QList<QJsonObject> revoked = root({"role", "revoke-permission", "reader", "/data/", "--prefix", "--yes"});
        QCOMPARE(revoked.value(0).value("revoked").toBool(), true);
        QVERIFY(!etcdctl({"role", "get", "reader"}).contains("/data/"));
        QCOMPARE(root({"user", "revoke-role", "rita", "reader", "--yes"}).size(), 1);
        QVERIFY(!etcdctl({"user", "get", "rita"}).contains("reader"));
        QCOMPARE(root({"user", "delete", "rita", "--yes"}).size(), 1);
        QCOMPARE(root({"role", "delete", "reader", "--yes"}).size(), 1);
        QVERIFY(!etcdctl({"user", "list"}).contains("rita"));
        QVERIFY(!etcdctl({"role", "list"}).contains("reader"));
    }

    // Off a terminal a destructive action wants --yes (exit 128) and nothing changes.
    void destructiveActionsWantYes()
    {
        for (const QStringList &arguments : {QStringList{"user", "delete", "app"}, QStringList{"role", "delete", "app-role"},
                                             QStringList{"user", "revoke-role", "app", "app-role"},
                                             QStringList{"role", "revoke-permission", "app-role", "/app/", "--prefix"},
                                             QStringList{"auth", "disable"}}) {
            auto process = asRoot(arguments);
            QCOMPARE(process->waitForExit(), 128);
            QVERIFY2(process->standardError().contains("--yes"), process->standardError().constData());
        }
        QVERIFY(etcdctl({"user", "get", "app"}).contains("Roles: app-role"));
        QVERIFY(etcdctl({"role", "get", "app-role"}).contains("(prefix /app/)"));
        QCOMPARE(root({"auth", "status"}).value(0).value("auth_enabled").toBool(), true);
    }

    // --read-only: every write refused (exit 1) before a password is read or anything sent.
    void readOnlyRefusesEveryWrite()
    {
        for (const QStringList &arguments :
             {QStringList{"user", "add", "readonly-user", "--interactive=false"}, QStringList{"user", "passwd", "app", "--interactive=false"},
              QStringList{"user", "delete", "app", "--yes"}, QStringList{"user", "grant-role", "app", "root"},
              QStringList{"role", "add", "ro-role"}, QStringList{"role", "grant-permission", "app-role", "read", "/x"},
              QStringList{"role", "revoke-permission", "app-role", "/app/", "--prefix", "--yes"},
              QStringList{"auth", "disable", "--yes"}, QStringList{"auth", "enable"}}) {
            auto process = asRoot(QStringList{"--read-only"} + arguments);
            process->feed("never-read\n");
            QCOMPARE(process->waitForExit(), 1);
            QVERIFY2(process->standardError().contains("read-only"), process->standardError().constData());
        }
        QVERIFY(!etcdctl({"user", "list"}).contains("readonly-user"));
        QVERIFY(!etcdctl({"user", "get", "app"}).contains("root"));
        QVERIFY(!etcdctl({"role", "list"}).contains("ro-role"));
        // Reads still answer.
        QVERIFY(root({"--read-only", "user", "list"}).contains(QJsonObject{{"user", "app"}}));
    }

    // app has no rights over auth data beyond its own user and roles: etcd refuses, exit 1, and
    // the message names the call.
    void aUserWithoutRightsIsToldWhich()
    {
        for (const QStringList &arguments : {QStringList{"user", "list"}, QStringList{"user", "get", "root"},
                                             QStringList{"role", "add", "mine"}}) {
            Qetcd process(endpoint(), QStringList{"--user", "app:apppw"} + arguments);
            QCOMPARE(process.waitForExit(), 1);
            const QByteArray error = process.standardError();
            QVERIFY2(error.contains(arguments.mid(0, 2).join(' ').toUtf8()) && error.contains("permission denied")
                         && error.contains("user \"app\" lacks the permission"),
                     error.constData());
        }
    }

    void passwordsStayOffTheCommandLine()
    {
        auto colon = asRoot({"user", "add", "carl:pw-in-argv"});
        QCOMPARE(colon->waitForExit(), 128);
        QVERIFY2(colon->standardError().contains("--new-user-password"), colon->standardError().constData());
        QVERIFY(!colon->standardError().contains("pw-in-argv"));
        // Off a terminal, no prompt to hang on: told how to give it instead.
        auto unasked = asRoot({"user", "add", "carl"});
        QCOMPARE(unasked->waitForExit(), 128);
        QVERIFY2(unasked->standardError().contains("--interactive=false"), unasked->standardError().constData());
        auto empty = asRoot({"user", "add", "carl", "--interactive=false"});
        empty->feed("\n");
        QCOMPARE(empty->waitForExit(), 3);
        QVERIFY2(empty->standardError().contains("the password is empty"), empty->standardError().constData());
        QVERIFY(!etcdctl({"user", "list"}).contains("carl"));

        // Not to a plaintext endpoint on another machine (TEST-NET: nothing is sent there).
        for (const QString &action : {QStringLiteral("add"), QStringLiteral("passwd")}) {
            Qetcd remote("http://192.0.2.1:2379", {"user", action, "carl", "--interactive=false"});
            remote.feed("carl-secret\n");
            QCOMPARE(remote.waitForExit(), 128);
            QVERIFY2(remote.standardError().contains("would travel unencrypted to http://192.0.2.1:2379")
                         && remote.standardError().contains("--insecure-transport"),
                     remote.standardError().constData());
        }
    }

    // A cluster without a root user: enable refused, saying what is missing; then it works.
    void enableIsRefusedWithoutRoot()
    {
        EtcdCluster open;
        QVERIFY2(open.start(), qPrintable(open.errorString()));
        Qetcd status(open.clientUrl(0), {"auth", "status"});
        QCOMPARE(status.waitForExit(), 0);
        QCOMPARE(status.standardOutput(), QByteArray("Authentication Status: false\n"));
        Qetcd refused(open.clientUrl(0), {"auth", "enable"});
        QCOMPARE(refused.waitForExit(), 1);
        QVERIFY2(refused.standardError().contains("there is no user \"root\""), refused.standardError().constData());
        for (const QStringList &step : {QStringList{"user", "add", "root", "--new-user-password", "pw"},
                                        QStringList{"role", "add", "root"}, QStringList{"user", "grant-role", "root", "root"}}) {
            Qetcd process(open.clientUrl(0), step);
            QCOMPARE(process.waitForExit(), 0);
        }
        Qetcd enabled(open.clientUrl(0), {"auth", "enable"});
        QCOMPARE(enabled.waitForExit(), 0);
        QCOMPARE(enabled.standardOutput(), QByteArray("Authentication Enabled\n"));
        Qetcd anonymous(open.clientUrl(0), {"auth", "status"});
        QCOMPARE(anonymous.waitForExit(), 0);
        QCOMPARE(anonymous.standardOutput(), QByteArray("Authentication Status: true\n"));
        Qetcd disabled(open.clientUrl(0), {"--user", "root:pw", "auth", "disable", "--yes"});
        QCOMPARE(disabled.waitForExit(), 0);
        QCOMPARE(disabled.standardOutput(), QByteArray("Authentication Disabled\n"));
    }
};

QTEST_GUILESS_MAIN(tst_CliAccess)
#include "tst_cli_access.moc"
