// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The Access page against a real etcd with auth on (root, and "app" confined to /app/): users
// with their roles and roles with their permissions as the ranges they mean; each change asked
// for in its form, confirmed, carried out and logged as the operator's without the password;
// refused under read-only, typed off this machine; a user without rights told why; and, on an
// etcd without auth, enabling refused for want of root.
Item {
    id: root
    width: 1200
    height: 760

    EtcdClient { id: asRoot; endpoints: [qetcdTest.authEndpoint()]; user: "root"; password: "rootpw" }
    EtcdClient { id: asRootReadOnly; endpoints: [qetcdTest.authEndpoint()]; user: "root"; password: "rootpw"; readOnly: true }
    EtcdClient { id: asApp; endpoints: [qetcdTest.authEndpoint()]; user: "app"; password: "apppw" }
    EtcdClient { id: open; endpoints: [qetcdTest.endpoint] }
    EventLogModel { id: log }

    Component {
        id: accessPage
        AccessPage { anchors.fill: parent }
    }

    TestCase {
        name: "AccessPage"
        when: windowShown

        function cleanup() {
            log.clear()
        }

        function openPage(properties) {
            const page = createTemporaryObject(accessPage, root, Object.assign({ client: asRoot.client, eventLog: log }, properties))
            verify(page)
            tryCompare(page, "ready", true, qetcdTest.timeout(15000))
            return page
        }
        function access(page) {
            return findChild(page, "accessControl")
        }
        // Clicks item once it and every item around it are laid out.
        function settledClick(item) {
            verify(item)
            tryVerify(function() {
                for (let each = item; each; each = each.parent) {
                    if (isPolishScheduled(each))
                        return false
                }
                return true
            }, qetcdTest.timeout(5000), "laid out before the click")
            mouseClick(item)
        }
        function opened(page, name) {
            const dialog = findChild(page, name)
            verify(dialog)
            tryCompare(dialog, "opened", true, qetcdTest.timeout(5000))
            return dialog
        }
        function loggedText() {
            const lines = []
            for (let i = 0; i < log.count; ++i)
                lines.push(log.get(i).participant + ":" + log.get(i).kind + ":" + log.get(i).detail)
            return lines.join("\n")
        }
        // The visible item called name inside the card titled title.
        function inCard(item, title, name) {
            let found = null
            const visit = function(each, inside) {
                const here = inside || (each.title === title && each.hasOwnProperty("accentColor"))
                if (!found && here && each.objectName === name && each.visible)
                    found = each
                for (let i = 0; i < each.children.length && !found; ++i)
                    visit(each.children[i], here)
            }
            visit(item, false)
            return found
        }
        function userNamed(page, name) {
            return access(page).users.find(user => user.name === name)
        }
        function roleNamed(page, name) {
            return access(page).roles.find(role => role.name === name)
        }
        // Confirms the change the form or button opened, and waits until it is logged.
        function confirmAndWait(page, logged) {
            const confirm = opened(page, "confirmChange")
            settledClick(findChild(confirm.footer, "confirmButton"))
            tryVerify(function() { return loggedText().indexOf(logged) >= 0 }, qetcdTest.timeout(15000), loggedText())
            tryCompare(access(page), "running", "", qetcdTest.timeout(5000))
        }

        function test_usersRolesAndTheRangesTheyMean() {
            const page = openPage()
            const control = access(page)
            compare(control.status, ModelStatus.Ready)
            verify(control.authEnabled)
            verify(control.rootReady)
            compare(userNamed(page, "app").roles, ["app-role"])
            const appRole = roleNamed(page, "app-role")
            compare(appRole.permissions.length, 1)
            compare(appRole.permissions[0].type, "readwrite")
            compare(appRole.permissions[0].keys, "[/app/, /app0) (prefix /app/)")
            const shown = inCard(page, "app-role", "permissionKeys")
            verify(shown)
            compare(shown.text, "[/app/, /app0) (prefix /app/)")
            compare(page.summary.users, control.users.length)
        }

        // Add a user in the form (the password twice), grant it a role, change its password,
        // revoke the role and delete it: each confirmed and logged, never with the password.
        function test_aUsersWholeLife() {
            const page = openPage()
            settledClick(findChild(page, "addUser"))
            let form = opened(page, "accessForm")
            findChild(form, "nameField").text = "olga"
            findChild(form, "passwordField").text = "olga-secret"
            findChild(form, "repeatField").text = "olga-typo"
            const next = findChild(form.footer, "formNext")
            verify(!next.enabled, "the passwords differ")
            findChild(form, "repeatField").text = "olga-secret"
            verify(next.enabled)
            settledClick(next)
            confirmAndWait(page, "operator:intervention:added user olga")
            tryVerify(function() { return userNamed(page, "olga") !== undefined }, qetcdTest.timeout(10000))

            settledClick(inCard(page, "olga", "grantRole"))
            form = opened(page, "accessForm")
            // The user's name is in the form, as plain text, not in its title.
            compare(findChild(form, "formSubject").value, "olga")
            verify(form.title.indexOf("olga") < 0, form.title)
            const roles = findChild(form, "roleBox")
            roles.currentIndex = roles.find("app-role")
            verify(roles.currentIndex >= 0)
            settledClick(findChild(form.footer, "formNext"))
            confirmAndWait(page, "operator:intervention:granted role app-role to user olga")
            tryVerify(function() { return userNamed(page, "olga").roles.indexOf("app-role") >= 0 }, qetcdTest.timeout(10000))

            settledClick(inCard(page, "olga", "changePassword"))
            form = opened(page, "accessForm")
            findChild(form, "passwordField").text = "olga-second"
            findChild(form, "repeatField").text = "olga-second"
            settledClick(findChild(form.footer, "formNext"))
            confirmAndWait(page, "operator:intervention:changed the password of user olga")

            let revoke = null
            tryVerify(function() { revoke = inCard(page, "olga", "revokeRole"); return revoke !== null }, qetcdTest.timeout(10000))
            settledClick(revoke)
            confirmAndWait(page, "operator:intervention:revoked role app-role from user olga")

            settledClick(inCard(page, "olga", "deleteUser"))
            verify(opened(page, "confirmChange").message.indexOf("refused from then on") >= 0)
            confirmAndWait(page, "operator:intervention:deleted user olga")
            tryVerify(function() { return userNamed(page, "olga") === undefined }, qetcdTest.timeout(10000))
            verify(loggedText().indexOf("secret") < 0 && loggedText().indexOf("olga-second") < 0, loggedText())
        }

        // A user for certificate logins: no password asked for, the confirmation says who can act
        // as it, and etcd has the user.
        function test_aUserWithoutPassword() {
            const page = openPage()
            settledClick(findChild(page, "addUser"))
            const form = opened(page, "accessForm")
            findChild(form, "nameField").text = "deployer"
            const next = findChild(form.footer, "formNext")
            verify(!next.enabled, "a password is needed unless the box is ticked")
            findChild(form, "noPasswordBox").checked = true
            verify(!findChild(form, "passwordField").visible)
            verify(next.enabled)
            settledClick(next)
            const message = opened(page, "confirmChange").message
            verify(message.indexOf("common name is deployer") >= 0, message)
            confirmAndWait(page, "operator:intervention:added user deployer, without a password")
            tryVerify(function() { return userNamed(page, "deployer") !== undefined }, qetcdTest.timeout(10000))
            settledClick(inCard(page, "deployer", "deleteUser"))
            confirmAndWait(page, "operator:intervention:deleted user deployer")
        }

        // A role, a permission picked as a prefix (the form shows the range it means), revoked,
        // and the role deleted.
        function test_aRoleAndItsPermissions() {
            const page = openPage()
            settledClick(findChild(page, "addRole"))
            let form = opened(page, "accessForm")
            findChild(form, "nameField").text = "reader"
            settledClick(findChild(form.footer, "formNext"))
            confirmAndWait(page, "operator:intervention:added role reader")
            tryVerify(function() { return roleNamed(page, "reader") !== undefined }, qetcdTest.timeout(10000))

            let grant = null
            tryVerify(function() { grant = inCard(page, "reader", "grantPermission"); return grant !== null }, qetcdTest.timeout(10000))
            settledClick(grant)
            form = opened(page, "accessForm")
            findChild(form, "typeBox").currentIndex = 0  // read
            const kind = findChild(form, "kindBox")
            kind.currentIndex = kind.indexOfValue("prefix")
            findChild(form, "keyField").text = "/data/"
            compare(findChild(form, "rangeShown").text, "Covers [/data/, /data0) (prefix /data/)")
            kind.currentIndex = kind.indexOfValue("range")
            verify(!findChild(form.footer, "formNext").enabled, "a range needs its end")
            findChild(form, "endField").text = "/datb"
            compare(findChild(form, "rangeShown").text, "Covers [/data/, /datb)")
            kind.currentIndex = kind.indexOfValue("prefix")
            settledClick(findChild(form.footer, "formNext"))
            verify(opened(page, "confirmChange").message.indexOf("[/data/, /data0) (prefix /data/)") >= 0)
            confirmAndWait(page, "operator:intervention:granted read on [/data/, /data0) (prefix /data/) to role reader")
            tryVerify(function() { const r = roleNamed(page, "reader"); return r && r.permissions.length === 1 }, qetcdTest.timeout(10000))

            let revoke = null
            tryVerify(function() { revoke = inCard(page, "reader", "revokePermission"); return revoke !== null }, qetcdTest.timeout(10000))
            settledClick(revoke)
            confirmAndWait(page, "operator:intervention:revoked the permission on [/data/, /data0) (prefix /data/) from role reader")
            tryVerify(function() { return roleNamed(page, "reader").permissions.length === 0 }, qetcdTest.timeout(10000))

            settledClick(inCard(page, "reader", "deleteRole"))
            confirmAndWait(page, "operator:intervention:deleted role reader")
            tryVerify(function() { return roleNamed(page, "reader") === undefined }, qetcdTest.timeout(10000))
        }

        // Read-only: every write button is disabled, and the writes are refused unsent.
        function test_readOnlyRefusesBeforeSending() {
            const page = openPage({ client: asRootReadOnly.client, readOnly: true })
            for (const name of ["addUser", "addRole", "switchAuth"])
                verify(!findChild(page, name).button.enabled, name)
            verify(!inCard(page, "app", "deleteUser").button.enabled)
            const spy = createTemporaryObject(spyComponent, root, { target: access(page) })
            access(page).addUser("sneaky", "pw")
            spy.wait(qetcdTest.timeout(5000))
            compare(spy.signalArguments[0][0], "addUser")
            compare(spy.signalArguments[0][1].code, Etcd.StatusCode.ReadOnly)
            access(page).deleteUser("app")
            tryCompare(spy, "count", 2, qetcdTest.timeout(5000))
            compare(spy.signalArguments[1][1].code, Etcd.StatusCode.ReadOnly)
            tryVerify(function() { return userNamed(page, "app") !== undefined && userNamed(page, "sneaky") === undefined },
                      qetcdTest.timeout(10000))
            // The log takes its entries in batches.
            tryVerify(function() { return loggedText().indexOf("read-only") >= 0 }, qetcdTest.timeout(5000), loggedText())
        }

        // Off this machine the confirm button waits for the cluster's name.
        function test_typedConfirmationOffThisMachine() {
            const page = openPage({ confirmationWord: "production" })
            settledClick(inCard(page, "app", "deleteUser"))
            const confirm = opened(page, "confirmChange")
            const button = findChild(confirm.footer, "confirmButton")
            verify(!button.enabled)
            findChild(confirm, "typedConfirmation").text = "producti"
            verify(!button.enabled)
            findChild(confirm, "typedConfirmation").text = "production"
            verify(button.enabled)
            confirm.reject()
            tryCompare(confirm, "opened", false, qetcdTest.timeout(5000))
            compare(log.count, 0)
            verify(userNamed(page, "app") !== undefined)
        }

        // A user whose roles do not cover auth data sees why, not an empty page.
        function test_aUserWithoutRightsSeesWhy() {
            const page = openPage({ client: asApp.client })
            compare(access(page).status, ModelStatus.Error)
            const empty = findChild(page, "accessEmpty")
            verify(empty.visible)
            verify(empty.detail.indexOf("User \"app\" may not read the users and roles") >= 0, empty.detail)
            verify(empty.detail.indexOf("permission denied") >= 0, empty.detail)
        }

        // No root user on this etcd: enabling is blocked, the banner says why, and the call is
        // refused before anything is sent.
        function test_enableIsRefusedWithoutRoot() {
            const page = openPage({ client: open.client })
            const control = access(page)
            verify(!control.authEnabled)
            verify(!control.rootReady)
            const switchAuth = findChild(page, "switchAuth")
            verify(!switchAuth.button.enabled)
            verify(switchAuth.blockedReason.indexOf("root") >= 0)
            verify(findChild(page, "authOff").text.indexOf("until user root exists with role root") >= 0)
            const spy = createTemporaryObject(spyComponent, root, { target: control })
            control.enableAuth()
            spy.wait(qetcdTest.timeout(10000))
            compare(spy.signalArguments[0][1].code, Etcd.StatusCode.FailedPrecondition)
            verify(spy.signalArguments[0][2].indexOf("there is no user \"root\"") >= 0, spy.signalArguments[0][2])
            verify(!control.authEnabled)
        }
    }

    Component {
        id: spyComponent
        SignalSpy { signalName: "finished" }
    }
}
