// SPDX-License-Identifier: Apache-2.0
#include "coordinationlayouts.h"
#include "coordinationlayouts_p.h"
#include "coordinationrecogniser.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QRegularExpression>
#include <QtCore/QStandardPaths>

#include <utility>

namespace QEtcd {

namespace {
// The words of the file, in the order an error lists them.
const QList<std::pair<QString, DeclaredLayout::Kind>> kindWords{
    {QStringLiteral("lock"), DeclaredLayout::Kind::Lock},
    {QStringLiteral("election"), DeclaredLayout::Kind::Election},
    {QStringLiteral("semaphore"), DeclaredLayout::Kind::Semaphore},
    {QStringLiteral("barrier"), DeclaredLayout::Kind::Barrier},
    {QStringLiteral("service"), DeclaredLayout::Kind::Service},
    {QStringLiteral("queue"), DeclaredLayout::Kind::Queue},
    {QStringLiteral("leader-key"), DeclaredLayout::Kind::LeaderKey},
};
const QList<std::pair<QString, DeclaredLayout::Identity>> identityWords{
    {QStringLiteral("lease"), DeclaredLayout::Identity::Lease},
    {QStringLiteral("value"), DeclaredLayout::Identity::Value},
    {QStringLiteral("json"), DeclaredLayout::Identity::JsonField},
};
const QList<std::pair<QString, DeclaredLayout::Order>> orderWords{
    {QStringLiteral("create-revision"), DeclaredLayout::Order::CreateRevision},
    {QStringLiteral("mod-revision"), DeclaredLayout::Order::ModRevision},
    {QStringLiteral("key"), DeclaredLayout::Order::Key},
};
const QStringList ruleFields{QStringLiteral("name"),     QStringLiteral("prefix"), QStringLiteral("glob"),
                             QStringLiteral("kind"),     QStringLiteral("identity"), QStringLiteral("field"),
                             QStringLiteral("order"),    QStringLiteral("permits"),  QStringLiteral("leased"),
                             QStringLiteral("value-bytes")};

template <class Enum>
QStringList wordsOf(const QList<std::pair<QString, Enum>> &words)
{
    QStringList list;
    for (const auto &word : words)
        list.append(word.first);
    return list;
}

int lineAt(const QByteArray &text, qsizetype offset)
{
    return int(text.left(offset).count('\n')) + 1;
}

// The line each element of the top-level "layouts" array starts on: QJsonDocument keeps no
// positions, and an operator finds a rule by its line.
QList<int> ruleLines(const QByteArray &json)
{
    QList<int> lines;
    int line = 1;
    int depth = 0;
    bool inString = false;
    bool escaped = false;
    bool inLayouts = false;
    bool elementNext = false;
    QByteArray string;
    QByteArray key;  // the last key of the top-level object
    for (const char c : json) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            else
                string.append(c);
        } else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
            if (elementNext && c != ']') {
                lines.append(line);
                elementNext = false;
            }
            switch (c) {
            case '"':
                inString = true;
                string.clear();
                break;
            case ':':
                if (depth == 1)
                    key = string;
                break;
            case ',':
                elementNext = inLayouts && depth == 2;
                break;
            case '{':
            case '[':
                ++depth;
                if (c == '[' && depth == 2 && key == "layouts") {
                    inLayouts = true;
                    elementNext = true;
                }
                break;
            case '}':
            case ']':
                if (depth == 2)
                    inLayouts = false;
                --depth;
                break;
            }
        }
        if (c == '\n')
            ++line;
    }
    return lines;
}

Status invalid(const QString &message)
{
    return Status(StatusCode::InvalidArgument, message);
}

// One rule, or why it is not one. where: "<file>: rule N (line L)".
Status parseRule(const QJsonValue &value, const QString &where, DeclaredLayout *layout)
{
    if (!value.isObject())
        return invalid(QStringLiteral("%1: a rule is a JSON object, {\"name\": ..., \"kind\": ...}").arg(where));
    const QJsonObject rule = value.toObject();
    for (auto it = rule.begin(); it != rule.end(); ++it) {
        if (!ruleFields.contains(it.key()))
            return invalid(QStringLiteral("%1: \"%2\" is not a field of a rule (%3)")
                               .arg(where, it.key(), ruleFields.join(QLatin1String(", "))));
    }
    const auto text = [&](const char *field, QString *into) -> Status {
        const QJsonValue fieldValue = rule.value(QLatin1String(field));
        if (fieldValue.isUndefined())
            return {};
        if (!fieldValue.isString() || fieldValue.toString().isEmpty())
            return invalid(QStringLiteral("%1: \"%2\" must be a non-empty string").arg(where, QLatin1String(field)));
        *into = fieldValue.toString();
        return {};
    };
    const auto word = [&](const char *field, const auto &words, auto *into) -> Status {
        QString given;
        if (Status status = text(field, &given); !status || given.isEmpty())
            return status;
        for (const auto &[spelling, meaning] : words) {
            if (spelling == given) {
                *into = meaning;
                return {};
            }
        }
        return invalid(QStringLiteral("%1: \"%2\": \"%3\" is not one of %4")
                           .arg(where, QLatin1String(field), given, wordsOf(words).join(QLatin1String(", "))));
    };

    QString prefix;
    QString kind;
    for (Status status : {text("name", &layout->name), text("prefix", &prefix), text("glob", &layout->glob),
                          text("kind", &kind), text("field", &layout->field)}) {
        if (!status)
            return status;
    }
    if (layout->name.isEmpty())
        return invalid(QStringLiteral("%1: \"name\" is missing: the name says which rule recognised an object")
                           .arg(where));
    if (prefix.isEmpty() == layout->glob.isEmpty())
        return invalid(QStringLiteral("%1: give either \"prefix\" or \"glob\"%2")
                           .arg(where, prefix.isEmpty() ? QString() : QStringLiteral(", not both")));
    layout->prefix = prefix.toUtf8();
    if (!layout->glob.isEmpty() && !Internal::globExpression(layout->glob).isValid())
        return invalid(QStringLiteral("%1: \"glob\": \"%2\" is not a glob (*, ?, [set], **)").arg(where, layout->glob));
    if (kind.isEmpty())
        return invalid(QStringLiteral("%1: \"kind\" is missing: one of %2")
                           .arg(where, wordsOf(kindWords).join(QLatin1String(", "))));
    for (Status status : {word("kind", kindWords, &layout->kind), word("identity", identityWords, &layout->identity),
                          word("order", orderWords, &layout->order)}) {
        if (!status)
            return status;
    }
    if (layout->identity == DeclaredLayout::Identity::JsonField && layout->field.isEmpty())
        return invalid(QStringLiteral("%1: \"field\" is missing: \"identity\": \"json\" names the JSON field that "
                                      "says who an entry is")
                           .arg(where));
    if (layout->identity != DeclaredLayout::Identity::JsonField && !layout->field.isEmpty())
        return invalid(QStringLiteral("%1: \"field\" applies only with \"identity\": \"json\"").arg(where));
    const QJsonValue permits = rule.value(QLatin1String("permits"));
    if (!permits.isUndefined()) {
        if (layout->kind != DeclaredLayout::Kind::Semaphore)
            return invalid(QStringLiteral("%1: \"permits\" applies only to \"kind\": \"semaphore\"").arg(where));
        if (!permits.isDouble() || permits.toDouble() != double(permits.toInt()) || permits.toInt() < 1)
            return invalid(QStringLiteral("%1: \"permits\" must be a whole number of at least 1").arg(where));
        layout->permits = permits.toInt();
    }
    const QJsonValue leased = rule.value(QLatin1String("leased"));
    if (!leased.isUndefined() && !leased.isBool())
        return invalid(QStringLiteral("%1: \"leased\" must be true or false").arg(where));
    layout->leased = leased.toBool(false);
    const QJsonValue valueBytes = rule.value(QLatin1String("value-bytes"));
    if (!valueBytes.isUndefined()) {
        if (!valueBytes.isDouble() || valueBytes.toDouble() != double(valueBytes.toInt()) || valueBytes.toInt() < 0)
            return invalid(QStringLiteral("%1: \"value-bytes\" must be a whole number of at least 0").arg(where));
        layout->valueBytes = valueBytes.toInt();
    }
    return {};
}
} // namespace

namespace Internal {
QRegularExpression globExpression(const QString &glob)
{
    // Qt's wildcards keep * within a segment; ** is ours: "**/" any run of whole segments
    // (none included), a final "/**" everything below, any other "**" anything at all.
    QString pattern;
    qsizetype at = 0;
    while (at < glob.size()) {
        const qsizetype star = glob.indexOf(QLatin1String("**"), at);
        const qsizetype end = star < 0 ? glob.size() : star;
        if (end > at) {
            pattern += QRegularExpression::wildcardToRegularExpression(glob.mid(at, end - at),
                                                                       QRegularExpression::UnanchoredWildcardConversion);
        }
        if (star < 0)
            break;
        at = star + 2;
        if (glob.mid(at, 1) == QLatin1String("/")) {
            pattern += QLatin1String("(?:.*/)?");
            ++at;
        } else if (at == glob.size() && pattern.endsWith(QLatin1Char('/'))) {
            pattern += QLatin1String(".+");
        } else {
            pattern += QLatin1String(".*");
        }
    }
    return QRegularExpression(QRegularExpression::anchoredPattern(pattern));
}
} // namespace Internal

bool DeclaredLayout::operator==(const DeclaredLayout &other) const
{
    return name == other.name && prefix == other.prefix && glob == other.glob && kind == other.kind
        && identity == other.identity && field == other.field && order == other.order && permits == other.permits
        && leased == other.leased && valueBytes == other.valueBytes;
}

QList<DeclaredLayout> CoordinationLayouts::builtIn()
{
    DeclaredLayout python;
    python.name = QStringLiteral("python3-etcd3 lock");
    python.glob = QStringLiteral("/locks/**");
    python.leased = true;
    python.valueBytes = 16;  // uuid1()'s bytes
    return {python};
}

QString CoordinationLayouts::defaultPath()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation))
        .filePath(QStringLiteral("qetcd/layouts.json"));
}

Status CoordinationLayouts::load(const QString &path, QList<DeclaredLayout> *layouts)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return invalid(QStringLiteral("%1: cannot read the layouts: %2").arg(path, file.errorString()));
    return parse(file.readAll(), path, layouts);
}

Status CoordinationLayouts::parse(const QByteArray &json, const QString &source, QList<DeclaredLayout> *layouts)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        return invalid(QStringLiteral("%1: line %2: not JSON: %3")
                           .arg(source)
                           .arg(lineAt(json, error.offset))
                           .arg(error.errorString()));
    const QJsonObject root = document.object();
    if (!document.isObject() || !root.value(QLatin1String("layouts")).isArray())
        return invalid(QStringLiteral("%1: expected {\"layouts\": [rules...]}").arg(source));
    for (auto it = root.begin(); it != root.end(); ++it) {
        if (it.key() != QLatin1String("layouts"))
            return invalid(
                QStringLiteral("%1: \"%2\" is not a field of the file (only \"layouts\")").arg(source, it.key()));
    }
    const QJsonArray rules = root.value(QLatin1String("layouts")).toArray();
    const QList<int> lines = ruleLines(json);
    QList<DeclaredLayout> parsed;
    for (qsizetype i = 0; i < rules.size(); ++i) {
        const QString where = QStringLiteral("%1: rule %2 (line %3)").arg(source).arg(i + 1).arg(lines.value(i));
        DeclaredLayout layout;
        if (Status status = parseRule(rules.at(i), where, &layout); !status)
            return status;
        for (qsizetype j = 0; j < parsed.size(); ++j) {
            if (parsed.at(j).name == layout.name)
                return invalid(QStringLiteral("%1: \"name\": \"%2\" is rule %3's name too; a name says which rule "
                                              "recognised an object")
                                   .arg(where, layout.name)
                                   .arg(j + 1));
        }
        parsed.append(layout);
    }
    *layouts = parsed;
    return {};
}

Status CoordinationLayouts::declare(const QString &path)
{
    const QString file = path.isEmpty() ? defaultPath() : path;
    if (path.isEmpty() && !QFileInfo::exists(file))
        return {};
    QList<DeclaredLayout> layouts;
    const Status loaded = load(file, &layouts);
    if (loaded)
        CoordinationRecogniser::setDeclaredLayouts(layouts);
    return loaded;
}

} // namespace QEtcd
