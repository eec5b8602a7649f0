// SPDX-License-Identifier: Apache-2.0
#include "keytreemodel.h"

#include "continuation_p.h"
#include "displaytext.h"
#include "keyindex_p.h"

#include <QEtcd/watcher.h>

#include <QtCore/QDateTime>
#include <QtCore/QScopeGuard>

#include <algorithm>
#include <map>
#include <vector>

namespace QEtcd {

using namespace Internal;

namespace {
// A listing's first page: a screenful of folders of a hundred keys each, in one read. Each next
// page is four times as large, up to MaxPageKeys (keys only: about a MiB): etcd 3.4 walks its
// index over the whole rest of the range for every read whatever its limit, so a few large
// reads cost it less than many small ones.
constexpr int FirstPageKeys = 4096;
constexpr int MaxPageKeys = 32768;
// Folders touched by the watch are counted again once changes have settled this long.
constexpr std::chrono::milliseconds CountDelay(300);
} // namespace

struct KeyTreeModel::Node
{
    enum class Listing { None, Running, Stopped, Complete };

    QByteArray part;
    QByteArray path;  // the prefix plus every part down to this one
    Node *parent = nullptr;
    std::vector<std::unique_ptr<Node>> children;  // sorted by part
    bool isKey = false;
    bool isFolder = false;  // keys exist below path + '/' (the root: below the prefix)
    KeyEntry entry;         // when isKey
    qint64 changedAtMs = 0;  // when the watch last changed the key, ms since the epoch
    qint64 keyCount = -1;
    // A folder is counted once a view shows its count, and again after changes below it.
    mutable bool countAsked = false;
    Listing listing = Listing::None;
    QByteArray resumeAt;  // where the listing goes on; keys before it are listed
    int pageKeys = FirstPageKeys;

    auto lowerBound(const QByteArray &childPart)
    {
        return std::lower_bound(children.begin(), children.end(), childPart,
                                [](const std::unique_ptr<Node> &node, const QByteArray &p) { return node->part < p; });
    }
    Node *child(const QByteArray &childPart)
    {
        const auto it = lowerBound(childPart);
        return it != children.end() && (*it)->part == childPart ? it->get() : nullptr;
    }
    int row() const
    {
        const auto &siblings = parent->children;
        const auto it = std::lower_bound(siblings.begin(), siblings.end(), part,
                                         [](const std::unique_ptr<Node> &node, const QByteArray &p) { return node->part < p; });
        return int(it - siblings.begin());
    }
    std::unique_ptr<Node> makeChild(const QByteArray &childPart)
    {
        auto child = std::make_unique<Node>();
        child->part = childPart;
        child->path = path + childPart;
        child->parent = this;
        return child;
    }
    // The key is below this node and its child's listing has reached it.
    bool lists(const QByteArray &key) const
    {
        return listing == Listing::Complete || (listing != Listing::None && key < resumeAt);
    }
    // "/app/locks/a" below "/app" is "/locks": every part but the prefix's first starts at a
    // '/', so that "a/b" and "/a/b" stay apart and no part is empty.
    QByteArray childPart(const QByteArray &key) const
    {
        const QByteArray name = key.mid(path.size());
        const qsizetype next = name.indexOf('/', 1);
        return next < 0 ? name : name.left(next);
    }
};

KeyTreeModel::KeyTreeModel(QObject *parent) : QAbstractItemModel(parent), m_root(std::make_unique<Node>())
{
    m_countTimer.setSingleShot(true);
    m_countTimer.setInterval(CountDelay);
    connect(&m_countTimer, &QTimer::timeout, this, &KeyTreeModel::countScheduled);
}

KeyTreeModel::~KeyTreeModel()
{
    delete m_watcher;
}

KeyModel *KeyTreeModel::source() const
{
    return m_source;
}

void KeyTreeModel::setSource(KeyModel *source)
{
    if (source == m_source)
        return;
    for (const QMetaObject::Connection &connection : std::as_const(m_connections))
        disconnect(connection);
    m_connections.clear();
    m_source = source;
    if (source) {
        // A reload (F5), a new client, prefix or revision all reset the source.
        m_connections = {
            connect(source, &QAbstractItemModel::modelReset, this, &KeyTreeModel::rebuild),
            connect(source, &KeyModel::pausedChanged, this, &KeyTreeModel::applyHeld),
            connect(source, &QObject::destroyed, this, [this] { setSource(nullptr); }),
        };
    }
    rebuild();
    Q_EMIT sourceChanged();
}

bool KeyTreeModel::isListing() const
{
    return !m_listings.isEmpty();
}

QString KeyTreeModel::listingKey() const
{
    return m_listings.isEmpty() ? QString() : DisplayText::fromBytes(m_listings.constFirst()->path);
}

void KeyTreeModel::rebuild()
{
    ++m_generation;
    delete std::exchange(m_watcher, nullptr);
    beginResetModel();
    m_root = std::make_unique<Node>();
    m_root->path = m_source ? m_source->prefix().toUtf8() : QByteArray();
    m_root->isFolder = true;
    m_listings.clear();
    m_stopped.clear();
    m_listedChildren = 0;
    m_error.clear();
    m_ahead.clear();
    m_held.clear();
    m_toCount.clear();
    m_countTimer.stop();
    endResetModel();
    Q_EMIT listingChanged();
    if (m_source && m_source->client())
        startListing(m_root.get());
}

QByteArray KeyTreeModel::childrenStart(const Node *node) const
{
    if (node == m_root.get())
        return node->path.isEmpty() ? QByteArray(1, '\0') : node->path;  // etcd's "from the first key"
    return node->path + '/';
}

QByteArray KeyTreeModel::childrenEnd(const Node *node) const
{
    return prefixRangeEnd(node == m_root.get() ? node->path : node->path + '/');
}

void KeyTreeModel::startListing(Node *node)
{
    if (node->listing == Node::Listing::Running || node->listing == Node::Listing::Complete)
        return;
    if (node->listing == Node::Listing::None)
        node->resumeAt = childrenStart(node);
    node->listing = Node::Listing::Running;
    m_stopped.removeOne(node->path);
    if (m_stopped.isEmpty())
        m_error.clear();
    m_listings.append(node);
    Q_EMIT listingChanged();
    requestPage(node);
}

void KeyTreeModel::requestPage(Node *node)
{
    RangeOptions page;
    page.range = KeyRange::upTo(childrenEnd(node));
    page.keysOnly = true;
    page.limit = node->pageKeys;
    page.revision = m_source->asOfRevision();
    thenOn(m_source->client()->get(node->resumeAt, page), this,
           [this, path = node->path, generation = m_generation](const RangeResult &result) { onPage(path, generation, result); });
}

void KeyTreeModel::onPage(const QByteArray &path, quint64 generation, const RangeResult &page)
{
    Node *node = generation == m_generation ? find(path) : nullptr;
    if (!node || node->listing != Node::Listing::Running)
        return;  // rebuilt, or emptied and removed meanwhile
    if (!page.status) {
        if (page.status.code() == StatusCode::ResourceExhausted && node->pageKeys > 1) {
            // Long keys: the page outgrew the client's receive limit; a smaller one fits.
            node->pageKeys /= 4;
            return requestPage(node);
        }
        m_error = page.status.withContext(QStringLiteral("list %1").arg(DisplayText::fromBytes(childrenStart(node)))).message();
        node->listing = Node::Listing::Stopped;
        m_stopped.append(node->path);
        return endListing(node);
    }
    // Each child once, in order: a folder's own keys are skipped from the first one on. A part
    // may come twice, as a key ("/a") and as a folder ("/a/b"), with others ("/a!") between.
    struct Found
    {
        const KeyValue *key = nullptr;
        bool folder = false;
    };
    std::map<QByteArray, Found> found;
    QByteArray folderKeys;  // the last folder's keys start with this
    for (const KeyValue &kv : page.kvs) {
        if (!folderKeys.isEmpty() && kv.key.startsWith(folderKeys))
            continue;
        const QByteArray part = node->childPart(kv.key);
        if (part.isEmpty())
            continue;  // the prefix itself, a key of the root
        const bool isKey = kv.key.size() == node->path.size() + part.size();
        folderKeys = isKey ? QByteArray() : node->path + part + '/';
        Found &child = found[part];
        if (isKey)
            child.key = &kv;
        else
            child.folder = true;
    }
    const bool more = page.more && !page.kvs.isEmpty();
    // Past the last folder's keys, or past the last key.
    QByteArray next = page.kvs.isEmpty() ? QByteArray() : !folderKeys.isEmpty() ? prefixRangeEnd(folderKeys) : page.kvs.last().key + '\0';
    const bool complete = !more || next >= childrenEnd(node);
    const auto fill = [](Node *child, const Found &found) {
        if (found.key) {
            child->isKey = true;
            const KeyValue &kv = *found.key;
            child->entry = {kv.key, kv.createRevision, kv.modRevision, kv.version, kv.lease};
        }
        child->isFolder = child->isFolder || found.folder;
        if (!child->isFolder)
            child->keyCount = 1;
    };
    m_listedChildren += int(found.size());
    // In one insertion when they all go after the children there are, as they do unless the
    // watch added some past where the listing was, or a part came as a key and as a folder.
    if (!found.empty() && (node->children.empty() || node->children.back()->part < found.begin()->first)) {
        const int first = int(node->children.size());
        beginInsertRows(indexOf(node), first, first + int(found.size()) - 1);
        for (const auto &[part, child] : found) {
            node->children.push_back(node->makeChild(part));
            fill(node->children.back().get(), child);
        }
        endInsertRows();
    } else {
        for (const auto &[part, each] : found) {
            Node *child = node->child(part);
            if (!child)
                child = insertChild(node, part);
            fill(child, each);
            changed(child);
        }
    }
    node->resumeAt = next;
    node->listing = complete ? Node::Listing::Complete : Node::Listing::Running;
    node->pageKeys = std::min(MaxPageKeys, node->pageKeys * 4);

    // What the watch said of keys this page reached applies where it is newer than the page;
    // news of keys inside a child folder waits for that folder's own listing.
    const QByteArray below = node == m_root.get() ? node->path : node->path + '/';
    QList<WatchEvent> reached;
    for (const QByteArray &key : m_ahead.keys()) {
        if (key.startsWith(below) && node->lists(key))
            reached.append(m_ahead.take(key));
    }
    for (const WatchEvent &event : std::as_const(reached)) {
        if (event.kv.modRevision > page.header.revision && !apply(event))
            m_ahead.insert(event.kv.key, event);
    }
    node = find(path);
    if (!node)
        return;  // a deletion told meanwhile emptied it, and it went
    if (!m_watcher && m_source->asOfRevision() == 0) {
        WatchOptions options;
        options.range = KeyRange::prefix();
        options.startRevision = page.header.revision + 1;
        m_watcher = new Watcher(m_source->client(), m_root->path, options);
        connect(m_watcher, &Watcher::eventsReceived, this, &KeyTreeModel::onEvents);
        connect(m_watcher, &Watcher::recovery, this, [this](const WatchRecoveryEvent &event) {
            if (event.kind == WatchRecoveryKind::Failed) {
                m_error = QStringLiteral("the watch on the keys gave up: ") + event.cause.message();
                Q_EMIT listingChanged();
            }
        });
        m_watcher->start();
    }
    if (complete) {
        endListing(node);
        pruneIfEmpty(node);  // its keys went before it was listed
        return;
    }
    Q_EMIT listingChanged();
    requestPage(node);
}

void KeyTreeModel::endListing(Node *node)
{
    m_listings.removeOne(node);
    if (m_listings.isEmpty())
        m_listedChildren = 0;
    Q_EMIT listingChanged();
}

void KeyTreeModel::stopListing()
{
    if (m_listings.isEmpty())
        return;
    for (Node *node : std::as_const(m_listings)) {
        node->listing = Node::Listing::Stopped;  // the page on its way is dropped
        m_stopped.append(node->path);
    }
    m_listings.clear();
    m_listedChildren = 0;
    Q_EMIT listingChanged();
}

void KeyTreeModel::resumeListing()
{
    for (const QByteArray &path : std::exchange(m_stopped, {})) {
        if (Node *node = find(path); node && node->listing == Node::Listing::Stopped)
            startListing(node);
    }
    m_error.clear();
    Q_EMIT listingChanged();
}

void KeyTreeModel::onEvents(const QList<WatchEvent> &events)
{
    if (m_source && m_source->isPaused()) {
        m_held.append(events);
        return;
    }
    for (const WatchEvent &event : events) {
        if (!apply(event))
            m_ahead.insert(event.kv.key, event);  // the latest news of the key only
    }
}

void KeyTreeModel::applyHeld()
{
    if (!m_source || m_source->isPaused())
        return;
    onEvents(std::exchange(m_held, {}));
}

bool KeyTreeModel::apply(const WatchEvent &event)
{
    const QByteArray &key = event.kv.key;
    const bool put = event.type == WatchEvent::Type::Put;
    Node *node = m_root.get();
    if (!key.startsWith(node->path))
        return true;
    // Every folder on the way holds one key more or fewer: each is counted again.
    const auto countAlongTheWay = qScopeGuard([this, &node] {
        for (Node *up = node; up && up != m_root.get(); up = up->parent) {
            if (up->isFolder)
                scheduleCount(up);
        }
    });
    while (true) {
        if (!node->lists(key))
            return false;
        const QByteArray part = node->childPart(key);
        if (part.isEmpty())
            return true;  // the prefix itself: not a node of the tree
        const bool isLeaf = key.size() == node->path.size() + part.size();
        Node *child = node->child(part);
        if (!child && !put)
            return true;  // nothing listed there
        if (!child)
            child = insertChild(node, part);
        if (!isLeaf) {
            if (!child->isFolder) {
                child->isFolder = true;
                changed(child);
            }
            node = child;
            continue;
        }
        if (put) {
            child->isKey = true;
            child->entry = {key, event.kv.createRevision, event.kv.modRevision, event.kv.version, event.kv.lease};
            child->changedAtMs = QDateTime::currentMSecsSinceEpoch();
            if (!child->isFolder)
                child->keyCount = 1;
            changed(child);
        } else if (child->isFolder) {
            child->isKey = false;
            child->entry = {};
            child->changedAtMs = 0;
            changed(child);
        } else {
            removeNode(child);
            node = pruneIfEmpty(node);  // the counts go on from what is left
        }
        return true;
    }
}

KeyTreeModel::Node *KeyTreeModel::pruneIfEmpty(Node *folder)
{
    // A folder wholly listed with nothing left in it holds no key below.
    while (folder != m_root.get() && folder->listing == Node::Listing::Complete && folder->children.empty()) {
        Node *parent = folder->parent;
        const bool goes = !folder->isKey;
        dropFolder(folder);
        if (!goes)
            return folder;
        folder = parent;
    }
    return folder;
}

void KeyTreeModel::dropFolder(Node *folder)
{
    // No key below it any more: it goes, or stays as the key it also is.
    while (!folder->children.empty())
        removeNode(folder->children.back().get());
    if (!folder->isKey)
        return removeNode(folder);
    folder->isFolder = false;
    folder->listing = Node::Listing::None;
    folder->keyCount = 1;
    changed(folder);
}

void KeyTreeModel::scheduleCount(const Node *folder)
{
    if (!folder->countAsked)
        return;  // counted when a view first shows it
    m_toCount.insert(folder->path);
    if (!m_countTimer.isActive())
        m_countTimer.start();
}

void KeyTreeModel::countScheduled()
{
    if (!m_source || !m_source->client())
        return;
    for (const QByteArray &path : std::exchange(m_toCount, {})) {
        const Node *folder = find(path);
        if (!folder || !folder->isFolder || folder == m_root.get())
            continue;
        RangeOptions count;
        count.range = KeyRange::upTo(childrenEnd(folder));
        count.countOnly = true;
        count.revision = m_source->asOfRevision();
        thenOn(m_source->client()->get(childrenStart(folder), count), this,
               [this, path, generation = m_generation](const RangeResult &result) { onCount(path, generation, result); });
    }
}

void KeyTreeModel::onCount(const QByteArray &path, quint64 generation, const RangeResult &count)
{
    Node *folder = generation == m_generation ? find(path) : nullptr;
    if (!folder || !folder->isFolder)
        return;
    if (!count.status) {
        folder->countAsked = false;  // asked again when a view next reads it
        return;
    }
    if (count.count > 0) {
        folder->keyCount = count.count + (folder->isKey ? 1 : 0);
        return changed(folder, {KeyCountRole});
    }
    Node *parent = folder->parent;
    dropFolder(folder);
    pruneIfEmpty(parent);
}

KeyTreeModel::Node *KeyTreeModel::insertChild(Node *parent, const QByteArray &part)
{
    const auto at = parent->lowerBound(part);
    const int row = int(at - parent->children.begin());
    beginInsertRows(indexOf(parent), row, row);
    Node *child = parent->children.insert(at, parent->makeChild(part))->get();
    endInsertRows();
    return child;
}

void KeyTreeModel::removeNode(Node *node)
{
    // A listing of it, or of anything below it, ends with it.
    const qsizetype listings = m_listings.size();
    m_listings.removeIf([node](const Node *listed) {
        for (const Node *up = listed; up; up = up->parent) {
            if (up == node)
                return true;
        }
        return false;
    });
    Node *parent = node->parent;
    const int row = node->row();
    beginRemoveRows(indexOf(parent), row, row);
    parent->children.erase(parent->children.begin() + row);
    endRemoveRows();
    if (m_listings.size() != listings)
        Q_EMIT listingChanged();
}

KeyTreeModel::Node *KeyTreeModel::find(const QByteArray &path) const
{
    Node *node = m_root.get();
    while (node && node->path != path) {
        if (!path.startsWith(node->path) || path.size() <= node->path.size())
            return nullptr;
        node = node->child(node->childPart(path));
    }
    return node;
}

QModelIndex KeyTreeModel::indexOf(const Node *node) const
{
    return node == m_root.get() ? QModelIndex() : createIndex(node->row(), 0, const_cast<Node *>(node));
}

void KeyTreeModel::changed(Node *node, const QList<int> &roles)
{
    if (node == m_root.get())
        return;
    const QModelIndex index = indexOf(node);
    Q_EMIT dataChanged(index, index, roles);
}

QModelIndex KeyTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    const Node *node = parent.isValid() ? static_cast<const Node *>(parent.internalPointer()) : m_root.get();
    return createIndex(row, column, node->children[size_t(row)].get());
}

QModelIndex KeyTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    return indexOf(static_cast<const Node *>(child.internalPointer())->parent);
}

int KeyTreeModel::rowCount(const QModelIndex &parent) const
{
    if (parent.column() > 0)
        return 0;
    const Node *node = parent.isValid() ? static_cast<const Node *>(parent.internalPointer()) : m_root.get();
    return int(node->children.size());
}

int KeyTreeModel::columnCount(const QModelIndex &) const
{
    return 1;
}

bool KeyTreeModel::hasChildren(const QModelIndex &parent) const
{
    if (parent.column() > 0)
        return false;
    const Node *node = parent.isValid() ? static_cast<const Node *>(parent.internalPointer()) : m_root.get();
    return node->isFolder || !node->children.empty();
}

QVariant KeyTreeModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Node *node = static_cast<const Node *>(index.internalPointer());
    switch (role) {
    case Qt::DisplayRole:
    case NameRole:
        return DisplayText::fromBytes(node->part);
    case KeyRole:
        return DisplayText::fromBytes(node->path);
    case IsKeyRole:
        return node->isKey;
    case KeyCountRole:
        if (node->isFolder && !std::exchange(node->countAsked, true)) {
            if (m_toCount.isEmpty())
                QMetaObject::invokeMethod(const_cast<KeyTreeModel *>(this), &KeyTreeModel::countScheduled, Qt::QueuedConnection);
            m_toCount.insert(node->path);
        }
        return node->keyCount;
    }
    if (!node->isKey)
        return {};
    switch (role) {
    case CreateRevisionRole:
        return node->entry.createRevision;
    case ModRevisionRole:
        return node->entry.modRevision;
    case VersionRole:
        return node->entry.version;
    case LeaseRole:
        return leaseHex(node->entry.lease);
    case ChangedAtRole:
        return node->changedAtMs;
    }
    return {};
}

QHash<int, QByteArray> KeyTreeModel::roleNames() const
{
    return {{NameRole, "name"},
            {KeyRole, "key"},
            {IsKeyRole, "isKey"},
            {KeyCountRole, "keyCount"},
            {CreateRevisionRole, "createRevision"},
            {ModRevisionRole, "modRevision"},
            {VersionRole, "version"},
            {LeaseRole, "lease"},
            {ChangedAtRole, "changedAt"}};
}

bool KeyTreeModel::canFetchMore(const QModelIndex &parent) const
{
    const Node *node = parent.isValid() ? static_cast<const Node *>(parent.internalPointer()) : m_root.get();
    return m_source && m_source->client() && node->isFolder
        && (node->listing == Node::Listing::None || node->listing == Node::Listing::Stopped);
}

void KeyTreeModel::fetchMore(const QModelIndex &parent)
{
    if (canFetchMore(parent))
        startListing(parent.isValid() ? static_cast<Node *>(parent.internalPointer()) : m_root.get());
}

} // namespace QEtcd
