#pragma once

// QFuture::then(context, function) in Qt 6.4 has no answer for a context that is gone by the
// time the future finishes: a Q_ASSERT in Debug builds, and in release builds function never
// runs and the future then() returned is cancelled. Whatever the finished call brought back (a
// granted lease, say) is then lost with nobody to undo it. thenOn() is then() with that case
// handled: function runs on context's thread while context lives; otherwise orphaned(result)
// runs, on whichever thread finds out, and its return value finishes the returned future.
// function is always queued, even from context's own thread, so it never runs inside the call
// that finished the future.

#include <QtCore/QFuture>
#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QPromise>

#include <memory>
#include <type_traits>

namespace QEtcd::Internal {

// Owned by the queued call: whether that call runs or is dropped with its context, the
// promise is settled exactly once.
template <class T, class R, class Function, class Orphaned>
class Delivery
{
public:
    Delivery(std::shared_ptr<QPromise<R>> promise, const Function &function, const Orphaned &orphaned, T value)
        : m_promise(std::move(promise)), m_function(function), m_orphaned(orphaned), m_value(std::move(value))
    {
    }
    Q_DISABLE_COPY_MOVE(Delivery)
    ~Delivery()
    {
        if (!m_delivered)
            settle(m_orphaned);
    }

    void deliver()
    {
        m_delivered = true;
        settle(m_function);
    }

private:
    template <class Handler>
    void settle(Handler &handler)
    {
        if constexpr (std::is_void_v<R>)
            handler(m_value);
        else
            m_promise->addResult(handler(m_value));
        m_promise->finish();
    }

    std::shared_ptr<QPromise<R>> m_promise;
    Function m_function;
    Orphaned m_orphaned;
    T m_value;
    bool m_delivered = false;
};

template <class T, class Function, class Orphaned>
auto thenOn(const QFuture<T> &future, QObject *context, Function function, Orphaned orphaned)
{
    using R = std::invoke_result_t<Function, const T &>;
    static_assert(std::is_same_v<R, std::invoke_result_t<Orphaned, const T &>>,
                  "orphaned must return what function returns");
    auto promise = std::make_shared<QPromise<R>>();
    promise->start();
    QFuture<R> result = promise->future();
    QFuture<T>(future).then(QtFuture::Launch::Sync, [promise, function = std::move(function), orphaned = std::move(orphaned),
                                                     guard = QPointer<QObject>(context)](const T &value) {
        auto delivery = std::make_shared<Delivery<T, R, Function, Orphaned>>(promise, function, orphaned, value);
        // Fails at once for a context already gone; a call still queued when its context dies
        // is dropped by Qt. Either way the delivery goes unrun and settles as orphaned.
        QMetaObject::invokeMethod(guard.data(), [delivery] { delivery->deliver(); }, Qt::QueuedConnection);
    });
    return result;
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
