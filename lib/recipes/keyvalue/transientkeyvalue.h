// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/codecs.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>

#include <memory>

namespace QEtcd {

class TransientKeyValuePrivate;

/// A key/value pair that lives as long as its participant, healed by compare-and-set.
///
/// A key that exists while this participant is alive: bound to a self-healing lease, and put
/// back by compare-and-set after the lease expires, unless someone else owns the key by then
/// (Failed, and their value stays).
///
/// Another client deleting the key while its lease is alive, or putting it on another lease,
/// is an operator's decision, honoured and told, as for a service registration: removedByOther(),
/// the key is not created again, the state goes Lost, and the lease is revoked a third of its
/// TTL later. Putting the key back blindly would undo the one act an operator has to remove
/// it; an expiry, which cannot be told from a partition, still heals.
class QETCD_EXPORT TransientKeyValue : public Recipe
{
    Q_OBJECT

public:
    /// \a value at \a key, through \a client; nothing is written until start().
    TransientKeyValue(Client *client, const QByteArray &key, const QByteArray &value,
                      const RecipeOptions &options = RecipeOptions(), QObject *parent = nullptr);
    /// Closes it: the lease is revoked and the key goes at once.
    ~TransientKeyValue() override;

    /// Grants the lease and creates the key; finishes once. Fails with OwnershipLost when the
    /// key already exists.
    QFuture<Status> start();

    /// The key.
    QByteArray key() const;
    /// The value it is (re-)created with.
    QByteArray value() const;
    /// The lease the key is bound to now; -1 before start().
    qint64 currentLeaseId() const;

Q_SIGNALS:
    /// The key's lease stalled, expired, was healed or healing stopped (Failed: someone else owns
    /// the key now). From the client's dispatcher thread.
    void leaseEvent(const QEtcd::LeaseEvent &event);
    /// Another client deleted the key at \a revision while its lease was alive, or moved it to
    /// another lease (\a cause, OwnershipLost, says which). It is not created again. From the
    /// client's dispatcher thread.
    void removedByOther(qint64 revision, const QEtcd::Status &cause);

protected:
    void doClose() override;

private:
    std::unique_ptr<TransientKeyValuePrivate> d;
};

/// A TransientKeyValue over a codec: TypedTransientKeyValue<JsonCodec> keeps a JSON document,
/// for example.
///
/// Not a QObject: connect to untyped() for signals.
template <class Codec>
class TypedTransientKeyValue
{
public:
    /// The type of the value.
    using Type = typename Codec::Type;

    /// \a value, encoded, at \a key.
    TypedTransientKeyValue(Client *client, const QByteArray &key, const Type &value,
                           const RecipeOptions &options = RecipeOptions(), QObject *parent = nullptr)
        : m_untyped(std::make_unique<TransientKeyValue>(client, key, Codec::encode(value), options, parent))
    {
    }

    /// The recipe underneath, for its signals and state.
    TransientKeyValue *untyped() const { return m_untyped.get(); }
    /// As TransientKeyValue::start().
    QFuture<Status> start() { return m_untyped->start(); }
    /// As Recipe::close().
    void close() { m_untyped->close(); }
    /// The value, decoded.
    Type value() const { return Codec::decode(m_untyped->value()).value_or(Type()); }

private:
    std::unique_ptr<TransientKeyValue> m_untyped;
};

} // namespace QEtcd
