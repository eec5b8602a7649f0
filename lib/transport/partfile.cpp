// SPDX-License-Identifier: Apache-2.0
#include "partfile_p.h"

#include <QtCore/QFileInfo>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <unistd.h>

namespace QEtcd::Internal {

namespace {
QString partFileSystemError()
{
    return QString::fromLocal8Bit(strerror(errno));
}
} // namespace

Status PartFile::open(const QString &fileName, bool overwrite, QIODevice::OpenMode extraMode)
{
    m_fileName = fileName;
    m_overwrite = overwrite;
    if (!overwrite && QFileInfo::exists(fileName)) {
        return Status(StatusCode::AlreadyExists,
                      QStringLiteral("%1 exists; choose another file or allow overwriting it").arg(fileName));
    }
    m_part.setFileName(fileName + QStringLiteral(".part"));
    // NewOnly: a part file that exists belongs to a write still running, or to one that crashed.
    if (!m_part.open(QIODevice::WriteOnly | QIODevice::NewOnly | extraMode)) {
        return Status(m_part.exists() ? StatusCode::AlreadyExists : StatusCode::InvalidArgument,
                      QStringLiteral("cannot create %1: %2%3")
                          .arg(m_part.fileName(), m_part.errorString(),
                               m_part.exists() ? QStringLiteral(" (another write is using it, or one was "
                                                                "interrupted: remove it)")
                                               : QString()));
    }
    return {};
}

Status PartFile::commit()
{
    if (!m_part.flush() || ::fsync(m_part.handle()) != 0)
        return Status(StatusCode::DataLoss, QStringLiteral("cannot sync %1: %2").arg(m_part.fileName(), partFileSystemError()));
    m_part.close();
    const QByteArray from = QFile::encodeName(m_part.fileName());
    const QByteArray to = QFile::encodeName(m_fileName);
    // rename() replaces what is there; link() refuses, so a file that appeared meanwhile is kept.
    if (m_overwrite ? ::rename(from.constData(), to.constData()) != 0 : ::link(from.constData(), to.constData()) != 0) {
        const Status failed(errno == EEXIST ? StatusCode::AlreadyExists : StatusCode::DataLoss,
                            QStringLiteral("cannot rename %1 to %2: %3").arg(m_part.fileName(), m_fileName, partFileSystemError()));
        m_part.remove();
        return failed;
    }
    if (!m_overwrite)
        ::unlink(from.constData());
    return {};
}

void PartFile::discard()
{
    if (m_part.isOpen()) {
        m_part.close();
        m_part.remove();
    }
}

} // namespace QEtcd::Internal
