// SPDX-License-Identifier: Apache-2.0
#include <QEtcd/client.h>

int main()
{
    return QEtcd::ClientOptions::fromEndpoints({QStringLiteral("http://127.0.0.1:2379")}).validate() ? 0 : 1;
}
