#pragma once

#include <QEtcd/codecs.h>
#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/watcher.h>

#include <functional>
#include <memory>
#include <optional>

namespace QEtcd {

struct QETCD_EXPORT NodeCacheEvent
{
    // Created and Updated speak of the cache: Created when it held no value before.
    enum class Type { Created, Updated, Deleted };
    Type type = Type::Created;
    KeyValue kv;  // Deleted: only the key and the deleting revision
};

class NodeCachePrivate;

// A live local copy of one key, kept by a resilient watch that starts right after the
// initial read and is re-read after a compaction.
//
// Events and recovery signals are emitted from the client's dispatcher thread; getters are
// safe from any thread. TypedNodeCache below reads the value through a codec.
class QETCD_EXPORT NodeCache : public Recipe
{
    Q_OBJECT

public:
    // Says whether bytes are a valid encoding; an invalid value is still cached, but its
    // event is recorded as an error and not emitted.
    using ValueCheck = std::function<bool(const QByteArray &value)>;

    NodeCache(Client *client, const QByteArray &key, const RecipeOptions &options = RecipeOptions(),
              QObject *parent = nullptr);
    ~NodeCache() override;

    QByteArray key() const;
    // Before start(); ignored afterwards.
    void setValueCheck(ValueCheck check);

    // Finishes once the key was read and the watch created; one-shot.
    QFuture<Status> start();

    std::optional<KeyValue> current() const;
    QByteArray currentBytes() const;  // empty when the key is absent

Q_SIGNALS:
    void nodeChanged(const QEtcd::NodeCacheEvent &event);
    void watchRecovery(const QEtcd::WatchRecoveryEvent &event);

protected:
    void doClose() override;

private:
    friend class NodeCachePrivate;
    std::unique_ptr<NodeCachePrivate> d;
};

// The same through a codec: TypedNodeCache<JsonCodec> follows a JSON document, for example.
template <class Codec>
class TypedNodeCache
{
public:
    using Type = typename Codec::Type;

    TypedNodeCache(Client *client, const QByteArray &key, const RecipeOptions &options = RecipeOptions(),
                   QObject *parent = nullptr)
        : m_untyped(std::make_unique<NodeCache>(client, key, options, parent))
    {
        m_untyped->setValueCheck([](const QByteArray &value) { return Codec::decode(value).has_value(); });
    }

    NodeCache *untyped() const { return m_untyped.get(); }
    QFuture<Status> start() { return m_untyped->start(); }
    void close() { m_untyped->close(); }
    // Nothing when the key is absent or its value does not decode.
    std::optional<Type> current() const
    {
        const auto kv = m_untyped->current();
        return kv ? Codec::decode(kv->value) : std::nullopt;
    }
    // The value an event carries; nothing for Deleted.
    static std::optional<Type> valueOf(const NodeCacheEvent &event)
    {
        if (event.type == NodeCacheEvent::Type::Deleted)
            return std::nullopt;
        return Codec::decode(event.kv.value);
    }

private:
    std::unique_ptr<NodeCache> m_untyped;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::NodeCacheEvent)
