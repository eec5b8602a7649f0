// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/retrypolicy.h>

#include <memory>

namespace QEtcd {

/// What a DistributedAtomicLong is configured with; ttlSeconds is not used, as the counter is
/// not leased.
struct QETCD_EXPORT AtomicLongOptions : RecipeOptions
{
    /// What the first instance to touch the counter creates it with; later defaults are ignored.
    qint64 defaultValue = 0;
    /// Bounds the retries of a change that lost its compare-and-set to a concurrent one
    /// (RetriesExhausted after them) and paces them: the first goes at once with the value the
    /// failed compare read, each later one after casRetry's delay and a fresh read. The jitter
    /// keeps contenders from colliding in lockstep.
    RetryPolicy casRetry = RetryPolicy::exponentialBackoff(
        {std::chrono::milliseconds(5), std::chrono::milliseconds(250), 2.0, 1.0, 40});
};

/// The answer to every call of a DistributedAtomicLong.
struct QETCD_EXPORT AtomicLongResult : Result
{
    /// get(): the value read. add(), increment(), decrement(), compareAndSet(): the value this
    /// call committed, so concurrent increments each see a value of their own. compareAndSet()
    /// that found another value: Mismatch, and that value. An add() that would take the value
    /// past a 64-bit integer: OutOfRange, and the value found.
    qint64 value = 0;
};

class DistributedAtomicLongPrivate;

/// A 64-bit counter in etcd, changed by compare-and-set.
///
/// A 64-bit counter in one key, as etcd-recipes stores it: 8 bytes, big-endian two's
/// complement, not leased. Changes are compare-and-set on the key's mod revision, retried under
/// casRetry when a concurrent change got in first. The first use creates the key with
/// defaultValue if it does not exist; a counter deleted after that reports NotFound.
///
/// Every blocking call has a non-blocking twin.
class QETCD_EXPORT DistributedAtomicLong : public Recipe
{
    Q_OBJECT

public:
    /// The counter at \a path, through \a client.
    DistributedAtomicLong(Client *client, const QByteArray &path, const AtomicLongOptions &options = AtomicLongOptions(),
                          QObject *parent = nullptr);
    /// Closes it; calls still running return Cancelled, later ones Closed.
    ~DistributedAtomicLong() override;

    /// The counter's key.
    QByteArray path() const;

    /// Reads the value.
    AtomicLongResult get();
    /// Adds \a delta; the result holds the value this call committed. Past the range of a
    /// 64-bit integer nothing is written and the result is OutOfRange (the reference's Java
    /// long wraps around instead).
    AtomicLongResult add(qint64 delta);
    /// Adds 1.
    AtomicLongResult increment();
    /// Subtracts 1.
    AtomicLongResult decrement();
    /// Sets \a newValue if the value is \a expected; Mismatch and the value found otherwise.
    AtomicLongResult compareAndSet(qint64 expected, qint64 newValue);

    /// The non-blocking twin of get().
    QFuture<AtomicLongResult> getAsync();
    /// The non-blocking twin of add().
    QFuture<AtomicLongResult> addAsync(qint64 delta);
    /// The non-blocking twin of increment().
    QFuture<AtomicLongResult> incrementAsync();
    /// The non-blocking twin of decrement().
    QFuture<AtomicLongResult> decrementAsync();
    /// The non-blocking twin of compareAndSet().
    QFuture<AtomicLongResult> compareAndSetAsync(qint64 expected, qint64 newValue);

protected:
    void doClose() override;

private:
    friend class DistributedAtomicLongPrivate;
    std::unique_ptr<DistributedAtomicLongPrivate> d;
};

} // namespace QEtcd
