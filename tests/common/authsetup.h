// SPDX-License-Identifier: Apache-2.0
#pragma once

// Authentication turned on the way the auth tests expect it.

#include <QEtcd/etcdcluster.h>

#include <QtCore/QStringList>

namespace QEtcd::Testing {

// User root (password rootpw, role root) and a user confined to prefix: its role (user + "-role")
// may read and write the keys under prefix and nothing else; then auth enable. Empty when all
// went well, else the etcdctl step that failed and what etcdctl said.
inline QString enableAuth(const EtcdCluster &cluster, const QString &user = QStringLiteral("app"),
                          const QString &password = QStringLiteral("apppw"), const QString &prefix = QStringLiteral("/app/"))
{
    const QString role = user + QStringLiteral("-role");
    for (const QStringList &step :
         {QStringList{"user", "add", "root:rootpw"}, QStringList{"role", "add", role},
          QStringList{"role", "grant-permission", role, "readwrite", prefix, "--prefix=true"},
          QStringList{"user", "add", user + QLatin1Char(':') + password}, QStringList{"user", "grant-role", user, role},
          QStringList{"auth", "enable"}}) {
        int exitCode = -1;
        QByteArray error;
        cluster.etcdctl(step, &exitCode, &error);
        if (exitCode != 0)
            return step.join(QLatin1Char(' ')) + QStringLiteral(": ") + QString::fromUtf8(error);
    }
    return {};
}

} // namespace QEtcd::Testing
