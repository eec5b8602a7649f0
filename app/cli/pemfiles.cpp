// SPDX-License-Identifier: Apache-2.0
#include "pemfiles.h"

#include <QtCore/QFile>

namespace QEtcd::Cli {

bool readCertificateAndKey(const PemFile &certificate, const PemFile &key, QList<QSslCertificate> *chain,
                           QSslKey *privateKey, QString *error)
{
    const auto read = [error](const PemFile &pem, QByteArray *contents) {
        QFile file(pem.path);
        if (!file.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("%1: cannot read \"%2\": %3").arg(pem.option, pem.path, file.errorString());
            return false;
        }
        *contents = file.readAll();
        return true;
    };
    QByteArray certificatePem, keyPem;
    if (!read(certificate, &certificatePem) || !read(key, &keyPem))
        return false;
    *chain = QSslCertificate::fromData(certificatePem, QSsl::Pem);
    if (chain->isEmpty()) {
        *error = QStringLiteral("%1: \"%2\" holds no PEM certificate").arg(certificate.option, certificate.path);
        return false;
    }
    *privateKey = QSslKey(keyPem, QSsl::Rsa, QSsl::Pem);
    if (privateKey->isNull())
        *privateKey = QSslKey(keyPem, QSsl::Ec, QSsl::Pem);
    if (privateKey->isNull()) {
        *error = QStringLiteral("%1: \"%2\" holds no PEM RSA or EC private key (unencrypted)").arg(key.option, key.path);
        return false;
    }
    return true;
}

} // namespace QEtcd::Cli
