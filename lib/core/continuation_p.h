// SPDX-License-Identifier: Apache-2.0
#pragma once

// The library's continuations, none of them through QFuture::then().
//
// Qt 6.4's then() is unsafe when attached from one thread while another finishes the future:
// setContinuation() finds the future finished, runs the continuation and keeps it, and the
// finishing thread's runContinuation() then runs it a second time. Qt's wrapper starts a promise
// it already handed on, and the process dies. A QFutureWatcher hears of the finish under the
// future's own mutex, exactly once, so the library watches futures instead, from a thread of its
// own (the futures thread) that outlives every client: a chain still settles, as orphaned, while
// its client winds down. QFuture::then(context, …) has a second gap, kept closed here: a context
// gone by the time the future finishes leaves whatever the finished call brought back (a granted
// lease, say) with nobody to undo it.
//
// after(future, function)
//     function(result) runs on the futures thread: keep it short and never block in it.
// thenOn(future, context, function, orphaned)
//     function(result) runs on context's thread while context lives, always queued (never inside
//     the call that finished the future); once context is gone, orphaned(result) runs instead,
//     on whichever thread finds out, and its return value settles the returned future. Attached
//     from context's own thread, the future is watched there, not on the futures thread.
//
// A function that returns a QFuture<U> chains: the returned future is a QFuture<U> that finishes
// with it. A cancelled future cancels what follows it.

#include "mailbox_p.h"

#include <QEtcd/qetcdexport.h>

#include <QtCore/QFuture>
#include <QtCore/QFutureWatcher>
#include <QtCore/QObject>
#include <QtCore/QPromise>
#include <QtCore/QThread>

#include <functional>
#include <memory>
#include <type_traits>

namespace QEtcd::Internal {

// Queues work to the futures thread; drops it once the application is gone.
QETCD_INTERNAL_EXPORT void onFuturesThread(std::function<void()> work);

// How other threads reach context: one mailbox per context, closed on the thread that destroys
// it as it dies (QObject::destroyed, before Qt drops the object's posted events). A QPointer
// read on another thread can still say the object lives while it is being destroyed, and the
// post then reads freed memory: a mutex checker participant died so, in postEvent, an answer
// arriving as its lock went away. Null for a null context.
QETCD_INTERNAL_EXPORT std::shared_ptr<Mailbox> contextMailbox(QObject *context);

// callback(future) runs once on the futures thread when future has finished (or was cancelled).
template <class T, class Callback>
void whenFinished(const QFuture<T> &future, Callback callback)
{
    onFuturesThread([future, callback]() mutable {
        auto *watcher = new QFutureWatcher<T>;
        QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, [watcher, callback]() mutable {
            watcher->deleteLater();
            callback(watcher->future());
        });
        watcher->setFuture(future);
    });
}

template <class R>
struct Chained
{
    using Type = R;
};
template <class U>
struct Chained<QFuture<U>>
{
    using Type = U;
};
template <class R>
using ChainedT = typename Chained<R>::Type;

// Settles promise with what a continuation returned, waiting for it when that is a future.
template <class R>
void settle(const std::shared_ptr<QPromise<ChainedT<R>>> &promise, R value)
{
    if constexpr (std::is_same_v<R, QFuture<ChainedT<R>>>) {
        whenFinished(value, [promise](const QFuture<ChainedT<R>> &inner) {
            if (inner.isCanceled())
                return;
            if constexpr (!std::is_void_v<ChainedT<R>>)
                promise->addResult(inner.result());
            promise->finish();
        });
    } else {
        promise->addResult(std::move(value));
        promise->finish();
    }
}

template <class R, class Handler, class T>
void settleWith(const std::shared_ptr<QPromise<ChainedT<R>>> &promise, Handler &handler, const T &value)
{
    if constexpr (std::is_void_v<R>) {
        handler(value);
        promise->finish();
    } else {
        settle<R>(promise, handler(value));
    }
}

// Owned by the queued call: whether that call runs or is dropped with its context, the
// promise is settled exactly once.
template <class T, class R, class Function, class Orphaned>
class Delivery
{
public:
    Delivery(std::shared_ptr<QPromise<ChainedT<R>>> promise, const Function &function, const Orphaned &orphaned,
             T value)
        : m_promise(std::move(promise)), m_function(function), m_orphaned(orphaned), m_value(std::move(value))
    {
    }
    Q_DISABLE_COPY_MOVE(Delivery)
    ~Delivery()
    {
        if (!m_delivered)
            settleWith<R>(m_promise, m_orphaned, m_value);
    }

    void deliver()
    {
        m_delivered = true;
        settleWith<R>(m_promise, m_function, m_value);
    }

private:
    std::shared_ptr<QPromise<ChainedT<R>>> m_promise;
    Function m_function;
    Orphaned m_orphaned;
    T m_value;
    bool m_delivered = false;
};

template <class T, class Function>
auto after(const QFuture<T> &future, Function function)
{
    using R = std::invoke_result_t<Function, const T &>;
    auto promise = std::make_shared<QPromise<ChainedT<R>>>();
    promise->start();
    QFuture<ChainedT<R>> result = promise->future();
    whenFinished(future, [promise, function](const QFuture<T> &done) mutable {
        if (!done.isCanceled())
            settleWith<R>(promise, function, done.result());
    });
    return result;
}

// Attached from context's own thread, as recipes attach theirs: a watcher there tells the finish
// (as a posted event, never inside the call that finished the future) without the two hops
// through the futures thread. Should context go first, the watcher goes with it and hands the
// future to the futures thread, to settle as orphaned.
template <class T, class R, class Function, class Orphaned>
void watchOnContextThread(const QFuture<T> &future, QObject *context,
                          const std::shared_ptr<QPromise<ChainedT<R>>> &promise, const Function &function,
                          const Orphaned &orphaned)
{
    auto *watcher = new QFutureWatcher<T>(context);
    auto told = std::make_shared<bool>(false);
    QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, [watcher, told, promise, function]() mutable {
        *told = true;
        watcher->deleteLater();
        const QFuture<T> done = watcher->future();
        if (!done.isCanceled())
            settleWith<R>(promise, function, done.result());
    });
    QObject::connect(watcher, &QObject::destroyed, [told, future, promise, orphaned]() mutable {
        if (*told)
            return;
        auto settleOrphaned = [promise, orphaned](const QFuture<T> &done) mutable {
            if (!done.isCanceled())
                settleWith<R>(promise, orphaned, done.result());
        };
        if (future.isFinished())
            settleOrphaned(future);
        else
            whenFinished(future, settleOrphaned);
    });
    watcher->setFuture(future);
}

template <class T, class Function, class Orphaned>
auto thenOn(const QFuture<T> &future, QObject *context, Function function, Orphaned orphaned)
{
    using R = std::invoke_result_t<Function, const T &>;
    static_assert(std::is_same_v<R, std::invoke_result_t<Orphaned, const T &>>,
                  "orphaned must return what function returns");
    auto promise = std::make_shared<QPromise<ChainedT<R>>>();
    promise->start();
    QFuture<ChainedT<R>> result = promise->future();
    if (!future.isFinished() && context && context->thread() == QThread::currentThread()) {
        watchOnContextThread<T, R>(future, context, promise, function, orphaned);
        return result;
    }
    const auto deliver = [promise, function, orphaned, box = contextMailbox(context)](const QFuture<T> &done) {
        if (done.isCanceled())
            return;
        auto delivery = std::make_shared<Delivery<T, R, Function, Orphaned>>(promise, function, orphaned, done.result());
        // Not posted to a context already gone; a call still queued when its context dies is
        // dropped by Qt. Either way the delivery goes unrun and settles as orphaned.
        if (box)
            box->post([delivery] { delivery->deliver(); });
    };
    // A future finished before we look has no finish left to race with.
    if (future.isFinished())
        deliver(future);
    else
        whenFinished(future, deliver);
    return result;
}

// A Client call's onAnswer that runs function(answer) on context's thread while context lives,
// one posted event after the answer arrives. For a recipe's hot path: a future watched from
// context's thread costs five posted events and a watcher and a promise per call (the watcher,
// attached to a running future, posts three to itself; the answer posts two more). Once context
// is gone the answer is dropped, and function with it, perhaps on the thread the answer came on:
// it must have nothing to undo and own nothing that has to go on context's thread (a lease:
// capture what owns one weakly).
template <class Result, class Function>
std::function<void(const Result &)> answerOn(QObject *context, Function function)
{
    return [box = contextMailbox(context), function = std::move(function)](const Result &answer) mutable {
        if (box)
            box->post([function = std::move(function), answer] { function(answer); });
    };
}

// For a continuation with nothing to undo when its context is gone.
template <class T, class Function>
auto thenOn(const QFuture<T> &future, QObject *context, Function function)
{
    static_assert(std::is_void_v<std::invoke_result_t<Function, const T &>>,
                  "a continuation that returns something says what to return without its context");
    return thenOn(future, context, std::move(function), [](const T &) {});
}

} // namespace QEtcd::Internal
