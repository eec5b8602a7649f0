// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "modelstatus.h"
#include "qetcdquickexport.h"

#include <QEtcd/client.h>

#include <QtCore/QAbstractListModel>
#include <QtCore/QStringList>
#include <QtQml/qqmlregistration.h>

#include <functional>
#include <memory>
#include <set>
#include <vector>

namespace QEtcd {

namespace Internal {
class KeyIndex;
struct KeyEntry;
}

/// `KeyModel` in QML: the keys under a prefix, loaded page by page and kept live.
///
/// The keys under a prefix as a flat list sorted by key: loaded lazily in keys-only pages
/// (fetchMore(), which a ListView calls as it scrolls; the first of pageSize keys, each next
/// one twice as large up to 32,768), kept current by one watch, changes
/// applied at most once per frame. Values are read only for the selected key. KeyTreeModel
/// shows the keys under its prefix as a tree by '/', listing a folder at a time.
class QETCD_QUICK_EXPORT KeyModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    /// The client to read through (EtcdClient.client); setting it starts again.
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    /// The keys shown start with it; setting it starts again.
    Q_PROPERTY(QString prefix READ prefix WRITE setPrefix NOTIFY prefixChanged)
    /// The size of the first page (default 1000); each next page is twice as large.
    Q_PROPERTY(int pageSize READ pageSize WRITE setPageSize NOTIFY pageSizeChanged)
    /// For a view's placeholders (ModelStatus).
    Q_PROPERTY(QEtcd::ModelStatus::Status status READ status NOTIFY statusChanged)
    /// Why loading or the watch failed.
    Q_PROPERTY(QString errorString READ errorString NOTIFY statusChanged)
    /// Keys loaded out of total, 0 to 1; 1 when every key is in.
    Q_PROPERTY(double progress READ progress NOTIFY progressChanged)
    /// Keys under the prefix when loading began; -1 unknown.
    Q_PROPERTY(qint64 total READ total NOTIFY progressChanged)
    /// Rows loaded (shown, while paused).
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    /// The key whose value selected shows; its value is read when it is set.
    Q_PROPERTY(QString selectedKey READ selectedKey WRITE setSelectedKey NOTIFY selectedChanged)
    /// The selected key: key, value (UTF-8 text), size, createRevision, modRevision, version,
    /// lease (hex), error, and views: the value as text, JSON, hex and a recipe's encoding.
    /// A value is described once per revision, off the GUI thread; the revision's fields and
    /// views change together, when the description is done (a key rewritten faster than it can
    /// be described shows every revision it could describe, the latest last).
    Q_PROPERTY(QVariantMap selected READ selected NOTIFY selectedChanged)
    /// While paused the rows and the selected value stay as they were when the pause began (a
    /// key the operator selects meanwhile is still read); on resume they catch up row by row,
    /// so a view keeps its place.
    Q_PROPERTY(bool paused READ isPaused WRITE setPaused NOTIFY pausedChanged)
    /// The revision the keys and the selected value are shown as of: 0 (the default), live;
    /// otherwise as they were at that revision, read page by page at it and not watched. A
    /// compacted or future revision is an Error naming it. Setting it starts again.
    Q_PROPERTY(qint64 asOfRevision READ asOfRevision WRITE setAsOfRevision NOTIFY asOfRevisionChanged)
    /// Changes to the rows (pages, watch events, reloads) that arrived during the pause.
    Q_PROPERTY(int heldChanges READ heldChanges NOTIFY heldChangesChanged)
    /// The keys marked for a bulk action, in key order. Marks go with a key that is deleted and
    /// with every row when the model starts again (another prefix, client or revision).
    Q_PROPERTY(QStringList markedKeys READ markedKeys NOTIFY markedChanged)
    /// How many keys are marked.
    Q_PROPERTY(int markedCount READ markedCount NOTIFY markedChanged)

public:
    /// The roles of a row, with the names QML reads them by.
    enum Role {
        KeyRole = Qt::UserRole + 1,  ///< `key`: the whole key.
        NameRole,  ///< `name`: the key without the prefix.
        CreateRevisionRole,  ///< `createRevision`.
        ModRevisionRole,     ///< `modRevision`.
        VersionRole,         ///< `version`.
        LeaseRole,        ///< `lease`: hex, as etcdctl prints it; empty without a lease.
        /// `changedAt`: ms since the epoch the watch last changed it, to flash; 0 when not since
        /// loading, not lately (a change is remembered a few seconds at least), or, while paused,
        /// only after the rows were frozen.
        ChangedAtRole,
        MarkedRole,  ///< `marked`: the key is in markedKeys.
    };
    Q_ENUM(Role)

    /// A KeyModel without client yet.
    explicit KeyModel(QObject *parent = nullptr);
    /// Destroys the model; its watch ends.
    ~KeyModel() override;

    /// The client.
    Client *client() const;
    /// Sets the client and starts again.
    void setClient(Client *client);
    /// The prefix.
    QString prefix() const;
    /// Sets the prefix and starts again.
    void setPrefix(const QString &prefix);
    /// The size of the first page.
    int pageSize() const;
    /// Sets the size of the first page.
    void setPageSize(int pageSize);
    /// The status.
    ModelStatus::Status status() const;
    /// Why loading or the watch failed.
    QString errorString() const;
    /// Keys loaded out of total, 0 to 1.
    double progress() const;
    /// Keys under the prefix when loading began; -1 unknown.
    qint64 total() const;
    /// Rows loaded.
    int count() const;
    /// The selected key.
    QString selectedKey() const;
    /// Selects \a key and reads its value.
    void setSelectedKey(const QString &key);
    /// The selected key and its value.
    QVariantMap selected() const;
    /// The revision shown as of; 0: live.
    qint64 asOfRevision() const;
    /// Shows the keys as of \a revision (0: live) and starts again.
    void setAsOfRevision(qint64 revision);
    /// The rows are held still.
    bool isPaused() const { return m_frozen != nullptr; }
    /// Holds the rows still, or lets them catch up.
    void setPaused(bool paused);
    /// Changes held back while paused.
    int heldChanges() const { return m_heldChanges; }
    /// The marked keys, in key order.
    QStringList markedKeys() const;
    /// How many keys are marked.
    int markedCount() const { return int(m_marked.size()); }

    /// Starts again from the first page (setting the client or the prefix does it too).
    Q_INVOKABLE void reload();
    /// Loads the next page, unless one is on its way or every key is in: what a view calls as
    /// it nears its end, ahead of Qt Quick's own fetchMore(), which comes only once the last
    /// loaded row is built (and a steady scroll then meets blank rows).
    Q_INVOKABLE void fetchNextPage();
    /// The row of key, -1 when it is not loaded.
    Q_INVOKABLE int indexOf(const QString &key) const;
    /// Marks \a key for a bulk action, or with \a marked false unmarks it.
    Q_INVOKABLE void setMarked(const QString &key, bool marked);
    /// Marks the keys of the rows from \a first to \a last, both included, in either order:
    /// what a Shift+click asks for.
    Q_INVOKABLE void markRows(int first, int last);
    /// Unmarks every key.
    Q_INVOKABLE void clearMarks();

    /// Writes for an operator, each one transaction that refuses to change what the operator
    /// did not see: create() only where the key does not exist, update() and remove() only while
    /// the key is still at expectedModRevision (update() keeps the key's lease). Each ends in
    /// writeFinished(); a read-only client refuses them with StatusCode::ReadOnly before
    /// anything is sent. The watch brings the change into the rows.
    ///
    /// This one puts \a value at \a key, which must not exist. With \a leaseTtl > 0 the key is
    /// put on a new lease of that many seconds, which nothing keeps alive: the key goes when it
    /// ends. With \a lease (its ID in hex, as the Leases page shows it), on that existing lease.
    /// A lease granted for a key that could not be put is revoked again.
    Q_INVOKABLE void create(const QString &key, const QString &value, int leaseTtl = 0, const QString &lease = {});
    /// Writes \a value to \a key, keeping its lease, while it is still at
    /// \a expectedModRevision.
    Q_INVOKABLE void update(const QString &key, const QString &value, qint64 expectedModRevision);
    /// Deletes \a key while it is still at \a expectedModRevision.
    Q_INVOKABLE void remove(const QString &key, qint64 expectedModRevision);

    /// The rows loaded (as they were when paused).
    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    /// A key's \a role.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    /// The Role names.
    QHash<int, QByteArray> roleNames() const override;
    /// More keys remain to load (never while paused).
    bool canFetchMore(const QModelIndex &parent) const override;
    /// Loads the next page.
    void fetchMore(const QModelIndex &parent) override;

Q_SIGNALS:
    /// client changed.
    void clientChanged();
    /// prefix changed.
    void prefixChanged();
    /// pageSize changed.
    void pageSizeChanged();
    /// status or errorString changed.
    void statusChanged();
    /// progress or total changed.
    void progressChanged();
    /// count changed.
    void countChanged();
    /// selectedKey or selected changed.
    void selectedChanged();
    /// paused changed.
    void pausedChanged();
    /// heldChanges changed.
    void heldChangesChanged();
    /// asOfRevision changed.
    void asOfRevisionChanged();
    /// markedKeys changed.
    void markedChanged();
    /// A create(), update() or remove() ended: \a action is "create", "update" or "remove"; a
    /// failed \a status names the key and etcd's answer.
    void writeFinished(const QString &action, const QString &key, const QEtcd::Status &status);

private:
    const std::vector<Internal::KeyEntry> &rows() const;
    void onSelectedChanged();
    void describe(const KeyValue &kv);
    void setLiveSelected(const QVariantMap &selected);
    // False, counting the change as held, while paused.
    bool live();
    // afterwards(status) runs before writeFinished() tells the outcome.
    void write(const QString &action, const QByteArray &key, const Compare &expected, const TxnOp &change,
               const std::function<void(const Status &)> &afterwards = {});

    std::unique_ptr<Internal::KeyIndex> m_index;
    friend class KeySearchModel;  // searches the keys loaded before it reads the rest
    // The rows shown while paused; null while live. The index goes on underneath.
    std::unique_ptr<std::vector<Internal::KeyEntry>> m_frozen;
    qint64 m_frozenAtMs = 0;  // when the rows were frozen: later changes are not theirs
    QVariantMap m_liveSelected;  // what selected() returns while live: made once per revision
    bool m_describing = false;  // a value is being described on the thread pool
    bool m_describeAgain = false;  // a newer revision came meanwhile
    QVariantMap m_frozenSelected;
    bool m_selectionPending = false;  // selected while paused, value not read yet
    int m_heldChanges = 0;
    std::set<QByteArray> m_marked;  // in key order, as markedKeys() lists them
};

} // namespace QEtcd
