// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdtestingexport.h>

#include <QtCore/QString>
#include <QtCore/QTemporaryDir>

namespace QEtcd::Testing {

/// Certificates made for one test run, in a directory that goes with the object.
///
/// Certificates for one test run, made by openssl in a directory that goes with this object:
/// certificate authorities, and certificates they sign for servers and clients. Not thread-safe.
class QETCD_TESTING_EXPORT TestCertificates
{
public:
    /// An empty directory.
    TestCertificates();

    /// Makes a self-signed authority, `<name>.pem` with its key `<name>.key`; false with
    /// errorString() when openssl failed.
    bool addAuthority(const QString &name);
    /// Makes `<name>.pem` and `<name>.key` signed by \a authority, for both server and client
    /// use, with the given subjectAltName \a altNames ("IP:127.0.0.1,DNS:localhost"); false
    /// with errorString() when openssl failed.
    bool addCertificate(const QString &name, const QString &authority, const QString &altNames);

    /// The full path of \a file in the directory ("ca.pem").
    QString path(const QString &file) const { return m_dir.filePath(file); }
    /// What went wrong in the last call that returned false.
    QString errorString() const { return m_error; }

private:
    bool openssl(const QStringList &arguments);

    QTemporaryDir m_dir;
    QString m_error;
};

} // namespace QEtcd::Testing
