// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QEtcd

ApplicationWindow {
    id: window

    required property string endpoint
    required property bool quitWhenShown
    readonly property string lockPath: "/examples/locks/report"

    width: 420
    height: 160
    visible: true
    title: qsTr("Who holds %1").arg(lockPath)

    EtcdClient {
        id: etcd
        endpoints: [window.endpoint]
    }
    // Every coordination object under the path, live; a lock's row lists its holder and waiters.
    CoordinationModel {
        id: locks
        client: etcd.client
        prefix: window.lockPath
    }
    Mutex {
        id: mine
        client: etcd
        path: window.lockPath
        onLockLost: (cause) => console.warn("lost the lock:", cause.message)  // held is false already
    }

    Column {
        anchors.centerIn: parent
        spacing: 12

        Label {
            text: qsTr("%1 is free").arg(window.lockPath)
            visible: locks.count === 0
        }
        Repeater {
            model: locks
            delegate: Label {
                required property string kind
                required property string name
                required property var holders
                required property var waiters

                visible: kind === "lock"
                text: holders.length === 0 ? qsTr("%1 is free").arg(name)
                    : qsTr("%1 held by %2 (pid %3 on %4), %5 waiting")
                          .arg(name).arg(holders[0].name).arg(holders[0].pid).arg(holders[0].host)
                          .arg(waiters.length)
                property string reported
                onTextChanged: report()
                Component.onCompleted: report()

                function report() {
                    if (kind !== "lock" || holders.length === 0 || text === reported)
                        return
                    reported = text
                    console.info(text)
                    if (window.quitWhenShown)
                        Qt.callLater(() => Qt.quit())
                }
            }
        }
        Button {
            text: mine.held ? qsTr("Unlock") : qsTr("Lock")
            onClicked: mine.held ? mine.unlock() : mine.lock()
        }
    }
}
