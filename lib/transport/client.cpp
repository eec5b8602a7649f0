// SPDX-License-Identifier: Apache-2.0
#include "client.h"

#include "client_p.h"
#include "bidistream_p.h"
#include "clientthread_p.h"
#include "watchhub_p.h"
#include "logging_p.h"

namespace QEtcd {

using namespace Internal;

ClientPrivate::ClientPrivate(Client *q, const ClientOptions &clientOptions)
    : options(clientOptions), codec(clientOptions.keyNamespace),
      m_lifeline(std::make_shared<Internal::ClientLifeline>(q))
{
    configurationStatus = options.validate(&endpoints);
    if (!configurationStatus) {
        qCWarning(lcTransport).noquote() << "client refused its options:" << configurationStatus.message();
        return;
    }
    m_transport = std::make_unique<Transport>(options, endpoints, [q](int index) {
        // Runs on the completion-queue thread; the Client outlives its transport.
        QMetaObject::invokeMethod(q, [q, index] {
            Q_EMIT q->activeEndpointChanged(ClientPrivate::get(q)->endpoints.value(index).toString());
        }, Qt::QueuedConnection);
    });
}

ClientPrivate::~ClientPrivate()
{
    m_lifeline->cut();
    m_watchers->closeAll(m_dispatcherContext.get());
    // The keep-alive hub still needs the transport's thread to wind down its stream and tick.
    if (m_leasePart)
        m_leasePart->windDown();
    m_watchHub.reset();
    for (QThread *thread : {m_dispatcher.get(), m_lossThread.get()}) {
        if (thread) {
            thread->quit();
            thread->wait();
        }
    }
    m_transport.reset();
}

namespace {
// A named thread with its event loop running, and an object living there to post work to.
void startThread(const QString &name, std::unique_ptr<QThread> &thread, std::unique_ptr<QObject> &context)
{
    thread = std::make_unique<QThread>();
    thread->setObjectName(name);
    context = std::make_unique<QObject>();
    context->moveToThread(thread.get());
    thread->start();
}
} // namespace

Status ClientPrivate::admission(const CallSpec &spec, const Status &requestStatus) const
{
    if (!configurationStatus)
        return configurationStatus.withContext(spec.what());
    if (spec.writes && options.readOnly)
        return Status(StatusCode::ReadOnly, QStringLiteral("refused: the client is read-only")).withContext(spec.what());
    if (!requestStatus)
        return requestStatus.withContext(spec.what());
    return {};
}

QThread *ClientPrivate::dispatcher()
{
    std::call_once(m_dispatcherStarted,
                   [this] { startThread(QStringLiteral("qetcd-dispatch"), m_dispatcher, m_dispatcherContext); });
    return m_dispatcher.get();
}

QObject *ClientPrivate::dispatcherContext()
{
    dispatcher();
    return m_dispatcherContext.get();
}

void ClientPrivate::tellOnLossThread(std::function<void()> tell)
{
    std::call_once(m_lossThreadStarted, [this] {
        startThread(QStringLiteral("qetcd-loss"), m_lossThread, m_lossContext);
        m_lossThreadHandle = m_lossThread.get();
    });
    QMetaObject::invokeMethod(m_lossContext.get(), std::move(tell), Qt::QueuedConnection);
}

bool ClientPrivate::isLossThread() const
{
    return QThread::currentThread() == m_lossThreadHandle.load();
}

QObject *Internal::dispatcherContext(Client *client)
{
    return ClientPrivate::get(client)->dispatcherContext();
}

std::shared_ptr<Internal::ClientLifeline> Internal::lifelineOf(Client *client)
{
    return ClientPrivate::get(client)->lifeline();
}

void Internal::setBeforeSend(Client *client, BeforeSend hook)
{
    ClientPrivate::get(client)->setBeforeSend(std::move(hook));
}

Internal::ClientPart *ClientPrivate::leasePart(const std::function<std::unique_ptr<Internal::ClientPart>()> &make)
{
    std::call_once(m_leasePartMade, [this, &make] { m_leasePart = make(); });
    return m_leasePart.get();
}

Internal::WatchHub *ClientPrivate::watchHub()
{
    if (!m_transport)
        return nullptr;
    std::call_once(m_watchHubCreated,
                   [this] { m_watchHub = std::make_unique<Internal::WatchHub>(m_transport.get(), codec); });
    return m_watchHub.get();
}

Client::Client(const ClientOptions &options, QObject *parent)
    : QObject(parent), d(std::make_unique<ClientPrivate>(this, options))
{
}

Client::~Client() = default;

Status Client::configurationStatus() const
{
    return d->configurationStatus;
}

const ClientOptions &Client::options() const
{
    return d->options;
}

QStringList Client::endpoints() const
{
    QStringList list;
    for (const Endpoint &endpoint : d->endpoints)
        list.append(endpoint.toString());
    return list;
}

QString Client::activeEndpoint() const
{
    if (!d->transport())
        return {};
    return d->endpoints.value(d->transport()->activeEndpoint()).toString();
}

namespace {
// Built in one step: a default-constructed CallSpec would first build the default retry policy
// (a function and its description) only to overwrite it, on every call.
CallSpec spec(std::function<QString()> describe, const RpcResilience &resilience, bool retriable = true)
{
    return CallSpec{std::move(describe), resilience, retriable};
}

CallSpec writeSpec(std::function<QString()> describe, const RpcResilience &resilience, bool retriable = true)
{
    CallSpec s = spec(std::move(describe), resilience, retriable);
    s.writes = true;
    return s;
}

// The first write in any branch a transaction could take, nested transactions included:
// which branch runs is only known on the server. Null for a transaction that only reads.
const TxnOp *firstWrite(const Txn &txn)
{
    for (const QList<TxnOp> *branch : {&txn.success, &txn.failure}) {
        for (const TxnOp &op : *branch) {
            if (op.kind == TxnOp::Kind::Put || op.kind == TxnOp::Kind::Delete)
                return &op;
            if (op.kind == TxnOp::Kind::Txn && op.txn) {
                if (const TxnOp *nested = firstWrite(*op.txn))
                    return nested;
            }
        }
    }
    return nullptr;
}

QString describeRange(const char *verb, const QByteArray &key, const KeyRange &range)
{
    QString text = QLatin1String(verb) + QLatin1Char(' ') + describeKey(key);
    if (range.kind == KeyRange::Kind::Prefix)
        text += QLatin1String(" (prefix)");
    else if (range.kind == KeyRange::Kind::FromKey)
        text += QLatin1String(" (from key)");
    else if (range.kind == KeyRange::Kind::Explicit)
        text += QLatin1String(" .. ") + describeKey(range.rangeEnd);
    return text;
}
} // namespace

// Each call below builds its request, names itself for error messages and says which stub
// method carries it; ClientPrivate::call does the rest.
#define QETCD_ISSUE(stub, method)                                                                  \
    [](EndpointChannel &c, grpc::ClientContext *ctx, const auto &r, grpc::CompletionQueue *q) {   \
        return c.stub->Async##method(ctx, r, q);                                                   \
    }

namespace {
// The KV calls, answered through the future they return or, given onAnswer, through it.
QFuture<RangeResult> startGet(ClientPrivate *d, const QByteArray &key, const RangeOptions &options, const Client::Rpc &rpc,
                              Client::OnAnswer<RangeResult> onAnswer)
{
    etcdserverpb::RangeRequest request;
    const Status built = d->codec.toProto(key, options, &request);
    return d->call<RangeResult, etcdserverpb::RangeRequest, etcdserverpb::RangeResponse>(
        spec([key, range = options.range] { return describeRange("get", key, range); }, d->resilience(rpc)), built,
        std::move(request),
        QETCD_ISSUE(kv, Range), [codec = d->codec](const auto &response, RangeResult *result) {
            codec.fromProto(response, result);
        }, std::move(onAnswer));
}

QFuture<PutResult> startPut(ClientPrivate *d, const QByteArray &key, const QByteArray &value, const PutOptions &options,
                            const Client::Rpc &rpc, Client::OnAnswer<PutResult> onAnswer)
{
    etcdserverpb::PutRequest request;
    const Status built = d->codec.toProto(key, value, options, &request);
    const auto what = [key, bytes = value.size()] {
        return QStringLiteral("put %1 (%2 bytes)").arg(describeKey(key)).arg(bytes);
    };
    return d->call<PutResult, etcdserverpb::PutRequest, etcdserverpb::PutResponse>(
        writeSpec(what, d->resilience(rpc)), built, std::move(request), QETCD_ISSUE(kv, Put),
        [codec = d->codec](const auto &response, PutResult *result) { codec.fromProto(response, result); }, std::move(onAnswer));
}

QFuture<DeleteResult> startRemove(ClientPrivate *d, const QByteArray &key, const DeleteOptions &options,
                                  const Client::Rpc &rpc, Client::OnAnswer<DeleteResult> onAnswer)
{
    etcdserverpb::DeleteRangeRequest request;
    const Status built = d->codec.toProto(key, options, &request);
    return d->call<DeleteResult, etcdserverpb::DeleteRangeRequest, etcdserverpb::DeleteRangeResponse>(
        writeSpec([key, range = options.range] { return describeRange("delete", key, range); }, d->resilience(rpc)),
        built, std::move(request),
        QETCD_ISSUE(kv, DeleteRange),
        [codec = d->codec](const auto &response, DeleteResult *result) { codec.fromProto(response, result); }, std::move(onAnswer));
}

QFuture<TxnResult> startTxn(ClientPrivate *d, const Txn &txn, const Client::Rpc &rpc, Client::OnAnswer<TxnResult> onAnswer)
{
    etcdserverpb::TxnRequest request;
    const Status built = d->codec.toProto(txn, &request);
    const TxnOp *write = firstWrite(txn);
    std::optional<QByteArray> compared, refusedWrite;
    if (!txn.compares.isEmpty())
        compared = txn.compares.first().key;
    if (write && d->options.readOnly)
        refusedWrite = write->key;
    const auto what = [compared, refusedWrite] {
        QString text = QStringLiteral("txn");
        if (compared)
            text += QStringLiteral(" comparing ") + describeKey(*compared);
        if (refusedWrite)
            text += QStringLiteral(" writing ") + describeKey(*refusedWrite);
        return text;
    };
    // Only a write can commit ambiguously; compares and reads are retried like a get (a lock's
    // waiter reading the queue again must not give up its place over one reset connection).
    CallSpec callSpec = spec(what, d->resilience(rpc), write == nullptr);
    callSpec.writes = write != nullptr;
    return d->call<TxnResult, etcdserverpb::TxnRequest, etcdserverpb::TxnResponse>(
        callSpec, built, std::move(request), QETCD_ISSUE(kv, Txn),
        [codec = d->codec](const auto &response, TxnResult *result) { codec.fromProto(response, result); }, std::move(onAnswer));
}

// Starts a call whose answer goes to onAnswer on context's thread. A null context starts nothing:
// there is nowhere to tell the answer, nor the refusal.
template <class Result, class Describe, class Start>
void startAnsweringOn(QObject *context, Client::OnAnswer<Result> onAnswer, Describe what, Start start)
{
    if (!context) {
        qCWarning(lcTransport).noquote() << what() << "was not sent: it names no context object to answer on";
        return;
    }
    // An empty onAnswer asks for no answer, as the overload without a context takes it.
    start(onAnswer ? answerOn<Result>(context, std::move(onAnswer)) : Client::OnAnswer<Result>([](const Result &) {}));
}
} // namespace

QFuture<RangeResult> Client::get(const QByteArray &key, const RangeOptions &options, const Rpc &rpc)
{
    return startGet(d.get(), key, options, rpc, {});
}

void Client::get(const QByteArray &key, const RangeOptions &options, const Rpc &rpc, OnAnswer<RangeResult> onAnswer)
{
    startGet(d.get(), key, options, rpc, std::move(onAnswer));
}

QFuture<PutResult> Client::put(const QByteArray &key, const QByteArray &value, const PutOptions &options,
                               const Rpc &rpc)
{
    return startPut(d.get(), key, value, options, rpc, {});
}

void Client::put(const QByteArray &key, const QByteArray &value, const PutOptions &options, const Rpc &rpc,
                 OnAnswer<PutResult> onAnswer)
{
    startPut(d.get(), key, value, options, rpc, std::move(onAnswer));
}

QFuture<DeleteResult> Client::remove(const QByteArray &key, const DeleteOptions &options, const Rpc &rpc)
{
    return startRemove(d.get(), key, options, rpc, {});
}

void Client::remove(const QByteArray &key, const DeleteOptions &options, const Rpc &rpc, OnAnswer<DeleteResult> onAnswer)
{
    startRemove(d.get(), key, options, rpc, std::move(onAnswer));
}

QFuture<TxnResult> Client::txn(const Txn &txn, const Rpc &rpc)
{
    return startTxn(d.get(), txn, rpc, {});
}

void Client::txn(const Txn &txn, const Rpc &rpc, OnAnswer<TxnResult> onAnswer)
{
    startTxn(d.get(), txn, rpc, std::move(onAnswer));
}

void Client::get(const QByteArray &key, const RangeOptions &options, const Rpc &rpc, QObject *context,
                 OnAnswer<RangeResult> onAnswer)
{
    startAnsweringOn(context, std::move(onAnswer), [&] { return describeRange("get", key, options.range); },
                     [&](OnAnswer<RangeResult> answer) { startGet(d.get(), key, options, rpc, std::move(answer)); });
}

void Client::put(const QByteArray &key, const QByteArray &value, const PutOptions &options, const Rpc &rpc,
                 QObject *context, OnAnswer<PutResult> onAnswer)
{
    startAnsweringOn(context, std::move(onAnswer), [&] { return QStringLiteral("put ") + describeKey(key); },
                     [&](OnAnswer<PutResult> answer) { startPut(d.get(), key, value, options, rpc, std::move(answer)); });
}

void Client::remove(const QByteArray &key, const DeleteOptions &options, const Rpc &rpc, QObject *context,
                    OnAnswer<DeleteResult> onAnswer)
{
    startAnsweringOn(context, std::move(onAnswer), [&] { return describeRange("delete", key, options.range); },
                     [&](OnAnswer<DeleteResult> answer) { startRemove(d.get(), key, options, rpc, std::move(answer)); });
}

void Client::txn(const Txn &txn, const Rpc &rpc, QObject *context, OnAnswer<TxnResult> onAnswer)
{
    startAnsweringOn(context, std::move(onAnswer), [] { return QStringLiteral("txn"); },
                     [&](OnAnswer<TxnResult> answer) { startTxn(d.get(), txn, rpc, std::move(answer)); });
}

QFuture<LeaseGrantResult> Client::leaseGrant(qint64 ttlSeconds, qint64 id, const Rpc &rpc)
{
    etcdserverpb::LeaseGrantRequest request;
    request.set_ttl(ttlSeconds);
    request.set_id(id);
    const Status built = ttlSeconds > 0 ? Status()
                                        : Status(StatusCode::InvalidArgument,
                                                 QStringLiteral("TTL must be > 0 seconds (got %1)").arg(ttlSeconds));
    return d->call<LeaseGrantResult, etcdserverpb::LeaseGrantRequest, etcdserverpb::LeaseGrantResponse>(
        writeSpec([ttlSeconds] { return QStringLiteral("lease grant (TTL %1 s)").arg(ttlSeconds); }, d->resilience(rpc)),
        built,
        std::move(request), QETCD_ISSUE(lease, LeaseGrant), [](const auto &response, LeaseGrantResult *result) {
            result->header = headerFromProto(response.header());
            result->id = response.id();
            result->ttl = response.ttl();
        });
}

QFuture<Result> Client::leaseRevoke(qint64 id, const Rpc &rpc)
{
    return d->leaseRevoke(id, d->resilience(rpc));
}

QFuture<Result> ClientPrivate::leaseRevoke(qint64 id, const RpcResilience &resilience, Client::OnAnswer<Result> onAnswer)
{
    etcdserverpb::LeaseRevokeRequest request;
    request.set_id(id);
    return call<Result, etcdserverpb::LeaseRevokeRequest, etcdserverpb::LeaseRevokeResponse>(
        writeSpec([id] { return QStringLiteral("lease revoke %1").arg(id, 0, 16); }, resilience, false), {},
        std::move(request),
        QETCD_ISSUE(lease, LeaseRevoke),
        [](const auto &response, Result *result) { result->header = headerFromProto(response.header()); },
        std::move(onAnswer));
}

namespace {
// One renewal over a keep-alive stream of its own: opened with a token the transport vouches for,
// closed once etcd answers. A token etcd rejects (a simple token expires after its TTL of disuse)
// is fetched again and the renewal sent once more, as a unary call does.
class KeepAliveOnce : public std::enable_shared_from_this<KeepAliveOnce>
{
public:
    using Stream = BidiStream<etcdserverpb::LeaseKeepAliveRequest, etcdserverpb::LeaseKeepAliveResponse>;

    KeepAliveOnce(Transport *transport, qint64 id, std::optional<std::chrono::system_clock::time_point> deadline)
        : m_transport(transport), m_id(id), m_deadline(deadline),
          m_what(QStringLiteral("lease keep-alive %1").arg(id, 0, 16))
    {
        m_promise.start();
    }

    QFuture<LeaseKeepAliveResult> future() { return m_promise.future(); }
    QString what() const { return m_what; }

    void start(bool reauthenticated = false)
    {
        if (!m_transport->usesAuth())
            return open(reauthenticated);
        m_transport->withToken([self = shared_from_this(), reauthenticated](const Status &status) {
            if (!status)
                return self->settle(failure(status.withContext(self->m_what)));
            self->open(reauthenticated);
        });
    }

    void settle(LeaseKeepAliveResult result)
    {
        std::lock_guard lock(m_mutex);
        if (std::exchange(m_settled, true))
            return;
        m_promise.addResult(std::move(result));
        m_promise.finish();
    }

    static LeaseKeepAliveResult failure(const Status &status)
    {
        LeaseKeepAliveResult result;
        result.status = status;
        return result;
    }

private:
    void open(bool reauthenticated)
    {
        {
            std::lock_guard lock(m_mutex);
            if (openLocked(reauthenticated))
                return;
        }
        settle(failure(Status(StatusCode::Cancelled, m_what + QStringLiteral(": the client is closing"))));
    }

    // False when the transport is closing: no stream, nothing sent.
    bool openLocked(bool reauthenticated)
    {
        const std::string token = m_transport->usesAuth() ? m_transport->token() : std::string();
        m_stream = Stream::open(
            m_transport,
            [](EndpointChannel &c, grpc::ClientContext *ctx, grpc::CompletionQueue *q) {
                return c.lease->PrepareAsyncLeaseKeepAlive(ctx, q);
            },
            Stream::Handlers{[] {}, [self = shared_from_this()](auto &response) { self->onAnswer(response); },
                             [self = shared_from_this(), token, reauthenticated](const Status &closed) {
                                 self->onClosed(closed, token, reauthenticated);
                             }},
            m_deadline);
        if (!m_stream)
            return false;
        etcdserverpb::LeaseKeepAliveRequest request;
        request.set_id(m_id);
        m_stream->write(request);
        return true;
    }

    void onAnswer(const etcdserverpb::LeaseKeepAliveResponse &response)
    {
        LeaseKeepAliveResult result;
        result.header = headerFromProto(response.header());
        result.id = m_id;
        result.ttl = response.ttl();
        // etcd answers a lease it does not have with TTL 0.
        if (result.ttl <= 0)
            result.status = Status(StatusCode::NotFound, m_what + QStringLiteral(": the lease has expired or was revoked"));
        settle(std::move(result));
        std::lock_guard lock(m_mutex);
        if (m_stream)
            m_stream->close();
    }

    void onClosed(const Status &closed, const std::string &token, bool reauthenticated)
    {
        {
            std::lock_guard lock(m_mutex);
            m_stream = nullptr;
            if (m_settled)
                return;
        }
        if (closed.code() == StatusCode::Unauthenticated && !reauthenticated && m_transport->usesAuth()) {
            m_transport->invalidateToken(token);
            return start(true);
        }
        settle(failure(closed ? Status(StatusCode::Unavailable, m_what + QStringLiteral(": the stream ended without an answer"))
                              : closed.withContext(m_what)));
    }

    Transport *const m_transport;
    const qint64 m_id;
    const std::optional<std::chrono::system_clock::time_point> m_deadline;
    const QString m_what;
    std::mutex m_mutex;
    Stream *m_stream = nullptr;  // while open
    bool m_settled = false;
    QPromise<LeaseKeepAliveResult> m_promise;
};
} // namespace

QFuture<LeaseKeepAliveResult> Client::leaseKeepAliveOnce(qint64 id, const Rpc &rpc)
{
    const RpcResilience resilience = d->resilience(rpc);
    std::optional<std::chrono::system_clock::time_point> deadline;
    if (resilience.operationTimeout != NoTimeout)
        deadline = std::chrono::system_clock::now() + resilience.operationTimeout;
    const auto once = std::make_shared<KeepAliveOnce>(d->transport(), id, deadline);
    const QFuture<LeaseKeepAliveResult> future = once->future();
    const Status refused = d->admission(writeSpec([what = once->what()] { return what; }, resilience, false),
                                        id > 0 ? Status() : Status(StatusCode::InvalidArgument,
                                                                   QStringLiteral("lease ID must be > 0 (got %1)").arg(id)));
    if (!refused)
        once->settle(KeepAliveOnce::failure(refused));
    else
        once->start();
    return future;
}

QFuture<LeaseTimeToLiveResult> Client::leaseTimeToLive(qint64 id, bool withKeys, const Rpc &rpc)
{
    etcdserverpb::LeaseTimeToLiveRequest request;
    request.set_id(id);
    request.set_keys(withKeys);
    return d->call<LeaseTimeToLiveResult, etcdserverpb::LeaseTimeToLiveRequest, etcdserverpb::LeaseTimeToLiveResponse>(
        spec([id] { return QStringLiteral("lease time-to-live %1").arg(id, 0, 16); }, d->resilience(rpc)), {},
        std::move(request),
        QETCD_ISSUE(lease, LeaseTimeToLive),
        [codec = d->codec](const auto &response, LeaseTimeToLiveResult *result) { codec.fromProto(response, result); });
}

QFuture<LeaseListResult> Client::leaseList(const Rpc &rpc)
{
    return d->call<LeaseListResult, etcdserverpb::LeaseLeasesRequest, etcdserverpb::LeaseLeasesResponse>(
        spec([] { return QStringLiteral("lease list"); }, d->resilience(rpc)), {}, {}, QETCD_ISSUE(lease, LeaseLeases),
        [](const auto &response, LeaseListResult *result) {
            result->header = headerFromProto(response.header());
            for (const auto &lease : response.leases())
                result->ids.append(lease.id());
        });
}

QFuture<Result> Client::compact(qint64 revision, bool physical, const Rpc &rpc)
{
    etcdserverpb::CompactionRequest request;
    request.set_revision(revision);
    request.set_physical(physical);
    const Status built = revision > 0 ? Status()
                                      : Status(StatusCode::InvalidArgument,
                                               QStringLiteral("revision must be > 0 (got %1)").arg(revision));
    return d->call<Result, etcdserverpb::CompactionRequest, etcdserverpb::CompactionResponse>(
        writeSpec([revision] { return QStringLiteral("compact to revision %1").arg(revision); }, d->resilience(rpc)),
        built, std::move(request),
        QETCD_ISSUE(kv, Compact),
        [](const auto &response, Result *result) { result->header = headerFromProto(response.header()); });
}

namespace {
Member memberFromProto(const etcdserverpb::Member &member)
{
    Member out;
    out.id = member.id();
    out.name = QString::fromStdString(member.name());
    for (const std::string &url : member.peerurls())
        out.peerUrls.append(QString::fromStdString(url));
    for (const std::string &url : member.clienturls())
        out.clientUrls.append(QString::fromStdString(url));
    out.isLearner = member.islearner();
    return out;
}

// Every membership answer: its header and the members after it.
template <class Response>
void toMembers(const Response &response, MemberListResult *result)
{
    result->header = headerFromProto(response.header());
    for (const auto &member : response.members())
        result->members.append(memberFromProto(member));
}

// etcd checks that peer URLs parse, but not that there is one.
Status peerUrlsGiven(const QStringList &peerUrls)
{
    if (peerUrls.isEmpty())
        return Status(StatusCode::InvalidArgument, QStringLiteral("no peer URLs given"));
    for (const QString &url : peerUrls) {
        if (url.trimmed().isEmpty())
            return Status(StatusCode::InvalidArgument, QStringLiteral("an empty peer URL"));
    }
    return {};
}

QString memberName(quint64 id)
{
    return QString::number(id, 16);
}
} // namespace

QFuture<MemberListResult> Client::memberList(const Rpc &rpc)
{
    return d->call<MemberListResult, etcdserverpb::MemberListRequest, etcdserverpb::MemberListResponse>(
        spec([] { return QStringLiteral("member list"); }, d->resilience(rpc)), {}, {}, QETCD_ISSUE(cluster, MemberList),
        [](const auto &response, MemberListResult *result) { toMembers(response, result); });
}

QFuture<MemberAddResult> Client::memberAdd(const QStringList &peerUrls, bool isLearner, const Rpc &rpc)
{
    etcdserverpb::MemberAddRequest request;
    for (const QString &url : peerUrls)
        request.add_peerurls(url.toStdString());
    request.set_islearner(isLearner);
    return d->call<MemberAddResult, etcdserverpb::MemberAddRequest, etcdserverpb::MemberAddResponse>(
        writeSpec([peerUrls, isLearner] {
            return QStringLiteral("member add %1%2").arg(peerUrls.join(QLatin1Char(',')), QLatin1String(isLearner ? " (learner)" : ""));
        }, d->resilience(rpc), false),
        peerUrlsGiven(peerUrls), std::move(request), QETCD_ISSUE(cluster, MemberAdd),
        [](const auto &response, MemberAddResult *result) {
            toMembers(response, result);
            result->member = memberFromProto(response.member());
        });
}

QFuture<MemberListResult> Client::memberRemove(quint64 id, const Rpc &rpc)
{
    etcdserverpb::MemberRemoveRequest request;
    request.set_id(id);
    return d->call<MemberListResult, etcdserverpb::MemberRemoveRequest, etcdserverpb::MemberRemoveResponse>(
        writeSpec([id] { return QStringLiteral("member remove ") + memberName(id); }, d->resilience(rpc), false), {},
        std::move(request), QETCD_ISSUE(cluster, MemberRemove),
        [](const auto &response, MemberListResult *result) { toMembers(response, result); });
}

QFuture<MemberListResult> Client::memberUpdate(quint64 id, const QStringList &peerUrls, const Rpc &rpc)
{
    etcdserverpb::MemberUpdateRequest request;
    request.set_id(id);
    for (const QString &url : peerUrls)
        request.add_peerurls(url.toStdString());
    return d->call<MemberListResult, etcdserverpb::MemberUpdateRequest, etcdserverpb::MemberUpdateResponse>(
        writeSpec([id, peerUrls] {
            return QStringLiteral("member update %1 to %2").arg(memberName(id), peerUrls.join(QLatin1Char(',')));
        }, d->resilience(rpc)),
        peerUrlsGiven(peerUrls), std::move(request), QETCD_ISSUE(cluster, MemberUpdate),
        [](const auto &response, MemberListResult *result) { toMembers(response, result); });
}

QFuture<MemberListResult> Client::memberPromote(quint64 id, const Rpc &rpc)
{
    etcdserverpb::MemberPromoteRequest request;
    request.set_id(id);
    return d->call<MemberListResult, etcdserverpb::MemberPromoteRequest, etcdserverpb::MemberPromoteResponse>(
        writeSpec([id] { return QStringLiteral("member promote ") + memberName(id); }, d->resilience(rpc), false), {},
        std::move(request), QETCD_ISSUE(cluster, MemberPromote),
        [](const auto &response, MemberListResult *result) { toMembers(response, result); });
}

CallSpec ClientPrivate::toOneMember(CallSpec callSpec, const QString &endpoint, Status *built, QString *name) const
{
    int index = transport() ? transport()->activeEndpoint() : 0;
    if (!endpoint.isEmpty()) {
        const Endpoint wanted = Endpoint::parse(endpoint, built);
        index = endpoints.indexOf(wanted);
        if (*built && index < 0)
            *built = Status(StatusCode::InvalidArgument, QStringLiteral("%1 is not one of this client's endpoints").arg(endpoint));
    }
    callSpec.fixedEndpoint = std::max(index, 0);
    *name = endpoints.value(std::max(index, 0)).toString();
    return callSpec;
}

QFuture<EndpointStatusResult> Client::endpointStatus(const QString &endpoint, const Rpc &rpc)
{
    const auto what = [endpoint] {
        return QStringLiteral("status of ") + (endpoint.isEmpty() ? QStringLiteral("the active endpoint") : endpoint);
    };
    Status built;
    QString name;
    const CallSpec callSpec = d->toOneMember(spec(what, d->resilience(rpc)), endpoint, &built, &name);
    return d->call<EndpointStatusResult, etcdserverpb::StatusRequest, etcdserverpb::StatusResponse>(
        callSpec, built, {}, QETCD_ISSUE(maintenance, Status), [name](const auto &response, EndpointStatusResult *result) {
            result->header = headerFromProto(response.header());
            result->endpoint = name;
            result->version = QString::fromStdString(response.version());
            result->dbSize = response.dbsize();
            result->dbSizeInUse = response.dbsizeinuse();
            result->leader = response.leader();
            result->raftIndex = response.raftindex();
            result->raftTerm = response.raftterm();
            result->raftAppliedIndex = response.raftappliedindex();
            for (const std::string &error : response.errors())
                result->errors.append(QString::fromStdString(error));
            result->isLearner = response.islearner();
        });
}

QFuture<AlarmListResult> Client::alarms(const Rpc &rpc)
{
    etcdserverpb::AlarmRequest request;
    request.set_action(etcdserverpb::AlarmRequest::GET);
    return d->call<AlarmListResult, etcdserverpb::AlarmRequest, etcdserverpb::AlarmResponse>(
        spec([] { return QStringLiteral("alarm list"); }, d->resilience(rpc)), {}, std::move(request),
        QETCD_ISSUE(maintenance, Alarm),
        [](const auto &response, AlarmListResult *result) {
            result->header = headerFromProto(response.header());
            for (const auto &alarm : response.alarms()) {
                const AlarmType type = alarm.alarm() == etcdserverpb::NOSPACE ? AlarmType::NoSpace
                    : alarm.alarm() == etcdserverpb::CORRUPT                  ? AlarmType::Corrupt
                                                                              : AlarmType::None;
                result->alarms.append(Alarm{alarm.memberid(), type});
            }
        });
}

QFuture<Result> Client::disarmAlarm(const Alarm &alarm, const Rpc &rpc)
{
    etcdserverpb::AlarmRequest request;
    request.set_action(etcdserverpb::AlarmRequest::DEACTIVATE);
    request.set_memberid(alarm.memberId);
    request.set_alarm(alarm.type == AlarmType::NoSpace  ? etcdserverpb::NOSPACE
                      : alarm.type == AlarmType::Corrupt ? etcdserverpb::CORRUPT
                                                         : etcdserverpb::NONE);
    const quint64 member = alarm.memberId;
    return d->call<Result, etcdserverpb::AlarmRequest, etcdserverpb::AlarmResponse>(
        writeSpec([member] { return QStringLiteral("disarm the alarm of member %1").arg(member, 0, 16); }, d->resilience(rpc)),
        {}, std::move(request), QETCD_ISSUE(maintenance, Alarm),
        [](const auto &response, Result *result) { result->header = headerFromProto(response.header()); });
}

QFuture<Result> Client::defragment(const QString &endpoint, const Rpc &rpc)
{
    Status built;
    QString name;
    const CallSpec callSpec = d->toOneMember(
        writeSpec([endpoint] { return QStringLiteral("defragment ") + (endpoint.isEmpty() ? QStringLiteral("the active endpoint") : endpoint); },
                  d->resilience(rpc ? rpc : Rpc(RpcResilience{RetryPolicy::never(), std::chrono::minutes(10)})), false),
        endpoint, &built, &name);
    return d->call<Result, etcdserverpb::DefragmentRequest, etcdserverpb::DefragmentResponse>(
        callSpec, built, {}, QETCD_ISSUE(maintenance, Defragment),
        [](const auto &response, Result *result) { result->header = headerFromProto(response.header()); });
}

QFuture<HashKVResult> Client::hashKV(const QString &endpoint, qint64 revision, const Rpc &rpc)
{
    Status built;
    QString name;
    const CallSpec callSpec = d->toOneMember(
        spec([endpoint, revision] { return QStringLiteral("hash the keys of %1 at revision %2").arg(endpoint).arg(revision); },
             d->resilience(rpc)),
        endpoint, &built, &name);
    etcdserverpb::HashKVRequest request;
    request.set_revision(revision);
    return d->call<HashKVResult, etcdserverpb::HashKVRequest, etcdserverpb::HashKVResponse>(
        callSpec, built, std::move(request), QETCD_ISSUE(maintenance, HashKV),
        [name](const auto &response, HashKVResult *result) {
            result->header = headerFromProto(response.header());
            result->endpoint = name;
            result->hash = response.hash();
            result->compactRevision = response.compact_revision();
        });
}

QFuture<Result> Client::moveLeader(quint64 targetMemberId, const QString &leaderEndpoint, const Rpc &rpc)
{
    Status built;
    QString name;
    const CallSpec callSpec = d->toOneMember(
        writeSpec([targetMemberId] { return QStringLiteral("move the leadership to member %1").arg(targetMemberId, 0, 16); },
                  d->resilience(rpc), false),
        leaderEndpoint, &built, &name);
    etcdserverpb::MoveLeaderRequest request;
    request.set_targetid(targetMemberId);
    return d->call<Result, etcdserverpb::MoveLeaderRequest, etcdserverpb::MoveLeaderResponse>(
        callSpec, built, std::move(request), QETCD_ISSUE(maintenance, MoveLeader),
        [](const auto &response, Result *result) { result->header = headerFromProto(response.header()); });
}

namespace {
QString quotedName(const QString &name)
{
    return QLatin1Char('"') + name + QLatin1Char('"');
}

// Names are checked here: etcd's own answer to an empty one ("user name is empty") reads as if
// the client had not logged in.
Status nameGiven(const QString &name, const char *what)
{
    if (name.isEmpty())
        return Status(StatusCode::InvalidArgument, QStringLiteral("%1 name is empty").arg(QLatin1String(what)));
    return {};
}

Status bothGiven(const Status &first, const Status &second)
{
    return first ? second : first;
}

Status passwordGiven(const QString &password)
{
    if (password.isEmpty())
        return Status(StatusCode::InvalidArgument, QStringLiteral("the password is empty"));
    return {};
}

Permission permissionFromProto(const authpb::Permission &permission)
{
    Permission out;
    out.type = permission.permtype() == authpb::Permission::WRITE ? PermissionType::Write
        : permission.permtype() == authpb::Permission::READWRITE ? PermissionType::ReadWrite
                                                                  : PermissionType::Read;
    const QByteArray key(permission.key().data(), qsizetype(permission.key().size()));
    const QByteArray end(permission.range_end().data(), qsizetype(permission.range_end().size()));
    const QByteArray zero(1, '\0');
    out.key = key;
    if (end.isEmpty()) {
        out.range = KeyRange::single();
    } else if (key == zero && end == zero) {
        out.key.clear();
        out.range = KeyRange::prefix();
    } else if (end == prefixRangeEnd(key)) {
        out.range = KeyRange::prefix();
    } else if (end == zero) {
        out.range = KeyRange::fromKey();
    } else {
        out.range = KeyRange::upTo(end);
    }
    return out;
}

// Permissions are the cluster's: the client's key namespace stays out of them.
Status permissionKeys(const Permission &permission, std::string *key, std::string *rangeEnd)
{
    return Internal::KeyCodec().range(permission.key, permission.range, key, rangeEnd);
}

QString describePermission(const char *verb, const Permission &permission, const QString &role)
{
    return QStringLiteral("%1 %2 on %3 %4 role %5")
        .arg(QLatin1String(verb), permission.typeName(), permission.describeKeys(),
             QLatin1String(qstrcmp(verb, "grant") == 0 ? "to" : "from"), quotedName(role));
}

template <class R>
std::shared_ptr<QPromise<R>> startedPromise()
{
    auto promise = std::make_shared<QPromise<R>>();
    promise->start();
    return promise;
}

template <class R>
void fulfil(QPromise<R> &promise, R result)
{
    promise.addResult(std::move(result));
    promise.finish();
}

void toHeader(const etcdserverpb::ResponseHeader &header, Result *result)
{
    result->header = headerFromProto(header);
}
} // namespace

namespace {
// With a password or without one (a user that authenticates by its certificate alone).
QFuture<Result> addUser(ClientPrivate *d, etcdserverpb::AuthUserAddRequest request, const Status &refused,
                        const Client::Rpc &rpc)
{
    const QString name = QString::fromStdString(request.name());
    return d->call<Result, etcdserverpb::AuthUserAddRequest, etcdserverpb::AuthUserAddResponse>(
        writeSpec([name] { return QStringLiteral("user add ") + quotedName(name); }, d->resilience(rpc), false), refused,
        std::move(request), QETCD_ISSUE(auth, UserAdd),
        [](const auto &response, Result *result) { toHeader(response.header(), result); });
}
} // namespace

QFuture<Result> Client::userAdd(const QString &name, const QString &password, const Rpc &rpc)
{
    etcdserverpb::AuthUserAddRequest request;
    request.set_name(name.toStdString());
    request.set_password(password.toStdString());
    return addUser(d.get(), std::move(request), bothGiven(nameGiven(name, "user"), passwordGiven(password)), rpc);
}

QFuture<Result> Client::userAddWithoutPassword(const QString &name, const Rpc &rpc)
{
    etcdserverpb::AuthUserAddRequest request;
    request.set_name(name.toStdString());
    request.mutable_options()->set_no_password(true);
    return addUser(d.get(), std::move(request), nameGiven(name, "user"), rpc);
}

QFuture<Result> Client::userDelete(const QString &name, const Rpc &rpc)
{
    etcdserverpb::AuthUserDeleteRequest request;
    request.set_name(name.toStdString());
    return d->call<Result, etcdserverpb::AuthUserDeleteRequest, etcdserverpb::AuthUserDeleteResponse>(
        writeSpec([name] { return QStringLiteral("user delete ") + quotedName(name); }, d->resilience(rpc), false),
        nameGiven(name, "user"), std::move(request), QETCD_ISSUE(auth, UserDelete),
        [](const auto &response, Result *result) { toHeader(response.header(), result); });
}

QFuture<UserResult> Client::userGet(const QString &name, const Rpc &rpc)
{
    etcdserverpb::AuthUserGetRequest request;
    request.set_name(name.toStdString());
    return d->call<UserResult, etcdserverpb::AuthUserGetRequest, etcdserverpb::AuthUserGetResponse>(
        spec([name] { return QStringLiteral("user get ") + quotedName(name); }, d->resilience(rpc)), nameGiven(name, "user"),
        std::move(request), QETCD_ISSUE(auth, UserGet), [name](const auto &response, UserResult *result) {
            toHeader(response.header(), result);
            result->name = name;
            for (const std::string &role : response.roles())
                result->roles.append(QString::fromStdString(role));
        });
}

QFuture<UserListResult> Client::userList(const Rpc &rpc)
{
    return d->call<UserListResult, etcdserverpb::AuthUserListRequest, etcdserverpb::AuthUserListResponse>(
        spec([] { return QStringLiteral("user list"); }, d->resilience(rpc)), {}, {}, QETCD_ISSUE(auth, UserList),
        [](const auto &response, UserListResult *result) {
            toHeader(response.header(), result);
            for (const std::string &user : response.users())
                result->users.append(QString::fromStdString(user));
        });
}

QFuture<Result> Client::userChangePassword(const QString &name, const QString &password, const Rpc &rpc)
{
    etcdserverpb::AuthUserChangePasswordRequest request;
    request.set_name(name.toStdString());
    request.set_password(password.toStdString());
    return d->call<Result, etcdserverpb::AuthUserChangePasswordRequest, etcdserverpb::AuthUserChangePasswordResponse>(
        writeSpec([name] { return QStringLiteral("change the password of user ") + quotedName(name); }, d->resilience(rpc)),
        bothGiven(nameGiven(name, "user"), passwordGiven(password)), std::move(request),
        QETCD_ISSUE(auth, UserChangePassword),
        [](const auto &response, Result *result) { toHeader(response.header(), result); });
}

QFuture<Result> Client::userGrantRole(const QString &user, const QString &role, const Rpc &rpc)
{
    etcdserverpb::AuthUserGrantRoleRequest request;
    request.set_user(user.toStdString());
    request.set_role(role.toStdString());
    return d->call<Result, etcdserverpb::AuthUserGrantRoleRequest, etcdserverpb::AuthUserGrantRoleResponse>(
        writeSpec([user, role] { return QStringLiteral("grant role %1 to user %2").arg(quotedName(role), quotedName(user)); },
                  d->resilience(rpc)),
        bothGiven(nameGiven(user, "user"), nameGiven(role, "role")), std::move(request),
        QETCD_ISSUE(auth, UserGrantRole),
        [](const auto &response, Result *result) { toHeader(response.header(), result); });
}

QFuture<Result> Client::userRevokeRole(const QString &user, const QString &role, const Rpc &rpc)
{
    etcdserverpb::AuthUserRevokeRoleRequest request;
    request.set_name(user.toStdString());
    request.set_role(role.toStdString());
    return d->call<Result, etcdserverpb::AuthUserRevokeRoleRequest, etcdserverpb::AuthUserRevokeRoleResponse>(
        writeSpec([user, role] { return QStringLiteral("revoke role %1 from user %2").arg(quotedName(role), quotedName(user)); },
                  d->resilience(rpc), false),
        bothGiven(nameGiven(user, "user"), nameGiven(role, "role")), std::move(request),
        QETCD_ISSUE(auth, UserRevokeRole),
        [](const auto &response, Result *result) { toHeader(response.header(), result); });
}

QFuture<Result> Client::roleAdd(const QString &name, const Rpc &rpc)
{
    etcdserverpb::AuthRoleAddRequest request;
    request.set_name(name.toStdString());
    return d->call<Result, etcdserverpb::AuthRoleAddRequest, etcdserverpb::AuthRoleAddResponse>(
        writeSpec([name] { return QStringLiteral("role add ") + quotedName(name); }, d->resilience(rpc), false),
        nameGiven(name, "role"), std::move(request), QETCD_ISSUE(auth, RoleAdd),
        [](const auto &response, Result *result) { toHeader(response.header(), result); });
}

QFuture<Result> Client::roleDelete(const QString &name, const Rpc &rpc)
{
    etcdserverpb::AuthRoleDeleteRequest request;
    request.set_role(name.toStdString());
    return d->call<Result, etcdserverpb::AuthRoleDeleteRequest, etcdserverpb::AuthRoleDeleteResponse>(
        writeSpec([name] { return QStringLiteral("role delete ") + quotedName(name); }, d->resilience(rpc), false),
        nameGiven(name, "role"), std::move(request), QETCD_ISSUE(auth, RoleDelete),
        [](const auto &response, Result *result) { toHeader(response.header(), result); });
}

QFuture<RoleResult> Client::roleGet(const QString &name, const Rpc &rpc)
{
    etcdserverpb::AuthRoleGetRequest request;
    request.set_role(name.toStdString());
    return d->call<RoleResult, etcdserverpb::AuthRoleGetRequest, etcdserverpb::AuthRoleGetResponse>(
        spec([name] { return QStringLiteral("role get ") + quotedName(name); }, d->resilience(rpc)), nameGiven(name, "role"),
        std::move(request), QETCD_ISSUE(auth, RoleGet), [name](const auto &response, RoleResult *result) {
            toHeader(response.header(), result);
            result->name = name;
            for (const authpb::Permission &permission : response.perm())
                result->permissions.append(permissionFromProto(permission));
        });
}

QFuture<RoleListResult> Client::roleList(const Rpc &rpc)
{
    return d->call<RoleListResult, etcdserverpb::AuthRoleListRequest, etcdserverpb::AuthRoleListResponse>(
        spec([] { return QStringLiteral("role list"); }, d->resilience(rpc)), {}, {}, QETCD_ISSUE(auth, RoleList),
        [](const auto &response, RoleListResult *result) {
            toHeader(response.header(), result);
            for (const std::string &role : response.roles())
                result->roles.append(QString::fromStdString(role));
        });
}

QFuture<Result> Client::roleGrantPermission(const QString &role, const Permission &permission, const Rpc &rpc)
{
    etcdserverpb::AuthRoleGrantPermissionRequest request;
    request.set_name(role.toStdString());
    authpb::Permission *granted = request.mutable_perm();
    granted->set_permtype(permission.type == PermissionType::Write       ? authpb::Permission::WRITE
                          : permission.type == PermissionType::ReadWrite ? authpb::Permission::READWRITE
                                                                         : authpb::Permission::READ);
    const Status built = bothGiven(nameGiven(role, "role"),
                                   permissionKeys(permission, granted->mutable_key(), granted->mutable_range_end()));
    return d->call<Result, etcdserverpb::AuthRoleGrantPermissionRequest, etcdserverpb::AuthRoleGrantPermissionResponse>(
        writeSpec([role, permission] { return describePermission("grant", permission, role); }, d->resilience(rpc)),
        built, std::move(request), QETCD_ISSUE(auth, RoleGrantPermission),
        [](const auto &response, Result *result) { toHeader(response.header(), result); });
}

QFuture<Result> Client::roleRevokePermission(const QString &role, const Permission &keys, const Rpc &rpc)
{
    etcdserverpb::AuthRoleRevokePermissionRequest request;
    request.set_role(role.toStdString());
    const Status built =
        bothGiven(nameGiven(role, "role"), permissionKeys(keys, request.mutable_key(), request.mutable_range_end()));
    return d->call<Result, etcdserverpb::AuthRoleRevokePermissionRequest, etcdserverpb::AuthRoleRevokePermissionResponse>(
        writeSpec([role, keys] { return QStringLiteral("revoke the permission on %1 from role %2").arg(keys.describeKeys(), quotedName(role)); },
                  d->resilience(rpc), false),
        built, std::move(request), QETCD_ISSUE(auth, RoleRevokePermission),
        [](const auto &response, Result *result) { toHeader(response.header(), result); });
}

namespace {
// Auth was turned on or off: the token and what the client knew about the server are stale.
QFuture<Result> sendAuthSwitch(ClientPrivate *d, const CallSpec &callSpec, bool on, Client::OnAnswer<Result> onAnswer)
{
    const auto convert = [transport = d->transport()](const auto &response, Result *result) {
        toHeader(response.header(), result);
        transport->forgetAuthentication();
    };
    if (on) {
        return d->call<Result, etcdserverpb::AuthEnableRequest, etcdserverpb::AuthEnableResponse>(
            callSpec, {}, {}, QETCD_ISSUE(auth, AuthEnable), convert, std::move(onAnswer));
    }
    return d->call<Result, etcdserverpb::AuthDisableRequest, etcdserverpb::AuthDisableResponse>(
        callSpec, {}, {}, QETCD_ISSUE(auth, AuthDisable), convert, std::move(onAnswer));
}

Status rootCheck(const UserResult &root)
{
    if (root.status.message().contains(QLatin1String("user name not found"))) {
        return Status(StatusCode::FailedPrecondition,
                      QStringLiteral("auth enable: refused: there is no user \"root\"; add it and grant it role \"root\" "
                                     "first, or nobody could administer the cluster"));
    }
    if (!root.status)
        return root.status;
    if (!root.roles.contains(QLatin1String("root"))) {
        return Status(StatusCode::FailedPrecondition,
                      QStringLiteral("auth enable: refused: user \"root\" does not have role \"root\"; grant it "
                                     "first, or nobody could administer the cluster"));
    }
    return {};
}
} // namespace

QFuture<Result> Client::authEnable(const Rpc &rpc)
{
    const CallSpec enable = writeSpec([] { return QStringLiteral("auth enable"); }, d->resilience(rpc));
    // Under read-only not even the check of the root user is sent: the enable is refused as is.
    if (d->options.readOnly || !d->configurationStatus)
        return sendAuthSwitch(d.get(), enable, true, {});
    auto promise = startedPromise<Result>();
    const QFuture<Result> future = promise->future();
    // etcd refuses too, but only once the request is in its log, and in words that do not say
    // what to do.
    etcdserverpb::AuthUserGetRequest request;
    request.set_name("root");
    d->call<UserResult, etcdserverpb::AuthUserGetRequest, etcdserverpb::AuthUserGetResponse>(
        spec([] { return QStringLiteral("auth enable: check that user \"root\" has role \"root\""); }, d->resilience(rpc)),
        {}, std::move(request), QETCD_ISSUE(auth, UserGet),
        [](const auto &response, UserResult *result) {
            toHeader(response.header(), result);
            for (const std::string &role : response.roles())
                result->roles.append(QString::fromStdString(role));
        },
        [d = d.get(), enable, promise](const UserResult &root) {
            if (const Status refused = rootCheck(root); !refused) {
                Result result;
                result.status = refused;
                return fulfil(*promise, result);
            }
            sendAuthSwitch(d, enable, true, [promise](const Result &enabled) { fulfil(*promise, enabled); });
        });
    return future;
}

QFuture<Result> Client::authDisable(const Rpc &rpc)
{
    return sendAuthSwitch(d.get(), writeSpec([] { return QStringLiteral("auth disable"); }, d->resilience(rpc)), false, {});
}

QFuture<AuthStatusResult> Client::authStatus(const Rpc &rpc)
{
    CallSpec asAnonymous = spec([] { return QStringLiteral("auth status"); }, d->resilience(rpc));
    asAnonymous.authenticated = false;
    auto promise = startedPromise<AuthStatusResult>();
    const QFuture<AuthStatusResult> future = promise->future();
    d->call<Result, etcdserverpb::AuthRoleListRequest, etcdserverpb::AuthRoleListResponse>(
        asAnonymous, {}, {}, QETCD_ISSUE(auth, RoleList),
        [](const auto &response, Result *result) { toHeader(response.header(), result); },
        [promise](const Result &answer) {
            AuthStatusResult status;
            status.header = answer.header;
            if (answer.status.message().contains(QLatin1String("user name is empty")))
                status.enabled = true;
            else
                status.status = answer.status;
            fulfil(*promise, status);
        });
    return future;
}

QFuture<Result> Client::ping(const Rpc &rpc)
{
    RangeOptions options;
    options.countOnly = true;
    etcdserverpb::RangeRequest request;
    const Status built = d->codec.toProto(QByteArrayLiteral("health-check-probe"), options, &request);
    return d->call<Result, etcdserverpb::RangeRequest, etcdserverpb::RangeResponse>(
        spec([] { return QStringLiteral("ping"); }, d->resilience(rpc)), built, std::move(request),
        QETCD_ISSUE(kv, Range),
        [](const auto &response, Result *result) { result->header = headerFromProto(response.header()); });
}

#undef QETCD_ISSUE

} // namespace QEtcd
