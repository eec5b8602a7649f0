// SPDX-License-Identifier: Apache-2.0
#include "stopprocess.h"

#include <QtCore/QTimer>

void stopProcess(QProcess *process, std::chrono::milliseconds grace, const std::function<void(QProcess *)> &kill)
{
    QObject::connect(process, &QProcess::finished, process, &QObject::deleteLater);
    if (process->state() == QProcess::NotRunning)
        return process->deleteLater();
    process->terminate();
    QTimer::singleShot(grace, process, [process, kill] { kill(process); });
}
