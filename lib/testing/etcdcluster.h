// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdtestingexport.h>

#include <QtCore/QByteArray>
#include <QtCore/QHash>
#include <QtCore/QObject>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <chrono>
#include <memory>

/// What programs need to test their own code against real etcd (library QEtcd::Testing).
namespace QEtcd::Testing {

class EtcdClusterPrivate;

/// Runs a throw-away etcd cluster of real members on loopback for tests.
///
/// Runs real etcd members on free loopback ports with throw-away data directories, and lets a
/// test stop, kill, pause and restart them. Not thread-safe: use it from the thread that made it.
/// Every timeout given to it is stretched by scaled() (see testtimeouts.h).
///
/// The binaries come from QETCD_ETCD_BINARY / QETCD_ETCDCTL_BINARY, else etcd / etcdctl on PATH.
/// Each member's stdout and stderr go to a log beside its data directory (logTail() quotes it),
/// and members die with the test process, so a crashed test leaves nothing behind.
class QETCD_TESTING_EXPORT EtcdCluster : public QObject
{
    Q_OBJECT
public:
    /// What the cluster is made of.
    struct Options
    {
        int members = 1;        ///< How many members: 1 or 3, typically.
        QStringList extraArgs;  ///< Appended to every member's etcd command line.
        ///@{
        /// The cluster's TLS files (PEM). With certFile and keyFile the client URLs are https;
        /// clientCertAuth makes etcd demand client certificates signed by caFile. Peers always
        /// talk plain http.
        QString caFile, certFile, keyFile;
        ///@}
        bool clientCertAuth = false;  ///< Demand client certificates signed by caFile.
        ///@{
        /// The client certificate and key the cluster itself presents for health checks and
        /// etcdctl.
        QString clientCertFile, clientKeyFile;
        ///@}
        std::chrono::milliseconds startTimeout{30000};  ///< How long start() waits for health.
    };

    /// A one-member cluster, not started.
    explicit EtcdCluster(QObject *parent = nullptr);
    /// A cluster as \a options say, not started.
    explicit EtcdCluster(const Options &options, QObject *parent = nullptr);
    /// Stops every member and removes the data.
    ~EtcdCluster() override;

    /// Starts every member and blocks until each answers /health; false with errorString()
    /// when that did not happen within startTimeout.
    bool start();
    /// Stops every member: SIGTERM, then SIGKILL after about 5 s. Idempotent.
    void stop();
    /// What went wrong in the last call that returned false.
    QString errorString() const;

    /// How many members the cluster has.
    int memberCount() const;
    /// Every member's client URL, for ClientOptions::endpoints.
    QStringList clientUrls() const;
    /// The client URL of \a member (0-based).
    QString clientUrl(int member) const;
    /// The client port of \a member, to put a FaultProxy in front of.
    quint16 clientPort(int member) const;
    /// The peer URL of \a member.
    QString peerUrl(int member) const;
    /// The data directory of \a member.
    QString dataDir(int member) const;
    /// The name of \a member: "m0", "m1", ...
    QString memberName(int member) const;
    /// The process ID of \a member; 0 when not running.
    qint64 pid(int member) const;
    /// \a member's process runs (a paused one too).
    bool isRunning(int member) const;

    /// Stops \a member (SIGTERM, SIGKILL after about 5 s) and waits until it has exited.
    ///
    /// This and the calls below return false with errorString() when the member was in the
    /// wrong state (not running, never started) or the step did not happen.
    bool stopMember(int member);
    /// Kills \a member with SIGKILL and waits until it has exited.
    bool killMember(int member);
    /// Restarts \a member on the same ports and data directory, stopping it first if it runs,
    /// and waits until it is healthy again.
    bool restartMember(int member);
    /// Freezes \a member with SIGSTOP; it keeps its connections but answers nothing.
    bool pauseMember(int member);
    /// Thaws \a member with SIGCONT.
    bool resumeMember(int member);
    /// Blocks until \a member answers /health, or \a timeout passes.
    bool waitForHealthy(int member, std::chrono::milliseconds timeout);

    /// The sum of the samples on \a member's /metrics page whose series starts with \a series: a
    /// metric's name, optionally followed by the start of its labels
    /// (`grpc_server_started_total{grpc_method="Watch"`). -1 when the member did not answer.
    double metric(int member, const QString &series);
    /// metric() for several series from one reading of the page, by series: each reading costs
    /// etcd a few milliseconds of CPU. Empty when the member did not answer.
    QHash<QString, double> metrics(int member, const QStringList &series);

    /// Runs etcdctl (API v3) with this cluster's TLS files against every running member, unless
    /// args carry their own --endpoints. Returns standard output; exitCode is -1 on timeout.
    QByteArray etcdctl(const QStringList &args, int *exitCode = nullptr,
                       QByteArray *standardError = nullptr,
                       std::chrono::milliseconds timeout = std::chrono::milliseconds(15000)) const;
    /// The end of the member's log (etcd's stdout and stderr), for failure messages.
    QString logTail(int member, int lines = 40) const;

private:
    Q_DISABLE_COPY_MOVE(EtcdCluster)
    std::unique_ptr<EtcdClusterPrivate> d;
};

} // namespace QEtcd::Testing
