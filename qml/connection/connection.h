// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "sshtunnel.h"

#include <QEtcd/client.h>

#include <QtCore/QHash>
#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QTimer>
#include <QtCore/QVariantMap>
#include <QtQml/qqmlregistration.h>

#include <memory>

// The console's connection: the client every page reads through, built from the command line
// or from a saved profile. Profiles (name, endpoints, CA / certificate / key files, user,
// namespace, read-only) live in QSettings; passwords only in the system keychain, or, where
// there is none, in memory for as long as the connection lasts. Whatever goes wrong while
// connecting is said in `problem`: what happened, at which endpoint, and what to do; a cluster
// that does not answer, or is too busy to, is asked again every few seconds until it does.
//
// A profile is a map: name, endpoints (list), caFile, certFile, keyFile, user, namespace,
// readOnly, maxRecvBytes (the largest answer accepted; absent: the client's default), and for
// an SSH tunnel sshHost, sshUser, sshPort and sshJump (SshTunnel: the client then connects to the
// tunnel's local ends, checking TLS certificates against the real host's name). The command line's connection is the same map without a name, with the password
// it was given (never written anywhere), its dialTimeoutMs and commandTimeoutMs, and what the
// command line decided about writes: readOnly (--read-only, which then holds for every
// connection of the window), writable (--writable) and profile (--profile, the connection that
// --writable is for). Nothing connects until open() or openCommandLine().
//
// Whether a connection may write is decided in one place, writesAllowed(): --read-only never
// lets anything write; otherwise the operator's own choice for these endpoints (--writable, or
// the header's switch) wins; otherwise a connection writes only when every endpoint is on this
// machine, not through an SSH tunnel, and its profile is not read-only. A production cluster is never written to by accident.
class Connection : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QVariantMap commandLine READ commandLine WRITE setCommandLine NOTIFY commandLineChanged)
    Q_PROPERTY(QEtcd::Client *client READ client NOTIFY clientChanged)
    Q_PROPERTY(QString profileName READ profileName NOTIFY clientChanged)
    Q_PROPERTY(QStringList endpoints READ endpoints NOTIFY clientChanged)
    Q_PROPERTY(bool readOnly READ isReadOnly NOTIFY clientChanged)
    // --read-only: no connection of this window may write, whatever else asks for it.
    Q_PROPERTY(bool readOnlyLocked READ isReadOnlyLocked NOTIFY commandLineChanged)
    // Whether the client is the one openSandbox() made.
    Q_PROPERTY(bool sandbox READ isSandbox NOTIFY clientChanged)
    Q_PROPERTY(QString user READ user NOTIFY clientChanged)
    Q_PROPERTY(QStringList profileNames READ profileNames NOTIFY profilesChanged)
    // Empty while the connection answers; otherwise one paragraph for the operator.
    Q_PROPERTY(QString problem READ problem NOTIFY problemChanged)
    // What fixes the problem: "endpoint", "tls", "password" or "" (nothing the console can offer).
    Q_PROPERTY(QString problemKind READ problemKind NOTIFY problemChanged)
    Q_PROPERTY(bool checking READ isChecking NOTIFY problemChanged)
    // Whether the last look into the keychain found a keychain service to ask.
    Q_PROPERTY(bool keychainAvailable READ isKeychainAvailable NOTIFY keychainAvailableChanged)
    // The profile's SSH tunnel: "" (none), "opening", "open" or "failed"; and where it goes
    // through ("admin@bastion via jump"), empty without one.
    Q_PROPERTY(QString tunnelState READ tunnelState NOTIFY tunnelChanged)
    Q_PROPERTY(QString tunnelThrough READ tunnelThrough NOTIFY tunnelChanged)

public:
    explicit Connection(QObject *parent = nullptr);
    ~Connection() override;

    QVariantMap commandLine() const { return m_commandLine; }
    void setCommandLine(const QVariantMap &options);
    QEtcd::Client *client() const { return m_client.get(); }
    QString profileName() const { return m_profileName; }
    QStringList endpoints() const;
    bool isReadOnly() const;
    bool isReadOnlyLocked() const;
    bool isSandbox() const;
    QString user() const;
    QStringList profileNames() const;
    QString problem() const { return m_problem; }
    QString problemKind() const { return m_problemKind; }
    bool isChecking() const { return m_checking; }
    bool isKeychainAvailable() const { return m_keychainAvailable; }
    QString tunnelState() const;
    QString tunnelThrough() const;

    // The saved profile, or an empty map.
    Q_INVOKABLE QVariantMap profile(const QString &name) const;
    // Saves (or replaces) a profile; empty on success, else what is wrong with it.
    Q_INVOKABLE QString saveProfile(const QVariantMap &profile);
    Q_INVOKABLE void removeProfile(const QString &name);
    // Whether every endpoint is on this machine (localhost, a loopback address, an address of
    // one of its interfaces, or its own host name): a connection to anything else opens read-only.
    Q_INVOKABLE static bool isOnThisMachine(const QStringList &endpoints);

    // The profiles of the console's other windows, kept for its next start.
    Q_INVOKABLE QStringList rememberedWindows() const;
    Q_INVOKABLE void rememberWindows(const QStringList &profiles);

    // Connects with the profile. With a user, its password comes from the keychain; where the
    // keychain has none (or there is no keychain), passwordNeeded() asks for it.
    Q_INVOKABLE void open(const QString &name);
    // Connects with the profile and this password; `remember` keeps it in the keychain. An
    // empty name is the command line's connection (--user without a password): the password
    // is then kept in memory only.
    Q_INVOKABLE void openWithPassword(const QString &name, const QString &password, bool remember);
    // Back to the connection the command line asked for. With a user and no password,
    // passwordNeeded() asks for it (with an empty name).
    Q_INVOKABLE void openCommandLine();
    // The operator's choice for the current endpoints, for as long as the window is open: true
    // lets the connection write (the header asks for confirmation first), false makes it
    // read-only. Reconnects when that changes what the client may do; nothing under --read-only.
    Q_INVOKABLE void allowWrites(bool allowed);
    // Connects to a local sandbox's members, read-write (they are throw-away and on this
    // machine), remembering the connection it replaces. Not a profile: profileName is empty.
    Q_INVOKABLE void openSandbox(const QStringList &endpoints);
    // Back to the connection openSandbox() replaced (the command line's if there was none),
    // unless the operator has chosen another since.
    Q_INVOKABLE void closeSandbox();
    // Asks the cluster again (after the operator fixed something outside the console).
    Q_INVOKABLE void check();

    // A failed call's status as an operator reads it: etcd's words, then what to do.
    Q_INVOKABLE QString advice(const QEtcd::Status &status) const;
    // How the console's participants reach the cluster as this connection does, each with a
    // client of its own: the profile map of the current client, password included. Empty
    // before anything was opened.
    Q_INVOKABLE QVariantMap participantOptions() const;
    // Client options as a profile map (with the password and dialTimeoutMs, which profiles
    // themselves never keep): how the command line's connection reaches the window.
    static QVariantMap profileOf(const QEtcd::ClientOptions &options);

Q_SIGNALS:
    void commandLineChanged();
    void clientChanged();
    void profilesChanged();
    void problemChanged();
    void keychainAvailableChanged();
    void tunnelChanged();
    // The profile needs a password the console does not have; reason says why it asks, and
    // canRemember whether a keychain could keep it.
    void passwordNeeded(const QString &name, const QString &user, const QString &reason, bool canRemember);
    // A password could not be kept in the keychain (the connection still uses it).
    void keychainFailed(const QString &reason);

private:
    void connectWith(const QString &name, const QVariantMap &profile, const QString &password);
    // connectWith()'s second half, once a tunnel (if any) is open: the client itself, connecting
    // to tunnelEnds instead of the profile's endpoints when there are any.
    void makeClient(const QString &name, const QVariantMap &profile, const QString &password,
                    const QStringList &tunnelEnds = {});
    // The client the pages read through (none while a tunnel opens), announced to them.
    void replaceClient(const QString &name, const QVariantMap &profile, std::unique_ptr<QEtcd::Client> next);
    // Starts ssh for the pending connection; after a failure (Try again, the retry timer) the
    // pages, already without a client, are left alone.
    void openTunnel(const SshTunnel::Through &through, const QList<QEtcd::Endpoint> &endpoints);
    void tunnelOpened();
    void tunnelFailed(const QString &why);
    // The one rule for writes (see the class comment), for a profile map about to be connected.
    bool writesAllowed(const QVariantMap &profile) const;
    void setProblem(const QString &problem, const QString &kind);
    // check() without showing that it runs: the automatic retry behind "the console keeps trying".
    void probe();

    QVariantMap m_commandLine;
    QVariantMap m_current;  // the profile map the client was built from (no password)
    QString m_profileName;
    QString m_profileBeforeSandbox;  // empty: the command line's connection
    // Per endpoint list (sorted, joined): the operator allowed writes (true) or forbade them.
    QHash<QString, bool> m_writeChoices;
    QString m_commandLinePassword;  // asked for in the window, never written anywhere
    std::unique_ptr<QEtcd::Client> m_client;
    QString m_problem;
    QString m_problemKind;
    bool m_checking = false;
    QTimer m_retry;  // while etcd cannot be reached or is too busy
    bool m_keychainAvailable = true;  // until a look into it says otherwise
    quint64 m_generation = 0;  // of m_client: answers about an older one are dropped
    SshTunnel m_tunnel;
    // What connectWith() was asked for while its tunnel opens.
    struct Pending
    {
        QString name;
        QVariantMap profile;
        QString password;
    } m_pending;
};
