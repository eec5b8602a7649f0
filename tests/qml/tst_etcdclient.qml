// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd

TestCase {
    name: "EtcdClient"

    EtcdClient {
        id: healthy
        endpoints: [qetcdTest.endpoint]
        healthCheckInterval: 200
    }
    EtcdClient {
        id: proxied
        endpoints: [qetcdTest.proxyEndpoint]
        healthCheckInterval: 200
    }
    EtcdClient {
        id: refused
        endpoints: ["ftp://127.0.0.1:1"]
    }
    SignalSpy { id: proxiedStates; target: proxied; signalName: "connectionStateChanged" }

    // Spies count per test function.
    function init() {
        for (const spy of [proxiedStates])
            spy.clear()
    }

    function cleanup() {
        qetcdTest.setFault("pass")
    }

    function test_connects() {
        tryCompare(healthy, "connectionState", Etcd.ConnectionState.Connected, qetcdTest.timeout(10000))
        compare(healthy.errorString, "")
        compare(healthy.activeEndpoint, qetcdTest.endpoint)
    }

    // The module's version is the library's: its own major.minor imports, the next major does not.
    function test_moduleVersionIsTheLibrarys() {
        const version = qetcdTest.libraryMajorVersion + "." + qetcdTest.libraryMinorVersion
        const versioned = createTemporaryQmlObject("import QEtcd " + version + "; EtcdClient { endpoints: [\"" + qetcdTest.endpoint + "\"] }", this)
        verify(versioned, "import QEtcd " + version + " failed")
        // The module's C++ singletons too, through the versioned import and without a version.
        for (const header of ["import QEtcd " + version, "import QEtcd"]) {
            const probe = createTemporaryQmlObject(header + "; import QtQuick; QtObject { readonly property string escaped: DisplayText.escape(\"a\\nb\"); readonly property bool checked: ValueCheck.json(\"{}\").valid }", this)
            verify(probe, header + ": the singletons did not resolve")
            compare(probe.escaped, "a\\nb", header)
            verify(probe.checked, header)
        }
        const nextMajor = (qetcdTest.libraryMajorVersion + 1) + ".0"
        let refusal = ""
        try {
            Qt.createQmlObject("import QEtcd " + nextMajor + "; EtcdClient {}", this)
        } catch (error) {
            refusal = error.qmlErrors.map(e => e.message).join("; ")
        }
        verify(refusal.indexOf("version") >= 0, "import QEtcd " + nextMajor + ": " + (refusal || "no error"))
    }

    // The "app" user may read only under /app/, not the probe's key: its client still connects.
    function test_aRestrictedUserConnects() {
        const endpoint = qetcdTest.authEndpoint()
        verify(endpoint.length > 0, "the authenticated member did not start")
        const restricted = createTemporaryQmlObject('import QEtcd; EtcdClient { endpoints: ["' + endpoint
                                                    + '"]; user: "app"; password: "apppw"; healthCheckInterval: 200 }', this)
        tryCompare(restricted, "connectionState", Etcd.ConnectionState.Connected, qetcdTest.timeout(10000))
        compare(restricted.errorString, "")
        // A wrong password is no answer.
        restricted.password = "wrong"
        tryCompare(restricted, "connectionState", Etcd.ConnectionState.Suspended, qetcdTest.timeout(10000))
    }

    function test_refusedOptionsSayWhy() {
        compare(refused.connectionState, Etcd.ConnectionState.Lost)
        verify(refused.errorString.indexOf("ftp") >= 0, refused.errorString)
        // Rebuilt with good options, the same item connects.
        refused.endpoints = [qetcdTest.endpoint]
        tryCompare(refused, "connectionState", Etcd.ConnectionState.Connected, qetcdTest.timeout(10000))
        compare(refused.errorString, "")
    }

    function test_suspendedWhileCutOffThenReconnected() {
        tryCompare(proxied, "connectionState", Etcd.ConnectionState.Connected, qetcdTest.timeout(10000))
        proxiedStates.clear()
        qetcdTest.setFault("blackhole")
        tryCompare(proxied, "connectionState", Etcd.ConnectionState.Suspended, qetcdTest.timeout(10000))
        verify(proxied.errorString !== "")
        qetcdTest.setFault("pass")
        tryCompare(proxied, "connectionState", Etcd.ConnectionState.Reconnected, qetcdTest.timeout(15000))
        compare(proxiedStates.count, 2)
        compare(proxiedStates.signalArguments[0][0], Etcd.ConnectionState.Suspended)
        compare(proxiedStates.signalArguments[1][0], Etcd.ConnectionState.Reconnected)
    }

    function test_statusIsReadableAsAValue() {
        var readOnly = Qt.createQmlObject(
            "import QEtcd; EtcdClient { readOnly: true; endpoints: ['" + qetcdTest.endpoint + "'] }", this)
        var mutex = Qt.createQmlObject("import QEtcd; Mutex { path: '/qml/client/readonly' }", this)
        var errors = Qt.createQmlObject("import QtTest; SignalSpy { signalName: 'errorOccurred' }", this)
        errors.target = mutex
        mutex.client = readOnly
        mutex.lock()
        tryCompare(errors, "count", 1, qetcdTest.timeout(10000))
        var status = errors.signalArguments[0][0]
        compare(status.code, Etcd.StatusCode.ReadOnly)
        compare(status.codeName, "ReadOnly")
        compare(status.isOk, false)
        verify(status.message.indexOf("read-only") >= 0, status.message)
        verify(status.toString().indexOf("ReadOnly: ") === 0, status.toString())
        compare(mutex.errorString, status.message)
        compare(mutex.held, false)
        compare(mutex.state, Participant.Idle)
        mutex.destroy()
        readOnly.destroy()
    }
}
