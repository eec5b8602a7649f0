// One candidate in the election checker (tst_electionchecker): a LeaderSelector whose term
// acts as leader for as long as isLeader() says yes, asked every two milliseconds; with
// autoRequeue it campaigns again after every term. It prints one line when a term starts
// ("acquired"), one when it ends ("hold": the leadership believed, from the start of
// takeLeadership to the last yes) and one per leadershipLost(), and stops cleanly on SIGTERM.

#include "participant.h"

#include <QEtcd/client.h>
#include <QEtcd/leaderselector.h>

#include <QtCore/QCoreApplication>

#include <csignal>
#include <thread>

using namespace QEtcd;
using namespace Checker;

int main(int argc, char *argv[])
{
    // SIGTERM is blocked before any thread starts, so that only the thread waiting for it in
    // sigwait() takes it; the main thread runs the event loop the recipe's object lives in.
    sigset_t terminate;
    sigemptyset(&terminate);
    sigaddset(&terminate, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &terminate, nullptr);

    QCoreApplication app(argc, argv);
    CommandLine args;
    const QCommandLineOption path("election", "election path", "path");
    args.process(app, {path});

    Client client(ClientOptions::fromEndpoints({args.value(args.endpoint)}));
    ElectionOptions options;
    options.ttlSeconds = 2;
    options.clientId = args.value(args.name);
    const QString me = options.clientId;
    LeaderSelector selector(
        &client, args.value(path).toUtf8(), me.toUtf8(),
        [&selector, &me](const StopToken &stop) {
            const qint64 startNs = nowNs();
            emitLine({{"event", "acquired"}, {"name", me}, {"token", selector.fencingToken()}});
            Belief belief{[&selector] { return selector.isLeader(); }};
            // A term whose first check says no never acted as leader.
            const bool believed = belief.sample();
            belief.workUntil([&stop] { return stop.stopRequested(); });
            emitLine({{"event", "hold"}, {"name", me}, {"believed", believed}, {"start_ns", startNs},
                      {"end_ns", belief.lastYesNs}, {"lost", belief.lost}});
        },
        {}, options);
    reportLoss(selector, &LeaderSelector::leadershipLost, "leadershipLost", me);
    selector.start();

    std::thread waiter([&terminate] {
        int signal = 0;
        sigwait(&terminate, &signal);
        QMetaObject::invokeMethod(QCoreApplication::instance(), [] { QCoreApplication::quit(); },
                                  Qt::QueuedConnection);
    });
    app.exec();
    waiter.join();
    selector.close();
    return 0;
}
