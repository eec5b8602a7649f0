// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QByteArray>
#include <QtCore/QList>
#include <QtCore/QString>

namespace QEtcd {

/// A layout an operator declares for a tool the recogniser does not know: which keys make up
/// an object, which kind of object it is, who its entries are and in which order they queue.
///
/// An object's path is either the prefix and one more path segment (prefix `/billing/locks/`:
/// `/billing/locks/nightly`) or a path the glob matches (`/apps/*/leader`; `*` and `?` stay
/// within a segment, `**/` is any number of whole segments, a final `/**` everything below).
/// Its entries are the key at that path and the keys one segment below it; with leased or
/// valueBytes, only those keys that have a lease or a value of that size.
struct QETCD_EXPORT DeclaredLayout
{
    /// What the object is.
    enum class Kind {
        Lock,       ///< The first entry holds, the others wait.
        Election,   ///< The first entry leads (its value is the proclamation), the others follow.
        Semaphore,  ///< The first `permits` entries hold, the others wait.
        Barrier,    ///< Set while any entry exists; the first is its owner.
        Service,    ///< Every entry is an instance.
        Queue,      ///< Every entry is an item waiting.
        LeaderKey,  ///< One key whose holder leads: an election without candidates.
    };
    /// Where an entry says who it is.
    enum class Identity {
        Lease,      ///< Its lease: the entry is known by its lease ID.
        Value,      ///< Its value, as text.
        JsonField,  ///< A field of its JSON value (DeclaredLayout::field).
    };
    /// The order entries queue in: who holds first, who waits next.
    enum class Order {
        CreateRevision,  ///< The order they were created in, as etcd's recipes queue.
        ModRevision,     ///< The order they last changed in.
        Key,             ///< Their keys' byte order.
    };

    QString name;       ///< The rule's name: CoordinationObject::rule of what it recognises.
    QByteArray prefix;  ///< Objects under this prefix; empty when glob is given.
    QString glob;       ///< Objects at the paths it matches; empty when prefix is given.
    Kind kind = Kind::Lock;                ///< What the object is.
    Identity identity = Identity::Lease;   ///< Where an entry says who it is.
    QString field;                         ///< Identity::JsonField: the field naming the entry.
    Order order = Order::CreateRevision;   ///< The order entries queue in.
    int permits = -1;   ///< Semaphores: how many hold at once; -1 when every entry holds.
    bool leased = false;  ///< Only keys on a lease belong: one without is something else.
    int valueBytes = -1;  ///< Only keys whose value has exactly this many bytes belong; -1: any.

    /// Every field is the same.
    bool operator==(const DeclaredLayout &other) const;
    /// Some field differs.
    bool operator!=(const DeclaredLayout &other) const { return !(*this == other); }
};

/// The layouts an operator declares in a JSON file, which the recogniser tries before its
/// built-in ones (CoordinationRecogniser::setDeclaredLayouts()):
///
///     {"layouts": [
///       {"name": "billing locks", "prefix": "/billing/locks/", "kind": "lock"},
///       {"name": "app leaders", "glob": "/apps/*/leader", "kind": "leader-key",
///        "identity": "json", "field": "host"}
///     ]}
///
/// A rule has "name", either "prefix" or "glob", "kind" (lock, election, semaphore, barrier,
/// service, queue, leader-key), and optionally "identity" (lease, value, json; lease by
/// default), "field" (with json), "order" (create-revision, mod-revision, key;
/// create-revision by default), "permits" (semaphores), "leased" (true: only keys on a lease)
/// and "value-bytes" (only values of that many bytes).
class QETCD_EXPORT CoordinationLayouts
{
public:
    /// The recogniser's own layouts that this form can say, in the order it tries them (after
    /// its stricter built-in ones, and after every declared one): an operator's rule reads like
    /// these. Today python3-etcd3's lock; the others need more than a rule says (docs/console.md).
    static QList<DeclaredLayout> builtIn();
    /// `layouts.json` in qetcd's folder of the user's configuration
    /// (`~/.config/qetcd/layouts.json`).
    static QString defaultPath();
    /// Reads and checks the file at \a path into \a layouts: Ok, or InvalidArgument saying
    /// what is wrong, naming the file, the rule (its number, from 1, and its line) and the field.
    static Status load(const QString &path, QList<DeclaredLayout> *layouts);
    /// load() on \a json, a file's contents; \a source names it in errors.
    static Status parse(const QByteArray &json, const QString &source, QList<DeclaredLayout> *layouts);
    /// What `--layouts FILE` does in the CLI and the console: declares the layouts in \a path
    /// (CoordinationRecogniser::setDeclaredLayouts()), or those in defaultPath() when \a path
    /// is empty and that file exists. Ok, or load()'s error with nothing declared: a file that is
    /// there but wrong is said, not passed over.
    static Status declare(const QString &path);
};

} // namespace QEtcd
