#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/resilience.h>
#include <QEtcd/status.h>

#include <QtCore/QList>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <chrono>

namespace QEtcd {

// One etcd client URL. A bare "host:port" means plain http, as etcdctl reads it.
struct QETCD_EXPORT Endpoint
{
    QString host;
    quint16 port = 0;
    bool tls = false;

    QString toString() const;
    // "host:port" as gRPC wants it, IPv6 literals bracketed.
    QString authority() const;
    static Endpoint parse(const QString &text, Status *status);
    friend bool operator==(const Endpoint &a, const Endpoint &b)
    {
        return a.host == b.host && a.port == b.port && a.tls == b.tls;
    }
};

struct QETCD_EXPORT TlsOptions
{
    QString caFile;    // PEM bundle that must sign the server's certificate; empty: system roots
    QString certFile;  // client certificate (PEM) for mutual TLS; needs keyFile too
    QString keyFile;
    QString serverNameOverride;  // verify the server's certificate against this name instead
};

struct QETCD_EXPORT ClientOptions
{
    QStringList endpoints;
    std::chrono::milliseconds dialTimeout{5000};
    // etcd closes connections that ping more often than its --grpc-keepalive-min-time
    // (5 s by default) with "too_many_pings"; serverMinKeepAliveTime states what the
    // server accepts, and a keepAliveTime below it is refused rather than silently broken.
    std::chrono::milliseconds keepAliveTime{10000};
    std::chrono::milliseconds keepAliveTimeout{5000};
    std::chrono::milliseconds serverMinKeepAliveTime{5000};
    // Larger than gRPC's 4 MiB default, as one range of etcd's can be; bounded, as a client
    // should not buffer a whole store at once. The models page under it (keys only, one value
    // at a time); a range over it is refused with ResourceExhausted.
    int maxReceiveMessageSize = 32 * 1024 * 1024;
    // How many self-healing leases of this client heal at once; the rest wait their turn. A
    // partition expires every lease of a client together, and thousands of grants at one
    // moment make etcd refuse part of them ("too many requests").
    int maxConcurrentHeals = 64;
    TlsOptions tls;
    QString user;
    QString password;
    // Prefix applied to every key, range and watch, and stripped from every answer.
    QByteArray keyNamespace;
    // Refuse every write (put, delete, a transaction with writes, lease grant and revoke,
    // compaction) with ReadOnly before anything is sent, so an inspecting session cannot
    // change the cluster whatever its user clicks. Recipes that write fail to start.
    bool readOnly = false;
    RpcResilience rpc;

    // Parses the endpoint list; the first problem found, naming the offending value, or Ok.
    Status validate(QList<Endpoint> *parsedEndpoints = nullptr) const;

    static ClientOptions fromEndpoints(const QStringList &endpoints);
};

} // namespace QEtcd
