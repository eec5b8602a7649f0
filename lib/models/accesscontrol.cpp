// SPDX-License-Identifier: Apache-2.0
#include "accesscontrol.h"

#include "continuation_p.h"
#include "eventlogmodel.h"
#include "modelstatus.h"

#include <QEtcd/client.h>

#include <optional>

namespace QEtcd {

using Internal::thenOn;

namespace {
// The keys a permission covers, from the page's choice of kind.
std::optional<Permission> keysFrom(const QString &key, const QString &kind, const QString &rangeEnd)
{
    Permission permission;
    permission.key = key.toUtf8();
    if (kind == QLatin1String("prefix"))
        permission.range = KeyRange::prefix();
    else if (kind == QLatin1String("fromKey") && !key.isEmpty())
        permission.range = KeyRange::fromKey();
    else if (kind == QLatin1String("range") && !key.isEmpty() && !rangeEnd.isEmpty())
        permission.range = KeyRange::upTo(rangeEnd.toUtf8());
    else if (kind == QLatin1String("key") && !key.isEmpty())
        permission.range = KeyRange::single();
    else
        return std::nullopt;
    return permission;
}

QString rangeKindName(KeyRange::Kind kind)
{
    switch (kind) {
    case KeyRange::Kind::Single:
        return QStringLiteral("key");
    case KeyRange::Kind::Prefix:
        return QStringLiteral("prefix");
    case KeyRange::Kind::FromKey:
        return QStringLiteral("fromKey");
    case KeyRange::Kind::Explicit:
        break;
    }
    return QStringLiteral("range");
}

// What a refresh collects before it shows anything: all of it, or the first failure.
struct CollectedAccess
{
    int remaining = 0;
    Status failure;
    QMap<QString, QStringList> userRoles;
    QMap<QString, QList<Permission>> rolePermissions;
};
} // namespace

AccessControl::AccessControl(QObject *parent) : QObject(parent) {}

AccessControl::~AccessControl() = default;

Client *AccessControl::client() const
{
    return m_client;
}

void AccessControl::setClient(Client *client)
{
    if (client == m_client)
        return;
    m_client = client;
    Q_EMIT clientChanged();
    refresh();
}

EventLogModel *AccessControl::eventLog() const
{
    return m_eventLog;
}

void AccessControl::setEventLog(EventLogModel *log)
{
    if (log == m_eventLog)
        return;
    m_eventLog = log;
    Q_EMIT eventLogChanged();
}

bool AccessControl::rootReady() const
{
    for (const QVariant &user : m_users) {
        const QVariantMap map = user.toMap();
        if (map.value(QStringLiteral("name")).toString() == QLatin1String("root"))
            return map.value(QStringLiteral("roles")).toStringList().contains(QLatin1String("root"));
    }
    return false;
}

void AccessControl::setStatus(int status, const QString &error)
{
    if (status == m_status && error == m_errorString)
        return;
    m_status = status;
    m_errorString = error;
    Q_EMIT statusChanged();
}

void AccessControl::refresh()
{
    const int generation = ++m_generation;
    if (!m_client)
        return setStatus(ModelStatus::Null, {});
    if (m_status != ModelStatus::Ready)
        setStatus(ModelStatus::Loading, {});
    const QString user = m_client->options().user;
    // Why an empty page would be wrong: the reader may not see what is there.
    const auto failed = [this, user](const Status &failure) {
        QString why = failure.message();
        if (failure.code() == StatusCode::PermissionDenied) {
            why = tr("User \"%1\" may not read the users and roles: that takes the root role. (%2)").arg(user, failure.message());
        } else if (failure.message().contains(QLatin1String("user name is empty"))) {
            why = tr("Authentication is on and the console connected without a user: connect as a user with the root "
                     "role to see the users and roles. (%1)").arg(failure.message());
        }
        setStatus(ModelStatus::Error, why);
    };
    thenOn(m_client->authStatus(), this, [this, generation, failed](const AuthStatusResult &auth) {
        if (generation != m_generation)
            return;
        if (!auth.status)
            return failed(auth.status);
        if (auth.enabled != m_authEnabled) {
            m_authEnabled = auth.enabled;
            Q_EMIT contentChanged();
        }
        auto collected = std::make_shared<CollectedAccess>();
        const auto done = [this, generation, failed, collected] {
            if (generation != m_generation || --collected->remaining > 0)
                return;
            if (!collected->failure.isOk())
                return failed(collected->failure);
            QVariantList users;
            for (auto user = collected->userRoles.cbegin(); user != collected->userRoles.cend(); ++user)
                users.append(QVariantMap{{QStringLiteral("name"), user.key()}, {QStringLiteral("roles"), user.value()}});
            QVariantList roles;
            for (auto role = collected->rolePermissions.cbegin(); role != collected->rolePermissions.cend(); ++role) {
                QVariantList permissions;
                for (const Permission &permission : role.value()) {
                    permissions.append(QVariantMap{{QStringLiteral("type"), permission.typeName()},
                                                   {QStringLiteral("keys"), permission.describeKeys()},
                                                   {QStringLiteral("key"), QString::fromUtf8(permission.key)},
                                                   {QStringLiteral("rangeEnd"), QString::fromUtf8(permission.range.rangeEnd)},
                                                   {QStringLiteral("kind"), rangeKindName(permission.range.kind)}});
                }
                roles.append(QVariantMap{{QStringLiteral("name"), role.key()}, {QStringLiteral("permissions"), permissions}});
            }
            m_users = users;
            m_roles = roles;
            Q_EMIT contentChanged();
            setStatus(ModelStatus::Ready, {});
        };
        // Two lists, then one read per user and per role; done() counts them all down.
        collected->remaining = 2;
        thenOn(m_client->userList(), this, [this, collected, done](const UserListResult &listed) {
            if (!listed.status && collected->failure.isOk())
                collected->failure = listed.status;
            collected->remaining += int(listed.users.size());
            for (const QString &name : listed.users) {
                thenOn(m_client->userGet(name), this, [collected, done, name](const UserResult &got) {
                    if (!got.status && collected->failure.isOk())
                        collected->failure = got.status;
                    collected->userRoles.insert(name, got.roles);
                    done();
                });
            }
            done();
        });
        thenOn(m_client->roleList(), this, [this, collected, done](const RoleListResult &listed) {
            if (!listed.status && collected->failure.isOk())
                collected->failure = listed.status;
            collected->remaining += int(listed.roles.size());
            for (const QString &name : listed.roles) {
                thenOn(m_client->roleGet(name), this, [collected, done, name](const RoleResult &got) {
                    if (!got.status && collected->failure.isOk())
                        collected->failure = got.status;
                    collected->rolePermissions.insert(name, got.permissions);
                    done();
                });
            }
            done();
        });
    });
}

QString AccessControl::describeKeys(const QString &key, const QString &kind, const QString &rangeEnd) const
{
    const std::optional<Permission> keys = keysFrom(key, kind, rangeEnd);
    return keys ? keys->describeKeys() : QString();
}

void AccessControl::refuse(const QString &name, const Status &refused)
{
    QMetaObject::invokeMethod(this, [this, name, refused] {
        Q_EMIT finished(name, refused, tr("nothing done: %1").arg(refused.message()));
    }, Qt::QueuedConnection);
}

// One change at a time: call(client) starts it; when it ends the outcome is logged, told, and
// everything read again.
template <class Call>
void AccessControl::change(const QString &name, const QString &running, const QString &done, Call call)
{
    if (!m_client)
        return refuse(name, Status(StatusCode::FailedPrecondition, tr("not connected")));
    if (!m_running.isEmpty())
        return refuse(name, Status(StatusCode::FailedPrecondition, tr("wait until %1 has ended").arg(m_running)));
    m_running = running;
    Q_EMIT runningChanged();
    thenOn(call(m_client.data()), this, [this, name, done](const Result &result) {
        const QString outcome = result.status ? done : tr("nothing done: %1").arg(result.status.message());
        if (m_eventLog) {
            m_eventLog->append(QStringLiteral("operator"), result.status ? QStringLiteral("intervention") : QStringLiteral("interventionFailed"),
                               outcome, false, {});
        }
        m_running.clear();
        Q_EMIT runningChanged();
        Q_EMIT finished(name, result.status, outcome);
        refresh();
    });
}

void AccessControl::addUser(const QString &name, const QString &password)
{
    change(QStringLiteral("addUser"), tr("adding user %1").arg(name), tr("added user %1").arg(name),
           [name, password](Client *client) { return client->userAdd(name, password); });
}

void AccessControl::addUserWithoutPassword(const QString &name)
{
    change(QStringLiteral("addUser"), tr("adding user %1").arg(name), tr("added user %1, without a password").arg(name),
           [name](Client *client) { return client->userAddWithoutPassword(name); });
}

void AccessControl::deleteUser(const QString &name)
{
    change(QStringLiteral("deleteUser"), tr("deleting user %1").arg(name), tr("deleted user %1").arg(name),
           [name](Client *client) { return client->userDelete(name); });
}

void AccessControl::changePassword(const QString &name, const QString &password)
{
    change(QStringLiteral("changePassword"), tr("changing the password of %1").arg(name),
           tr("changed the password of user %1").arg(name),
           [name, password](Client *client) { return client->userChangePassword(name, password); });
}

void AccessControl::grantRole(const QString &user, const QString &role)
{
    change(QStringLiteral("grantRole"), tr("granting role %1 to %2").arg(role, user),
           tr("granted role %1 to user %2").arg(role, user),
           [user, role](Client *client) { return client->userGrantRole(user, role); });
}

void AccessControl::revokeRole(const QString &user, const QString &role)
{
    change(QStringLiteral("revokeRole"), tr("revoking role %1 from %2").arg(role, user),
           tr("revoked role %1 from user %2").arg(role, user),
           [user, role](Client *client) { return client->userRevokeRole(user, role); });
}

void AccessControl::addRole(const QString &name)
{
    change(QStringLiteral("addRole"), tr("adding role %1").arg(name), tr("added role %1").arg(name),
           [name](Client *client) { return client->roleAdd(name); });
}

void AccessControl::deleteRole(const QString &name)
{
    change(QStringLiteral("deleteRole"), tr("deleting role %1").arg(name), tr("deleted role %1").arg(name),
           [name](Client *client) { return client->roleDelete(name); });
}

void AccessControl::grantPermission(const QString &role, const QString &type, const QString &key, const QString &kind,
                                    const QString &rangeEnd)
{
    const QString name = QStringLiteral("grantPermission");
    std::optional<Permission> permission = keysFrom(key, kind, rangeEnd);
    if (!permission)
        return refuse(name, Status(StatusCode::InvalidArgument, tr("no keys chosen: give a key, a prefix or a range")));
    if (type == QLatin1String("read"))
        permission->type = PermissionType::Read;
    else if (type == QLatin1String("write"))
        permission->type = PermissionType::Write;
    else if (type == QLatin1String("readwrite"))
        permission->type = PermissionType::ReadWrite;
    else
        return refuse(name, Status(StatusCode::InvalidArgument, tr("\"%1\" is not read, write or readwrite").arg(type)));
    change(name, tr("granting %1 on %2 to %3").arg(type, permission->describeKeys(), role),
           tr("granted %1 on %2 to role %3").arg(type, permission->describeKeys(), role),
           [role, granted = *permission](Client *client) { return client->roleGrantPermission(role, granted); });
}

void AccessControl::revokePermission(const QString &role, const QString &key, const QString &kind, const QString &rangeEnd)
{
    const QString name = QStringLiteral("revokePermission");
    const std::optional<Permission> keys = keysFrom(key, kind, rangeEnd);
    if (!keys)
        return refuse(name, Status(StatusCode::InvalidArgument, tr("no keys chosen: give a key, a prefix or a range")));
    change(name, tr("revoking the permission on %1 from %2").arg(keys->describeKeys(), role),
           tr("revoked the permission on %1 from role %2").arg(keys->describeKeys(), role),
           [role, revoked = *keys](Client *client) { return client->roleRevokePermission(role, revoked); });
}

void AccessControl::enableAuth()
{
    change(QStringLiteral("enableAuth"), tr("enabling authentication"), tr("enabled authentication"),
           [](Client *client) { return client->authEnable(); });
}

void AccessControl::disableAuth()
{
    change(QStringLiteral("disableAuth"), tr("disabling authentication"), tr("disabled authentication"),
           [](Client *client) { return client->authDisable(); });
}

} // namespace QEtcd
