#pragma once

#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/retrypolicy.h>

#include <memory>

namespace QEtcd {

struct QETCD_EXPORT AtomicLongOptions : RecipeOptions  // ttlSeconds is not used: the counter is not leased
{
    // What the first instance to touch the counter creates it with; later defaults are ignored.
    qint64 defaultValue = 0;
    // Bounds the retries of a change that lost its compare-and-set to a concurrent one
    // (RetriesExhausted after them) and paces them: the first goes at once with the value the
    // failed compare read, each later one after casRetry's delay and a fresh read. The jitter
    // keeps contenders from colliding in lockstep.
    RetryPolicy casRetry = RetryPolicy::exponentialBackoff(
        {std::chrono::milliseconds(5), std::chrono::milliseconds(250), 2.0, 1.0, 40});
};

struct QETCD_EXPORT AtomicLongResult : Result
{
    // get(): the value read. add(), increment(), decrement(), compareAndSet(): the value this
    // call committed, so concurrent increments each see a value of their own. compareAndSet()
    // that found another value: Mismatch, and that value.
    qint64 value = 0;
};

class DistributedAtomicLongPrivate;

// A 64-bit counter in one key, as etcd-recipes stores it: 8 bytes, big-endian two's
// complement, not leased. Changes are compare-and-set on the key's mod revision, retried under
// casRetry when a concurrent change got in first. The first use creates the key with
// defaultValue if it does not exist; a counter deleted after that reports NotFound.
//
// Every blocking call has a non-blocking twin.
class QETCD_EXPORT DistributedAtomicLong : public Recipe
{
    Q_OBJECT

public:
    DistributedAtomicLong(Client *client, const QByteArray &path, const AtomicLongOptions &options = AtomicLongOptions(),
                          QObject *parent = nullptr);
    ~DistributedAtomicLong() override;

    QByteArray path() const;

    AtomicLongResult get();
    AtomicLongResult add(qint64 delta);
    AtomicLongResult increment();
    AtomicLongResult decrement();
    AtomicLongResult compareAndSet(qint64 expected, qint64 newValue);

    QFuture<AtomicLongResult> getAsync();
    QFuture<AtomicLongResult> addAsync(qint64 delta);
    QFuture<AtomicLongResult> incrementAsync();
    QFuture<AtomicLongResult> decrementAsync();
    QFuture<AtomicLongResult> compareAndSetAsync(qint64 expected, qint64 newValue);

protected:
    void doClose() override;

private:
    friend class DistributedAtomicLongPrivate;
    std::unique_ptr<DistributedAtomicLongPrivate> d;
};

} // namespace QEtcd
