// SPDX-License-Identifier: Apache-2.0
// A worker thread takes the lock /examples/locks/report, then writes a report that etcd accepts
// only while the lock is still this worker's. Each line carries the hold's fencing token, so
// whatever consumes the report can refuse a line from an older holder.
//
//   mutex-worker [endpoint]          default http://127.0.0.1:2379

#include <QEtcd/Client>
#include <QEtcd/DistributedMutex>

#include <QtCore/QCoreApplication>
#include <QtCore/QDebug>
#include <QtCore/QThread>

#include <memory>

using namespace std::chrono_literals;

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QString endpoint = app.arguments().value(1, QStringLiteral("http://127.0.0.1:2379"));
    QEtcd::Client client(QEtcd::ClientOptions::fromEndpoints({endpoint}));
    QEtcd::DistributedMutex mutex(&client, "/examples/locks/report");

    // Told from the library's own thread as soon as the hold's lease is lost, before etcd can
    // give the lock to anyone else, however busy the worker is.
    QObject::connect(&mutex, &QEtcd::DistributedMutex::lockLost,
                     [](const QEtcd::Status &cause) { qWarning() << "lock lost:" << cause.toString(); });

    bool done = false;
    std::unique_ptr<QThread> worker(QThread::create([&] {
        if (const QEtcd::Status locked = mutex.lock(30s); !locked) {
            qWarning() << "no lock:" << locked.toString();
            return;
        }
        const QByteArray token = QByteArray::number(mutex.fencingToken());
        qInfo() << "holding" << mutex.holdKey() << "with fencing token" << token;
        // Each line commits only while the hold is ours: OwnershipLost, and nothing written, otherwise.
        QEtcd::Status written;  // Ok until a write fails
        for (int line = 1; line <= 3 && written; ++line)
            written = mutex.guardedPut("/examples/report/" + QByteArray::number(line), token).result();
        if (!written)
            qWarning() << "report stopped:" << written.toString();
        done = mutex.unlock() && written;  // unlock() is false if the hold was lost meanwhile
    }));
    QObject::connect(worker.get(), &QThread::finished, &app, &QCoreApplication::quit);
    worker->start();
    app.exec();
    qInfo() << (done ? "report written" : "report not written");
    return done ? 0 : 1;
}
