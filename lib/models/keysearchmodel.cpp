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
// Keys scanned between two looks at cancel() and two batches of hits handed over.
constexpr size_t ScanChunk = 65536;
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

    SearchJob(Client *client, const QByteArray &prefix, qint64 revision, std::vector<QByteArray> loaded, QByteArray continuation,
              Matcher matcher, bool inValues, int valueLimit, std::shared_ptr<std::atomic<bool>> cancelled, Report report, Done done)
        : m_client(client), m_end(prefixRangeEnd(prefix)), m_revision(revision), m_loaded(std::move(loaded)),
          m_continuation(std::move(continuation)), m_matcher(std::move(matcher)), m_inValues(inValues), m_valueLimit(valueLimit),
          m_cancelled(std::move(cancelled)), m_report(std::move(report)), m_done(std::move(done)),
          m_start(prefix.isEmpty() ? QByteArray(1, '\0') : prefix)
    {
    }

    void run()
    {
        // Values are not among the keys loaded: every key is read again, with its value.
        if (m_inValues)
            return readPage(m_start);
        scanLoaded(0);
    }

private:
    void scanLoaded(size_t from)
    {
        if (*m_cancelled)
            return finish({});
        const size_t to = std::min(m_loaded.size(), from + ScanChunk);
        QList<KeySearchModel::Hit> hits;
        for (size_t i = from; i < to; ++i) {
            if (m_matcher.find(DisplayText::fromBytes(m_loaded[i])).first >= 0)
                hits.append({m_loaded[i], false, {}});
        }
        m_report(hits, qint64(to - from));
        if (to < m_loaded.size()) {
            // Queued, so that a cancel() and the thread's own events get their turn.
            QMetaObject::invokeMethod(this, [this, to] { scanLoaded(to); }, Qt::QueuedConnection);
            return;
        }
        m_loaded = {};
        if (m_continuation.isEmpty())
            return finish({});
        readPage(m_continuation);
    }

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
    std::vector<QByteArray> m_loaded;
    QByteArray m_continuation;
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
    // A copy of the names loaded (shared bytes, not copied): the page goes on changing meanwhile.
    std::vector<QByteArray> loaded;
    loaded.reserve(index->entries().size());
    for (const Internal::KeyEntry &entry : index->entries())
        loaded.push_back(entry.key);
    const QByteArray continuation = index->isComplete() ? QByteArray() : index->continuation();
    m_cancelled = std::make_shared<std::atomic<bool>>(false);
    m_status = ModelStatus::Loading;
    Q_EMIT progressChanged();

    QPointer<KeySearchModel> model(this);
    auto *job = new SearchJob(
        index->client(), index->prefix(), index->revision(), std::move(loaded), continuation, std::move(*matcher), m_inValues,
        m_valueLimit, m_cancelled,
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
    QMetaObject::invokeMethod(job, [job] { job->run(); }, Qt::QueuedConnection);
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
