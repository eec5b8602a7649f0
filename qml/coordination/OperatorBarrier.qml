// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QEtcd
import QEtcdConsole

// A barrier the operator set from the Coordination page. The console owns it, on a client of
// its own, and keeps its presence lease renewed (healing it after an expiry) for as long as
// the console runs; it comes down when the operator lifts it, when the console closes, or, if
// the console dies, when its lease runs out. Events go to the log as the participant "operator".
QtObject {
    id: owned
    required property string path
    property var options: ({})
    property bool readOnly: false
    property EventLogModel eventLog
    // The barrier's lease, in hex as the cards show it; empty while it is not set.
    readonly property string leaseId: barrier.owner ? barrier.leaseId : ""
    // Done with, once: \a refusal says why it was never set (someone else's barrier is up, or
    // the client refused); empty when it was set and is not the console's any more (lifted here
    // or by someone else).
    signal ended(string refusal)
    property bool wasSet: false
    property bool over: false
    function end(refusal) {
        if (!over) {
            over = true;
            ended(refusal);
        }
    }

    readonly property EtcdClient client: ConsoleClient {
        options: owned.options
        readOnly: owned.readOnly
    }
    readonly property Barrier barrier: Barrier {
        client: owned.client
        participantName: "operator"
        eventLog: owned.eventLog
        path: owned.path
        // Long enough to ride out a short partition without waiters seeing a spurious lift.
        ttl: 15
        onOwnerChanged: owner ? owned.wasSet = true : owned.end("")
        onErrorOccurred: if (!owned.wasSet) owned.end(errorString)
    }

    function set() { barrier.set() }
    function lift() { barrier.remove() }
}
