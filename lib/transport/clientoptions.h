// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/resilience.h>
#include <QEtcd/status.h>

#include <QtCore/QList>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <chrono>

namespace QEtcd {

/// One etcd client URL, parsed. A bare "host:port" means plain http, as etcdctl reads it.
struct QETCD_EXPORT Endpoint
{
    QString host;      ///< A name or an IP literal, without brackets.
    quint16 port = 0;  ///< The client port (etcd's default is 2379).
    bool tls = false;  ///< https://: talk TLS to it.

    /// The URL: "http://host:port" or "https://host:port".
    QString toString() const;
    /// "host:port" as gRPC wants it, IPv6 literals bracketed.
    QString authority() const;
    /// Parses "scheme://host:port" or "host:port"; anything else (no port, a path, another scheme)
    /// yields an empty Endpoint and InvalidConfiguration in \a status, naming the text.
    static Endpoint parse(const QString &text, Status *status);
    /// Same host, port and scheme.
    friend bool operator==(const Endpoint &a, const Endpoint &b)
    {
        return a.host == b.host && a.port == b.port && a.tls == b.tls;
    }
};

/// The TLS files of a client; any of them set requires https:// endpoints (never a silent
/// plaintext fallback).
struct QETCD_EXPORT TlsOptions
{
    QString caFile;  ///< PEM bundle that must sign the server's certificate; empty: the system's roots.
    QString certFile;  ///< Client certificate (PEM) for mutual TLS; needs keyFile too.
    QString keyFile;   ///< The private key (PEM) of certFile.
    /// Verify the server's certificate against this name instead of the host.
    QString serverNameOverride;
    /// Accept whatever certificate the server shows, neither checking who signed it nor whom it
    /// names: the traffic is encrypted, but anyone on the way can pose as the server and read
    /// it. For the `qetcd` CLI's `--insecure-skip-tls-verify` (etcdctl's), which warns each run;
    /// needs https:// endpoints.
    bool skipServerVerification = false;
};

/// Everything a Client is configured with. Client refuses options that fail validate().
struct QETCD_EXPORT ClientOptions
{
    /// etcd's client URLs ("https://etcd-1:2379", or "host:port" for http); one scheme for all.
    /// A call that cannot reach its member moves on to the next.
    QStringList endpoints;
    /// How long establishing a connection may take.
    std::chrono::milliseconds dialTimeout{5000};
    /// How often the connection is pinged while idle.
    ///
    /// etcd closes connections that ping more often than its --grpc-keepalive-min-time
    /// (5 s by default) with "too_many_pings"; serverMinKeepAliveTime states what the
    /// server accepts, and a keepAliveTime below it is refused rather than silently broken.
    std::chrono::milliseconds keepAliveTime{10000};
    /// How long a ping may go unanswered before the connection counts as broken.
    std::chrono::milliseconds keepAliveTimeout{5000};
    /// The server's --grpc-keepalive-min-time, the floor of keepAliveTime.
    std::chrono::milliseconds serverMinKeepAliveTime{5000};
    /// The largest answer accepted, in bytes; at least 4 MiB.
    ///
    /// Larger than gRPC's 4 MiB default, as one range of etcd's can be; bounded, as a client
    /// should not buffer a whole store at once. The models page under it (keys only, one value
    /// at a time); a range over it is refused with ResourceExhausted.
    int maxReceiveMessageSize = 32 * 1024 * 1024;
    /// How many self-healing leases of this client heal or start at once; the rest wait their
    /// turn.
    ///
    /// A partition expires every lease of a client together, and thousands of grants at one
    /// moment make etcd refuse part of them ("too many requests"); so would thousands of leases
    /// started together. A few hundred keep etcd busy without a backlog: their establishments
    /// go to etcd together (casEstablish()). Each one in flight holds about 21 KiB until
    /// answered; once a burst is over the client gives what it freed back to the system (with
    /// glibc).
    int maxConcurrentHeals = 256;
    TlsOptions tls;    ///< TLS and mutual TLS.
    QString user;      ///< etcd user for password authentication; the token is refreshed as it expires.
    QString password;  ///< That user's password; needs user.
    /// Prefix applied to every key, range and watch, and stripped from every answer.
    QByteArray keyNamespace;
    /// Refuse every write (put, delete, a transaction with writes, lease grant and revoke,
    /// compaction) with ReadOnly before anything is sent, so an inspecting session cannot
    /// change the cluster whatever its user clicks. Recipes that write fail to start.
    bool readOnly = false;
    /// How unary calls are retried and bounded, unless a call says otherwise.
    RpcResilience rpc;

    /// Ok, or the first problem found (a malformed or duplicate endpoint, TLS files with http://
    /// endpoints, an unreadable file, a keep-alive faster than the server allows...), naming the
    /// offending value: InvalidConfiguration, or InvalidArgument for an invalid retry policy.
    /// With \a parsedEndpoints, fills in the parsed endpoint list when the options are valid.
    Status validate(QList<Endpoint> *parsedEndpoints = nullptr) const;

    /// The defaults with these \a endpoints.
    static ClientOptions fromEndpoints(const QStringList &endpoints);
};

} // namespace QEtcd
