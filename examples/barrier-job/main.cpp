// SPDX-License-Identifier: Apache-2.0
// A batch job that waits at the gate /examples/barriers/nightly and starts once whoever set the
// gate lifts it (another program's DistributedBarrier, or `qetcd barrier hold`), so that every
// job of the night starts together. Built through pkg-config (see CMakeLists.txt).
//
//   barrier-job [endpoint] [job]   defaults http://127.0.0.1:2379, "report"

#include <QEtcd/Client>
#include <QEtcd/DistributedBarrier>

#include <QtCore/QCoreApplication>
#include <QtCore/QDebug>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QString endpoint = app.arguments().value(1, QStringLiteral("http://127.0.0.1:2379"));
    const QByteArray job = app.arguments().value(2, QStringLiteral("report")).toUtf8();
    QEtcd::Client client(QEtcd::ClientOptions::fromEndpoints({endpoint}));
    QEtcd::DistributedBarrier gate(&client, "/examples/barriers/nightly");

    qInfo() << "job" << job << "waiting at" << gate.path();
    const QEtcd::DistributedBarrier::WaitResult wait = gate.waitOnBarrier();
    if (!wait.isLifted() || wait.isSpurious()) {
        // Spurious: the gate went with its owner's lease, not by the owner's decision.
        qWarning() << "not starting:" << wait.status.toString() << wait.reason;
        return 1;
    }
    qInfo() << "gate lifted:" << wait.reason;

    // The job itself.
    if (const QEtcd::PutResult result = client.put("/examples/jobs/" + job, "done").result(); !result.status) {
        qWarning() << "job failed:" << result.status.toString();
        return 1;
    }
    qInfo() << "job" << job << "done";
    return 0;
}
