// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd

TestCase {
    name: "Mutex"

    EtcdClient { id: direct; endpoints: [qetcdTest.endpoint] }
    EtcdClient { id: proxied; endpoints: [qetcdTest.proxyEndpoint] }

    Mutex { id: first; client: direct; path: "/qml/mutex/handoff"; ttl: 5 }
    Mutex { id: second; client: direct; path: "/qml/mutex/handoff"; ttl: 5 }
    Mutex { id: cutOff; client: proxied; path: "/qml/mutex/loss"; ttl: 2 }

    // A participant that writes its story down, and etcd's side of it from an unpartitioned client.
    EventLogModel { id: log }
    Mutex { id: recorded; client: proxied; path: "/qml/mutex/recorded"; ttl: 2; participantName: "A"; eventLog: log }
    KeyEventRecorder { id: etcdSide; client: direct.client; prefix: "/qml/mutex/recorded/"; eventLog: log }

    SignalSpy { id: firstAcquired; target: first; signalName: "acquired" }
    SignalSpy { id: firstReleased; target: first; signalName: "released" }
    SignalSpy { id: secondAcquired; target: second; signalName: "acquired" }
    SignalSpy { id: secondErrors; target: second; signalName: "errorOccurred" }
    SignalSpy { id: lost; target: cutOff; signalName: "lockLost" }
    SignalSpy { id: cutOffHeld; target: cutOff; signalName: "heldChanged" }

    function queued(prefix) {
        return qetcdTest.etcdctl(["get", "--prefix", "--keys-only", prefix]).split("\n")
            .filter(function(line) { return line !== "" })
    }

    // Spies count per test function.
    function init() {
        for (const spy of [firstAcquired, firstReleased, secondAcquired, secondErrors, lost, cutOffHeld])
            spy.clear()
    }

    function cleanup() {
        qetcdTest.setFault("pass")
        first.close()
        second.close()
        cutOff.close()
        recorded.close()
    }

    function test_lockHandsOffInOrder() {
        first.lock()
        compare(first.state, Participant.Pending)  // lock() returned before anything was acquired
        tryCompare(first, "held", true, qetcdTest.timeout(10000))
        compare(first.state, Participant.Active)
        compare(firstAcquired.count, 1)
        const token = first.fencingToken
        verify(token > 0)
        compare(firstAcquired.signalArguments[0][0], token)
        compare(first.holdKey, "/qml/mutex/handoff/" + first.leaseId)
        compare(first.leaseTtl, 5)
        verify(first.leaseTimeLeft > 0 && first.leaseTimeLeft <= 5000, first.leaseTimeLeft)

        second.lock()
        tryCompare(second, "state", Participant.Pending)
        tryVerify(function() { return queued("/qml/mutex/handoff/").length === 2 }, qetcdTest.timeout(10000))
        compare(second.held, false)

        verify(first.unlock())
        compare(first.held, false)
        compare(first.state, Participant.Idle)
        tryCompare(firstReleased, "count", 1)
        compare(firstReleased.signalArguments[0][0], token)
        tryCompare(second, "held", true, qetcdTest.timeout(10000))
        verify(second.fencingToken > token)
        compare(secondAcquired.count, 1)
        verify(second.unlock())
    }

    function test_timeoutIsAnError() {
        first.lock()
        tryCompare(first, "held", true, qetcdTest.timeout(10000))
        secondErrors.clear()
        second.lock(300)
        tryCompare(secondErrors, "count", 1, qetcdTest.timeout(10000))
        compare(secondErrors.signalArguments[0][0].code, Etcd.StatusCode.DeadlineExceeded)
        verify(second.errorString.indexOf("not acquired in time") >= 0, second.errorString)
        compare(second.state, Participant.Idle)
        compare(second.held, false)
    }

    // The loss is told by the holder's own clock while etcd cannot be reached: held turns false
    // with lockLost, and unlock() afterwards says the hold was not ours any more.
    function test_lossUnderBlackhole() {
        cutOff.lock()
        tryCompare(cutOff, "held", true, qetcdTest.timeout(15000))
        cutOffHeld.clear()
        qetcdTest.setFault("blackhole")
        tryCompare(cutOff, "held", false, qetcdTest.timeout(10000))
        compare(lost.count, 1)
        compare(cutOffHeld.count, 1)
        compare(lost.signalArguments[0][0].isOk, false)
        compare(cutOff.state, Participant.Lost)
        compare(cutOff.connectionState, Etcd.ConnectionState.Lost)
        compare(cutOff.fencingToken, 0)
        verify(cutOff.errorString !== "")
        qetcdTest.setFault("pass")
        compare(cutOff.unlock(), false)
        compare(cutOff.state, Participant.Idle)
    }

    function test_closeReleases() {
        first.lock()
        tryCompare(first, "held", true, qetcdTest.timeout(10000))
        first.close()
        compare(first.state, Participant.Closed)
        compare(first.held, false)
        tryVerify(function() { return queued("/qml/mutex/handoff/").length === 0 }, qetcdTest.timeout(10000))
        first.lock()  // a fresh start after close()
        tryCompare(first, "held", true, qetcdTest.timeout(10000))
    }

    function rowsOf(participants, kinds) {
        const rows = [];
        for (let i = 0; i < log.count; ++i) {
            const event = log.get(i);
            if (participants.indexOf(event.participant) >= 0 && kinds.indexOf(event.kind) >= 0)
                rows.push(event);
        }
        return rows;
    }

    // The event log tells the loss before etcd deleted the key, and the refused unlock after.
    function test_lossIsRecordedBeforeEtcdDeletesTheKey() {
        tryCompare(etcdSide, "watching", true, qetcdTest.timeout(10000))
        recorded.lock()
        tryCompare(recorded, "held", true, qetcdTest.timeout(15000))
        const key = recorded.holdKey
        qetcdTest.setFault("blackhole")
        tryCompare(recorded, "state", Participant.Lost, qetcdTest.timeout(10000))
        tryVerify(function() { return rowsOf(["etcd"], ["keyDeleted"]).length === 1 }, qetcdTest.timeout(15000))
        qetcdTest.setFault("pass")
        compare(recorded.unlock(), false)
        tryVerify(function() { return rowsOf(["A"], ["releaseFailed"]).length === 1 }, qetcdTest.timeout(5000))

        const story = rowsOf(["A", "etcd"], ["pending", "acquired", "lost", "keyDeleted", "releaseFailed"])
        compare(story.map(function(event) { return event.kind }).join(" "),
                "pending acquired lost keyDeleted releaseFailed")
        for (const event of story.slice(1, 4))
            compare(event.key, key)
        verify(story[2].time < story[3].time, "told at " + story[2].time + ", deleted at " + story[3].time)
        compare(rowsOf(["etcd"], ["keyPut"])[0].key, key)
        verify(rowsOf(["A"], ["leaseSuspended"]).length >= 1)
        verify(rowsOf(["A"], ["connectionState"]).some(function(event) { return event.detail === "Lost" }))
    }
}
