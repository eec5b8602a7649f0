// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd

TestCase {
    name: "Barriers"

    EtcdClient { id: direct; endpoints: [qetcdTest.endpoint] }
    EtcdClient { id: proxied; endpoints: [qetcdTest.proxyEndpoint] }

    Barrier { id: owner; client: direct; path: "/qml/barriers/gate" }
    Barrier { id: waiter; client: direct; path: "/qml/barriers/gate" }
    Barrier { id: cutOffOwner; client: proxied; path: "/qml/barriers/spurious"; ttl: 2 }
    Barrier { id: spuriousWaiter; client: direct; path: "/qml/barriers/spurious" }
    CountedBarrier { id: countedA; client: direct; path: "/qml/barriers/counted"; memberCount: 2 }
    CountedBarrier { id: countedB; client: direct; path: "/qml/barriers/counted"; memberCount: 2 }
    DoubleBarrier { id: doubleA; client: direct; path: "/qml/barriers/double"; memberCount: 2 }
    DoubleBarrier { id: doubleB; client: direct; path: "/qml/barriers/double"; memberCount: 2 }

    SignalSpy { id: waiterEnded; target: waiter; signalName: "waitEnded" }
    SignalSpy { id: spuriousEnded; target: spuriousWaiter; signalName: "waitEnded" }
    SignalSpy { id: ownerLease; target: cutOffOwner; signalName: "leaseEvent" }
    SignalSpy { id: doubleALeft; target: doubleA; signalName: "leftBarrier" }

    // Spies count per test function.
    function init() {
        for (const spy of [waiterEnded, spuriousEnded, ownerLease, doubleALeft])
            spy.clear()
    }

    function cleanup() {
        qetcdTest.setFault("pass")
        for (const participant of [owner, waiter, cutOffOwner, spuriousWaiter, countedA, countedB, doubleA, doubleB])
            participant.close()
    }

    function test_setWaitRemove() {
        owner.set()
        tryCompare(owner, "owner", true, qetcdTest.timeout(10000))
        compare(owner.state, Participant.Active)
        verify(owner.leaseId !== "")
        waiter.wait()
        compare(waiter.waiting, true)
        compare(waiter.state, Participant.Pending)
        owner.remove()
        tryCompare(waiterEnded, "count", 1, qetcdTest.timeout(10000))
        compare(waiter.lifted, true)
        compare(waiter.liftReason, Barrier.Removed)
        compare(waiter.spurious, false)
        compare(waiter.waiting, false)
        tryCompare(owner, "owner", false, qetcdTest.timeout(10000))
    }

    // Scenario 2 of the console: the owner is cut off past its TTL, the waiter passes and is
    // told the lift was spurious, and the owner's lease heals and re-arms the barrier.
    function test_spuriousLiftIsMarked() {
        cutOffOwner.set()
        tryCompare(cutOffOwner, "owner", true, qetcdTest.timeout(15000))
        spuriousWaiter.wait()
        ownerLease.clear()
        qetcdTest.setFault("blackhole")
        tryCompare(spuriousEnded, "count", 1, qetcdTest.timeout(15000))
        compare(spuriousWaiter.liftReason, Barrier.LeaseExpired)
        compare(spuriousWaiter.spurious, true)
        qetcdTest.setFault("pass")
        tryVerify(function() {
            for (let i = 0; i < ownerLease.count; ++i) {
                if (ownerLease.signalArguments[i][0] === Etcd.LeaseEventKind.Restored)
                    return true
            }
            return false
        }, qetcdTest.timeout(20000))
        tryVerify(function() { return qetcdTest.etcdctl(["get", "/qml/barriers/spurious", "--keys-only"]).trim() !== "" },
                  qetcdTest.timeout(10000))
        compare(cutOffOwner.state, Participant.Active)
    }

    function test_countedBarrierPassesWhenAllArrived() {
        countedA.wait()
        tryVerify(function() { countedA.refreshArrived(); return countedA.arrived === 1 }, qetcdTest.timeout(10000))
        compare(countedA.lifted, false)
        countedB.wait()
        tryCompare(countedA, "lifted", true, qetcdTest.timeout(10000))
        tryCompare(countedB, "lifted", true, qetcdTest.timeout(10000))
        compare(countedA.state, Participant.Active)
    }

    function test_doubleBarrierEntersAndLeavesTogether() {
        doubleA.enter()
        compare(doubleA.state, Participant.Pending)
        doubleB.enter()
        tryCompare(doubleA, "entered", true, qetcdTest.timeout(10000))
        tryCompare(doubleB, "entered", true, qetcdTest.timeout(10000))
        doubleA.leave()
        compare(doubleA.left, false)
        doubleB.leave()
        tryCompare(doubleALeft, "count", 1, qetcdTest.timeout(10000))
        tryCompare(doubleB, "left", true, qetcdTest.timeout(10000))
    }
}
