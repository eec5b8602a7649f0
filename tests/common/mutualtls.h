// SPDX-License-Identifier: Apache-2.0
#pragma once

// etcd serving mutual TLS with the certificates a test made.

#include <QEtcd/etcdcluster.h>
#include <QEtcd/testcertificates.h>

namespace QEtcd::Testing {

// An etcd that demands client certificates: its own "server" certificate, clients' signed by
// "ca", and the "client" certificate for its own checks, all made in certificates.
inline EtcdCluster::Options mutualTlsOptions(const TestCertificates &certificates)
{
    EtcdCluster::Options options;
    options.caFile = certificates.path(QStringLiteral("ca.pem"));
    options.certFile = certificates.path(QStringLiteral("server.pem"));
    options.keyFile = certificates.path(QStringLiteral("server.key"));
    options.clientCertAuth = true;
    options.clientCertFile = certificates.path(QStringLiteral("client.pem"));
    options.clientKeyFile = certificates.path(QStringLiteral("client.key"));
    return options;
}

} // namespace QEtcd::Testing
