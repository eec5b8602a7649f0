// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "modelstatus.h"
#include "qetcdquickexport.h"

#include <QEtcd/watcher.h>

#include <QtCore/QAbstractListModel>
#include <QtCore/QPointer>
#include <QtQml/qqmlregistration.h>

#include <deque>
#include <optional>

namespace QEtcd {

class Client;

/// `KeyWatchModel` in QML: the puts and deletes of a key, or of every key under a prefix, as
/// they happen, oldest first; the Keys page's watch pane.
///
/// With fromRevision set it begins with the history etcd still keeps from that revision on (from
/// a compacted one, where etcd's history begins, and errorString says so). Each event says who it was when the
/// coordination recogniser knows the key (a lock's holder, an instance, a candidate: from the
/// value written, or for a delete from the value before). Paused, events are held and shown on
/// resume; a filter shows only the events that mention it. At most capacity events are kept,
/// the oldest going first. Everything happens on the GUI thread's event loop; the watch itself
/// is the client's.
class QETCD_QUICK_EXPORT KeyWatchModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    /// The client to watch through.
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    /// The key watched; with prefix, every key that starts with it. Empty: nothing is watched.
    Q_PROPERTY(QString key READ key WRITE setKey NOTIFY keyChanged)
    /// Watch every key that starts with key, not key alone.
    Q_PROPERTY(bool prefix READ isPrefix WRITE setPrefix NOTIFY prefixChanged)
    /// Begin with the history from this revision on, while etcd keeps it; 0: from now on.
    Q_PROPERTY(qint64 fromRevision READ fromRevision WRITE setFromRevision NOTIFY fromRevisionChanged)
    /// Held still: what arrives is kept (held) and shown on resume.
    Q_PROPERTY(bool paused READ isPaused WRITE setPaused NOTIFY pausedChanged)
    /// Only the events whose key, type, value, lease or writer contain it (ignoring case).
    Q_PROPERTY(QString filter READ filter WRITE setFilter NOTIFY filterChanged)
    /// At most this many events are kept (default 10,000); past it the oldest go.
    Q_PROPERTY(int capacity READ capacity WRITE setCapacity NOTIFY capacityChanged)
    /// Rows shown: the kept events the filter lets through.
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    /// Events received since the watch began, those dropped for capacity included.
    Q_PROPERTY(qint64 received READ received NOTIFY countChanged)
    /// Events held while paused.
    Q_PROPERTY(int held READ held NOTIFY countChanged)
    /// Null (nothing to watch), Loading (the watch is being made), Ready (watching) or Error.
    Q_PROPERTY(QEtcd::ModelStatus::Status status READ status NOTIFY statusChanged)
    /// Why the watch failed or what it lost; empty while it works.
    Q_PROPERTY(QString errorString READ errorString NOTIFY statusChanged)

public:
    /// The roles a delegate reads.
    enum Role {
        RevisionRole = Qt::UserRole + 1,  ///< `revision`: the revision of the change.
        TypeRole,                         ///< `type`: "PUT" or "DELETE".
        KeyRole,                          ///< `key`: the key, as DisplayText carries bytes.
        LeaseRole,                        ///< `lease`: the key's lease in hex; empty when none.
        ValueRole,                        ///< `value`: the start of the value written (PUT), escaped, " …" when cut.
        SizeRole,                         ///< `size`: the value's size in bytes.
        VersionRole,                      ///< `version`: the key's version after the change (0: deleted).
        WriterRole,                       ///< `writer`: who, as the recogniser names the key's entry; may be empty.
    };
    Q_ENUM(Role)

    /// Nothing watched yet.
    explicit KeyWatchModel(QObject *parent = nullptr);
    /// Ends the watch.
    ~KeyWatchModel() override;
    Q_DISABLE_COPY_MOVE(KeyWatchModel)

    /// The client.
    Client *client() const { return m_client; }
    /// Sets the client and watches afresh.
    void setClient(Client *client);
    /// The key.
    QString key() const { return m_key; }
    /// Sets the key and watches afresh.
    void setKey(const QString &key);
    /// Watching a prefix.
    bool isPrefix() const { return m_prefix; }
    /// Sets whether key is a prefix, and watches afresh.
    void setPrefix(bool prefix);
    /// The revision the watch begins at.
    qint64 fromRevision() const { return m_fromRevision; }
    /// Sets where the watch begins (0: now, negative: as 0), and watches afresh.
    void setFromRevision(qint64 revision);
    /// Paused.
    bool isPaused() const { return m_paused; }
    /// Pauses (true) or resumes (false), showing what was held.
    void setPaused(bool paused);
    /// The filter.
    QString filter() const { return m_filter; }
    /// Sets the filter.
    void setFilter(const QString &filter);
    /// The capacity.
    int capacity() const { return m_capacity; }
    /// Sets how many events are kept (at least 1); the oldest go at once when more are kept.
    void setCapacity(int capacity);
    /// Rows shown.
    int count() const { return int(m_rows.size()); }
    /// Events received.
    qint64 received() const { return m_received; }
    /// Events held while paused.
    int held() const { return int(m_held.size()); }
    /// The status.
    ModelStatus::Status status() const { return m_status; }
    /// The error.
    QString errorString() const { return m_error; }

    /// Forgets the events kept and held; the watch goes on.
    Q_INVOKABLE void clear();
    /// Writes the rows shown to \a path (a path or a file: URL), one JSON object a line: revision,
    /// type, key and key_base64, value_base64 (PUT), lease, version, create_revision,
    /// mod_revision and writer. All or nothing; empty on success, else why not.
    Q_INVOKABLE QString exportJsonLines(const QString &path) const;

    /// The number of rows shown.
    int rowCount(const QModelIndex &parent = {}) const override;
    /// The data of \a index for \a role.
    QVariant data(const QModelIndex &index, int role) const override;
    /// The role names of Role.
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    /// client changed.
    void clientChanged();
    /// key changed.
    void keyChanged();
    /// prefix changed.
    void prefixChanged();
    /// fromRevision changed.
    void fromRevisionChanged();
    /// paused changed.
    void pausedChanged();
    /// filter changed.
    void filterChanged();
    /// capacity changed.
    void capacityChanged();
    /// count, received or held changed.
    void countChanged();
    /// status or errorString changed.
    void statusChanged();

private:
    struct Entry
    {
        WatchEvent event;
        QString key;     // as DisplayText carries it
        QString value;   // the start of the value, for the view and the filter
        // Recognised when first asked for (a row shown, a filter, an export), not for every
        // event: a busy prefix would otherwise run the recogniser on the GUI thread per change.
        mutable std::optional<QString> writer;
    };
    static const QString &writerOf(const Entry &entry);

    void restart();
    void receive(const QList<WatchEvent> &events);
    void keep(QList<Entry> entries);
    void dropBeyondCapacity();
    void refilter();
    bool matches(const Entry &entry) const;
    const Entry &entryAt(qint64 sequence) const;
    void setStatus(ModelStatus::Status status, const QString &error = {});

    QPointer<Client> m_client;
    QString m_key;
    bool m_prefix = false;
    qint64 m_fromRevision = 0;
    bool m_paused = false;
    QString m_filter;
    int m_capacity = 10000;
    std::deque<Entry> m_events;  // kept, oldest first; the first has sequence m_firstSequence
    qint64 m_firstSequence = 0;
    std::deque<qint64> m_rows;   // the sequences the filter lets through
    QList<Entry> m_held;
    qint64 m_received = 0;
    Watcher *m_watcher = nullptr;
    quint64 m_generation = 0;  // answers of a watch since replaced are dropped
    ModelStatus::Status m_status = ModelStatus::Null;
    QString m_error;
};

} // namespace QEtcd
