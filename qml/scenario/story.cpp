// SPDX-License-Identifier: Apache-2.0
#include "story.h"

#include <barrierparticipant.h>
#include <countedbarrierparticipant.h>
#include <counterparticipant.h>
#include <doublebarrierparticipant.h>
#include <electionobserverparticipant.h>
#include <electionparticipant.h>
#include <mutexparticipant.h>
#include <queueparticipant.h>
#include <readwritelockparticipant.h>
#include <semaphoreparticipant.h>
#include <serviceregistrationparticipant.h>
#include <transientkeyparticipant.h>
#include <workqueueparticipant.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QHash>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QMetaMethod>
#include <QtCore/QRegularExpression>
#include <QtCore/QUrl>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

using namespace QEtcd;

namespace {
QString tr(const char *text)
{
    return QCoreApplication::translate("Story", text);
}

// A story's recipes are the QEtcd QML module's participants, by their QML names: what a story
// calls and sets is what a QML user calls and sets.
struct RecipeType
{
    QString name;
    const QMetaObject *metaObject;
    std::unique_ptr<RecipeParticipant> (*make)();
};

template <class Participant>
std::unique_ptr<RecipeParticipant> make()
{
    return std::make_unique<Participant>();
}

const std::vector<RecipeType> &recipeTypes()
{
    static const std::vector<RecipeType> all{
        {QStringLiteral("Mutex"), &MutexParticipant::staticMetaObject, make<MutexParticipant>},
        {QStringLiteral("ReadWriteLock"), &ReadWriteLockParticipant::staticMetaObject, make<ReadWriteLockParticipant>},
        {QStringLiteral("Semaphore"), &SemaphoreParticipant::staticMetaObject, make<SemaphoreParticipant>},
        {QStringLiteral("Election"), &ElectionParticipant::staticMetaObject, make<ElectionParticipant>},
        {QStringLiteral("ElectionObserver"), &ElectionObserverParticipant::staticMetaObject, make<ElectionObserverParticipant>},
        {QStringLiteral("Barrier"), &BarrierParticipant::staticMetaObject, make<BarrierParticipant>},
        {QStringLiteral("CountedBarrier"), &CountedBarrierParticipant::staticMetaObject, make<CountedBarrierParticipant>},
        {QStringLiteral("DoubleBarrier"), &DoubleBarrierParticipant::staticMetaObject, make<DoubleBarrierParticipant>},
        {QStringLiteral("ServiceRegistration"), &ServiceRegistrationParticipant::staticMetaObject,
         make<ServiceRegistrationParticipant>},
        {QStringLiteral("TransientKey"), &TransientKeyParticipant::staticMetaObject, make<TransientKeyParticipant>},
        {QStringLiteral("Counter"), &CounterParticipant::staticMetaObject, make<CounterParticipant>},
        {QStringLiteral("Queue"), &QueueParticipant::staticMetaObject, make<QueueParticipant>},
        {QStringLiteral("WorkQueue"), &WorkQueueParticipant::staticMetaObject, make<WorkQueueParticipant>},
    };
    return all;
}

const RecipeType *recipeType(const QString &name)
{
    const auto &all = recipeTypes();
    const auto found = std::find_if(all.cbegin(), all.cend(), [&name](const RecipeType &type) { return type.name == name; });
    return found == all.cend() ? nullptr : &*found;
}

// The methods a story may call: the participant's own and its bases' down to the Participant
// base (close()), not QObject's; signals are not calls. Scenario::call() passes at most
// MaxArguments (no participant's method takes more).
constexpr int MaxArguments = 3;
QList<QMetaMethod> callableMethods(const QMetaObject *type)
{
    QList<QMetaMethod> methods;
    for (int i = RecipeParticipant::staticMetaObject.methodOffset(); i < type->methodCount(); ++i) {
        const QMetaMethod method = type->method(i);
        if (method.access() == QMetaMethod::Public && method.parameterCount() <= MaxArguments
            && (method.methodType() == QMetaMethod::Method || method.methodType() == QMetaMethod::Slot))
            methods.append(method);
    }
    return methods;
}

// The settings a story may give: the writable properties the participant adds to the base's
// (whose client, path, ttl and names the story sets itself).
QList<QMetaProperty> settableProperties(const QMetaObject *type)
{
    QList<QMetaProperty> properties;
    for (int i = RecipeParticipant::staticMetaObject.propertyCount(); i < type->propertyCount(); ++i) {
        if (type->property(i).isWritable())
            properties.append(type->property(i));
    }
    return properties;
}

QString quotedList(const QStringList &names)
{
    return names.isEmpty() ? tr("none") : names.join(QLatin1String(", "));
}

QString typeName(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Bool: return tr("a boolean");
    case QJsonValue::Double: return tr("a number");
    case QJsonValue::String: return tr("a string");
    case QJsonValue::Array: return tr("an array");
    case QJsonValue::Object: return tr("an object");
    case QJsonValue::Undefined: break;
    }
    return tr("nothing");
}

// Where each field of a JSON text starts, by its path ("steps[3].action.do"): QJsonDocument
// keeps no positions, and a message without a line leaves its reader hunting. Only ever given
// text QJsonDocument has parsed.
class FieldLines
{
public:
    explicit FieldLines(const QByteArray &text) : m_text(text) { value(QString()); }

    // The line of path's field, or of the nearest enclosing one the text has.
    int lineOf(QString path) const
    {
        for (;;) {
            const auto found = m_lines.constFind(path);
            if (found != m_lines.cend())
                return *found;
            if (path.isEmpty())
                return 1;
            path.truncate(std::max<qsizetype>(0, std::max(path.lastIndexOf(QLatin1Char('.')), path.lastIndexOf(QLatin1Char('[')))));
        }
    }

private:
    bool atEnd() const { return m_at >= m_text.size(); }

    void skipSpace()
    {
        for (; !atEnd() && std::isspace(static_cast<unsigned char>(m_text[m_at])); ++m_at) {
            if (m_text[m_at] == '\n')
                ++m_line;
        }
    }

    QString string()
    {
        const qsizetype start = ++m_at;
        for (; !atEnd() && m_text[m_at] != '"'; ++m_at) {
            if (m_text[m_at] == '\\')
                ++m_at;
        }
        return QString::fromUtf8(m_text.mid(start, m_at++ - start));
    }

    void value(const QString &path)
    {
        skipSpace();
        if (atEnd())
            return;
        if (!m_lines.contains(path))
            m_lines.insert(path, m_line);
        const char c = m_text[m_at];
        if (c == '{' || c == '[') {
            const char close = c == '{' ? '}' : ']';
            ++m_at;
            for (int index = 0;;) {
                skipSpace();
                if (atEnd() || m_text[m_at] == close) {
                    ++m_at;
                    return;
                }
                if (m_text[m_at] == ',') {
                    ++m_at;
                    continue;
                }
                if (c == '[') {
                    value(QStringLiteral("%1[%2]").arg(path).arg(index++));
                    continue;
                }
                const int line = m_line;
                const QString key = string();
                const QString child = path.isEmpty() ? key : path + QLatin1Char('.') + key;
                m_lines.insert(child, line);
                skipSpace();
                ++m_at;  // the colon
                value(child);
            }
        }
        if (c == '"')
            string();
        else
            for (; !atEnd() && !std::strchr(",}] \t\r\n", m_text[m_at]); ++m_at) {}
    }

    const QByteArray &m_text;
    qsizetype m_at = 0;
    int m_line = 1;
    QHash<QString, int> m_lines;
};

QString fieldPath(const QString &path, const QString &field)
{
    return path.isEmpty() ? field : path + QLatin1Char('.') + field;
}

const QRegularExpression &secondsPattern()
{
    static const QRegularExpression pattern(QStringLiteral("\\{seconds:([^:{}]*):([^:{}]*)\\}"));
    return pattern;
}

// Reads a parsed story, stopping at the first thing wrong with it: one message, with the line
// and field, is what its author can act on.
class StoryReader
{
public:
    StoryReader(const QString &fileName, const QByteArray &text) : m_fileName(fileName), m_lines(text) {}

    std::optional<Story> read(const QJsonObject &root)
    {
        if (!onlyKnown(root, QString(), {"version", "title", "summary", "participants", "steps", "conclusion"}))
            return std::nullopt;
        const QJsonValue version = root.value(QLatin1String("version"));
        if (version.isUndefined())
            return fail(QStringLiteral("version"), tr("missing; this console reads stories of version %1").arg(Story::Version));
        if (version.toInt(-1) != Story::Version)
            return fail(QStringLiteral("version"), tr("%1 is not a version this console reads (it reads %2)")
                                                       .arg(version.isDouble() ? QString::number(version.toDouble()) : typeName(version))
                                                       .arg(Story::Version));
        m_story.title = text(root, QString(), QStringLiteral("title"));
        m_story.summary = text(root, QString(), QStringLiteral("summary"));
        readParticipants(root);
        readSteps(root);
        m_story.conclusion = text(root, QString(), QStringLiteral("conclusion"), Optional);
        checkConclusion();
        if (!m_error.isEmpty())
            return std::nullopt;
        return m_story;
    }

    QString error() const { return m_error; }

private:
    enum Presence { Required, Optional };

    std::nullopt_t fail(const QString &path, const QString &message)
    {
        if (m_error.isEmpty())
            m_error = QStringLiteral("%1:%2: %3: %4").arg(m_fileName).arg(m_lines.lineOf(path)).arg(path, message);
        return std::nullopt;
    }

    bool onlyKnown(const QJsonObject &object, const QString &path, const QStringList &fields)
    {
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (!fields.contains(it.key())) {
                fail(fieldPath(path, it.key()), tr("unknown field (known here: %1)").arg(quotedList(fields)));
                return false;
            }
        }
        return true;
    }

    QJsonValue value(const QJsonObject &object, const QString &path, const QString &field, QJsonValue::Type type,
                     Presence presence)
    {
        const QJsonValue found = object.value(field);
        if (found.isUndefined()) {
            if (presence == Required)
                fail(path.isEmpty() ? field : path, tr("missing \"%1\"").arg(field));
            return found;
        }
        if (found.type() != type) {
            fail(fieldPath(path, field), tr("%1 where %2 belongs").arg(typeName(found), typeName(QJsonValue(type))));
            return QJsonValue::Undefined;
        }
        return found;
    }

    QString text(const QJsonObject &object, const QString &path, const QString &field, Presence presence = Required)
    {
        const QString found = value(object, path, field, QJsonValue::String, presence).toString();
        if (found.trimmed().isEmpty() && presence == Required && object.value(field).isString())
            fail(fieldPath(path, field), tr("empty"));
        return found;
    }

    int number(const QJsonObject &object, const QString &path, const QString &field, int fallback, int minimum)
    {
        const QJsonValue found = value(object, path, field, QJsonValue::Double, Optional);
        if (found.isUndefined())
            return fallback;
        const double number = found.toDouble();
        if (number != std::floor(number) || number < minimum || number > std::numeric_limits<int>::max()) {
            fail(fieldPath(path, field), tr("%1 is not a whole number from %2").arg(number).arg(minimum));
            return fallback;
        }
        return int(number);
    }

    // The index of the earlier step called id.
    int earlierStep(const QString &path, const QString &id)
    {
        const auto found = m_stepIds.constFind(id);
        if (found == m_stepIds.cend()) {
            fail(path, tr("no earlier step has the id \"%1\"").arg(id));
            return -1;
        }
        return *found;
    }

    // Each object of root's array `field` (which must hold one at least, or it is `empty`) to
    // read(object, path, index) in order, until a mistake: something else than an object, or an
    // object with fields other than `fields`, is one.
    void readObjects(const QJsonObject &root, const QString &field, const QString &empty, const QStringList &fields,
                     const std::function<void(const QJsonObject &, const QString &, int)> &read)
    {
        const QJsonArray array = value(root, QString(), field, QJsonValue::Array, Required).toArray();
        if (array.isEmpty() && m_error.isEmpty())
            fail(field, empty);
        for (qsizetype i = 0; i < array.size() && m_error.isEmpty(); ++i) {
            const QString path = QStringLiteral("%1[%2]").arg(field).arg(i);
            if (!array[i].isObject()) {
                fail(path, tr("%1 where an object belongs").arg(typeName(array[i])));
                return;
            }
            const QJsonObject object = array[i].toObject();
            if (!onlyKnown(object, path, fields))
                return;
            read(object, path, int(i));
        }
    }

    void readParticipants(const QJsonObject &root)
    {
        readObjects(root, QStringLiteral("participants"), tr("a story needs at least one participant"),
                    {"name", "recipe", "path", "ttl", "options"}, [this](const QJsonObject &object, const QString &path, int) {
            Story::Participant participant;
            participant.name = text(object, path, QStringLiteral("name"));
            // The event log's other voices: a participant by one of their names would be taken
            // for them, and a step awaiting them would match it.
            static const QRegularExpression reserved(QStringLiteral("^(etcd|operator|scenario|m[0-9]+)$"));
            if (m_story.participant(participant.name))
                fail(fieldPath(path, QStringLiteral("name")), tr("\"%1\" takes part twice").arg(participant.name));
            else if (reserved.match(participant.name).hasMatch())
                fail(fieldPath(path, QStringLiteral("name")),
                     tr("\"%1\" is taken: the event log names etcd, the operator, the scenario and the members (m0, m1…) so")
                         .arg(participant.name));
            participant.recipe = text(object, path, QStringLiteral("recipe"));
            const RecipeType *type = recipeType(participant.recipe);
            if (!type && m_error.isEmpty()) {
                QStringList known;
                for (const RecipeType &each : recipeTypes())
                    known.append(each.name);
                fail(fieldPath(path, QStringLiteral("recipe")),
                     tr("unknown recipe \"%1\" (known: %2)").arg(participant.recipe, quotedList(known)));
            }
            participant.path = text(object, path, QStringLiteral("path"));
            if (m_error.isEmpty() && !participant.path.startsWith(Story::prefix()))
                fail(fieldPath(path, QStringLiteral("path")), tr("\"%1\" is not under %2, where a scenario's keys live and are watched")
                                                                  .arg(participant.path, Story::prefix()));
            participant.ttlSeconds = number(object, path, QStringLiteral("ttl"), participant.ttlSeconds, 1);
            const QJsonObject options = value(object, path, QStringLiteral("options"), QJsonValue::Object, Optional).toObject();
            for (auto option = options.begin(); option != options.end() && m_error.isEmpty() && type; ++option) {
                const QList<QMetaProperty> settable = settableProperties(type->metaObject);
                const auto property = std::find_if(settable.cbegin(), settable.cend(), [&option](const QMetaProperty &p) {
                    return option.key() == QLatin1String(p.name());
                });
                const QString optionPath = fieldPath(fieldPath(path, QStringLiteral("options")), option.key());
                if (property == settable.cend()) {
                    QStringList known;
                    for (const QMetaProperty &each : settable)
                        known.append(QString::fromLatin1(each.name()));
                    fail(optionPath, tr("%1 has no setting \"%2\" (it has: %3)").arg(type->name, option.key(), quotedList(known)));
                } else if (!option.value().toVariant().canConvert(property->metaType())) {
                    fail(optionPath, tr("%1 where %2 belongs").arg(typeName(option.value()), QString::fromLatin1(property->typeName())));
                } else {
                    participant.options.insert(option.key(), option.value().toVariant());
                }
            }
            m_story.participants.append(participant);
        });
    }

    void readSteps(const QJsonObject &root)
    {
        readObjects(root, QStringLiteral("steps"), tr("a story needs at least one step"), {"id", "narration", "action", "await"},
                    [this](const QJsonObject &object, const QString &path, int index) {
            Story::Step step;
            step.id = text(object, path, QStringLiteral("id"), Optional);
            if (m_stepIds.contains(step.id))
                fail(fieldPath(path, QStringLiteral("id")), tr("step %1 has the id \"%2\" already").arg(m_stepIds.value(step.id)).arg(step.id));
            step.narration = text(object, path, QStringLiteral("narration"));
            const QJsonValue action = value(object, path, QStringLiteral("action"), QJsonValue::Object, Optional);
            if (action.isObject())
                step.action = readAction(action.toObject(), fieldPath(path, QStringLiteral("action")));
            const QJsonValue await = value(object, path, QStringLiteral("await"), QJsonValue::Object, Required);
            step.await = readAwait(await.toObject(), fieldPath(path, QStringLiteral("await")));
            if (!step.id.isEmpty())
                m_stepIds.insert(step.id, index);
            m_story.steps.push_back(step);
        });
    }

    // The participant an action acts through: one the story lists.
    QString actor(const QJsonObject &object, const QString &path)
    {
        const QString name = text(object, path, QStringLiteral("participant"));
        if (m_error.isEmpty() && !m_story.participant(name)) {
            QStringList names;
            for (const Story::Participant &participant : std::as_const(m_story.participants))
                names.append(participant.name);
            fail(fieldPath(path, QStringLiteral("participant")),
                 tr("no participant \"%1\" (the story's are: %2)").arg(name, quotedList(names)));
        }
        return name;
    }

    // An action's key: given as it is, or as the key of the event an earlier step matched.
    void readKey(const QJsonObject &object, const QString &path, QString *key, int *keyOf)
    {
        *key = text(object, path, QStringLiteral("key"), Optional);
        const QString of = text(object, path, QStringLiteral("keyOf"), Optional);
        if (!of.isEmpty())
            *keyOf = earlierStep(fieldPath(path, QStringLiteral("keyOf")), of);
        if (key->isEmpty() == of.isEmpty() && m_error.isEmpty())
            fail(path, tr("give either \"key\" or \"keyOf\" (the id of the step whose event's key it is)"));
    }

    std::optional<Story::Action> readAction(const QJsonObject &object, const QString &path)
    {
        using Kind = Story::Action::Kind;
        static const QStringList faults{QStringLiteral("blackhole"), QStringLiteral("delay"), QStringLiteral("reset"),
                                        QStringLiteral("pass")};
        static const QStringList memberActions{QStringLiteral("stop"), QStringLiteral("kill"), QStringLiteral("pause"),
                                               QStringLiteral("resume"), QStringLiteral("restart")};
        static const QStringList interventions{QStringLiteral("breakHold"), QStringLiteral("removeEntry"),
                                               QStringLiteral("liftBarrier"), QStringLiteral("forceReelection"),
                                               QStringLiteral("releaseRound")};
        const QStringList known = QStringList{QStringLiteral("call")} + faults + memberActions
                                + QStringList{QStringLiteral("put"), QStringLiteral("read"), QStringLiteral("intervene")};
        Story::Action action;
        const QString what = text(object, path, QStringLiteral("do"));
        if (!m_error.isEmpty())
            return std::nullopt;
        if (!known.contains(what))
            return fail(fieldPath(path, QStringLiteral("do")), tr("unknown action \"%1\" (known: %2)").arg(what, quotedList(known)));
        if (what == QLatin1String("call")) {
            if (!onlyKnown(object, path, {"do", "participant", "method", "arguments"}))
                return std::nullopt;
            action.kind = Kind::Call;
            action.participant = actor(object, path);
            action.method = text(object, path, QStringLiteral("method"));
            action.arguments = value(object, path, QStringLiteral("arguments"), QJsonValue::Array, Optional).toArray().toVariantList();
            checkCall(action, path);
        } else if (faults.contains(what)) {
            if (!onlyKnown(object, path, what == QLatin1String("delay") ? QStringList{"do", "participant", "ms"} : QStringList{"do", "participant"}))
                return std::nullopt;
            action.kind = Kind::Fault;
            action.fault = what;
            action.participant = actor(object, path);
            if (what == QLatin1String("delay")) {
                if (!object.contains(QLatin1String("ms")))
                    return fail(path, tr("missing \"ms\", how long the link holds each packet"));
                action.delayMs = number(object, path, QStringLiteral("ms"), 0, 0);
            }
        } else if (memberActions.contains(what)) {
            if (!onlyKnown(object, path, {"do", "member"}))
                return std::nullopt;
            action.kind = Kind::Member;
            action.memberAction = what;
            action.member = text(object, path, QStringLiteral("member"));
            static const QRegularExpression memberName(QStringLiteral("^(leader|m[0-9]+)$"));
            if (m_error.isEmpty() && !memberName.match(action.member).hasMatch())
                return fail(fieldPath(path, QStringLiteral("member")),
                            tr("\"%1\" is no member: name one (m0, m1, m2) or say \"leader\"").arg(action.member));
        } else if (what == QLatin1String("put") || what == QLatin1String("read")) {
            const bool put = what == QLatin1String("put");
            if (!onlyKnown(object, path, put ? QStringList{"do", "key", "keyOf", "value"} : QStringList{"do", "key", "keyOf"}))
                return std::nullopt;
            action.kind = put ? Kind::Put : Kind::Read;
            readKey(object, path, &action.key, &action.keyOf);
            if (put)
                action.value = value(object, path, QStringLiteral("value"), QJsonValue::String, Required).toString();
        } else {
            if (!onlyKnown(object, path, {"do", "intervention", "path"}))
                return std::nullopt;
            action.kind = Kind::Intervene;
            action.intervention = text(object, path, QStringLiteral("intervention"));
            if (m_error.isEmpty() && !interventions.contains(action.intervention))
                return fail(fieldPath(path, QStringLiteral("intervention")),
                            tr("unknown intervention \"%1\" (known: %2)").arg(action.intervention, quotedList(interventions)));
            action.path = text(object, path, QStringLiteral("path"));
        }
        if (!m_error.isEmpty())
            return std::nullopt;
        return action;
    }

    // The method exists on the participant's recipe, with as many arguments as given, each
    // one it can take.
    void checkCall(const Story::Action &action, const QString &path)
    {
        if (!m_error.isEmpty())
            return;
        const RecipeType *type = recipeType(m_story.participant(action.participant)->recipe);
        QStringList names;
        for (const QMetaMethod &method : callableMethods(type->metaObject)) {
            const QString name = QString::fromLatin1(method.name());
            if (!names.contains(name))
                names.append(name);
            if (name != action.method || method.parameterCount() != action.arguments.size())
                continue;
            for (int i = 0; i < method.parameterCount(); ++i) {
                if (!action.arguments[i].canConvert(method.parameterMetaType(i))) {
                    fail(QStringLiteral("%1.arguments[%2]").arg(path).arg(i),
                         tr("%1 takes %2 here").arg(action.method, QString::fromLatin1(method.parameterMetaType(i).name())));
                    return;
                }
            }
            return;
        }
        if (names.contains(action.method))
            fail(fieldPath(path, QStringLiteral("arguments")),
                 QCoreApplication::translate("Story", "%1 of %2 does not take %n argument(s)", nullptr, int(action.arguments.size()))
                     .arg(action.method, type->name));
        else
            fail(fieldPath(path, QStringLiteral("method")),
                 tr("%1 has no method \"%2\" (it has: %3)").arg(type->name, action.method, quotedList(names)));
    }

    Story::Await readAwait(const QJsonObject &object, const QString &path)
    {
        Story::Await await;
        if (!m_error.isEmpty()
            || !onlyKnown(object, path, {"participant", "kind", "detail", "spurious", "key", "keyOf", "within", "after",
                                         "quiet", "forbidden", "says"}))
            return await;
        await.participant = text(object, path, QStringLiteral("participant"), Optional);
        await.says = text(object, path, QStringLiteral("says"));
        const QString after = text(object, path, QStringLiteral("after"), Optional);
        if (!after.isEmpty())
            await.after = earlierStep(fieldPath(path, QStringLiteral("after")), after);
        await.quiet = object.contains(QLatin1String("quiet"));
        if (await.quiet) {
            for (const char *eventOnly : {"kind", "detail", "spurious", "key", "keyOf", "within"}) {
                if (object.contains(QLatin1String(eventOnly)) && m_error.isEmpty())
                    fail(fieldPath(path, QLatin1String(eventOnly)), tr("a quiet step awaits no event: it has no \"%1\"").arg(QLatin1String(eventOnly)));
            }
            await.within = std::chrono::milliseconds(number(object, path, QStringLiteral("quiet"), 0, 1));
            for (const QJsonValue kind : value(object, path, QStringLiteral("forbidden"), QJsonValue::Array, Optional).toArray()) {
                if (!kind.isString())
                    fail(fieldPath(path, QStringLiteral("forbidden")), tr("kinds of event are strings"));
                await.forbidden.append(kind.toString());
            }
            return await;
        }
        if (object.contains(QLatin1String("forbidden")))
            fail(fieldPath(path, QStringLiteral("forbidden")), tr("only a quiet step forbids kinds of event: add \"quiet\""));
        if (!object.contains(QLatin1String("kind")) && m_error.isEmpty())
            fail(path, tr("missing \"kind\", the kind of event awaited (or \"quiet\", a time in which nothing forbidden happens)"));
        await.kind = text(object, path, QStringLiteral("kind"));
        await.detail = text(object, path, QStringLiteral("detail"), Optional);
        const QJsonValue spurious = value(object, path, QStringLiteral("spurious"), QJsonValue::Bool, Optional);
        if (spurious.isBool())
            await.spurious = spurious.toBool();
        await.key = text(object, path, QStringLiteral("key"), Optional);
        const QString keyOf = text(object, path, QStringLiteral("keyOf"), Optional);
        if (!keyOf.isEmpty())
            await.keyOf = earlierStep(fieldPath(path, QStringLiteral("keyOf")), keyOf);
        if (!keyOf.isEmpty() && !await.key.isEmpty())
            fail(fieldPath(path, QStringLiteral("keyOf")), tr("give \"key\" or \"keyOf\", not both"));
        await.within = std::chrono::milliseconds(number(object, path, QStringLiteral("within"), int(await.within.count()), 1));
        return await;
    }

    void checkConclusion()
    {
        for (auto match = secondsPattern().globalMatch(m_story.conclusion); match.hasNext() && m_error.isEmpty();) {
            const QRegularExpressionMatch interval = match.next();
            for (int end = 1; end <= 2; ++end) {
                if (!m_stepIds.contains(interval.captured(end)))
                    fail(QStringLiteral("conclusion"), tr("%1: no step has the id \"%2\"").arg(interval.captured(0), interval.captured(end)));
            }
        }
    }

    QString m_fileName;
    FieldLines m_lines;
    QString m_error;
    QHash<QString, int> m_stepIds;
    Story m_story;
};
} // namespace

QStringList Story::builtInNames()
{
    // Resources beside the engine (stories/*.json): the console's menu lists them in this order.
    return {QStringLiteral("lock-partition"), QStringLiteral("spurious-barrier"), QStringLiteral("registration-heal"),
            QStringLiteral("leader-death"), QStringLiteral("operator-unsticks-a-deploy"), QStringLiteral("consumer-partition")};
}

QString Story::fileOf(const QString &name)
{
    if (builtInNames().contains(name))
        return QStringLiteral(":/qetcd/stories/%1.json").arg(name);
    const QUrl url(name);
    return url.isLocalFile() ? url.toLocalFile() : name;
}

std::optional<Story> Story::read(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = tr("%1: cannot read it: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    return parse(file.readAll(), path, error);
}

std::optional<Story> Story::parse(const QByteArray &text, const QString &fileName, QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(text, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        const int line = int(text.left(parseError.offset).count('\n')) + 1;
        *error = tr("%1:%2: not JSON: %3").arg(fileName).arg(line).arg(parseError.errorString());
        return std::nullopt;
    }
    if (!document.isObject()) {
        *error = tr("%1:1: a story is a JSON object, with \"version\": %2, a title, participants and steps")
                     .arg(fileName)
                     .arg(Version);
        return std::nullopt;
    }
    StoryReader reader(fileName, text);
    std::optional<Story> story = reader.read(document.object());
    if (!story)
        *error = reader.error();
    return story;
}

std::unique_ptr<RecipeParticipant> Story::makeRecipe(const Participant &p)
{
    const RecipeType *type = recipeType(p.recipe);
    return type ? type->make() : nullptr;
}

QMetaMethod Story::methodOf(const QObject *recipe, const Action &call)
{
    for (const QMetaMethod &method : callableMethods(recipe->metaObject())) {
        if (QLatin1String(method.name()) == call.method && method.parameterCount() == call.arguments.size())
            return method;
    }
    return QMetaMethod();
}

const Story::Participant *Story::participant(const QString &name) const
{
    const auto found = std::find_if(participants.cbegin(), participants.cend(),
                                    [&name](const Participant &participant) { return participant.name == name; });
    return found == participants.cend() ? nullptr : &*found;
}

QString Story::concludedWith(const std::function<qint64(int)> &timeOf) const
{
    QHash<QString, int> ids;
    for (int i = 0; i < int(steps.size()); ++i)
        ids.insert(steps[i].id, i);
    QString text = conclusion;
    // From the end, so that each replacement leaves the earlier matches where they were.
    QList<QRegularExpressionMatch> intervals;
    for (auto match = secondsPattern().globalMatch(conclusion); match.hasNext();)
        intervals.prepend(match.next());
    for (const QRegularExpressionMatch &interval : std::as_const(intervals)) {
        const qint64 ms = timeOf(ids.value(interval.captured(2))) - timeOf(ids.value(interval.captured(1)));
        text.replace(interval.capturedStart(), interval.capturedLength(), QString::number(double(ms) / 1000.0, 'f', 2));
    }
    return text;
}

QStringList Story::exportFiles(const QString &path) const
{
    const QFileInfo page(path);
    QStringList files{page.filePath()};
    for (size_t step = 1; step <= steps.size(); ++step)
        files << page.dir().filePath(QStringLiteral("%1-step-%2.png").arg(page.completeBaseName()).arg(step));
    return files;
}

QStringList Story::existingExportFiles(const QString &path) const
{
    QStringList existing;
    for (const QString &file : exportFiles(path)) {
        if (QFileInfo::exists(file))
            existing << file;
    }
    return existing;
}

QStringList Story::staleExportFiles(const QString &path) const
{
    const QFileInfo page(path);
    const QRegularExpression picture(QStringLiteral("^%1-step-([1-9][0-9]*)\\.png$")
                                         .arg(QRegularExpression::escape(page.completeBaseName())));
    std::map<qulonglong, QString> stale;
    const QStringList candidates = page.dir().entryList(QDir::Files);
    for (const QString &name : candidates) {
        const QRegularExpressionMatch match = picture.match(name);
        bool number = false;
        const qulonglong step = match.captured(1).toULongLong(&number);
        if (match.hasMatch() && number && step > steps.size())
            stale.emplace(step, page.dir().filePath(name));
    }
    QStringList files;
    for (const auto &[step, file] : stale)
        files.append(file);
    return files;
}
