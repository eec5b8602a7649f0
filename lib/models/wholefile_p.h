// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QCoreApplication>
#include <QtCore/QSaveFile>
#include <QtCore/QUrl>

namespace QEtcd::Internal {

// A path typed, or the file: URL a file dialog answers with.
inline QString localPath(const QString &pathOrUrl)
{
    return pathOrUrl.startsWith(QLatin1String("file:")) ? QUrl(pathOrUrl).toLocalFile() : pathOrUrl;
}

// Writes contents to path all or nothing, so that a failed export leaves no half-written file
// behind. Empty on success, else why not.
inline QString writeWholeFile(const QString &path, const QByteArray &contents)
{
    QSaveFile file(path);
    if (file.open(QIODevice::WriteOnly) && file.write(contents) == contents.size() && file.commit())
        return {};
    return QCoreApplication::translate("QEtcd", "cannot write %1: %2").arg(path, file.errorString());
}

} // namespace QEtcd::Internal
