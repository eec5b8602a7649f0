// SPDX-License-Identifier: Apache-2.0
// One candidate in the election checker (tst_electionchecker): a LeaderSelector whose term
// acts as leader for as long as isLeader() says yes, asked every two milliseconds: it makes
// blind writes to one shared key, guarded only by the fence (guardedTxn), each naming its
// token and key. With autoRequeue it campaigns again after every term. It prints one line when
// a term starts ("acquired"), one per write, one when the term ends ("hold": the leadership
// believed, from the start of takeLeadership to the last yes) and one per leadershipLost(),
// and stops cleanly on SIGTERM.

#include "participant.h"
#include "../fencingoracle.h"

#include <QEtcd/client.h>
#include <QEtcd/leaderselector.h>

#include <QtCore/QCoreApplication>

#include <csignal>
#include <thread>

using namespace QEtcd;
using namespace Checker;
using namespace std::chrono_literals;
using QEtcd::Testing::fencedWriteValue;

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
    const QCommandLineOption fencedKey("fenced", "the key every leader writes", "key");
    args.process(app, {path, fencedKey});

    ClientOptions clientOptions = ClientOptions::fromEndpoints({args.value(args.endpoint)});
    // Longer than any fault the checker makes: a write held up by one is answered, late, so its
    // fate is known.
    clientOptions.rpc = RpcResilience{RetryPolicy::bounded(2, 100ms), 15s};
    Client client(clientOptions);
    ElectionOptions options;
    options.ttlSeconds = 2;
    options.clientId = args.value(args.name);
    const QString me = options.clientId;
    const QByteArray fenced = args.value(fencedKey).toUtf8();
    qint64 sequence = 0;
    LeaderSelector selector(
        &client, args.value(path).toUtf8(), me.toUtf8(),
        [&](const StopToken &stop) {
            const qint64 startNs = nowNs();
            const qint64 token = selector.fencingToken();
            const QByteArray key = selector.key();
            emitLine({{"event", "acquired"}, {"name", me}, {"token", token}});
            Belief belief{[&selector] { return selector.isLeader(); }, args.ignoresLoss()};
            // A term whose first check says no never acted as leader.
            const bool believed = belief.sample();
            // A saboteur ignoring its loss goes on acting for 3 s after the term was stopped.
            auto acting = [&stop, &args, stoppedNs = qint64(0)]() mutable {
                if (!stop.stopRequested())
                    return true;
                if (!args.ignoresLoss())
                    return false;
                if (stoppedNs == 0)
                    stoppedNs = nowNs();
                return nowNs() < stoppedNs + 3000 * qint64(1000000);
            };
            while (acting() && belief.sample()) {
                const qint64 seq = ++sequence;
                Txn blind;
                blind.success = {TxnOp::put(fenced, fencedWriteValue(me, seq, token, key))};
                auto written = args.unfenced() ? client.txn(blind) : selector.guardedTxn(blind);
                // Waited for whatever the belief: its answer says whether the fence stopped it.
                belief.workUntil([&written] { return written.isFinished(); }, true);
                const Status status = written.result().status;
                emitLine({{"event", "write"}, {"name", me}, {"seq", seq}, {"token", token},
                          {"outcome", status.isOk() ? "accepted"
                                      : status.code() == StatusCode::OwnershipLost ? "refused"
                                                                                   : "unknown"}});
                belief.workUntilNs(nowNs() + 5 * qint64(1000000));
            }
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
