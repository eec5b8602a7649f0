#include "keymodel.h"

#include "keyindex_p.h"

namespace QEtcd {

using namespace Internal;

namespace {
QString leaseHex(qint64 lease)
{
    return lease == 0 ? QString() : QString::number(quint64(lease), 16);
}
} // namespace

KeyModel::KeyModel(QObject *parent) : QAbstractListModel(parent), m_index(std::make_unique<KeyIndex>())
{
    KeyIndex *index = m_index.get();
    connect(index, &KeyIndex::aboutToInsert, this, [this](int first, int last) { beginInsertRows({}, first, last); });
    connect(index, &KeyIndex::inserted, this, [this] {
        endInsertRows();
        Q_EMIT countChanged();
    });
    connect(index, &KeyIndex::aboutToRemove, this, [this](int row) { beginRemoveRows({}, row, row); });
    connect(index, &KeyIndex::removed, this, [this] {
        endRemoveRows();
        Q_EMIT countChanged();
    });
    connect(index, &KeyIndex::changed, this, [this](int row) { Q_EMIT dataChanged(this->index(row), this->index(row)); });
    connect(index, &KeyIndex::aboutToReset, this, [this] { beginResetModel(); });
    connect(index, &KeyIndex::reset, this, [this] {
        endResetModel();
        Q_EMIT countChanged();
    });
    connect(index, &KeyIndex::statusChanged, this, &KeyModel::statusChanged);
    connect(index, &KeyIndex::progressChanged, this, &KeyModel::progressChanged);
    connect(index, &KeyIndex::selectedChanged, this, &KeyModel::selectedChanged);
}

KeyModel::~KeyModel() = default;

Client *KeyModel::client() const
{
    return m_index->client();
}

void KeyModel::setClient(Client *client)
{
    if (client == m_index->client())
        return;
    m_index->setClient(client);
    Q_EMIT clientChanged();
    reload();
}

QString KeyModel::prefix() const
{
    return QString::fromUtf8(m_index->prefix());
}

void KeyModel::setPrefix(const QString &prefix)
{
    if (prefix == this->prefix())
        return;
    m_index->setPrefix(prefix.toUtf8());
    Q_EMIT prefixChanged();
    reload();
}

int KeyModel::pageSize() const
{
    return m_index->pageSize();
}

void KeyModel::setPageSize(int pageSize)
{
    if (pageSize == m_index->pageSize())
        return;
    m_index->setPageSize(pageSize);
    Q_EMIT pageSizeChanged();
}

ModelStatus::Status KeyModel::status() const
{
    return m_index->status();
}

QString KeyModel::errorString() const
{
    return m_index->errorString();
}

double KeyModel::progress() const
{
    return m_index->progress();
}

qint64 KeyModel::total() const
{
    return m_index->total();
}

int KeyModel::count() const
{
    return int(m_index->entries().size());
}

QString KeyModel::selectedKey() const
{
    return QString::fromUtf8(m_index->selectedKey());
}

void KeyModel::setSelectedKey(const QString &key)
{
    if (key != selectedKey())
        m_index->select(key.toUtf8());
}

QVariantMap KeyModel::selected() const
{
    const KeyValue kv = m_index->selected();
    QVariantMap map{{QStringLiteral("key"), selectedKey()}, {QStringLiteral("error"), m_index->selectedError()}};
    if (kv.key.isEmpty())
        return map;
    map.insert(QStringLiteral("value"), QString::fromUtf8(kv.value));
    map.insert(QStringLiteral("size"), kv.value.size());
    map.insert(QStringLiteral("createRevision"), kv.createRevision);
    map.insert(QStringLiteral("modRevision"), kv.modRevision);
    map.insert(QStringLiteral("version"), kv.version);
    map.insert(QStringLiteral("lease"), leaseHex(kv.lease));
    return map;
}

void KeyModel::reload()
{
    m_index->reload();
}

void KeyModel::fetchAll()
{
    m_index->fetchAll();
}

int KeyModel::indexOf(const QString &key) const
{
    return m_index->indexOf(key.toUtf8());
}

int KeyModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : count();
}

QVariant KeyModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const KeyEntry &entry = m_index->entries()[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case KeyRole:
        return QString::fromUtf8(entry.key);
    case NameRole:
        return QString::fromUtf8(entry.key.mid(m_index->prefix().size()));
    case CreateRevisionRole:
        return entry.createRevision;
    case ModRevisionRole:
        return entry.modRevision;
    case VersionRole:
        return entry.version;
    case LeaseRole:
        return leaseHex(entry.lease);
    case ChangedAtRole:
        return entry.changedAtMs;
    }
    return {};
}

QHash<int, QByteArray> KeyModel::roleNames() const
{
    return {{KeyRole, "key"},           {NameRole, "name"},   {CreateRevisionRole, "createRevision"},
            {ModRevisionRole, "modRevision"}, {VersionRole, "version"}, {LeaseRole, "lease"},
            {ChangedAtRole, "changedAt"}};
}

bool KeyModel::canFetchMore(const QModelIndex &parent) const
{
    return !parent.isValid() && m_index->canFetchMore();
}

void KeyModel::fetchMore(const QModelIndex &parent)
{
    if (!parent.isValid())
        m_index->fetchMore();
}

} // namespace QEtcd
