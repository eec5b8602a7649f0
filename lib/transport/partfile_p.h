// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/status.h>

#include <QtCore/QFile>
#include <QtCore/QString>

namespace QEtcd::Internal {

// A file written as FILE.part and moved to FILE only once complete, so that a crash, a failure or
// a cancel at any moment leaves either no file or the whole one under the final name, and never
// replaces a good file with a partial one.
class PartFile
{
public:
    // Creates FILE.part for writing (with extraMode, e.g. Unbuffered); refuses an existing FILE
    // unless overwrite, and an existing part file (another writer's, or one interrupted) always.
    Status open(const QString &fileName, bool overwrite, QIODevice::OpenMode extraMode = {});
    QFile &part() { return m_part; }
    // Syncs the part file and renames it to FILE; link() when not overwriting, so a file that
    // appeared meanwhile is kept.
    Status commit();
    // Removes the part file if it is still open: a failed or cancelled write.
    void discard();
    ~PartFile() { discard(); }

private:
    QString m_fileName;
    QFile m_part;
    bool m_overwrite = false;
};

} // namespace QEtcd::Internal
