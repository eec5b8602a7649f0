#pragma once

#include <QEtcd/qetcdtestingexport.h>

#include <QtCore/QByteArray>
#include <QtCore/QObject>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <chrono>
#include <memory>

namespace QEtcd::Testing {

class EtcdClusterPrivate;

// Runs real etcd members on free loopback ports with throw-away data directories, and lets a
// test stop, kill, pause and restart them. Not thread-safe: use it from the thread that made it.
// Every timeout given to it is stretched by scaled() (see testtimeouts.h).
//
// The binaries come from QETCD_ETCD_BINARY / QETCD_ETCDCTL_BINARY, else etcd / etcdctl on PATH.
class QETCD_TESTING_EXPORT EtcdCluster : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        int members = 1;
        QStringList extraArgs; // appended to every member's etcd command line
        // With certFile and keyFile the client URLs are https; clientCertAuth makes etcd demand
        // client certificates signed by caFile. Peers always talk plain http.
        QString caFile, certFile, keyFile;
        bool clientCertAuth = false;
        // The certificate the cluster itself presents for health checks and etcdctl.
        QString clientCertFile, clientKeyFile;
        std::chrono::milliseconds startTimeout{30000};
    };

    explicit EtcdCluster(QObject *parent = nullptr);
    explicit EtcdCluster(const Options &options, QObject *parent = nullptr);
    ~EtcdCluster() override; // stops every member

    // Blocks until every member answers /health, or fails with errorString().
    bool start();
    // SIGTERM, then SIGKILL after about 5 s; idempotent.
    void stop();
    QString errorString() const;

    int memberCount() const;
    QStringList clientUrls() const;
    QString clientUrl(int member) const;
    quint16 clientPort(int member) const;
    QString peerUrl(int member) const;
    QString dataDir(int member) const;
    QString memberName(int member) const; // "m0", "m1", ...
    qint64 pid(int member) const;         // 0 when not running
    bool isRunning(int member) const;

    // Each waits until the member has exited (or, for restart, is healthy again); false with
    // errorString() when that did not happen or the member was in the wrong state.
    bool stopMember(int member);    // SIGTERM, SIGKILL after about 5 s
    bool killMember(int member);    // SIGKILL
    bool restartMember(int member); // same ports and data dir; stops it first if running
    bool pauseMember(int member);   // SIGSTOP
    bool resumeMember(int member);  // SIGCONT
    bool waitForHealthy(int member, std::chrono::milliseconds timeout);

    // Runs etcdctl (API v3) with this cluster's TLS files against every running member, unless
    // args carry their own --endpoints. Returns standard output; exitCode is -1 on timeout.
    QByteArray etcdctl(const QStringList &args, int *exitCode = nullptr,
                       QByteArray *standardError = nullptr,
                       std::chrono::milliseconds timeout = std::chrono::milliseconds(15000)) const;
    // The end of the member's log (etcd's stdout and stderr), for failure messages.
    QString logTail(int member, int lines = 40) const;

private:
    Q_DISABLE_COPY_MOVE(EtcdCluster)
    std::unique_ptr<EtcdClusterPrivate> d;
};

} // namespace QEtcd::Testing
