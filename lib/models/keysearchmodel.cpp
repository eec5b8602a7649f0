// SPDX-License-Identifier: Apache-2.0
#include "keysearchmodel.h"

#include "continuation_p.h"
#include "coordinationlayouts_p.h"
#include "displaytext.h"
#include "keyindex_p.h"
#include "keymodel.h"

#include <QEtcd/client.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QRegularExpression>
#include <QtCore/QThread>

#include <optional>

namespace QEtcd {

namespace {
// Keys the GUI thread hands over at a time from the ones loaded: a copy of a million at once
// held a frame up for 150 ms, a slice takes a few and the first hits come after the first.
constexpr int HandOverSlice = 16384;
// Keys a page reads: names only, or with their values (up to 1.5 MiB each in etcd).
constexpr qint64 NamePage = 10000;
constexpr qint64 ValuePage = 256;
// Characters of a value shown on either side of its match.
constexpr qsizetype SnippetContext = 40;

// The pattern compiled once: where in a text it matches, and how long the match is.
class Matcher
{
public:
    static std::optional<Matcher> make(const QString &pattern, KeySearchModel::Mode mode, bool caseSensitive, QString *error)
    {
        Matcher matcher;
        matcher.m_text = pattern;
        matcher.m_case = caseSensitive ? Qt::CaseSensitive : Qt::CaseInsensitive;
        if (mode == KeySearchModel::Text)
            return matcher;
        matcher.m_expression = mode == KeySearchModel::Glob ? Internal::globExpression(pattern) : QRegularExpression(pattern);
        if (!caseSensitive)
            matcher.m_expression->setPatternOptions(matcher.m_expression->patternOptions() | QRegularExpression::CaseInsensitiveOption);
        if (!matcher.m_expression->isValid()) {
            *error = KeySearchModel::tr("the pattern is not valid at character %1: %2")
                         .arg(matcher.m_expression->patternErrorOffset() + 1)
                         .arg(matcher.m_expression->errorString());
            return std::nullopt;
        }
        matcher.m_expression->optimize();
        return matcher;
    }

    // Where text matches and for how long; -1 where it does not.
    std::pair<qsizetype, qsizetype> find(const QString &text) const
    {
        if (!m_expression)
            return {text.indexOf(m_text, 0, m_case), m_text.size()};
        const QRegularExpressionMatch match = m_expression->match(text);
        return match.hasMatch() ? std::pair{match.capturedStart(), match.capturedLength()} : std::pair<qsizetype, qsizetype>{-1, 0};
    }

private:
    QString m_text;
    Qt::CaseSensitivity m_case = Qt::CaseInsensitive;
    std::optional<QRegularExpression> m_expression;
};

// One search, on the search thread: the keys loaded first, then the pages after them.
class SearchJob : public QObject
{
public:
    using Report = std::function<void(const QList<KeySearchModel::Hit> &, qint64 scanned)>;
    using Done = std::function<void(const QString &error)>;

    SearchJob(Client *client, const QByteArray &prefix, qint64 revision, Matcher matcher, bool inValues, int valueLimit,
              std::shared_ptr<std::atomic<bool>> cancelled, Report report, Done done)
        : m_client(client), m_end(prefixRangeEnd(prefix)), m_revision(revision), m_matcher(std::move(matcher)),
          m_inValues(inValues), m_valueLimit(valueLimit), m_cancelled(std::move(cancelled)), m_report(std::move(report)),
          m_done(std::move(done)), m_start(prefix.isEmpty() ? QByteArray(1, '\0') : prefix)
    {
    }

    // Values are not among the keys loaded: every key is read again, with its value.
    void readAll() { readPage(m_start); }

    // A slice of the keys loaded, in key order.
    void scan(const std::vector<QByteArray> &loaded)
    {
        if (*m_cancelled)
            return;
        QList<KeySearchModel::Hit> hits;
        for (const QByteArray &key : loaded) {
            if (m_matcher.find(DisplayText::fromBytes(key)).first >= 0)
                hits.append({key, false, {}});
        }
        m_report(hits, qint64(loaded.size()));
    }

    // Every key loaded was handed over: the rest is read from etcd from continuation on (empty:
    // there is no rest).
    void loadedScanned(const QByteArray &continuation)
    {
        if (*m_cancelled || continuation.isEmpty())
            return finish({});
        readPage(continuation);
    }

private:
    void readPage(const QByteArray &from)
    {
        RangeOptions page;
        page.range = KeyRange::upTo(m_end);
        page.keysOnly = !m_inValues;
        page.limit = m_inValues ? ValuePage : NamePage;
        page.revision = m_revision;
        Internal::thenOn(m_client->get(from, page), this, [this](const RangeResult &read) {
            if (*m_cancelled)
                return finish({});
            if (!read.status)
                return finish(read.status.message());
            // The pages after the first read the store as the first one did.
            if (m_revision == 0)
                m_revision = read.header.revision;
            QList<KeySearchModel::Hit> hits;
            for (const KeyValue &kv : read.kvs) {
                if (m_matcher.find(DisplayText::fromBytes(kv.key)).first >= 0) {
                    hits.append({kv.key, false, {}});
                    continue;
                }
                if (!m_inValues)
                    continue;
                const QString value = DisplayText::fromBytes(kv.value.left(m_valueLimit));
                const auto [at, length] = m_matcher.find(value);
                if (at < 0)
                    continue;
                const qsizetype from = std::max<qsizetype>(0, at - SnippetContext);
                const QString snippet = (from > 0 ? QStringLiteral("… ") : QString())
                                      + DisplayText::escape(value.mid(from, at - from + length + SnippetContext))
                                      + (at + length + SnippetContext < value.size() ? QStringLiteral(" …") : QString());
                hits.append({kv.key, true, snippet});
            }
            m_report(hits, read.kvs.size());
            if (!read.more || read.kvs.isEmpty())
                return finish({});
            readPage(read.kvs.constLast().key + '\0');
        });
    }

    void finish(const QString &error)
    {
        m_done(error);
        deleteLater();
    }

    Client *m_client;
    QByteArray m_end;
    qint64 m_revision;
    Matcher m_matcher;
    bool m_inValues;
    int m_valueLimit;
    std::shared_ptr<std::atomic<bool>> m_cancelled;
    Report m_report;
    Done m_done;
    QByteArray m_start;
};

// The thread searches run on: one for the process, started when first needed.
QThread *searchThread()
{
    static QThread *thread = [] {
        auto *started = new QThread;
        started->setObjectName(QStringLiteral("qetcd-search"));
        started->start();
        QObject::connect(qApp, &QCoreApplication::aboutToQuit, started, [started] {
            started->quit();
            started->wait();
        });
        return started;
    }();
    return thread;
}
} // namespace

KeySearchModel::KeySearchModel(QObject *parent) : QAbstractListModel(parent) {}

KeySearchModel::~KeySearchModel()
{
    stop();
}

void KeySearchModel::setKeys(KeyModel *keys)
{
    if (keys == m_keys)
        return;
    stop();
    m_keys = keys;
    Q_EMIT keysChanged();
}

void KeySearchModel::setPattern(const QString &pattern)
{
    if (pattern == m_pattern)
        return;
    m_pattern = pattern;
    Q_EMIT patternChanged();
}

void KeySearchModel::setMode(Mode mode)
{
    if (mode != Text && mode != Glob && mode != RegularExpression) {
        qWarning("KeySearchModel: mode %d is none of Text, Glob and RegularExpression; kept %d", int(mode),
                 int(m_mode));
        return;
    }
    if (mode == m_mode)
        return;
    m_mode = mode;
    Q_EMIT modeChanged();
}

void KeySearchModel::setCaseSensitive(bool sensitive)
{
    if (sensitive == m_caseSensitive)
        return;
    m_caseSensitive = sensitive;
    Q_EMIT caseSensitiveChanged();
}

void KeySearchModel::setInValues(bool inValues)
{
    if (inValues == m_inValues)
        return;
    m_inValues = inValues;
    Q_EMIT inValuesChanged();
}

void KeySearchModel::setValueLimit(int bytes)
{
    bytes = std::max(1, bytes);
    if (bytes == m_valueLimit)
        return;
    m_valueLimit = bytes;
    Q_EMIT valueLimitChanged();
}

double KeySearchModel::elapsedMs() const
{
    return isRunning() ? double(m_clock.nsecsElapsed()) / 1e6 : m_ranMs;
}

void KeySearchModel::start()
{
    stop();
    const quint64 generation = ++m_generation;
    beginResetModel();
    m_hits.clear();
    endResetModel();
    m_scanned = 0;
    m_truncated = false;
    m_firstHitMs = -1;
    m_ranMs = 0;
    m_error.clear();
    m_clock.start();
    QString invalid;
    std::optional<Matcher> matcher = Matcher::make(m_pattern, m_mode, m_caseSensitive, &invalid);
    const Internal::KeyIndex *index = m_keys ? m_keys->m_index.get() : nullptr;
    if (m_pattern.isEmpty() || !index || !index->client() || !matcher) {
        m_status = matcher ? ModelStatus::Null : ModelStatus::Error;
        m_error = invalid;
        return Q_EMIT progressChanged();
    }
    m_cancelled = std::make_shared<std::atomic<bool>>(false);
    m_status = ModelStatus::Loading;
    Q_EMIT progressChanged();

    QPointer<KeySearchModel> model(this);
    auto *job = new SearchJob(
        index->client(), index->prefix(), index->revision(), std::move(*matcher), m_inValues, m_valueLimit, m_cancelled,
        // Posted to the application, whose thread is the model's: the model may be gone by then.
        [model, generation](const QList<Hit> &hits, qint64 scanned) {
            QMetaObject::invokeMethod(qApp, [model, generation, hits, scanned] {
                if (model)
                    model->found(generation, hits, scanned);
            }, Qt::QueuedConnection);
        },
        [model, generation](const QString &error) {
            QMetaObject::invokeMethod(qApp, [model, generation, error] {
                if (model)
                    model->finished(generation, error);
            }, Qt::QueuedConnection);
        });
    job->moveToThread(searchThread());
    if (m_inValues) {
        QMetaObject::invokeMethod(job, [job] { job->readAll(); }, Qt::QueuedConnection);
        return;
    }
    m_job = job;
    m_handedOver.clear();
    handOver(generation);
}

// The keys loaded go to the search thread a slice at a time, from where the last slice ended:
// the page goes on changing meanwhile, and a key it gains behind the slices is one the search
// began without.
void KeySearchModel::handOver(quint64 generation)
{
    if (generation != m_generation || !m_job)
        return;
    auto *job = static_cast<SearchJob *>(m_job);
    const Internal::KeyIndex *index = m_keys ? m_keys->m_index.get() : nullptr;
    const std::vector<Internal::KeyEntry> empty;
    const std::vector<Internal::KeyEntry> &entries = index ? index->entries() : empty;
    auto from = m_handedOver.isEmpty() ? entries.begin()
                                       : std::upper_bound(entries.begin(), entries.end(), m_handedOver,
                                                          [](const QByteArray &key, const Internal::KeyEntry &entry) { return key < entry.key; });
    std::vector<QByteArray> slice;
    slice.reserve(size_t(std::min<qsizetype>(HandOverSlice, entries.end() - from)));
    for (; from != entries.end() && slice.size() < size_t(HandOverSlice); ++from)
        slice.push_back(from->key);
    if (!slice.empty()) {
        m_handedOver = slice.back();
        QMetaObject::invokeMethod(job, [job, slice = std::move(slice)] { job->scan(slice); }, Qt::QueuedConnection);
    }
    if (from != entries.end()) {
        QMetaObject::invokeMethod(this, [this, generation] { handOver(generation); }, Qt::QueuedConnection);
        return;
    }
    // After the last key loaded: where the page would load the next one.
    endHandOver(!index || index->isComplete() ? QByteArray() : index->continuation());
}

void KeySearchModel::endHandOver(const QByteArray &rest)
{
    auto *job = static_cast<SearchJob *>(std::exchange(m_job, nullptr));
    if (job)
        QMetaObject::invokeMethod(job, [job, rest] { job->loadedScanned(rest); }, Qt::QueuedConnection);
}

void KeySearchModel::cancel()
{
    if (!isRunning())
        return;
    stop();
    m_ranMs = double(m_clock.nsecsElapsed()) / 1e6;
    m_status = ModelStatus::Ready;
    Q_EMIT progressChanged();
}

void KeySearchModel::stop()
{
    if (m_cancelled)
        *m_cancelled = true;
    endHandOver({});  // a job still being handed keys ends (and goes) once it hears of the end
    m_cancelled.reset();
    ++m_generation;
}

void KeySearchModel::found(quint64 generation, const QList<Hit> &hits, qint64 scanned)
{
    if (generation != m_generation)
        return;
    m_scanned += scanned;
    const qsizetype room = std::min<qsizetype>(hits.size(), MaxHits - qsizetype(m_hits.size()));
    m_truncated = m_truncated || room < hits.size();
    if (room > 0) {
        if (m_firstHitMs < 0)
            m_firstHitMs = double(m_clock.nsecsElapsed()) / 1e6;
        beginInsertRows({}, int(m_hits.size()), int(m_hits.size() + room) - 1);
        m_hits.insert(m_hits.end(), hits.begin(), hits.begin() + room);
        endInsertRows();
    }
    Q_EMIT progressChanged();
}

void KeySearchModel::finished(quint64 generation, const QString &error)
{
    if (generation != m_generation)
        return;
    m_cancelled.reset();
    m_ranMs = double(m_clock.nsecsElapsed()) / 1e6;
    m_status = error.isEmpty() ? ModelStatus::Ready : ModelStatus::Error;
    m_error = error;
    Q_EMIT progressChanged();
}

int KeySearchModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_hits.size());
}

QVariant KeySearchModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Hit &hit = m_hits[size_t(index.row())];
    switch (role) {
    case KeyRole:
        return DisplayText::fromBytes(hit.key);
    case InValueRole:
        return hit.inValue;
    case SnippetRole:
        return hit.snippet;
    default:
        return {};
    }
}

QHash<int, QByteArray> KeySearchModel::roleNames() const
{
    return {{KeyRole, "key"}, {InValueRole, "inValue"}, {SnippetRole, "snippet"}};
}

} // namespace QEtcd
