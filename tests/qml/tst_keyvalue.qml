// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd

// TransientKey, ServiceRegistration, Counter, Queue and WorkQueue.
TestCase {
    name: "KeyValue"

    EtcdClient { id: direct; endpoints: [qetcdTest.endpoint] }

    TransientKey { id: presence; client: direct; path: "/qml/kv/presence"; value: "here" }
    ServiceRegistration { id: registration; client: direct; path: "/qml/kv/services"; name: "api"; address: "10.0.0.7"; port: 8080 }
    Counter { id: counter; client: direct; path: "/qml/kv/counter" }
    Queue { id: queue; client: direct; path: "/qml/kv/queue" }
    WorkQueue { id: producer; client: direct; path: "/qml/kv/work" }
    WorkQueue { id: worker1; client: direct; path: "/qml/kv/work"; clientId: "worker1"; ttl: 10 }
    WorkQueue { id: worker2; client: direct; path: "/qml/kv/work"; clientId: "worker2"; ttl: 10 }

    SignalSpy { id: casFinished; target: counter; signalName: "compareAndSetFinished" }
    SignalSpy { id: taken; target: queue; signalName: "taken" }
    SignalSpy { id: enqueued; target: queue; signalName: "enqueued" }
    SignalSpy { id: queueErrors; target: queue; signalName: "errorOccurred" }
    SignalSpy { id: workEnqueued; target: producer; signalName: "enqueued" }
    SignalSpy { id: received1; target: worker1; signalName: "received" }
    SignalSpy { id: received2; target: worker2; signalName: "received" }
    SignalSpy { id: acknowledged2; target: worker2; signalName: "acknowledged" }
    SignalSpy { id: refused1; target: worker1; signalName: "ackRefused" }
    SignalSpy { id: errors1; target: worker1; signalName: "errorOccurred" }

    function valueOf(key) {
        return qetcdTest.etcdctl(["get", key, "--print-value-only"]).trim()
    }

    function test_transientKeyLivesWhileStarted() {
        presence.start()
        tryCompare(presence, "state", Participant.Active, qetcdTest.timeout(10000))
        compare(valueOf("/qml/kv/presence"), "here")
        verify(presence.leaseId !== "")
        verify(presence.leaseTimeLeft > 0)
        presence.close()
        compare(presence.state, Participant.Closed)
        tryCompare(presence, "leaseId", "")
        tryVerify(function() { return valueOf("/qml/kv/presence") === "" }, qetcdTest.timeout(10000))
    }

    function test_serviceRegistersAndUnregisters() {
        registration.registerService()
        tryCompare(registration, "state", Participant.Active, qetcdTest.timeout(10000))
        verify(registration.instanceId !== "")
        verify(registration.instanceKey.indexOf(registration.instanceId) >= 0, registration.instanceKey)
        const stored = JSON.parse(valueOf(registration.instanceKey))
        compare(stored.name, "api")
        compare(stored.address, "10.0.0.7")
        compare(stored.port, 8080)
        const key = registration.instanceKey
        registration.unregisterService()
        compare(registration.state, Participant.Idle)
        tryVerify(function() { return valueOf(key) === "" }, qetcdTest.timeout(10000))
        registration.close()
    }

    function test_counterAddsAndComparesAndSets() {
        counter.add(5)
        tryCompare(counter, "value", 5, qetcdTest.timeout(10000))
        counter.increment()
        tryCompare(counter, "value", 6, qetcdTest.timeout(10000))
        counter.compareAndSet(6, 10)
        tryCompare(casFinished, "count", 1, qetcdTest.timeout(10000))
        compare(casFinished.signalArguments[0][0], true)
        compare(counter.value, 10)
        counter.compareAndSet(6, 11)
        tryCompare(casFinished, "count", 2, qetcdTest.timeout(10000))
        compare(casFinished.signalArguments[1][0], false)
        compare(casFinished.signalArguments[1][1], 10)
        counter.refresh()
        tryCompare(counter, "state", Participant.Idle, qetcdTest.timeout(10000))
        compare(counter.value, 10)
        counter.close()
    }

    function test_queueKeepsOrder() {
        queue.put("first")
        tryCompare(enqueued, "count", 1, qetcdTest.timeout(10000))  // one after the other: order is the point
        queue.put("second")
        tryCompare(enqueued, "count", 2, qetcdTest.timeout(10000))
        tryVerify(function() { queue.refreshDepth(); return queue.depth === 2 }, qetcdTest.timeout(10000))
        queue.take()
        tryCompare(taken, "count", 1, qetcdTest.timeout(10000))
        compare(taken.signalArguments[0][1], "first")
        queue.take(0)
        tryCompare(taken, "count", 2, qetcdTest.timeout(10000))
        compare(taken.signalArguments[1][1], "second")
        compare(queueErrors.count, 0)
        queue.close()
    }

    // A delivery is held until it is settled: given back, it goes to the next consumer one attempt
    // later and is acknowledged there; a claim deleted behind its consumer's back (its lease
    // expired, an operator) makes that consumer's acknowledgement a refusal, not a success.
    function test_workQueueDeliversAgainAndRefusesALostClaim() {
        producer.enqueue("job-1")
        tryCompare(workEnqueued, "count", 1, qetcdTest.timeout(10000))
        worker1.receive()
        tryCompare(received1, "count", 1, qetcdTest.timeout(10000))
        compare(received1.signalArguments[0][1], "job-1")
        compare(received1.signalArguments[0][2], 1)
        compare(worker1.state, Participant.Active)
        compare(worker1.attempt, 1)
        const id = worker1.itemId
        verify(id.length > 0)
        compare(valueOf("/qml/kv/work/claims/" + id), "worker1")

        worker1.requeue()
        tryCompare(worker1, "state", Participant.Idle, qetcdTest.timeout(10000))
        compare(worker1.itemId, "")
        worker2.receive()
        tryCompare(received2, "count", 1, qetcdTest.timeout(10000))
        compare(received2.signalArguments[0][0], id)
        compare(received2.signalArguments[0][2], 2, "the second delivery")
        worker2.ack()
        tryCompare(acknowledged2, "count", 1, qetcdTest.timeout(10000))
        compare(acknowledged2.signalArguments[0][0], id)
        compare(qetcdTest.etcdctl(["get", "--prefix", "--keys-only", "/qml/kv/work/"]).trim(), "", "done and gone")

        worker1.ack()  // nothing held
        tryCompare(errors1, "count", 1)
        compare(worker1.errorString.indexOf("no delivery held") >= 0, true, worker1.errorString)

        producer.enqueue("job-2")
        tryCompare(workEnqueued, "count", 2, qetcdTest.timeout(10000))
        worker1.receive()
        tryCompare(received1, "count", 2, qetcdTest.timeout(10000))
        qetcdTest.etcdctl(["del", "/qml/kv/work/claims/" + worker1.itemId])
        worker1.ack()
        tryCompare(refused1, "count", 1, qetcdTest.timeout(10000))
        compare(worker1.state, Participant.Idle)
        compare(errors1.count, 1, "a refusal is not an error")
        worker1.close()
        worker2.close()
        producer.close()
    }
}
