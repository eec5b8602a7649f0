// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QList>
#include <QtCore/QString>
#include <QtNetwork/QSslCertificate>
#include <QtNetwork/QSslKey>

namespace QEtcd::Cli {

// A PEM file given to an option, for the error that names both.
struct PemFile
{
    QString path;
    QString option;  // "--listen-cert"
};

// The certificate chain and the unencrypted RSA or EC private key of two PEM files, as either
// end of a TLS connection presents them. False with error naming the option and file.
bool readCertificateAndKey(const PemFile &certificate, const PemFile &key, QList<QSslCertificate> *chain,
                           QSslKey *privateKey, QString *error);

} // namespace QEtcd::Cli
