// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QList>
#include <QtCore/QMetaMethod>
#include <QtCore/QString>
#include <QtCore/QStringList>
#include <QtCore/QVariant>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace QEtcd {
class RecipeParticipant;
}

// A scenario as its story file tells it (docs/scenarios.md): who takes part, what each step
// does and which event proves it happened. read() checks the whole file before anything runs,
// and names the line and the field of the first thing wrong with it.
struct Story
{
    // The one version of the format this console reads.
    static constexpr int Version = 1;
    // Every story's keys live under this prefix, which a scenario watches as etcd sees it.
    static QString prefix() { return QStringLiteral("/demo/"); }

    struct Participant
    {
        QString name;
        QString recipe;  // a QML type of the QEtcd module: "Mutex", "WorkQueue"…
        QString path;
        int ttlSeconds = 3;
        QVariantMap options;  // the recipe's own properties, by name
    };

    struct Action
    {
        enum class Kind {
            Call,       // participant's method(arguments)
            Fault,      // participant's link: fault ("blackhole", "delay", "reset", "pass")
            Member,     // the sandbox's member: memberAction ("stop", "kill", ...)
            Put,        // an operator's put of value at key (or the key step keyOf matched)
            Read,       // etcd's value at key (or keyOf's), logged as etcd's keyRead
            Intervene,  // an operator's intervention on the object at path, as the console does it
        };
        Kind kind = Kind::Call;
        QString participant;
        QString method;
        QVariantList arguments;
        QString fault;
        int delayMs = 0;
        QString member;  // "leader" or a member's name ("m1")
        QString memberAction;
        QString key;
        int keyOf = -1;
        QString value;
        QString intervention;
        QString path;
    };

    // What a step waits for: the next event (after the event of step `after`) from participant
    // of this kind; detail, spurious and key must match when given. A quiet step instead waits
    // `within` and fails if any of the forbidden kinds from participant happens meanwhile.
    struct Await
    {
        QString participant;  // empty: anyone
        QString kind;
        QString detail;
        std::optional<bool> spurious;
        QString key;
        int keyOf = -1;  // the key of the event that step matched
        std::chrono::milliseconds within{20000};
        bool quiet = false;
        QStringList forbidden;
        QString says;  // what is awaited, for people ("A is told it lost the lock")
        // The step whose event this one's must follow in the log; -1: the step before. Events
        // two observers see at once (etcd deleting a key, the next holder acquiring) may reach
        // the log in either order, so both follow the cause instead.
        int after = -1;
    };

    struct Step
    {
        QString id;
        QString narration;
        std::optional<Action> action;
        Await await;
    };

    QString title;
    QString summary;
    QList<Participant> participants;
    std::vector<Step> steps;
    QString conclusion;

    // The built-in stories' names, in the order a menu lists them.
    static QStringList builtInNames();
    // Where the story called name is: a built-in's Qt resource, else the file (a path or a
    // file: URL) name names.
    static QString fileOf(const QString &name);
    // The story in the file at path (a path or a Qt resource), or nullopt with error set to
    // "FILE:LINE: FIELD: what is wrong".
    static std::optional<Story> read(const QString &path, QString *error);
    // The same for text read from fileName.
    static std::optional<Story> parse(const QByteArray &text, const QString &fileName, QString *error);

    // The participant p's recipe, made afresh, not yet configured.
    static std::unique_ptr<QEtcd::RecipeParticipant> makeRecipe(const Participant &p);
    // The method of recipe that call names, with as many parameters as it gives arguments
    // (read() has checked there is one); invalid for another recipe.
    static QMetaMethod methodOf(const QObject *recipe, const Action &call);
    const Participant *participant(const QString &name) const;
    // The files an export of a run of this story to path writes (StoryExport): path, then each
    // step's picture beside it, NAME-step-N.png.
    QStringList exportFiles(const QString &path) const;
    // Those of exportFiles(path) that are there already, which an export would overwrite.
    QStringList existingExportFiles(const QString &path) const;
    // The pictures an earlier export to path left that this story has no step for, which an
    // export removes: NAME-step-N.png exactly, N beyond its steps, in the order of N.
    QStringList staleExportFiles(const QString &path) const;
    // The conclusion with each {seconds:FROM:TO} replaced by the seconds between the events of
    // steps FROM and TO, as timeOf (monotonic ms by step index) gives them.
    QString concludedWith(const std::function<qint64(int)> &timeOf) const;
};
