// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "modelstatus.h"
#include "qetcdquickexport.h"

#include <QtCore/QAbstractListModel>
#include <QtCore/QElapsedTimer>
#include <QtCore/QPointer>
#include <QtQml/qqmlregistration.h>

#include <atomic>
#include <memory>

namespace QEtcd {

class KeyModel;

/// `KeySearchModel` in QML: the keys under a KeyModel's prefix whose name (and, if asked, value)
/// matches a text, a glob or a regular expression; the Keys page's search.
///
/// Not limited to what the page has loaded: the keys loaded already are searched first, then
/// the rest is read from etcd in keys-only pages at the page's revision, as a list would load
/// it. With inValues, every key is read with its value instead (the first valueLimit bytes of
/// each searched, as UTF-8 text). The search runs on a thread of its own; hits stream in as they
/// are found, and cancel() stops it between two pages. At most MaxHits hits are kept.
class QETCD_QUICK_EXPORT KeySearchModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    /// The keys to search: their client, prefix and revision, and the ones already loaded.
    Q_PROPERTY(QEtcd::KeyModel *keys READ keys WRITE setKeys NOTIFY keysChanged)
    /// What to look for; empty: nothing is searched.
    Q_PROPERTY(QString pattern READ pattern WRITE setPattern NOTIFY patternChanged)
    /// How pattern reads: Text (contained), Glob (`*` within a `/` segment, `**` across, `?`,
    /// `[…]`, matching the whole key) or RegularExpression (found anywhere; Perl syntax).
    Q_PROPERTY(Mode mode READ mode WRITE setMode NOTIFY modeChanged)
    /// Upper and lower case differ.
    Q_PROPERTY(bool caseSensitive READ isCaseSensitive WRITE setCaseSensitive NOTIFY caseSensitiveChanged)
    /// Search the values as well as the names.
    Q_PROPERTY(bool inValues READ inValues WRITE setInValues NOTIFY inValuesChanged)
    /// Of each value, the bytes searched (default 64 KiB): larger values are searched in their start.
    Q_PROPERTY(int valueLimit READ valueLimit WRITE setValueLimit NOTIFY valueLimitChanged)
    /// Hits found.
    Q_PROPERTY(int count READ count NOTIFY progressChanged)
    /// Keys looked at so far.
    Q_PROPERTY(double scanned READ scanned NOTIFY progressChanged)
    /// A search runs.
    Q_PROPERTY(bool running READ isRunning NOTIFY progressChanged)
    /// Null (nothing searched yet), Loading (running), Ready (done) or Error (errorString says why).
    Q_PROPERTY(QEtcd::ModelStatus::Status status READ status NOTIFY progressChanged)
    /// Why the search failed: the pattern (and where in it), or etcd.
    Q_PROPERTY(QString errorString READ errorString NOTIFY progressChanged)
    /// Milliseconds from start() to the first hit; -1 until there is one.
    Q_PROPERTY(double firstHitMs READ firstHitMs NOTIFY progressChanged)
    /// Milliseconds the search ran, so far or in all.
    Q_PROPERTY(double elapsedMs READ elapsedMs NOTIFY progressChanged)
    /// More hits were found than are kept.
    Q_PROPERTY(bool truncated READ isTruncated NOTIFY progressChanged)

public:
    /// How the pattern reads. Its underlying type is fixed so that any number QML assigns (a
    /// ComboBox's index is -1 before its model is set) is a value setMode() can refuse, not
    /// undefined behaviour.
    enum Mode : int {
        Text,               ///< The key (or value) contains it.
        Glob,               ///< The whole key matches it, as a DeclaredLayout's path glob does.
        RegularExpression,  ///< It is found in the key (or value).
    };
    Q_ENUM(Mode)
    /// The roles a delegate reads.
    enum Role {
        KeyRole = Qt::UserRole + 1,  ///< `key`: the key, as DisplayText carries bytes.
        InValueRole,                 ///< `inValue`: only the value matched.
        SnippetRole,                 ///< `snippet`: around the match in the value, escaped; empty for a name hit.
    };
    Q_ENUM(Role)
    /// Hits kept at most.
    static constexpr int MaxHits = 10000;

    /// Nothing to search yet.
    explicit KeySearchModel(QObject *parent = nullptr);
    /// Stops a search still running.
    ~KeySearchModel() override;
    Q_DISABLE_COPY_MOVE(KeySearchModel)

    /// The keys searched.
    KeyModel *keys() const { return m_keys; }
    /// Sets the keys to search; a running search stops.
    void setKeys(KeyModel *keys);
    /// The pattern.
    QString pattern() const { return m_pattern; }
    /// Sets the pattern; start() searches for it.
    void setPattern(const QString &pattern);
    /// The mode.
    Mode mode() const { return m_mode; }
    /// Sets the mode.
    void setMode(Mode mode);
    /// Case-sensitive.
    bool isCaseSensitive() const { return m_caseSensitive; }
    /// Sets whether case matters.
    void setCaseSensitive(bool sensitive);
    /// Values searched too.
    bool inValues() const { return m_inValues; }
    /// Sets whether values are searched.
    void setInValues(bool inValues);
    /// The bytes of each value searched.
    int valueLimit() const { return m_valueLimit; }
    /// Sets the bytes of each value searched (at least 1).
    void setValueLimit(int bytes);
    /// Hits.
    int count() const { return int(m_hits.size()); }
    /// Keys looked at.
    double scanned() const { return double(m_scanned); }
    /// Running.
    bool isRunning() const { return m_status == ModelStatus::Loading; }
    /// The status.
    ModelStatus::Status status() const { return m_status; }
    /// The error.
    QString errorString() const { return m_error; }
    /// Time to the first hit.
    double firstHitMs() const { return m_firstHitMs; }
    /// Time run.
    double elapsedMs() const;
    /// More hits than kept.
    bool isTruncated() const { return m_truncated; }

    /// Searches for pattern from scratch; the hits of an earlier search go.
    Q_INVOKABLE void start();
    /// Stops the search; the hits found stay.
    Q_INVOKABLE void cancel();

    /// The number of hits.
    int rowCount(const QModelIndex &parent = {}) const override;
    /// The data of \a index for \a role.
    QVariant data(const QModelIndex &index, int role) const override;
    /// The role names of Role.
    QHash<int, QByteArray> roleNames() const override;

    /// One key found, as the search thread hands it over.
    struct Hit
    {
        QByteArray key;        ///< The key found.
        bool inValue = false;  ///< Only its value matched.
        QString snippet;       ///< Around the match in the value, escaped; empty for a name hit.
    };

Q_SIGNALS:
    /// keys changed.
    void keysChanged();
    /// pattern changed.
    void patternChanged();
    /// mode changed.
    void modeChanged();
    /// caseSensitive changed.
    void caseSensitiveChanged();
    /// inValues changed.
    void inValuesChanged();
    /// valueLimit changed.
    void valueLimitChanged();
    /// Hits came, keys were scanned, or the search began or ended.
    void progressChanged();

private:
    void found(quint64 generation, const QList<Hit> &hits, qint64 scanned);
    void finished(quint64 generation, const QString &error);
    void stop();
    void handOver(quint64 generation);
    void endHandOver(const QByteArray &rest);

    QPointer<KeyModel> m_keys;
    QString m_pattern;
    Mode m_mode = Text;
    bool m_caseSensitive = false;
    bool m_inValues = false;
    int m_valueLimit = 64 * 1024;
    std::vector<Hit> m_hits;
    qint64 m_scanned = 0;
    bool m_truncated = false;
    ModelStatus::Status m_status = ModelStatus::Null;
    QString m_error;
    double m_firstHitMs = -1;
    QElapsedTimer m_clock;
    double m_ranMs = 0;
    quint64 m_generation = 0;  // hits of a search since replaced are dropped
    std::shared_ptr<std::atomic<bool>> m_cancelled;
    QObject *m_job = nullptr;  // the search being handed the keys loaded; it goes once told the end
    QByteArray m_handedOver;   // the last key handed over
};

} // namespace QEtcd
