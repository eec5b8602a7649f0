// SPDX-License-Identifier: Apache-2.0
#include "etcdcluster.h"

#include "testinglogging_p.h"
#include "testtimeouts.h"

#include <QtCore/QDeadlineTimer>
#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QEventLoop>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QRandomGenerator>
#include <QtCore/QStandardPaths>
#include <QtCore/QTemporaryDir>
#include <QtCore/QTimer>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkProxy>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QSslCertificate>
#include <QtNetwork/QSslConfiguration>
#include <QtNetwork/QSslKey>
#include <QtNetwork/QSslSocket>
#include <QtNetwork/QTcpServer>

#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <vector>

namespace QEtcd::Testing {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

namespace {

// etcd hands leadership over on SIGTERM, but a member whose peers are gone can take ~10 s to
// exit, so a graceful stop is bounded and followed by SIGKILL.
constexpr milliseconds StopGrace = 5s;
constexpr milliseconds ReapTimeout = 5s;
constexpr milliseconds LaunchTimeout = 10s;
constexpr milliseconds PollInterval = 100ms;
constexpr milliseconds ProbeTimeout = 2s;
// Free ports are found by binding and releasing them, so another process can take one before
// etcd binds it; a start that fails that way is retried with fresh ports.
constexpr int StartAttempts = 3;

QString findBinary(const char *environmentVariable, const QString &defaultName)
{
    const QString configured = qEnvironmentVariable(environmentVariable);
    const QString name = configured.isEmpty() ? defaultName : configured;
    if (name.contains(QLatin1Char('/'))) {
        const QFileInfo info(name);
        return info.isFile() && info.isExecutable() ? info.absoluteFilePath() : QString();
    }
    return QStandardPaths::findExecutable(name);
}

// A crashed or killed test must not leave etcd members running behind it.
void killWithParent(QProcess &process)
{
    const pid_t parent = ::getpid();
    process.setChildProcessModifier([parent] {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        // The parent may have died between fork() and prctl(); then no signal will come.
        if (::getppid() != parent)
            ::_exit(127);
    });
}

// Inherited ETCD_* / ETCDCTL_* variables would clash with the flags given here (etcd refuses
// a flag that an environment variable also sets).
QProcessEnvironment environmentWithout(const QString &prefix)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    const QStringList keys = environment.keys();
    for (const QString &key : keys) {
        if (key.startsWith(prefix))
            environment.remove(key);
    }
    return environment;
}

// Ports are held open together so the kernel hands out distinct ones, then released for etcd.
QList<quint16> freeLoopbackPorts(int count)
{
    std::vector<std::unique_ptr<QTcpServer>> holders;
    QList<quint16> ports;
    for (int i = 0; i < count; ++i) {
        auto server = std::make_unique<QTcpServer>();
        if (!server->listen(QHostAddress::LocalHost, 0))
            return {};
        ports.append(server->serverPort());
        holders.push_back(std::move(server));
    }
    return ports;
}

QSslKey readPrivateKey(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QByteArray pem = file.readAll();
    for (QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec}) {
        QSslKey key(pem, algorithm, QSsl::Pem);
        if (!key.isNull())
            return key;
    }
    return {};
}

struct Member
{
    QString name;
    quint16 clientPort = 0;
    quint16 peerPort = 0;
    std::unique_ptr<QProcess> process;
    bool paused = false;
};

} // namespace

class EtcdClusterPrivate
{
public:
    explicit EtcdClusterPrivate(const EtcdCluster::Options &options);

    bool validIndex(int index, const char *function);
    bool running(int index);
    bool tls() const { return !options.certFile.isEmpty() && !options.keyFile.isEmpty(); }
    QString clientUrl(int index) const;
    QString peerUrl(int index) const;
    QString logPath(int index) const;
    QString logTail(int index, int lines) const;
    bool checkConfiguration();
    bool attemptStart(bool *portTaken);
    bool launch(int index, bool existingCluster);
    using Probe = bool (EtcdClusterPrivate::*)(int index, QDeadlineTimer deadline, QString *answer);
    bool waitFor(Probe probe, int index, QDeadlineTimer deadline, const QList<int> &mustStayUp);
    bool waitUntilHealthy(int index, QDeadlineTimer deadline, const QList<int> &mustStayUp)
    {
        return waitFor(&EtcdClusterPrivate::probeHealth, index, deadline, mustStayUp);
    }
    bool httpGet(const QUrl &url, QDeadlineTimer deadline, QByteArray *body, QString *problem);
    bool probeHealth(int index, QDeadlineTimer deadline, QString *answer);
    bool probePeerService(int index, QDeadlineTimer deadline, QString *answer);
    bool stopProcess(int index, milliseconds grace);
    void stopAll();
    bool fail(const QString &message);

    const EtcdCluster::Options options;
    QTemporaryDir root;
    QString etcdBinary;
    QString clusterToken;
    std::vector<Member> members;
    QString errorString;
    QSslConfiguration sslConfiguration;
    std::unique_ptr<QNetworkAccessManager> network; // made on first use, in the owner's thread
};

EtcdClusterPrivate::EtcdClusterPrivate(const EtcdCluster::Options &options)
    : options(options), root(QDir::tempPath() + QStringLiteral("/qetcd-cluster-XXXXXX"))
{
    members.resize(size_t(std::max(options.members, 0)));
    for (size_t i = 0; i < members.size(); ++i)
        members[i].name = QStringLiteral("m%1").arg(i);
}

bool EtcdClusterPrivate::fail(const QString &message)
{
    errorString = message;
    qCWarning(lcTesting).noquote() << "EtcdCluster:" << message;
    return false;
}

bool EtcdClusterPrivate::validIndex(int index, const char *function)
{
    if (index >= 0 && size_t(index) < members.size())
        return true;
    return fail(QStringLiteral("%1: no member %2 (the cluster has %3)")
                        .arg(QLatin1String(function))
                        .arg(index)
                        .arg(members.size()));
}

bool EtcdClusterPrivate::running(int index)
{
    QProcess *process = members[size_t(index)].process.get();
    if (!process)
        return false;
    // Without an event loop QProcess only learns of an exit when asked; ask without waiting.
    if (process->state() == QProcess::Running)
        process->waitForFinished(0);
    return process->state() != QProcess::NotRunning;
}

QString EtcdClusterPrivate::clientUrl(int index) const
{
    return QStringLiteral("%1://127.0.0.1:%2")
            .arg(tls() ? QStringLiteral("https") : QStringLiteral("http"))
            .arg(members[size_t(index)].clientPort);
}

QString EtcdClusterPrivate::peerUrl(int index) const
{
    return QStringLiteral("http://127.0.0.1:%1").arg(members[size_t(index)].peerPort);
}

QString EtcdClusterPrivate::logPath(int index) const
{
    return root.filePath(members[size_t(index)].name + QStringLiteral(".log"));
}

QString EtcdClusterPrivate::logTail(int index, int lines) const
{
    QFile file(logPath(index));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    // etcd's zap lines run to a few hundred bytes; reading a bounded tail keeps this cheap on
    // a log that grew for minutes.
    const qint64 window = qint64(std::max(lines, 1)) * 2048;
    file.seek(std::max<qint64>(0, file.size() - window));
    QStringList all = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
    if (!all.isEmpty() && all.constLast().isEmpty())
        all.removeLast();
    return all.mid(std::max<qsizetype>(0, all.size() - lines)).join(QLatin1Char('\n'));
}

bool EtcdClusterPrivate::checkConfiguration()
{
    if (members.empty())
        return fail(QStringLiteral("Options::members must be at least 1, got %1").arg(options.members));
    if (!root.isValid())
        return fail(QStringLiteral("cannot create a temporary directory: %1").arg(root.errorString()));
    etcdBinary = findBinary("QETCD_ETCD_BINARY", QStringLiteral("etcd"));
    if (etcdBinary.isEmpty()) {
        return fail(QStringLiteral("etcd not found (QETCD_ETCD_BINARY, else etcd on PATH); "
                                   "install it, e.g. apt-get install etcd-server etcd-client"));
    }
    if (options.certFile.isEmpty() != options.keyFile.isEmpty())
        return fail(QStringLiteral("Options::certFile and Options::keyFile go together"));
    if (options.clientCertAuth && (!tls() || options.caFile.isEmpty()))
        return fail(QStringLiteral("Options::clientCertAuth needs certFile, keyFile and caFile"));
    if (!tls())
        return true;

    if (!QSslSocket::supportsSsl())
        return fail(QStringLiteral("TLS requested but Qt has no TLS backend"));
    sslConfiguration = QSslConfiguration::defaultConfiguration();
    if (!options.caFile.isEmpty()) {
        const QList<QSslCertificate> authorities = QSslCertificate::fromPath(options.caFile);
        if (authorities.isEmpty())
            return fail(QStringLiteral("no certificate in caFile %1").arg(options.caFile));
        sslConfiguration.setCaCertificates(authorities);
    }
    if (!options.clientCertFile.isEmpty()) {
        const QList<QSslCertificate> certificates = QSslCertificate::fromPath(options.clientCertFile);
        const QSslKey key = readPrivateKey(options.clientKeyFile);
        if (certificates.isEmpty() || key.isNull()) {
            return fail(QStringLiteral("cannot read the client certificate %1 or its key %2")
                                .arg(options.clientCertFile, options.clientKeyFile));
        }
        sslConfiguration.setLocalCertificate(certificates.constFirst());
        sslConfiguration.setPrivateKey(key);
    }
    return true;
}

bool EtcdClusterPrivate::launch(int index, bool existingCluster)
{
    Member &member = members[size_t(index)];
    QStringList initialCluster;
    for (size_t i = 0; i < members.size(); ++i)
        initialCluster << members[i].name + QLatin1Char('=') + peerUrl(int(i));

    const QString url = clientUrl(index);
    const QString peer = peerUrl(index);
    QStringList arguments{
        QStringLiteral("--name"), member.name,
        QStringLiteral("--data-dir"), root.filePath(member.name + QStringLiteral(".etcd")),
        QStringLiteral("--listen-client-urls"), url,
        QStringLiteral("--advertise-client-urls"), url,
        QStringLiteral("--listen-peer-urls"), peer,
        QStringLiteral("--initial-advertise-peer-urls"), peer,
        QStringLiteral("--initial-cluster"), initialCluster.join(QLatin1Char(',')),
        QStringLiteral("--initial-cluster-state"),
        existingCluster ? QStringLiteral("existing") : QStringLiteral("new"),
        QStringLiteral("--initial-cluster-token"), clusterToken,
        QStringLiteral("--heartbeat-interval"), QStringLiteral("100"),
        QStringLiteral("--election-timeout"), QStringLiteral("1000"),
        QStringLiteral("--logger"), QStringLiteral("zap"),
        QStringLiteral("--log-outputs"), QStringLiteral("stderr"),
    };
    if (tls()) {
        arguments << QStringLiteral("--cert-file") << options.certFile
                  << QStringLiteral("--key-file") << options.keyFile;
        if (options.clientCertAuth) {
            arguments << QStringLiteral("--client-cert-auth")
                      << QStringLiteral("--trusted-ca-file") << options.caFile;
        }
    }
    arguments << options.extraArgs;

    // A restart appends, so the log shows the member's whole life; the marker separates runs.
    const QIODevice::OpenMode logMode = existingCluster ? QIODevice::Append : QIODevice::Truncate;
    QFile log(logPath(index));
    if (log.open(QIODevice::WriteOnly | logMode)) {
        log.write(QStringLiteral("==== qetcd: %1 %2\n")
                          .arg(etcdBinary, arguments.join(QLatin1Char(' ')))
                          .toUtf8());
    }
    log.close();

    member.paused = false;
    member.process = std::make_unique<QProcess>();
    QProcess &process = *member.process;
    process.setProgram(etcdBinary);
    process.setArguments(arguments);
    process.setProcessEnvironment(environmentWithout(QStringLiteral("ETCD_")));
    process.setStandardInputFile(QProcess::nullDevice());
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.setStandardOutputFile(logPath(index), QIODevice::Append);
    killWithParent(process);
    process.start();
    if (!process.waitForStarted(int(scaled(LaunchTimeout).count()))) {
        return fail(QStringLiteral("cannot run %1 for member %2: %3")
                            .arg(etcdBinary, member.name, process.errorString()));
    }
    qCDebug(lcTesting) << "EtcdCluster: launched" << member.name << "pid" << process.processId()
                       << "client" << url << "peer" << peer;
    return true;
}

bool EtcdClusterPrivate::httpGet(const QUrl &url, QDeadlineTimer deadline, QByteArray *body, QString *problem)
{
    if (!network) {
        network = std::make_unique<QNetworkAccessManager>();
        // Loopback members must never be reached through a proxy from the environment.
        network->setProxy(QNetworkProxy::NoProxy);
    }
    QNetworkRequest request(url);
    request.setTransferTimeout(int(std::clamp<qint64>(deadline.remainingTime(), 1, ProbeTimeout.count())));
    // etcd multiplexes gRPC and HTTP on one port; plain HTTP/1.1 keeps the probe off the gRPC path.
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    if (url.scheme() == QLatin1String("https"))
        request.setSslConfiguration(sslConfiguration);

    std::unique_ptr<QNetworkReply> reply(network->get(request));
    QEventLoop loop;
    QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
    if (!reply->isFinished())
        loop.exec();
    // A reply that failed before any response is closed; reading it would only warn.
    *body = reply->isOpen() ? reply->readAll() : QByteArray();
    *problem = reply->error() == QNetworkReply::NoError ? QString() : reply->errorString();
    return reply->error() == QNetworkReply::NoError;
}

bool EtcdClusterPrivate::probeHealth(int index, QDeadlineTimer deadline, QString *answer)
{
    QByteArray body;
    QString problem;
    httpGet(QUrl(clientUrl(index) + QStringLiteral("/health")), deadline, &body, &problem);
    // An unhealthy member answers 503 with a JSON body; the body says more than the status.
    *answer = body.isEmpty() ? problem : QString::fromUtf8(body).trimmed();
    const QJsonValue health = QJsonDocument::fromJson(body).object().value(QStringLiteral("health"));
    return health.toString() == QStringLiteral("true") || health.toBool();
}

double EtcdCluster::metric(int member, const QString &series)
{
    const QHash<QString, double> read = metrics(member, {series});
    return read.isEmpty() ? -1 : read.value(series);
}

QHash<QString, double> EtcdCluster::metrics(int member, const QStringList &series)
{
    QByteArray page;
    QString problem;
    if (!d->httpGet(QUrl(clientUrl(member) + QStringLiteral("/metrics")),
                    QDeadlineTimer(scaled(ProbeTimeout)), &page, &problem)) {
        qCWarning(lcTesting).noquote() << "EtcdCluster: no metrics from member" << member << ":" << problem;
        return {};
    }
    QHash<QString, double> sums;
    for (const QString &each : series)
        sums.insert(each, 0);
    const QList<QByteArray> lines = page.split('\n');
    for (const QString &each : series) {
        const QByteArray wanted = each.toUtf8();
        for (const QByteArray &line : lines) {
            if (line.startsWith(wanted))
                sums[each] += line.mid(line.lastIndexOf(' ') + 1).toDouble();
        }
    }
    return sums;
}

bool EtcdClusterPrivate::probePeerService(int index, QDeadlineTimer deadline, QString *answer)
{
    QByteArray version;
    return httpGet(QUrl(peerUrl(index) + QStringLiteral("/version")), deadline, &version, answer);
}

bool EtcdClusterPrivate::waitFor(Probe probe, int index, QDeadlineTimer deadline,
                                 const QList<int> &mustStayUp)
{
    QElapsedTimer elapsed;
    elapsed.start();
    QString answer;
    for (;;) {
        for (int watched : mustStayUp) {
            if (!running(watched)) {
                const QProcess &process = *members[size_t(watched)].process;
                return fail(QStringLiteral("etcd member %1 exited (status %2) while waiting for %3; "
                                           "its log ends:\n%4")
                                    .arg(members[size_t(watched)].name)
                                    .arg(process.exitCode())
                                    .arg(members[size_t(index)].name, logTail(watched, 40)));
            }
        }
        if ((this->*probe)(index, deadline, &answer))
            return true;
        if (deadline.hasExpired()) {
            const bool health = probe == &EtcdClusterPrivate::probeHealth;
            return fail(QStringLiteral("etcd member %1 at %2 not %3 after %4 ms (last answer: %5); "
                                       "its log ends:\n%6")
                                .arg(members[size_t(index)].name,
                                     health ? clientUrl(index) : peerUrl(index),
                                     health ? QStringLiteral("healthy") : QStringLiteral("serving peers"))
                                .arg(elapsed.elapsed())
                                .arg(answer, logTail(index, 40)));
        }
        // A member that exits ends the pause early, so a crash fails the wait at once.
        QEventLoop loop;
        for (int watched : mustStayUp) {
            QObject::connect(members[size_t(watched)].process.get(), &QProcess::finished, &loop,
                             &QEventLoop::quit);
        }
        QTimer::singleShot(int(std::min<qint64>(PollInterval.count(), deadline.remainingTime())),
                           &loop, &QEventLoop::quit);
        loop.exec();
    }
}

bool EtcdClusterPrivate::stopProcess(int index, milliseconds grace)
{
    Member &member = members[size_t(index)];
    QProcess &process = *member.process;
    if (grace > 0ms) {
        process.terminate();
        // A stopped process only acts on SIGTERM once it runs again.
        if (member.paused)
            ::kill(pid_t(process.processId()), SIGCONT);
        process.waitForFinished(int(grace.count()));
    }
    if (process.state() != QProcess::NotRunning) {
        process.kill();
        if (!process.waitForFinished(int(ReapTimeout.count())))
            return fail(QStringLiteral("etcd member %1 (pid %2) did not exit after SIGKILL")
                                .arg(member.name)
                                .arg(process.processId()));
    }
    member.paused = false;
    return true;
}

void EtcdClusterPrivate::stopAll()
{
    // Signal every member first so they shut down in parallel within one grace period.
    QList<int> stopping;
    for (size_t i = 0; i < members.size(); ++i) {
        if (running(int(i))) {
            stopping << int(i);
            members[i].process->terminate();
            if (members[i].paused)
                ::kill(pid_t(members[i].process->processId()), SIGCONT);
        }
    }
    // Followers exit at once; a leader first tries to hand leadership to a peer for up to ~7 s.
    // Once every other member is gone that hand-over cannot succeed, so the last one is killed
    // rather than waited for. A single-member cluster never hands over and exits promptly.
    const QDeadlineTimer grace(StopGrace);
    for (;;) {
        stopping.removeIf([this](int index) { return !running(index); });
        if (stopping.isEmpty())
            break;
        if (grace.hasExpired() || (members.size() > 1 && stopping.size() == 1)) {
            for (int index : std::as_const(stopping))
                stopProcess(index, 0ms);
            break;
        }
        const qint64 slice = std::clamp<qint64>(grace.remainingTime(), 1, PollInterval.count() / 2);
        members[size_t(stopping.constFirst())].process->waitForFinished(int(slice));
    }
    for (Member &member : members)
        member.paused = false;
}

bool EtcdClusterPrivate::attemptStart(bool *portTaken)
{
    *portTaken = false;
    const QList<quint16> ports = freeLoopbackPorts(int(members.size()) * 2);
    if (ports.isEmpty())
        return fail(QStringLiteral("cannot find free loopback ports"));
    for (size_t i = 0; i < members.size(); ++i) {
        members[i].clientPort = ports[qsizetype(2 * i)];
        members[i].peerPort = ports[qsizetype(2 * i + 1)];
        QDir(root.filePath(members[i].name + QStringLiteral(".etcd"))).removeRecursively();
    }
    clusterToken = QStringLiteral("qetcd-%1").arg(QRandomGenerator::global()->generate64(), 0, 16);

    // Each member is launched once the previous one serves its peer URL: a new member asks its
    // peers whether it was bootstrapped already, and peers that listen but do not serve yet make
    // it wait out a 1 s timeout per peer (launched together, 3 members take ~2.3 s, not ~0.7 s).
    // Health is only awaited once all are up: a member is healthy only when it has a leader.
    const QDeadlineTimer deadline(scaled(options.startTimeout));
    QList<int> launched;
    bool ok = true;
    for (size_t i = 0; i < members.size() && ok; ++i) {
        ok = launch(int(i), false);
        if (ok) {
            launched << int(i);
            ok = waitFor(&EtcdClusterPrivate::probePeerService, int(i), deadline, launched);
        }
    }
    for (int i = 0; i < launched.size() && ok; ++i)
        ok = waitUntilHealthy(launched[i], deadline, launched);
    if (ok)
        return true;

    stopAll();
    for (size_t i = 0; i < members.size(); ++i) {
        QFile log(logPath(int(i)));
        if (log.open(QIODevice::ReadOnly) && log.readAll().contains("address already in use"))
            *portTaken = true;
    }
    return false;
}

EtcdCluster::EtcdCluster(QObject *parent) : EtcdCluster(Options(), parent) { }

EtcdCluster::EtcdCluster(const Options &options, QObject *parent)
    : QObject(parent), d(std::make_unique<EtcdClusterPrivate>(options))
{
}

EtcdCluster::~EtcdCluster()
{
    stop();
}

bool EtcdCluster::start()
{
    for (size_t i = 0; i < d->members.size(); ++i) {
        if (d->running(int(i)))
            return d->fail(QStringLiteral("start(): member %1 is already running").arg(d->members[i].name));
    }
    if (!d->checkConfiguration())
        return false;

    QElapsedTimer elapsed;
    elapsed.start();
    for (int attempt = 1; attempt <= StartAttempts; ++attempt) {
        bool portTaken = false;
        if (d->attemptStart(&portTaken)) {
            d->errorString.clear();
            qCDebug(lcTesting) << "EtcdCluster: healthy after" << elapsed.elapsed() << "ms at"
                               << clientUrls();
            return true;
        }
        if (!portTaken)
            return false;
        qCInfo(lcTesting) << "EtcdCluster: a port was taken before etcd bound it; retrying with new ports";
    }
    return false;
}

void EtcdCluster::stop()
{
    d->stopAll();
}

QString EtcdCluster::errorString() const
{
    return d->errorString;
}

int EtcdCluster::memberCount() const
{
    return int(d->members.size());
}

QStringList EtcdCluster::clientUrls() const
{
    QStringList urls;
    for (size_t i = 0; i < d->members.size(); ++i)
        urls << d->clientUrl(int(i));
    return urls;
}

QString EtcdCluster::clientUrl(int member) const
{
    return d->validIndex(member, "clientUrl") ? d->clientUrl(member) : QString();
}

quint16 EtcdCluster::clientPort(int member) const
{
    return d->validIndex(member, "clientPort") ? d->members[size_t(member)].clientPort : 0;
}

QString EtcdCluster::peerUrl(int member) const
{
    return d->validIndex(member, "peerUrl") ? d->peerUrl(member) : QString();
}

QString EtcdCluster::dataDir(int member) const
{
    if (!d->validIndex(member, "dataDir"))
        return {};
    return d->root.filePath(d->members[size_t(member)].name + QStringLiteral(".etcd"));
}

QString EtcdCluster::memberName(int member) const
{
    return d->validIndex(member, "memberName") ? d->members[size_t(member)].name : QString();
}

qint64 EtcdCluster::pid(int member) const
{
    if (!d->validIndex(member, "pid") || !d->running(member))
        return 0;
    return d->members[size_t(member)].process->processId();
}

bool EtcdCluster::isRunning(int member) const
{
    return d->validIndex(member, "isRunning") && d->running(member);
}

bool EtcdCluster::stopMember(int member)
{
    if (!d->validIndex(member, "stopMember"))
        return false;
    if (!d->running(member))
        return d->fail(QStringLiteral("stopMember(): %1 is not running").arg(memberName(member)));
    return d->stopProcess(member, StopGrace);
}

bool EtcdCluster::killMember(int member)
{
    if (!d->validIndex(member, "killMember"))
        return false;
    if (!d->running(member))
        return d->fail(QStringLiteral("killMember(): %1 is not running").arg(memberName(member)));
    return d->stopProcess(member, 0ms);
}

bool EtcdCluster::restartMember(int member)
{
    if (!d->validIndex(member, "restartMember"))
        return false;
    if (d->members[size_t(member)].clientPort == 0)
        return d->fail(QStringLiteral("restartMember(): the cluster was never started"));
    if (d->running(member) && !d->stopProcess(member, StopGrace))
        return false;
    if (!d->launch(member, true))
        return false;
    return d->waitUntilHealthy(member, QDeadlineTimer(scaled(d->options.startTimeout)), {member});
}

bool EtcdCluster::pauseMember(int member)
{
    if (!d->validIndex(member, "pauseMember"))
        return false;
    if (!d->running(member))
        return d->fail(QStringLiteral("pauseMember(): %1 is not running").arg(memberName(member)));
    if (::kill(pid_t(pid(member)), SIGSTOP) != 0)
        return d->fail(QStringLiteral("pauseMember(): SIGSTOP failed: %1").arg(qt_error_string(errno)));
    d->members[size_t(member)].paused = true;
    return true;
}

bool EtcdCluster::resumeMember(int member)
{
    if (!d->validIndex(member, "resumeMember"))
        return false;
    if (!d->running(member))
        return d->fail(QStringLiteral("resumeMember(): %1 is not running").arg(memberName(member)));
    if (::kill(pid_t(pid(member)), SIGCONT) != 0)
        return d->fail(QStringLiteral("resumeMember(): SIGCONT failed: %1").arg(qt_error_string(errno)));
    d->members[size_t(member)].paused = false;
    return true;
}

bool EtcdCluster::waitForHealthy(int member, milliseconds timeout)
{
    if (!d->validIndex(member, "waitForHealthy"))
        return false;
    return d->waitUntilHealthy(member, QDeadlineTimer(scaled(timeout)), {member});
}

QByteArray EtcdCluster::etcdctl(const QStringList &args, int *exitCode, QByteArray *standardError,
                                milliseconds timeout) const
{
    const auto finish = [&](int code, const QByteArray &out, const QByteArray &err) {
        if (exitCode)
            *exitCode = code;
        if (standardError)
            *standardError = err;
        return out;
    };

    const QString binary = findBinary("QETCD_ETCDCTL_BINARY", QStringLiteral("etcdctl"));
    if (binary.isEmpty()) {
        const QByteArray message = "etcdctl not found (QETCD_ETCDCTL_BINARY, else etcdctl on PATH); "
                                   "install it, e.g. apt-get install etcd-client";
        qCWarning(lcTesting) << message;
        return finish(-1, {}, message);
    }

    QStringList arguments;
    const bool ownEndpoints = std::any_of(args.cbegin(), args.cend(), [](const QString &arg) {
        return arg == QLatin1String("--endpoints") || arg.startsWith(QLatin1String("--endpoints="));
    });
    if (!ownEndpoints) {
        QStringList endpoints;
        for (size_t i = 0; i < d->members.size(); ++i) {
            if (d->running(int(i)))
                endpoints << d->clientUrl(int(i));
        }
        // With no member up, name them all anyway: an empty list would make etcdctl fall back
        // to 127.0.0.1:2379, which may be some other etcd.
        if (endpoints.isEmpty())
            endpoints = clientUrls();
        arguments << QStringLiteral("--endpoints=") + endpoints.join(QLatin1Char(','));
    }
    if (!d->options.caFile.isEmpty())
        arguments << QStringLiteral("--cacert=") + d->options.caFile;
    if (!d->options.clientCertFile.isEmpty()) {
        arguments << QStringLiteral("--cert=") + d->options.clientCertFile
                  << QStringLiteral("--key=") + d->options.clientKeyFile;
    }
    arguments << args;

    QProcessEnvironment environment = environmentWithout(QStringLiteral("ETCDCTL_"));
    environment.insert(QStringLiteral("ETCDCTL_API"), QStringLiteral("3"));
    QProcess process;
    process.setProgram(binary);
    process.setArguments(arguments);
    process.setProcessEnvironment(environment);
    process.setStandardInputFile(QProcess::nullDevice());
    killWithParent(process);
    qCDebug(lcTesting) << "EtcdCluster: etcdctl" << arguments;
    process.start();
    if (!process.waitForStarted(int(scaled(LaunchTimeout).count())))
        return finish(-1, {}, process.errorString().toUtf8());
    if (!process.waitForFinished(int(scaled(timeout).count()))) {
        process.kill();
        process.waitForFinished(int(ReapTimeout.count()));
        return finish(-1, process.readAllStandardOutput(),
                      process.readAllStandardError() + "\n[etcdctl timed out and was killed]");
    }
    const int code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return finish(code, process.readAllStandardOutput(), process.readAllStandardError());
}

QString EtcdCluster::logTail(int member, int lines) const
{
    return d->validIndex(member, "logTail") ? d->logTail(member, lines) : QString();
}

} // namespace QEtcd::Testing
