// SPDX-License-Identifier: Apache-2.0
#include "testcertificates.h"

#include "testtimeouts.h"

#include <QtCore/QFile>
#include <QtCore/QProcess>

namespace QEtcd::Testing {

TestCertificates::TestCertificates()
{
    if (!m_dir.isValid())
        m_error = QStringLiteral("no temporary directory for the certificates: ") + m_dir.errorString();
}

bool TestCertificates::openssl(const QStringList &arguments)
{
    QProcess process;
    process.setWorkingDirectory(m_dir.path());
    process.start(QStringLiteral("openssl"), arguments);
    if (!process.waitForFinished(int(scaledMs(30000))) || process.exitStatus() != QProcess::NormalExit
        || process.exitCode() != 0) {
        m_error = QStringLiteral("openssl %1 failed: %2")
                      .arg(arguments.join(QLatin1Char(' ')),
                           process.error() == QProcess::FailedToStart ? QStringLiteral("openssl is not installed")
                                                                       : QString::fromLocal8Bit(process.readAllStandardError()));
        return false;
    }
    return true;
}

bool TestCertificates::addAuthority(const QString &name)
{
    return m_dir.isValid()
        && openssl({QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("rsa:2048"),
                    QStringLiteral("-nodes"), QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"),
                    QStringLiteral("/CN=") + name, QStringLiteral("-keyout"), name + QStringLiteral(".key"),
                    QStringLiteral("-out"), name + QStringLiteral(".pem")});
}

bool TestCertificates::addCertificate(const QString &name, const QString &authority, const QString &altNames)
{
    QFile extensions(path(name + QStringLiteral(".ext")));
    if (!extensions.open(QIODevice::WriteOnly)) {
        m_error = QStringLiteral("cannot write %1: %2").arg(extensions.fileName(), extensions.errorString());
        return false;
    }
    extensions.write("subjectAltName=" + altNames.toUtf8() + "\nextendedKeyUsage=serverAuth,clientAuth\n");
    extensions.close();
    return openssl({QStringLiteral("req"), QStringLiteral("-newkey"), QStringLiteral("rsa:2048"), QStringLiteral("-nodes"),
                    QStringLiteral("-subj"), QStringLiteral("/CN=") + name, QStringLiteral("-keyout"),
                    name + QStringLiteral(".key"), QStringLiteral("-out"), name + QStringLiteral(".csr")})
        && openssl({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"), name + QStringLiteral(".csr"),
                    QStringLiteral("-CA"), authority + QStringLiteral(".pem"), QStringLiteral("-CAkey"),
                    authority + QStringLiteral(".key"), QStringLiteral("-CAcreateserial"), QStringLiteral("-days"),
                    QStringLiteral("2"), QStringLiteral("-extfile"), name + QStringLiteral(".ext"),
                    QStringLiteral("-out"), name + QStringLiteral(".pem")});
}

} // namespace QEtcd::Testing
