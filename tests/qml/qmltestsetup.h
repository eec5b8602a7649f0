// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../common/closedport.h"

#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/qetcdversion.h>
#include <QEtcd/testcertificates.h>

#include <QtCore/QObject>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtCore/QStringList>
#include <QtCore/QVariantMap>

#include <memory>

QT_BEGIN_NAMESPACE
class QQmlEngine;
QT_END_NAMESPACE

// What every QML suite here gets as the context property `qetcdTest`: one real etcd member,
// started once for the whole run, reachable directly and through a FaultProxy whose mode the
// tests set.
class QmlTestSetup : public QObject
{
    Q_OBJECT
    Q_PROPERTY(QString endpoint READ endpoint CONSTANT)
    Q_PROPERTY(QString proxyEndpoint READ proxyEndpoint CONSTANT)
    // The library's version, which `import QEtcd <major>.<minor>` names.
    Q_PROPERTY(int libraryMajorVersion READ libraryMajorVersion CONSTANT)
    Q_PROPERTY(int libraryMinorVersion READ libraryMinorVersion CONSTANT)

public:
    QmlTestSetup();
    ~QmlTestSetup() override;

    // Starts etcd and the proxy; false with errorString() when either cannot run.
    bool start();
    QString errorString() const;

    QString endpoint() const;
    QString proxyEndpoint() const;
    int libraryMajorVersion() const { return QETCD_VERSION_MAJOR; }
    int libraryMinorVersion() const { return QETCD_VERSION_MINOR; }

    // "pass", "blackhole" or "reset".
    Q_INVOKABLE void setFault(const QString &mode);
    // etcdctl against the member; its standard output.
    Q_INVOKABLE QString etcdctl(const QStringList &arguments) const;
    // Puts value at the key whose bytes keyHex spells in hex, which need not be UTF-8 (etcdctl
    // takes its keys as text); false when etcd did not take it.
    Q_INVOKABLE bool putBytes(const QString &keyHex, const QString &value) const;
    // Sets an environment variable of this process (unsets it when value is empty), for code
    // that reads one, such as QETCD_ETCD_BINARY; returns the value it had.
    Q_INVOKABLE QString setEnvironmentVariable(const QString &name, const QString &value);
    // A wait bound stretched by QETCD_TEST_TIMEOUT_SCALE.
    Q_INVOKABLE int timeout(int milliseconds) const;
    // A second member with authentication on, started at the first call: users "root"
    // (password "rootpw") and "app" ("apppw"), whose role may read and write only /app/.
    // Empty (with the reason as a warning) when it cannot start.
    Q_INVOKABLE QString authEndpoint();
    // A third member serving TLS with a certificate signed by "ca", started at the first call:
    // { endpoint, caFile: that CA, otherCaFile: a CA that signed nothing it serves }. Empty (with
    // the reason as a warning) when it cannot start.
    Q_INVOKABLE QVariantMap tlsEndpoint();
    // A fourth member with a 1 MiB quota, started and filled at the first call until etcd raised
    // NOSPACE. Empty (with the reason as a warning) when it cannot start or does not fill up.
    Q_INVOKABLE QString noSpaceEndpoint();
    // A cluster of three members of its own, started at the first call: a leadership to move.
    // Empty (with the reason as a warning) when it cannot start.
    Q_INVOKABLE QStringList threeMemberEndpoints();
    // A real OpenSSH server on loopback with host and client keys of its own, started at the
    // first call (Debian's openssh-server; no system service): { port, user, and three ssh
    // programs for QETCD_SSH: ssh (knows the host key, has the client key), unknownHost (knows no
    // host key) and noKey (has no key the server accepts) }, and closedPort, which refuses every
    // connection while the tests run. Empty (with the reason as a warning) when it cannot start.
    Q_INVOKABLE QVariantMap sshServer();
    // While on, every call of client (a QEtcd::Client) is answered as etcd answers with its
    // proposal queue full, "too many requests", without being sent.
    Q_INVOKABLE void answerTooManyRequests(QObject *client, bool on);
    // Appends to log (an EventLogModel) an event stamped at a monotonic time of the test's
    // choosing: a past to draw. The event is a map of participant, kind, detail, spurious and key.
    Q_INVOKABLE void appendEvent(QObject *log, double monotonicMs, const QVariantMap &event);
    // The clock of those stamps (EventLogModel::monotonicNowMs).
    Q_INVOKABLE double monotonicNowMs() const;
    // A path for a file of this name in a directory of this run's own.
    Q_INVOKABLE QString temporaryPath(const QString &name) const;
    // A file's contents as text; empty when it cannot be read.
    Q_INVOKABLE QString readFile(const QString &path) const;
    // Writes text to a file, replacing it, readable by all; false when it cannot.
    Q_INVOKABLE bool writeTextFile(const QString &path, const QString &text) const;

public Q_SLOTS:
    void qmlEngineAvailable(QQmlEngine *engine);

private:
    QEtcd::Testing::EtcdCluster m_cluster;
    std::unique_ptr<QEtcd::Testing::EtcdCluster> m_authCluster;
    std::unique_ptr<QEtcd::Testing::TestCertificates> m_certificates;
    std::unique_ptr<QEtcd::Testing::EtcdCluster> m_tlsCluster;
    std::unique_ptr<QEtcd::Testing::EtcdCluster> m_noSpaceCluster;
    std::unique_ptr<QEtcd::Testing::EtcdCluster> m_threeMembers;
    std::unique_ptr<QEtcd::Testing::FaultProxy> m_proxy;
    std::unique_ptr<QProcess> m_sshd;
    QEtcd::Testing::ClosedPort m_closedPort;
    QVariantMap m_ssh;
    QTemporaryDir m_files;
    QString m_errorString;
};
