// SPDX-License-Identifier: Apache-2.0
#pragma once

// queue's actions on a work queue (DistributedWorkQueue: work) and the operator's
// interventions on queues (requeue, purge, delete).

#include "command.h"

namespace QEtcd::Cli {

// An action whose NAME (the second argument) is a queue's path, a key prefix that must not be
// empty.
std::function<int(Invocation &)> onPath(int (*run)(Invocation &, const QString &path));

QList<Action> workQueueActions();
// Their options, beside queue's own.
QList<QCommandLineOption> workQueueOptions();
// Their lines of queue's help, under "Actions:".
QString workQueueHelp();
// put --work: VALUE onto the work queue at path.
Status putWorkItem(Invocation &invocation, const QString &path, const QByteArray &value);

} // namespace QEtcd::Cli
