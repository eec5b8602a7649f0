// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qetcdquickexport.h"

#include <QEtcd/status.h>

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QVariantList>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

class Client;
class EventLogModel;

/// `AccessControl` in QML: a cluster's users, roles and permissions as the Access page shows
/// them, and an operator's changes to them, one at a time, each written to the event log as the
/// participant "operator" when it ends (never a password).
///
/// refresh() reads everything again; every change refreshes when it ends. A user who may not
/// read auth data (it takes the root role once auth is on) gets status Error and an errorString
/// that says so, not an empty list. Calls return at once; finished() follows once per call,
/// never from inside it. A read-only client refuses the writes before anything is sent. Where
/// the console asks first is the view's business: this type only carries out.
class QETCD_QUICK_EXPORT AccessControl : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    // The property's type, complete where moc needs it.
    Q_MOC_INCLUDE("eventlogmodel.h")
    /// The client to act through.
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    /// Where each outcome is logged; none: not logged.
    Q_PROPERTY(QEtcd::EventLogModel *eventLog READ eventLog WRITE setEventLog NOTIFY eventLogChanged)
    /// ModelStatus: Null (no client), Loading, Ready or Error.
    Q_PROPERTY(int status READ status NOTIFY statusChanged)
    /// Why the users and roles could not be read; empty unless status is Error.
    Q_PROPERTY(QString errorString READ errorString NOTIFY statusChanged)
    /// The users, by name: maps of name and roles (a list of names).
    Q_PROPERTY(QVariantList users READ users NOTIFY contentChanged)
    /// The roles, by name: maps of name and permissions, each a map of type ("read", "write",
    /// "readwrite"), keys (the range it means, as text), key, rangeEnd and kind ("key",
    /// "prefix", "fromKey", "range").
    Q_PROPERTY(QVariantList roles READ roles NOTIFY contentChanged)
    /// Authentication is on.
    Q_PROPERTY(bool authEnabled READ authEnabled NOTIFY contentChanged)
    /// User root exists and has role root: what enableAuth() needs.
    Q_PROPERTY(bool rootReady READ rootReady NOTIFY contentChanged)
    /// What runs now, in words; empty when nothing does.
    Q_PROPERTY(QString running READ running NOTIFY runningChanged)

public:
    /// No client yet.
    explicit AccessControl(QObject *parent = nullptr);
    ~AccessControl() override;
    Q_DISABLE_COPY_MOVE(AccessControl)

    /// The client.
    Client *client() const;
    /// Sets the client and reads its cluster's users and roles.
    void setClient(Client *client);
    /// The event log.
    EventLogModel *eventLog() const;
    /// Sets the event log.
    void setEventLog(EventLogModel *log);
    /// A ModelStatus::Status.
    int status() const { return m_status; }
    /// Why the read failed.
    QString errorString() const { return m_errorString; }
    /// The users.
    QVariantList users() const { return m_users; }
    /// The roles.
    QVariantList roles() const { return m_roles; }
    /// Authentication is on.
    bool authEnabled() const { return m_authEnabled; }
    /// User root has role root.
    bool rootReady() const;
    /// What runs now.
    QString running() const { return m_running; }

    /// Reads the users, roles and whether auth is on again.
    Q_INVOKABLE void refresh();
    /// The keys \a key covers as \a kind ("key", "prefix", "fromKey", "range" up to \a rangeEnd)
    /// says, as the range they mean ("[/app/, /app0) (prefix /app/)"); empty for a bad choice.
    Q_INVOKABLE QString describeKeys(const QString &key, const QString &kind, const QString &rangeEnd = {}) const;

    /// Adds user \a name with \a password.
    Q_INVOKABLE void addUser(const QString &name, const QString &password);
    /// Adds user \a name without a password: only a client presenting a TLS certificate whose
    /// common name is \a name acts as it (etcd's --client-cert-auth).
    Q_INVOKABLE void addUserWithoutPassword(const QString &name);
    /// Deletes user \a name.
    Q_INVOKABLE void deleteUser(const QString &name);
    /// Sets the password of user \a name.
    Q_INVOKABLE void changePassword(const QString &name, const QString &password);
    /// Grants \a role to \a user.
    Q_INVOKABLE void grantRole(const QString &user, const QString &role);
    /// Takes \a role away from \a user.
    Q_INVOKABLE void revokeRole(const QString &user, const QString &role);
    /// Adds role \a name.
    Q_INVOKABLE void addRole(const QString &name);
    /// Deletes role \a name.
    Q_INVOKABLE void deleteRole(const QString &name);
    /// Grants \a role a permission of \a type ("read", "write", "readwrite") over the keys
    /// \a key, \a kind and \a rangeEnd describe (see describeKeys()).
    Q_INVOKABLE void grantPermission(const QString &role, const QString &type, const QString &key, const QString &kind,
                                     const QString &rangeEnd = {});
    /// Takes away \a role's permission over the keys \a key, \a kind and \a rangeEnd describe.
    Q_INVOKABLE void revokePermission(const QString &role, const QString &key, const QString &kind,
                                      const QString &rangeEnd = {});
    /// Turns authentication on; refused unless user root has role root.
    Q_INVOKABLE void enableAuth();
    /// Turns authentication off.
    Q_INVOKABLE void disableAuth();

Q_SIGNALS:
    /// client changed.
    void clientChanged();
    /// eventLog changed.
    void eventLogChanged();
    /// status or errorString changed.
    void statusChanged();
    /// users, roles, authEnabled or rootReady changed.
    void contentChanged();
    /// running changed.
    void runningChanged();
    /// A change ended: \a action is the name of the call, \a outcome the sentence logged.
    void finished(const QString &action, const QEtcd::Status &status, const QString &outcome);

private:
    template <class Call>
    void change(const QString &name, const QString &running, const QString &done, Call call);
    void refuse(const QString &name, const Status &refused);
    void setStatus(int status, const QString &error);

    QPointer<Client> m_client;
    QPointer<EventLogModel> m_eventLog;
    int m_status = 0;
    QString m_errorString;
    QVariantList m_users;
    QVariantList m_roles;
    bool m_authEnabled = false;
    QString m_running;
    // Bumped by every refresh: answers to an older one are dropped.
    int m_generation = 0;
};

} // namespace QEtcd
