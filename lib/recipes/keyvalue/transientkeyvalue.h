#pragma once

#include <QEtcd/codecs.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>

#include <memory>

namespace QEtcd {

class TransientKeyValuePrivate;

// A key that exists while this participant is alive: bound to a self-healing lease, and put
// back by compare-and-set after the lease expires, unless someone else owns the key by then
// (Failed, and their value stays).
class QETCD_EXPORT TransientKeyValue : public Recipe
{
    Q_OBJECT

public:
    TransientKeyValue(Client *client, const QByteArray &key, const QByteArray &value,
                      const RecipeOptions &options = RecipeOptions(), QObject *parent = nullptr);
    ~TransientKeyValue() override;

    // Grants the lease and creates the key; finishes once. Fails with OwnershipLost when the
    // key already exists.
    QFuture<Status> start();

    QByteArray key() const;
    QByteArray value() const;
    qint64 currentLeaseId() const;

Q_SIGNALS:
    void leaseEvent(const QEtcd::LeaseEvent &event);

protected:
    void doClose() override;

private:
    std::unique_ptr<TransientKeyValuePrivate> d;
};

// The same over a codec: TypedTransientKeyValue<JsonCodec> keeps a JSON document, for example.
template <class Codec>
class TypedTransientKeyValue
{
public:
    using Type = typename Codec::Type;

    TypedTransientKeyValue(Client *client, const QByteArray &key, const Type &value,
                           const RecipeOptions &options = RecipeOptions(), QObject *parent = nullptr)
        : m_untyped(std::make_unique<TransientKeyValue>(client, key, Codec::encode(value), options, parent))
    {
    }

    TransientKeyValue *untyped() const { return m_untyped.get(); }
    QFuture<Status> start() { return m_untyped->start(); }
    void close() { m_untyped->close(); }
    Type value() const { return Codec::decode(m_untyped->value()).value_or(Type()); }

private:
    std::unique_ptr<TransientKeyValue> m_untyped;
};

} // namespace QEtcd
