// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "exitcodes.h"
#include "shutdownsignals.h"

#include <QtCore/QEventLoop>

#include <functional>

namespace QEtcd::Cli {

// Runs a one-shot job (KeyExport, KeyImport, BulkDelete, SnapshotSave) until finished()
// (Result) arrives; SIGINT or SIGTERM cancels it, and the result then names the signal and what.
template <class Job, class Result>
Result runJob(Job &job, void (Job::*finished)(const Result &), const std::function<void()> &start, const QString &what)
{
    ShutdownSignals shutdown;
    QString interruptedBy;
    QObject::connect(&shutdown, &ShutdownSignals::shutdownRequested, &job, [&](const QString &reason) {
        interruptedBy = reason;
        job.cancel();
    });
    Result result;
    QEventLoop loop;
    QObject::connect(&job, finished, &loop, [&](const Result &ended) {
        result = ended;
        loop.quit();
    });
    start();
    loop.exec();
    if (!interruptedBy.isEmpty() && result.status.code() == StatusCode::Cancelled)
        result.status = interruption(interruptedBy).withContext(what);
    return result;
}

} // namespace QEtcd::Cli
