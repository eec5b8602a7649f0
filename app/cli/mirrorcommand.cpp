// SPDX-License-Identifier: Apache-2.0
// etcdctl's make-mirror: the keys under a prefix copied to another cluster as they were at one
// revision, then every change after that revision applied there in order, as it happens.
#include "commands.h"
#include "eventsession.h"
#include "globaloptions.h"
#include "kvformat.h"
#include "passwordprompt.h"

#include <QEtcd/watcher.h>

#include <QtCore/QFutureWatcher>
#include <QtCore/QTimer>

#include <optional>

namespace QEtcd::Cli {

namespace {
// etcd's default --max-txn-ops: a transaction of more operations is refused.
constexpr int MaxTxnOps = 128;
constexpr int PageSize = 1000;

// Where the mirror writes: the destination cluster, and each source key's name there.
struct Destination
{
    std::unique_ptr<Client> client;
    QByteArray prefix;        // the source's --prefix
    std::optional<QByteArray> renamedTo;  // --dest-prefix, or "" for --no-dest-prefix
    QByteArray key(const QByteArray &source) const
    {
        return renamedTo ? *renamedTo + source.mid(prefix.size()) : source;
    }
};

std::optional<Destination> destinationOf(const Invocation &invocation, QString *error)
{
    Destination destination;
    destination.prefix = invocation.value(QStringLiteral("prefix")).toUtf8();
    const bool renamed = invocation.isSet(QStringLiteral("dest-prefix"));
    if (renamed && invocation.isSet(QStringLiteral("no-dest-prefix"))) {
        *error = QStringLiteral("use one of --dest-prefix and --no-dest-prefix");
        return std::nullopt;
    }
    if (renamed)
        destination.renamedTo = invocation.value(QStringLiteral("dest-prefix")).toUtf8();
    else if (invocation.isSet(QStringLiteral("no-dest-prefix")))
        destination.renamedTo = QByteArray();
    ClientOptions options = invocation.options().client;
    options.tls = {};
    options.tls.caFile = invocation.value(QStringLiteral("dest-cacert"));
    options.tls.certFile = invocation.value(QStringLiteral("dest-cert"));
    options.tls.keyFile = invocation.value(QStringLiteral("dest-key"));
    // The destination is another cluster: the source's user, namespace and read-only do not go.
    options.keyNamespace.clear();
    options.readOnly = false;
    options.endpoints = endpointList(invocation.arguments().value(0), options.tls);
    if (options.endpoints.isEmpty()) {
        *error = QStringLiteral("DESTINATION names no endpoint");
        return std::nullopt;
    }
    const auto given = [&invocation](const QString &name) {
        return Setting{invocation.value(name), QLatin1String("--") + name};
    };
    *error = applyCredentials(options, given(QStringLiteral("dest-user")), given(QStringLiteral("dest-password")),
                              invocation.options().insecureTransport, QStringLiteral("--dest-password"),
                              askPasswordOnTerminal);
    if (!error->isEmpty())
        return std::nullopt;
    destination.client = std::make_unique<Client>(options);
    return destination;
}

// One transaction of the mirror's writes, and the source's revision the destination has every
// change up to once it is written.
struct Write
{
    Txn txn;
    qint64 revision = 0;
};

// The writes of events in their order, at most MaxTxnOps to a transaction; a put drops the
// source's lease, which means nothing in the other cluster.
QList<Write> writesOf(const QList<WatchEvent> &events, const Destination &destination, qint64 revision)
{
    QList<Write> writes;
    for (const WatchEvent &event : events) {
        if (writes.isEmpty() || writes.constLast().txn.success.size() == MaxTxnOps)
            writes.append(Write{Txn(), 0});
        const QByteArray key = destination.key(event.kv.key);
        writes.last().txn.success.append(event.type == WatchEvent::Type::Put ? TxnOp::put(key, event.kv.value)
                                                                             : TxnOp::remove(key));
    }
    if (!writes.isEmpty())
        writes.last().revision = revision;
    return writes;
}

int runMakeMirror(Invocation &invocation)
{
    // Refused before DESTINATION's password is asked for.
    if (invocation.readOnly()) {
        return invocation.failed(Status(StatusCode::ReadOnly, QStringLiteral("make-mirror writes to %1: refused under --read-only")
                                                                  .arg(invocation.arguments().value(0))));
    }
    QString error;
    std::optional<std::chrono::milliseconds> hold;
    if (!parseHold(invocation, &hold, &error))
        return invocation.usageError(error);
    std::optional<Destination> destination = destinationOf(invocation, &error);
    if (!destination)
        return invocation.usageError(error);
    const QByteArray prefix = destination->prefix;
    const QString into = QStringLiteral("mirroring to %1").arg(invocation.arguments().value(0));
    EventSession session(invocation, hold);
    qint64 keys = 0;
    qint64 revision = 0;  // the source's, up to which the destination has every change
    // One transaction at a time, in order: the events of a revision never overtake the one before.
    QList<Write> pending;
    bool writing = false;
    QFuture<TxnResult> inFlight;
    std::function<void()> writeNext = [&] {
        if (writing || pending.isEmpty() || session.hasFailed())
            return;
        writing = true;
        const Write next = pending.takeFirst();
        inFlight = destination->client->txn(next.txn);
        // Watched, not chained with QFuture::then(): Qt 6.4 can run a continuation twice when it
        // is attached while another thread finishes the future.
        auto *answer = new QFutureWatcher<TxnResult>(&session);
        QObject::connect(answer, &QFutureWatcherBase::finished, &session, [&, answer, upTo = next.revision] {
            answer->deleteLater();
            const TxnResult written = answer->result();
            writing = false;
            if (!written.status)
                return session.fail(written.status.withContext(into));
            keys += written.responses.size();
            revision = std::max(revision, upTo);
            writeNext();
        });
        answer->setFuture(inFlight);
    };
    const auto awaitWrites = [&] {
        while (!session.hasFailed() && (writing || !pending.isEmpty())) {
            writeNext();
            // A copy: the answer's continuation, run inside waitFor()'s loop, sends the next.
            const QFuture<TxnResult> waiting = inFlight;
            if (!waitFor(waiting, invocation.requestDeadline()))
                return session.fail(Status(StatusCode::DeadlineExceeded, into + QStringLiteral(": no answer within the --command-timeout")));
            QCoreApplication::processEvents();
        }
    };

    // A mirror whose writes land under its own prefix copies them again, forever.
    RangeOptions counted;
    counted.countOnly = true;
    const RangeResult there = invocation.await(destination->client->get(destination->key(prefix), counted), into);
    const RangeResult here = invocation.await(invocation.client().get(prefix, counted), QStringLiteral("make-mirror"));
    if (!there.status || !here.status)
        return invocation.failed(!there.status ? there.status : here.status);
    if (there.header.clusterId == here.header.clusterId && destination->key(prefix).startsWith(prefix)) {
        return invocation.usageError(QStringLiteral("DESTINATION is this cluster and its keys would fall under --prefix \"%1\": "
                                                    "the mirror would copy its own writes forever")
                                         .arg(QString::fromUtf8(prefix)));
    }

    // The keys as they were at one revision, a page at a time.
    RangeOptions page;
    page.range = prefix.isEmpty() ? KeyRange::fromKey() : KeyRange::prefix();
    page.limit = PageSize;
    QByteArray from = prefix;
    do {
        const RangeResult read = invocation.await(invocation.client().get(from, page), QStringLiteral("make-mirror"));
        if (!read.status)
            return invocation.failed(read.status);
        page.revision = read.header.revision;
        QList<WatchEvent> copies;
        for (const KeyValue &kv : read.kvs)
            copies.append(WatchEvent{WatchEvent::Type::Put, kv, std::nullopt});
        pending += writesOf(copies, *destination, page.revision);
        awaitWrites();
        // An empty source: nothing to write, and the mirror stands at the revision read.
        revision = std::max(revision, page.revision);
        if (session.hasFailed() || !read.more)
            break;
        from = read.kvs.constLast().key + '\0';
        page.range = prefix.isEmpty() ? KeyRange::fromKey() : KeyRange::upTo(prefixRangeEnd(prefix));
    } while (true);

    WatchOptions watched;
    watched.range = prefix.isEmpty() ? KeyRange::fromKey() : KeyRange::prefix();
    watched.startRevision = page.revision + 1;
    Watcher watcher(&invocation.client(), prefix, watched);
    QObject::connect(&watcher, &Watcher::eventsReceived, &session, [&](const QList<WatchEvent> &events, qint64) {
        pending += writesOf(events, *destination, events.constLast().kv.modRevision);
        writeNext();
    });
    QObject::connect(&watcher, &Watcher::recovery, &session, [&](const WatchRecoveryEvent &event) {
        if (event.kind == WatchRecoveryKind::Resynced) {
            session.fail(Status(StatusCode::OutOfRange,
                                QStringLiteral("etcd compacted the changes after revision %1 before the mirror had them; "
                                               "run make-mirror again").arg(event.resumeRevision - 1)));
        } else if (event.kind == WatchRecoveryKind::Failed) {
            session.fail(event.cause);
        }
    });
    // etcdctl prints the keys mirrored so far every 30 s; so does this, as an event.
    QTimer progress;
    QObject::connect(&progress, &QTimer::timeout, &session, [&] {
        session.write(QStringLiteral("progress"), {{QLatin1String("keys"), keys}, {QLatin1String("revision"), revision}});
    });
    if (!session.hasFailed()) {
        session.run(watcher.start(), QStringLiteral("watch \"%1\"").arg(QString::fromUtf8(prefix)), [&] {
            session.write(QStringLiteral("synced"), {{QLatin1String("keys"), keys}, {QLatin1String("revision"), revision}});
            progress.start(30000);
        });
    }
    watcher.close();
    session.drain();
    awaitWrites();
    return session.finish({{QLatin1String("keys"), keys}, {QLatin1String("revision"), revision}});
}
} // namespace

Command makeMirrorCommand()
{
    Command command;
    command.name = QStringLiteral("make-mirror");
    command.summary = QStringLiteral("Copy the keys under a prefix to another cluster and keep them in step");
    command.details = QStringLiteral(
        "As etcdctl make-mirror: the keys under --prefix (every key without it) are\n"
        "copied to DESTINATION as they were at one revision, a page at a time, in\n"
        "transactions of at most 128 keys, without their leases; then every change after\n"
        "that revision is applied there in order as it happens, until SIGINT or SIGTERM,\n"
        "or until --hold has passed (exit 0). --dest-prefix puts them under another\n"
        "prefix there, --no-dest-prefix at the root; --dest-cacert, --dest-cert and\n"
        "--dest-key are DESTINATION's TLS files, --dest-user and --dest-password its user\n"
        "(asked for on the terminal when only the user is given; \"USER:PASSWORD\" is read\n"
        "too, and a password is refused over http:// to another machine unless\n"
        "--insecure-transport). The source's connection flags are the global ones; the\n"
        "source's user and --namespace do not apply to DESTINATION. Refused under\n"
        "--read-only: it writes to DESTINATION. Refused when DESTINATION is this cluster\n"
        "and the copies would fall under --prefix (they would be copied again forever).\n"
        "\n"
        "Output: JSON lines (whatever --json says), each starting with \"event\" and\n"
        "\"mono_ms\":\n"
        "  synced    the copy is done and changes are followed: \"keys\" written so far,\n"
        "            \"revision\" (the source's, up to which DESTINATION has every change)\n"
        "  progress  every 30 s, as etcdctl prints its count: \"keys\", \"revision\"\n"
        "  closed    \"reason\", \"keys\", \"revision\"\n"
        "A write DESTINATION refuses, or changes etcd compacted before the mirror had\n"
        "them, end it (exit 1; 3 for wrong credentials, or for the compaction: run it\n"
        "again).");
    command.arguments = {{QStringLiteral("DESTINATION"), QStringLiteral("The other cluster's endpoints, comma-separated")}};
    command.options = {
        QCommandLineOption(QStringLiteral("prefix"), QStringLiteral("Mirror the keys under this prefix [default: every key]"),
                           QStringLiteral("PREFIX")),
        QCommandLineOption(QStringLiteral("dest-prefix"), QStringLiteral("Write them under this prefix in DESTINATION instead"),
                           QStringLiteral("PREFIX")),
        QCommandLineOption(QStringLiteral("no-dest-prefix"), QStringLiteral("Write them without --prefix, at DESTINATION's root")),
        QCommandLineOption(QStringLiteral("dest-cacert"), QStringLiteral("DESTINATION's CA bundle"), QStringLiteral("FILE")),
        QCommandLineOption(QStringLiteral("dest-cert"), QStringLiteral("The client certificate for DESTINATION"),
                           QStringLiteral("FILE")),
        QCommandLineOption(QStringLiteral("dest-key"), QStringLiteral("The key of --dest-cert"), QStringLiteral("FILE")),
        QCommandLineOption(QStringLiteral("dest-user"), QStringLiteral("The user to write to DESTINATION as"),
                           QStringLiteral("USER")),
        QCommandLineOption(QStringLiteral("dest-password"),
                           QStringLiteral("--dest-user's password (every user of the machine sees it in ps; prefer the prompt)"),
                           QStringLiteral("PASSWORD")),
        holdOption(),
    };
    command.run = runMakeMirror;
    return command;
}

} // namespace QEtcd::Cli
