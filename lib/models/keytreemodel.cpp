// SPDX-License-Identifier: Apache-2.0
#include "keytreemodel.h"

#include <algorithm>
#include <vector>

namespace QEtcd {

struct KeyTreeModel::Node
{
    QString part;
    QString path;  // the prefix's text plus every part down to this one
    Node *parent = nullptr;
    std::vector<std::unique_ptr<Node>> children;  // sorted by part
    bool isKey = false;
    int keyCount = 0;

    auto lowerBound(const QString &childPart)
    {
        return std::lower_bound(children.begin(), children.end(), childPart,
                                [](const std::unique_ptr<Node> &node, const QString &p) { return node->part < p; });
    }
    Node *child(const QString &childPart)
    {
        const auto it = lowerBound(childPart);
        return it != children.end() && (*it)->part == childPart ? it->get() : nullptr;
    }
    int row() const
    {
        const auto &siblings = parent->children;
        const auto it = std::lower_bound(siblings.begin(), siblings.end(), part,
                                         [](const std::unique_ptr<Node> &node, const QString &p) { return node->part < p; });
        return int(it - siblings.begin());
    }
};

KeyTreeModel::KeyTreeModel(QObject *parent) : QAbstractItemModel(parent), m_root(std::make_unique<Node>()) {}

KeyTreeModel::~KeyTreeModel() = default;

KeyModel *KeyTreeModel::source() const
{
    return m_source;
}

void KeyTreeModel::setSource(KeyModel *source)
{
    if (source == m_source)
        return;
    for (QMetaObject::Connection &connection : m_connections)
        disconnect(connection);
    m_source = source;
    if (source) {
        m_connections[0] = connect(source, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &, int first, int last) {
            for (int row = first; row <= last; ++row)
                addKey(m_source->index(row).data(KeyModel::KeyRole).toString(), true);
        });
        m_connections[1] = connect(source, &QAbstractItemModel::rowsAboutToBeRemoved, this,
                                   [this](const QModelIndex &, int first, int last) {
                                       for (int row = first; row <= last; ++row)
                                           removeKey(m_source->index(row).data(KeyModel::KeyRole).toString());
                                   });
        m_connections[2] = connect(source, &QAbstractItemModel::dataChanged, this,
                                   [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                                       for (int row = topLeft.row(); row <= bottomRight.row(); ++row)
                                           keyChanged(m_source->index(row).data(KeyModel::KeyRole).toString());
                                   });
        m_connections[3] = connect(source, &QAbstractItemModel::modelReset, this, &KeyTreeModel::rebuild);
        m_connections[4] = connect(source, &QObject::destroyed, this, [this] { setSource(nullptr); });
        m_connections[5] = connect(source, &KeyModel::prefixChanged, this, &KeyTreeModel::rebuild);
    }
    rebuild();
    Q_EMIT sourceChanged();
}

// "/app/locks/a" under the prefix "/app" is "/locks", "/a": every part but the first starts at
// a '/', so that "a/b" and "/a/b" stay apart and no part is empty.
QStringList KeyTreeModel::partsOf(const QString &key) const
{
    const QString name = key.mid(m_source ? m_source->prefix().size() : 0);
    QStringList parts;
    qsizetype start = 0;
    while (start < name.size()) {
        qsizetype next = name.indexOf(QLatin1Char('/'), start + 1);
        if (next < 0)
            next = name.size();
        parts.append(name.mid(start, next - start));
        start = next;
    }
    return parts;
}

void KeyTreeModel::rebuild()
{
    beginResetModel();
    m_root = std::make_unique<Node>();
    m_root->path = m_source ? m_source->prefix() : QString();
    if (m_source) {
        for (int row = 0; row < m_source->rowCount(); ++row)
            addKey(m_source->index(row).data(KeyModel::KeyRole).toString(), false);
    }
    endResetModel();
}

// announce: tell views (not during a reset)
void KeyTreeModel::addKey(const QString &key, bool announce)
{
    Node *node = m_root.get();
    for (const QString &part : partsOf(key)) {
        ++node->keyCount;
        Node *child = node->child(part);
        if (!child) {
            const auto at = node->lowerBound(part);
            const int row = int(at - node->children.begin());
            if (announce)
                beginInsertRows(indexOf(node), row, row);
            auto created = std::make_unique<Node>();
            created->part = part;
            created->path = node->path + part;
            created->parent = node;
            child = node->children.insert(at, std::move(created))->get();
            if (announce)
                endInsertRows();
        } else if (announce && node != m_root.get()) {
            const QModelIndex index = indexOf(node);
            Q_EMIT dataChanged(index, index, {KeyCountRole});
        }
        node = child;
    }
    ++node->keyCount;
    node->isKey = true;
    if (announce) {
        const QModelIndex index = indexOf(node);
        Q_EMIT dataChanged(index, index);
    }
}

void KeyTreeModel::removeKey(const QString &key)
{
    Node *node = find(key);
    if (!node || !node->isKey)
        return;
    node->isKey = false;
    // The counts go down along the way; nodes left with no key below go.
    for (Node *up = node; up; up = up->parent)
        --up->keyCount;
    while (node != m_root.get() && node->keyCount == 0) {
        Node *parent = node->parent;
        const int row = node->row();
        beginRemoveRows(indexOf(parent), row, row);
        parent->children.erase(parent->children.begin() + row);
        endRemoveRows();
        node = parent;
    }
    for (Node *up = node; up != m_root.get(); up = up->parent) {
        const QModelIndex index = indexOf(up);
        Q_EMIT dataChanged(index, index);
    }
}

void KeyTreeModel::keyChanged(const QString &key)
{
    if (Node *node = find(key)) {
        const QModelIndex index = indexOf(node);
        Q_EMIT dataChanged(index, index);
    }
}

KeyTreeModel::Node *KeyTreeModel::find(const QString &key) const
{
    Node *node = m_root.get();
    for (const QString &part : partsOf(key)) {
        node = node->child(part);
        if (!node)
            return nullptr;
    }
    return node;
}

QModelIndex KeyTreeModel::indexOf(const Node *node) const
{
    return node == m_root.get() ? QModelIndex() : createIndex(node->row(), 0, const_cast<Node *>(node));
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
    return rowCount(parent) > 0;
}

QVariant KeyTreeModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Node *node = static_cast<const Node *>(index.internalPointer());
    switch (role) {
    case Qt::DisplayRole:
    case NameRole:
        return node->part;
    case KeyRole:
        return node->path;
    case IsKeyRole:
        return node->isKey;
    case KeyCountRole:
        return node->keyCount;
    }
    if (!node->isKey || !m_source)
        return {};
    const QModelIndex row = m_source->index(m_source->indexOf(node->path));
    switch (role) {
    case CreateRevisionRole:
        return row.data(KeyModel::CreateRevisionRole);
    case ModRevisionRole:
        return row.data(KeyModel::ModRevisionRole);
    case VersionRole:
        return row.data(KeyModel::VersionRole);
    case LeaseRole:
        return row.data(KeyModel::LeaseRole);
    case ChangedAtRole:
        return row.data(KeyModel::ChangedAtRole);
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
    return !parent.isValid() && m_source && m_source->canFetchMore({});
}

void KeyTreeModel::fetchMore(const QModelIndex &parent)
{
    if (!parent.isValid() && m_source)
        m_source->fetchMore({});
}

} // namespace QEtcd
