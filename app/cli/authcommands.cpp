// SPDX-License-Identifier: Apache-2.0
#include "commands.h"
#include "interventions.h"
#include "passwordprompt.h"

#include <QtCore/QFile>
#include <QtCore/QJsonArray>

#include <unistd.h>

namespace QEtcd::Cli {

namespace {
const QString interactiveName = QStringLiteral("interactive");
const QString newPasswordName = QStringLiteral("new-user-password");

QCommandLineOption interactiveOption()
{
    return QCommandLineOption(interactiveName,
                              QStringLiteral("user add|passwd: false reads the password from the first line of stdin "
                                             "instead of asking on the terminal [default: true]"),
                              QStringLiteral("true|false"), QStringLiteral("true"));
}

QCommandLineOption newPasswordOption()
{
    return QCommandLineOption(newPasswordName,
                              QStringLiteral("user add|passwd: the password itself; every user of the machine sees it "
                                             "(ps): prefer the prompt or --interactive=false"),
                              QStringLiteral("PASSWORD"));
}

// The new password of user: --new-user-password, else the first line of stdin with
// --interactive=false, else asked twice on the terminal. nullopt after the failure was reported
// (*exitCode). The password goes nowhere but into the request.
std::optional<QString> newPassword(Invocation &invocation, const QString &user, int *exitCode)
{
    // Refused before it is typed, as a login password is: a new one is as readable on the way.
    if (!invocation.isSet(QStringLiteral("insecure-transport"))) {
        if (const QString exposed = unencryptedRemoteEndpoint(invocation.client().options()); !exposed.isEmpty()) {
            *exitCode = invocation.usageError(QStringLiteral("the new password of user \"%1\" would travel unencrypted to "
                                                             "%2; use an https:// endpoint (with --cacert), or add "
                                                             "--insecure-transport if the network is trusted")
                                                  .arg(user, exposed));
            return std::nullopt;
        }
    }
    if (invocation.isSet(newPasswordName)) {
        if (invocation.isSet(interactiveName)) {
            *exitCode = invocation.usageError(QStringLiteral("--new-user-password and --interactive exclude each other"));
            return std::nullopt;
        }
        return invocation.value(newPasswordName);
    }
    const QString interactive = invocation.value(interactiveName);
    if (interactive != QLatin1String("true") && interactive != QLatin1String("false")) {
        *exitCode = invocation.usageError(QStringLiteral("--interactive takes true or false, not \"%1\"").arg(interactive));
        return std::nullopt;
    }
    if (interactive == QLatin1String("false")) {
        QFile input;
        if (!input.open(STDIN_FILENO, QIODevice::ReadOnly)) {
            *exitCode = invocation.usageError(QStringLiteral("cannot read the password from stdin"));
            return std::nullopt;
        }
        QByteArray line = input.readLine();
        if (line.endsWith('\n'))
            line.chop(1);
        if (line.endsWith('\r'))
            line.chop(1);
        return QString::fromUtf8(line);
    }
    QString why;
    const std::optional<QString> typed = askSecretOnTerminal(QStringLiteral("Password of %1: ").arg(user), &why);
    if (!typed) {
        *exitCode = invocation.usageError(QStringLiteral("the password of user \"%1\": %2; give --interactive=false to "
                                                         "read it from stdin")
                                              .arg(user, why));
        return std::nullopt;
    }
    const std::optional<QString> again =
        askSecretOnTerminal(QStringLiteral("Type password of %1 again for confirmation: ").arg(user), &why);
    if (!again || *again != *typed) {
        *exitCode = invocation.usageError(again ? QStringLiteral("the two passwords differ; nothing was changed") : why);
        return std::nullopt;
    }
    return typed;
}

// Prints line, or object with --json.
int done(Invocation &invocation, const QString &line, const QJsonObject &object)
{
    if (invocation.json())
        invocation.print(object);
    else
        invocation.print(line.toUtf8());
    return Success;
}

QString argument(Invocation &invocation, int index)
{
    return invocation.arguments().value(index);
}

int runUserAdd(Invocation &invocation)
{
    const QString name = argument(invocation, 1);
    if (name.contains(QLatin1Char(':'))) {
        return invocation.usageError(QStringLiteral("\"%1:…\": a password is never taken from the user name; it is "
                                                    "asked for, read from stdin (--interactive=false) or given with "
                                                    "--new-user-password")
                                         .arg(name.section(QLatin1Char(':'), 0, 0)));
    }
    // Refused before the password is asked for: it would not be used.
    if (invocation.readOnly())
        return invocation.failed(Status(StatusCode::ReadOnly, QStringLiteral("user add: refused: the client is read-only (--read-only)")));
    QFuture<Result> adding;
    if (invocation.isSet(QStringLiteral("no-password"))) {
        if (invocation.isSet(QStringLiteral("new-user-password")) || invocation.isSet(QStringLiteral("interactive")))
            return invocation.usageError(QStringLiteral("--no-password: the user has none, so --new-user-password and "
                                                        "--interactive do not apply"));
        adding = invocation.client().userAddWithoutPassword(name);
    } else {
        int exitCode = Success;
        const std::optional<QString> password = newPassword(invocation, name, &exitCode);
        if (!password)
            return exitCode;
        adding = invocation.client().userAdd(name, *password);
    }
    const Result added = invocation.await(adding, QStringLiteral("user add"));
    if (!added.status)
        return invocation.failed(added.status);
    return done(invocation, QStringLiteral("User %1 created").arg(name),
                {{QLatin1String("user"), name}, {QLatin1String("created"), true}});
}

int runUserDelete(Invocation &invocation)
{
    const QString name = argument(invocation, 1);
    if (const std::optional<int> declined = confirm(
            invocation, QStringLiteral("Delete user %1: whoever logs in as it is refused from then on.").arg(name)))
        return *declined;
    const Result deleted = invocation.await(invocation.client().userDelete(name), QStringLiteral("user delete"));
    if (!deleted.status)
        return invocation.failed(deleted.status);
    return done(invocation, QStringLiteral("User %1 deleted").arg(name),
                {{QLatin1String("user"), name}, {QLatin1String("deleted"), true}});
}

QJsonObject permissionJson(const Permission &permission)
{
    return {{QLatin1String("type"), permission.typeName()},
            {QLatin1String("key"), QString::fromUtf8(permission.key)},
            {QLatin1String("range_end"), QString::fromUtf8(permission.rangeEnd())},
            {QLatin1String("keys"), permission.describeKeys()}};
}

QJsonObject roleJson(const RoleResult &role)
{
    QJsonArray permissions;
    for (const Permission &permission : role.permissions)
        permissions.append(permissionJson(permission));
    return {{QLatin1String("role"), role.name}, {QLatin1String("permissions"), permissions}};
}

// etcdctl's layout: a readwrite permission is listed under both.
void printRoleText(Invocation &invocation, const RoleResult &role)
{
    invocation.print(QStringLiteral("Role %1").arg(role.name).toUtf8());
    for (const PermissionType listed : {PermissionType::Read, PermissionType::Write}) {
        invocation.print(listed == PermissionType::Read ? "KV Read:" : "KV Write:");
        for (const Permission &permission : role.permissions) {
            if (permission.type == listed || permission.type == PermissionType::ReadWrite)
                invocation.print('\t' + permission.describeKeys().toUtf8());
        }
    }
}

int runUserGet(Invocation &invocation)
{
    const UserResult user = invocation.await(invocation.client().userGet(argument(invocation, 1)), QStringLiteral("user get"));
    if (!user.status)
        return invocation.failed(user.status);
    // --detail: each role with its permissions, as etcdctl prints them.
    if (invocation.isSet(QStringLiteral("detail"))) {
        QJsonArray roles;
        if (!invocation.json())
            invocation.print(QStringLiteral("User: %1").arg(user.name).toUtf8());
        for (const QString &name : user.roles) {
            const RoleResult role = invocation.await(invocation.client().roleGet(name), QStringLiteral("role get"));
            if (!role.status)
                return invocation.failed(role.status);
            if (invocation.json()) {
                roles.append(roleJson(role));
            } else {
                invocation.print(QByteArray());
                printRoleText(invocation, role);
            }
        }
        if (invocation.json())
            invocation.print(QJsonObject{{QLatin1String("user"), user.name}, {QLatin1String("roles"), roles}});
        return Success;
    }
    if (invocation.json()) {
        invocation.print(QJsonObject{{QLatin1String("user"), user.name},
                                     {QLatin1String("roles"), QJsonArray::fromStringList(user.roles)}});
    } else {
        invocation.print(QStringLiteral("User: %1").arg(user.name).toUtf8());
        invocation.print(QStringLiteral("Roles: %1").arg(user.roles.join(QLatin1Char(' '))).toUtf8());
    }
    return Success;
}

// One name a line, or with --json one {"<kind>": name} a line.
int printNames(Invocation &invocation, const char *kind, const QStringList &names)
{
    for (const QString &name : names) {
        if (invocation.json())
            invocation.print(QJsonObject{{QLatin1String(kind), name}});
        else
            invocation.print(name.toUtf8());
    }
    return Success;
}

int runUserList(Invocation &invocation)
{
    const UserListResult listed = invocation.await(invocation.client().userList(), QStringLiteral("user list"));
    if (!listed.status)
        return invocation.failed(listed.status);
    return printNames(invocation, "user", listed.users);
}

int runUserPasswd(Invocation &invocation)
{
    const QString name = argument(invocation, 1);
    if (invocation.readOnly())
        return invocation.failed(Status(StatusCode::ReadOnly, QStringLiteral("user passwd: refused: the client is read-only (--read-only)")));
    int exitCode = Success;
    const std::optional<QString> password = newPassword(invocation, name, &exitCode);
    if (!password)
        return exitCode;
    const Result changed =
        invocation.await(invocation.client().userChangePassword(name, *password), QStringLiteral("user passwd"));
    if (!changed.status)
        return invocation.failed(changed.status);
    return done(invocation, QStringLiteral("Password updated"),
                {{QLatin1String("user"), name}, {QLatin1String("password_changed"), true}});
}

int runUserGrantRole(Invocation &invocation)
{
    const QString user = argument(invocation, 1);
    const QString role = argument(invocation, 2);
    const Result granted =
        invocation.await(invocation.client().userGrantRole(user, role), QStringLiteral("user grant-role"));
    if (!granted.status)
        return invocation.failed(granted.status);
    return done(invocation, QStringLiteral("Role %1 is granted to user %2").arg(role, user),
                {{QLatin1String("user"), user}, {QLatin1String("role"), role}, {QLatin1String("granted"), true}});
}

int runUserRevokeRole(Invocation &invocation)
{
    const QString user = argument(invocation, 1);
    const QString role = argument(invocation, 2);
    if (const std::optional<int> declined = confirm(
            invocation, QStringLiteral("Revoke role %1 from user %2: it loses what the role grants.").arg(role, user)))
        return *declined;
    const Result revoked =
        invocation.await(invocation.client().userRevokeRole(user, role), QStringLiteral("user revoke-role"));
    if (!revoked.status)
        return invocation.failed(revoked.status);
    return done(invocation, QStringLiteral("Role %1 is revoked from user %2").arg(role, user),
                {{QLatin1String("user"), user}, {QLatin1String("role"), role}, {QLatin1String("revoked"), true}});
}

int runRoleAdd(Invocation &invocation)
{
    const QString name = argument(invocation, 1);
    const Result added = invocation.await(invocation.client().roleAdd(name), QStringLiteral("role add"));
    if (!added.status)
        return invocation.failed(added.status);
    return done(invocation, QStringLiteral("Role %1 created").arg(name),
                {{QLatin1String("role"), name}, {QLatin1String("created"), true}});
}

int runRoleDelete(Invocation &invocation)
{
    const QString name = argument(invocation, 1);
    if (const std::optional<int> declined = confirm(
            invocation, QStringLiteral("Delete role %1: every user granted it loses what it grants.").arg(name)))
        return *declined;
    const Result deleted = invocation.await(invocation.client().roleDelete(name), QStringLiteral("role delete"));
    if (!deleted.status)
        return invocation.failed(deleted.status);
    return done(invocation, QStringLiteral("Role %1 deleted").arg(name),
                {{QLatin1String("role"), name}, {QLatin1String("deleted"), true}});
}

int runRoleGet(Invocation &invocation)
{
    const RoleResult role = invocation.await(invocation.client().roleGet(argument(invocation, 1)), QStringLiteral("role get"));
    if (!role.status)
        return invocation.failed(role.status);
    if (invocation.json())
        invocation.print(roleJson(role));
    else
        printRoleText(invocation, role);
    return Success;
}

int runRoleList(Invocation &invocation)
{
    const RoleListResult listed = invocation.await(invocation.client().roleList(), QStringLiteral("role list"));
    if (!listed.status)
        return invocation.failed(listed.status);
    return printNames(invocation, "role", listed.roles);
}

// The keys of grant-permission and revoke-permission: KEY [RANGE_END], --prefix or --from-key.
// nullopt after a usage error (*exitCode).
std::optional<Permission> permissionKeys(Invocation &invocation, const QString &key, const QString &rangeEnd,
                                         int *exitCode)
{
    const bool prefix = invocation.isSet(QStringLiteral("prefix"));
    const bool fromKey = invocation.isSet(QStringLiteral("from-key"));
    const auto refuse = [&](const QString &message) {
        *exitCode = invocation.usageError(message);
        return std::nullopt;
    };
    if (prefix && fromKey)
        return refuse(QStringLiteral("--prefix and --from-key exclude each other"));
    if ((prefix || fromKey) && !rangeEnd.isEmpty())
        return refuse(QStringLiteral("RANGE_END \"%1\" and --%2 exclude each other").arg(rangeEnd, QLatin1String(prefix ? "prefix" : "from-key")));
    if (!prefix && key.isEmpty())
        return refuse(QStringLiteral("KEY is empty; for every key give --prefix with KEY \"\""));
    Permission permission;
    permission.key = key.toUtf8();
    permission.range = prefix ? KeyRange::prefix() : fromKey ? KeyRange::fromKey()
        : rangeEnd.isEmpty()  ? KeyRange::single()
                              : KeyRange::upTo(rangeEnd.toUtf8());
    return permission;
}

int runRoleGrantPermission(Invocation &invocation)
{
    const QString role = argument(invocation, 1);
    const QString type = argument(invocation, 2).toLower();
    Permission permission;
    int exitCode = Success;
    if (const std::optional<Permission> keys = permissionKeys(invocation, argument(invocation, 3), argument(invocation, 4), &exitCode))
        permission = *keys;
    else
        return exitCode;
    if (type == QLatin1String("read"))
        permission.type = PermissionType::Read;
    else if (type == QLatin1String("write"))
        permission.type = PermissionType::Write;
    else if (type == QLatin1String("readwrite"))
        permission.type = PermissionType::ReadWrite;
    else
        return invocation.usageError(QStringLiteral("permission type is read, write or readwrite, not \"%1\"").arg(argument(invocation, 2)));
    const Result granted = invocation.await(invocation.client().roleGrantPermission(role, permission),
                                            QStringLiteral("role grant-permission"));
    if (!granted.status)
        return invocation.failed(granted.status);
    QJsonObject object = permissionJson(permission);
    object.insert(QLatin1String("role"), role);
    object.insert(QLatin1String("granted"), true);
    return done(invocation, QStringLiteral("Role %1 updated").arg(role), object);
}

int runRoleRevokePermission(Invocation &invocation)
{
    const QString role = argument(invocation, 1);
    int exitCode = Success;
    const std::optional<Permission> keys = permissionKeys(invocation, argument(invocation, 2), argument(invocation, 3), &exitCode);
    if (!keys)
        return exitCode;
    if (const std::optional<int> declined = confirm(
            invocation, QStringLiteral("Revoke the permission of role %1 on %2: its users lose access there.")
                            .arg(role, keys->describeKeys())))
        return *declined;
    const Result revoked = invocation.await(invocation.client().roleRevokePermission(role, *keys),
                                            QStringLiteral("role revoke-permission"));
    if (!revoked.status)
        return invocation.failed(revoked.status);
    QJsonObject object = permissionJson(*keys);
    object.remove(QLatin1String("type"));
    object.insert(QLatin1String("role"), role);
    object.insert(QLatin1String("revoked"), true);
    return done(invocation,
                QStringLiteral("Permission of %1 is revoked from role %2").arg(keys->describeKeys(), role), object);
}

int runAuthEnable(Invocation &invocation)
{
    const Result enabled = invocation.await(invocation.client().authEnable(), QStringLiteral("auth enable"));
    if (!enabled.status)
        return invocation.failed(enabled.status);
    return done(invocation, QStringLiteral("Authentication Enabled"), {{QLatin1String("auth_enabled"), true}});
}

int runAuthDisable(Invocation &invocation)
{
    if (const std::optional<int> declined =
            confirm(invocation, QStringLiteral("Disable authentication: anyone who reaches the cluster may then read "
                                               "and write every key and change users and roles.")))
        return *declined;
    const Result disabled = invocation.await(invocation.client().authDisable(), QStringLiteral("auth disable"));
    if (!disabled.status)
        return invocation.failed(disabled.status);
    return done(invocation, QStringLiteral("Authentication Disabled"), {{QLatin1String("auth_enabled"), false}});
}

int runAuthStatus(Invocation &invocation)
{
    const AuthStatusResult status = invocation.await(invocation.client().authStatus(), QStringLiteral("auth status"));
    if (!status.status)
        return invocation.failed(status.status);
    return done(invocation,
                QStringLiteral("Authentication Status: %1").arg(status.enabled ? QLatin1String("true") : QLatin1String("false")),
                {{QLatin1String("auth_enabled"), status.enabled}});
}

QString passwordHelp()
{
    return QStringLiteral("A new password is asked for twice on the terminal; --interactive=false reads\n"
                          "it from the first line of stdin instead; --new-user-password gives it on the\n"
                          "command line (visible to every user of the machine). It is never printed.\n"
                          "user add --no-password makes a user without one, who can only be the common\n"
                          "name of a TLS client certificate (etcd's --client-cert-auth).\n");
}

QString destructiveHelp()
{
    return QStringLiteral("The destructive actions say on stderr what they will do and ask on a terminal;\n"
                          "elsewhere --yes is required. --read-only refuses every write before it is sent.\n");
}

QCommandLineOption prefixOption()
{
    return QCommandLineOption(QStringLiteral("prefix"), QStringLiteral("grant-permission|revoke-permission: every key "
                                                                       "that starts with KEY"));
}

QCommandLineOption fromKeyOption()
{
    return QCommandLineOption(QStringLiteral("from-key"),
                              QStringLiteral("grant-permission|revoke-permission: KEY and every key after it"));
}
} // namespace

Command userCommand()
{
    const QStringList passwordOptions{interactiveName, newPasswordName};
    Command command;
    command.name = QStringLiteral("user");
    command.summary = QStringLiteral("Manage users (user add|delete|get|list|passwd|grant-role|revoke-role)");
    command.details = QStringLiteral("Actions, output as etcdctl's (with --json one object a line):\n"
                                     "  add NAME                   \"User NAME created\"\n"
                                     "  delete NAME                \"User NAME deleted\"\n"
                                     "  get NAME [--detail]        \"User: NAME\" and \"Roles: ROLE...\"; with --detail\n"
                                     "                             each role as role get prints it\n"
                                     "  list                       one user a line\n"
                                     "  passwd NAME                \"Password updated\"\n"
                                     "  grant-role NAME ROLE       \"Role ROLE is granted to user NAME\"\n"
                                     "  revoke-role NAME ROLE      \"Role ROLE is revoked from user NAME\"\n")
        + passwordHelp() + destructiveHelp();
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("add, delete, get, list, passwd, grant-role or revoke-role")},
                         {QStringLiteral("NAME"), QStringLiteral("The user"), true},
                         {QStringLiteral("ROLE"), QStringLiteral("The role to grant or revoke"), true}};
    command.options = {interactiveOption(), newPasswordOption(), yesOption(),
                       QCommandLineOption(QStringLiteral("no-password"),
                                          QStringLiteral("user add: a user without password, for certificate logins")),
                       QCommandLineOption(QStringLiteral("detail"), QStringLiteral("user get: each role's permissions too"))};
    command.run = [passwordOptions](Invocation &invocation) {
        return runAction(invocation, {{QStringLiteral("add"), {QStringLiteral("NAME")},
                                       passwordOptions + QStringList{QStringLiteral("no-password")}, runUserAdd},
                                      {QStringLiteral("delete"), {QStringLiteral("NAME")}, {QStringLiteral("yes")}, runUserDelete},
                                      {QStringLiteral("get"), {QStringLiteral("NAME")}, {QStringLiteral("detail")}, runUserGet},
                                      {QStringLiteral("list"), {}, {}, runUserList},
                                      {QStringLiteral("passwd"), {QStringLiteral("NAME")}, passwordOptions, runUserPasswd},
                                      {QStringLiteral("grant-role"), {QStringLiteral("NAME"), QStringLiteral("ROLE")}, {}, runUserGrantRole},
                                      {QStringLiteral("revoke-role"), {QStringLiteral("NAME"), QStringLiteral("ROLE")},
                                       {QStringLiteral("yes")}, runUserRevokeRole}});
    };
    return command;
}

Command roleCommand()
{
    const QStringList rangeOptions{QStringLiteral("prefix"), QStringLiteral("from-key")};
    Command command;
    command.name = QStringLiteral("role");
    command.summary = QStringLiteral("Manage roles and their permissions (role add|delete|get|list|grant-permission|revoke-permission)");
    command.details =
        QStringLiteral("Actions, output as etcdctl's (with --json one object a line):\n"
                       "  add NAME                                      \"Role NAME created\"\n"
                       "  delete NAME                                   \"Role NAME deleted\"\n"
                       "  get NAME                                      its permissions, under\n"
                       "                                                \"KV Read:\" and \"KV Write:\",\n"
                       "                                                each as the range it means\n"
                       "  list                                          one role a line\n"
                       "  grant-permission NAME TYPE KEY [RANGE_END]    TYPE is read, write or readwrite\n"
                       "  revoke-permission NAME KEY [RANGE_END]\n"
                       "KEY alone is that key; with RANGE_END the keys from KEY up to, not including,\n"
                       "RANGE_END; --prefix every key that starts with KEY (KEY \"\" with --prefix: every\n"
                       "key); --from-key KEY and every key after it. Permissions are the cluster's:\n"
                       "--namespace does not apply to them.\n")
        + destructiveHelp();
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("add, delete, get, list, grant-permission or revoke-permission")},
                         {QStringLiteral("NAME"), QStringLiteral("The role"), true},
                         {QStringLiteral("ARGS"), QStringLiteral("TYPE KEY [RANGE_END] or KEY [RANGE_END]"), true, true}};
    command.options = {prefixOption(), fromKeyOption(), yesOption()};
    command.run = [rangeOptions](Invocation &invocation) {
        return runAction(invocation,
                         {{QStringLiteral("add"), {QStringLiteral("NAME")}, {}, runRoleAdd},
                          {QStringLiteral("delete"), {QStringLiteral("NAME")}, {QStringLiteral("yes")}, runRoleDelete},
                          {QStringLiteral("get"), {QStringLiteral("NAME")}, {}, runRoleGet},
                          {QStringLiteral("list"), {}, {}, runRoleList},
                          {QStringLiteral("grant-permission"),
                           {QStringLiteral("NAME"), QStringLiteral("TYPE"), QStringLiteral("KEY"), QStringLiteral("[RANGE_END]")},
                           rangeOptions, runRoleGrantPermission},
                          {QStringLiteral("revoke-permission"),
                           {QStringLiteral("NAME"), QStringLiteral("KEY"), QStringLiteral("[RANGE_END]")},
                           rangeOptions + QStringList{QStringLiteral("yes")}, runRoleRevokePermission}});
    };
    return command;
}

Command authCommand()
{
    Command command;
    command.name = QStringLiteral("auth");
    command.summary = QStringLiteral("Turn authentication on or off, or say which it is (auth enable|disable|status)");
    command.details = QStringLiteral("Actions:\n"
                                     "  enable   \"Authentication Enabled\". Refused unless user root exists with\n"
                                     "           role root: nobody could administer the cluster otherwise (etcdctl\n"
                                     "           grants role root on its own; here `user grant-role root root`\n"
                                     "           says it). From then on every client needs --user.\n"
                                     "  disable  \"Authentication Disabled\": anyone may then do anything.\n"
                                     "  status   \"Authentication Status: true|false\"\n"
                                     "With --json {\"auth_enabled\"}.\n")
        + destructiveHelp();
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("enable, disable or status")}};
    command.options = {yesOption()};
    command.run = [](Invocation &invocation) {
        return runAction(invocation, {{QStringLiteral("enable"), {}, {}, runAuthEnable},
                                      {QStringLiteral("disable"), {}, {QStringLiteral("yes")}, runAuthDisable},
                                      {QStringLiteral("status"), {}, {}, runAuthStatus}});
    };
    return command;
}

} // namespace QEtcd::Cli
