import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The console's Coordination page against a real etcd: a holder's lease as a countdown ring,
// and a pause that holds the cards still while etcd changes.
Item {
    id: root
    width: 1200
    height: 760

    EtcdClient { id: direct; endpoints: [qetcdTest.endpoint] }
    Mutex { id: mutex; client: direct; path: "/qml/coordinationpage/locks/deploy"; ttl: 7 }
    Mutex { id: second; client: direct; path: "/qml/coordinationpage/locks/deploy"; ttl: 7 }
    Barrier { id: gate; client: direct; path: "/qml/coordinationpage/gates/start"; ttl: 9 }

    Component {
        id: coordinationPage
        CoordinationPage { anchors.fill: parent }
    }

    TestCase {
        name: "CoordinationPage"
        when: windowShown

        function cleanup() {
            second.close()
            mutex.close()
            gate.close()
        }

        function openPage() {
            const page = createTemporaryObject(coordinationPage, root, { client: direct.client })
            verify(page)
            page.model.prefix = "/qml/coordinationpage/"
            tryCompare(page, "ready", true, qetcdTest.timeout(10000))
            return page
        }
        function rings(page) {
            const found = []
            const visit = function(item) {
                if (item.objectName === "leaseRing" && item.visible)
                    found.push(item)
                for (let i = 0; i < item.children.length; ++i)
                    visit(item.children[i])
            }
            visit(page)
            return found
        }

        function test_holderShowsItsLeaseAsARing() {
            mutex.lock()
            tryCompare(mutex, "held", true, qetcdTest.timeout(10000))
            const page = openPage()
            tryVerify(function() { return rings(page).length === 1 }, qetcdTest.timeout(10000))
            const ring = rings(page)[0]
            compare(ring.total, 7)
            verify(ring.remaining > 0 && ring.remaining <= 7, ring.remaining)
            // It counts down between the model's refreshes, and the holder's renewals refill it.
            const first = ring.remaining
            tryVerify(function() { return ring.remaining !== first }, qetcdTest.timeout(5000))

            mutex.unlock()
            tryVerify(function() { return rings(page).length === 0 }, qetcdTest.timeout(10000))
        }

        // A card's holders and waiters are a new list with every change, while the page is
        // resized: their rows must never be measured after they are gone (the Keys page's crash
        // shape, issue 32 §2, here in EntryList).
        function test_entriesComeAndGoWhileThePageResizes() {
            const page = openPage()
            const cards = findChild(page, "cards")
            const widthBefore = root.width
            const card = function() { return cards.count === 1 ? cards.itemAt(0) : null }
            for (let i = 0; i < 20; ++i) {
                mutex.lock()
                tryCompare(mutex, "held", true, qetcdTest.timeout(10000))
                second.lock()
                tryVerify(function() { return card() && card().waiters.length === 1 }, qetcdTest.timeout(10000))
                root.width = widthBefore - 40 + (i % 5) * 20
                waitForRendering(page)
                mutex.unlock()
                tryCompare(second, "held", true, qetcdTest.timeout(10000))
                tryVerify(function() { return card() && card().waiters.length === 0 }, qetcdTest.timeout(10000))
                root.width = widthBefore + 40 - (i % 5) * 20
                waitForRendering(page)
                second.unlock()
                tryVerify(function() { return cards.count === 0 }, qetcdTest.timeout(10000))
            }
            root.width = widthBefore
        }

        function test_pauseHoldsTheCardsStill() {
            mutex.lock()
            tryCompare(mutex, "held", true, qetcdTest.timeout(10000))
            const page = openPage()
            tryCompare(page.model, "count", 1, qetcdTest.timeout(10000))
            const shown = page.model.count

            page.paused = true
            gate.set()
            tryCompare(gate, "owner", true, qetcdTest.timeout(10000))
            tryCompare(page.model, "count", shown + 1, qetcdTest.timeout(10000))
            const cards = findChild(page, "cards")
            compare(cards.count, shown, "a paused page shows the objects as they were")
            verify(findChild(page, "heldNote").text.length > 0)

            page.paused = false
            tryCompare(cards, "count", shown + 1, qetcdTest.timeout(10000))
        }
    }
}
