// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd

TestCase {
    name: "Election"

    EtcdClient { id: direct; endpoints: [qetcdTest.endpoint] }
    EtcdClient { id: proxied; endpoints: [qetcdTest.proxyEndpoint] }

    Election { id: nodeA; client: direct; path: "/qml/election/leader"; proclamation: "node-a"; ttl: 5 }
    Election { id: nodeB; client: direct; path: "/qml/election/leader"; proclamation: "node-b"; ttl: 5 }
    Election { id: cutOff; client: proxied; path: "/qml/election/cutoff"; proclamation: "node-c"; ttl: 2; autoRequeue: false }
    ElectionObserver { id: observer; client: direct; path: "/qml/election/leader" }

    SignalSpy { id: nodeAElected; target: nodeA; signalName: "elected" }
    SignalSpy { id: nodeATermEnded; target: nodeA; signalName: "termEnded" }
    SignalSpy { id: nodeBElected; target: nodeB; signalName: "elected" }
    SignalSpy { id: cutOffLost; target: cutOff; signalName: "leadershipLost" }

    // Spies count per test function.
    function init() {
        for (const spy of [nodeAElected, nodeATermEnded, nodeBElected, cutOffLost])
            spy.clear()
    }

    function cleanup() {
        qetcdTest.setFault("pass")
        for (const participant of [nodeA, nodeB, cutOff, observer])
            participant.close()
    }

    function test_campaignProclaimResign() {
        observer.start()
        tryCompare(observer, "state", Participant.Active, qetcdTest.timeout(10000))
        compare(observer.hasLeader, false)

        nodeA.campaign()
        compare(nodeA.state, Participant.Pending)
        tryCompare(nodeA, "isLeader", true, qetcdTest.timeout(10000))
        compare(nodeAElected.count, 1)
        verify(nodeA.fencingToken > 0)
        verify(nodeA.key.indexOf("/qml/election/leader/") === 0, nodeA.key)
        verify(nodeA.leaseId !== "")
        tryCompare(observer, "leader", "node-a", qetcdTest.timeout(10000))
        compare(observer.leaderKey, nodeA.key)
        compare(observer.leaderFencingToken, nodeA.fencingToken)

        nodeB.campaign()
        tryVerify(function() { observer.refreshCandidates(); return observer.candidates.length === 2 },
                  qetcdTest.timeout(10000))
        compare(observer.candidates[0].value, "node-a")
        compare(observer.candidates[0].isLeader, true)
        compare(observer.candidates[1].value, "node-b")
        compare(nodeB.isLeader, false)

        nodeA.proclamation = "node-a v2"
        tryCompare(observer, "leader", "node-a v2", qetcdTest.timeout(10000))

        nodeA.resign()
        compare(nodeA.isLeader, false)
        compare(nodeA.state, Participant.Idle)
        tryCompare(nodeB, "isLeader", true, qetcdTest.timeout(10000))
        compare(nodeBElected.count, 1)
        tryCompare(observer, "leader", "node-b", qetcdTest.timeout(10000))
        nodeB.refreshCandidates()
        tryVerify(function() { return nodeB.candidates.length === 1 }, qetcdTest.timeout(10000))
    }

    function test_leadershipLostUnderBlackhole() {
        cutOff.campaign()
        tryCompare(cutOff, "isLeader", true, qetcdTest.timeout(15000))
        qetcdTest.setFault("blackhole")
        tryCompare(cutOff, "isLeader", false, qetcdTest.timeout(10000))
        compare(cutOffLost.count, 1)
        compare(cutOff.connectionState, Etcd.ConnectionState.Lost)
    }
}
