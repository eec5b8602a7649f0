// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd

// Semaphore and ReadWriteLock; Mutex has its own suite.
TestCase {
    name: "Locks"

    EtcdClient { id: direct; endpoints: [qetcdTest.endpoint] }
    EtcdClient { id: proxied; endpoints: [qetcdTest.proxyEndpoint] }

    Semaphore { id: permitA; client: direct; path: "/qml/locks/pool"; permits: 2; ttl: 5 }
    Semaphore { id: permitB; client: direct; path: "/qml/locks/pool"; permits: 2; ttl: 5 }
    Semaphore { id: permitC; client: direct; path: "/qml/locks/pool"; permits: 2; ttl: 5 }
    Semaphore { id: cutOffPermit; client: proxied; path: "/qml/locks/cutoff"; permits: 1; ttl: 2 }
    ReadWriteLock { id: readerA; client: direct; path: "/qml/locks/rw"; ttl: 5 }
    ReadWriteLock { id: readerB; client: direct; path: "/qml/locks/rw"; ttl: 5 }
    ReadWriteLock { id: writer; client: direct; path: "/qml/locks/rw"; ttl: 5 }

    SignalSpy { id: permitCAcquired; target: permitC; signalName: "acquired" }
    SignalSpy { id: permitLost; target: cutOffPermit; signalName: "permitLost" }
    SignalSpy { id: writerAcquired; target: writer; signalName: "acquired" }
    SignalSpy { id: readerAReleased; target: readerA; signalName: "released" }

    // Spies count per test function.
    function init() {
        for (const spy of [permitCAcquired, permitLost, writerAcquired, readerAReleased])
            spy.clear()
    }

    function cleanup() {
        qetcdTest.setFault("pass")
        for (const participant of [permitA, permitB, permitC, cutOffPermit, readerA, readerB, writer])
            participant.close()
    }

    function test_semaphoreLetsTwoIn() {
        permitA.acquire()
        permitB.acquire()
        tryCompare(permitA, "held", true, qetcdTest.timeout(10000))
        tryCompare(permitB, "held", true, qetcdTest.timeout(10000))
        verify(permitA.fencingToken !== permitB.fencingToken)
        compare(permitA.leaseTtl, 5)
        permitC.refreshAvailable()
        tryCompare(permitC, "available", 0, qetcdTest.timeout(10000))
        permitC.acquire()
        compare(permitC.state, Participant.Pending)
        tryVerify(function() {
            return qetcdTest.etcdctl(["get", "--prefix", "--keys-only", "/qml/locks/pool/holders/"])
                .split("\n").filter(function(line) { return line !== "" }).length === 3
        }, qetcdTest.timeout(10000))
        compare(permitC.held, false)
        verify(permitA.release())
        tryCompare(permitC, "held", true, qetcdTest.timeout(10000))
        compare(permitCAcquired.count, 1)
        compare(permitC.state, Participant.Active)
    }

    function test_semaphorePermitLostUnderBlackhole() {
        cutOffPermit.acquire()
        tryCompare(cutOffPermit, "held", true, qetcdTest.timeout(15000))
        qetcdTest.setFault("blackhole")
        tryCompare(cutOffPermit, "held", false, qetcdTest.timeout(10000))
        compare(permitLost.count, 1)
        compare(cutOffPermit.state, Participant.Lost)
        qetcdTest.setFault("pass")
        compare(cutOffPermit.release(), false)
    }

    function test_readersShareWritersWait() {
        readerA.lockRead()
        readerB.lockRead()
        tryCompare(readerA, "readHeld", true, qetcdTest.timeout(10000))
        tryCompare(readerB, "readHeld", true, qetcdTest.timeout(10000))
        compare(readerA.held, true)
        compare(readerA.writeHeld, false)
        const readToken = readerA.readFencingToken
        verify(readToken > 0)
        writer.lockWrite()
        compare(writer.state, Participant.Pending)
        verify(readerA.unlockRead())
        tryCompare(readerAReleased, "count", 1)
        compare(readerAReleased.signalArguments[0][0], ReadWriteLock.Read)
        compare(writer.writeHeld, false)  // readerB still reads
        verify(readerB.unlockRead())
        tryCompare(writer, "writeHeld", true, qetcdTest.timeout(10000))
        compare(writerAcquired.signalArguments[0][0], ReadWriteLock.Write)
        verify(writer.writeFencingToken > readToken)
        verify(writer.unlockWrite())
        compare(writer.state, Participant.Idle)
    }
}
