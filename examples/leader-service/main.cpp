// SPDX-License-Identifier: Apache-2.0
// A service of which only one instance at a time does the leader's duty. Run several: one
// leads, the others queue behind it. A term publishes who leads, under etcd's guard, does one
// round of duty and ends, and the next candidate leads; this instance then exits.
//
//   leader-service [endpoint] [name]   defaults http://127.0.0.1:2379, the host name

#include <QEtcd/Client>
#include <QEtcd/LeaderSelector>

#include <QtCore/QCoreApplication>
#include <QtCore/QDebug>
#include <QtCore/QSysInfo>
#include <QtCore/QThread>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QString endpoint = app.arguments().value(1, QStringLiteral("http://127.0.0.1:2379"));
    const QByteArray name = app.arguments().value(2, QSysInfo::machineHostName()).toUtf8();
    QEtcd::Client client(QEtcd::ClientOptions::fromEndpoints({endpoint}));

    QEtcd::ElectionOptions options;
    options.autoRequeue = false;  // one term; a long-running service leaves this on
    // The term runs on the selector's own thread; it ends when this function returns, and
    // `stop` is set, with the thread interrupted, if leadership is lost before that.
    QEtcd::LeaderSelector selector(&client, "/examples/elections/scheduler", name,
        [&selector, name](const QEtcd::StopToken &stop) {
            qInfo() << name << "leads with fencing token" << selector.fencingToken();
            QEtcd::Txn publish;
            publish.success = {QEtcd::TxnOp::put("/examples/scheduler/leader", name)};
            if (const QEtcd::TxnResult published = selector.guardedTxn(publish).result(); !published.status)
                qWarning() << "not published:" << published.status.toString();
            for (int tick = 0; tick < 5 && !stop.stopRequested(); ++tick)
                QThread::msleep(100);  // the duty
        },
        {}, options);
    QObject::connect(&selector, &QEtcd::LeaderSelector::termEnded, &app, &QCoreApplication::quit);
    selector.start();
    return app.exec();
}
